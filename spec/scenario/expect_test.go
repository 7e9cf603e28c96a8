package scenario

import (
	"testing"

	"github.com/kvcheck/kvcheck/spec"
)

// TestScenarioExpectationsComplete: every built-in scenario declares one
// verdict per variant it runs, naming an invariant of the spec or ok.
func TestScenarioExpectationsComplete(t *testing.T) {
	for _, sc := range All() {
		if err := sc.checkExpectations(); err != nil {
			t.Error(err)
		}
		sp, err := sc.Spec(0)
		if err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{}
		for _, v := range spec.Verdicts(sp) {
			known[v] = true
		}
		for label, verdict := range sc.Expect {
			if !known[verdict] {
				t.Errorf("scenario %s expects %q of %s: not an invariant", sc.Name, verdict, label)
			}
		}
	}
}

// TestEveryScenarioGoalHasAName: scenario files name goals, so every goal
// a built-in scenario uses can be looked up by its name.
func TestEveryScenarioGoalHasAName(t *testing.T) {
	for _, sc := range All() {
		for _, g := range sc.Goals {
			if found, err := spec.LookupGoal(g.Name); err != nil || found.Doc != g.Doc {
				t.Errorf("scenario %s: goal %s: %v", sc.Name, g.Name, err)
			}
		}
	}
}
