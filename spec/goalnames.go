package spec

import (
	"fmt"
	"strings"
)

// allGoals lists every goal a scenario may name, so scenario files can
// name them: each goal is declared once, with defineGoal.
var allGoals []*GoalDef

// defineGoal declares a goal and returns it.
func defineGoal(g GoalDef) GoalDef {
	for _, other := range allGoals {
		if other.Name == g.Name {
			panic("spec: goal " + g.Name + " declared twice")
		}
	}
	allGoals = append(allGoals, &g)
	return g
}

// GoalNames returns the names of every goal, in a stable order.
func GoalNames() []string {
	names := make([]string, len(allGoals))
	for i, g := range allGoals {
		names[i] = g.Name
	}
	return names
}

// LookupGoal returns the goal named name, or an error listing the valid
// names.
func LookupGoal(name string) (GoalDef, error) {
	for _, g := range allGoals {
		if g.Name == name {
			return *g, nil
		}
	}
	return GoalDef{}, fmt.Errorf("unknown goal %q; valid goals: %s", name, strings.Join(GoalNames(), ", "))
}
