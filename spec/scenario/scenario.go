package scenario

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// Scenario is a built-in configuration, scaled down from a seed crash
// report (or a small one that reaches mechanisms the others leave alone),
// with its goals, the fixes that are checked against it and the verdict
// expected of each variant.
type Scenario struct {
	// ScenarioInfo is what a Spec made from the scenario keeps of it: its
	// name, doc, seed report, goals and the invariants it checks
	// elsewhere.
	spec.ScenarioInfo
	Config spec.Config
	// Reaches lists mechanisms ("branch NAME", "raise NAME", "action
	// NAME") the scenario exists to exercise: `kvcheck check` collects
	// coverage for it and reports a complete run that never exercised one
	// as an unreached goal, so a change that stops reaching it fails the
	// check instead of passing vacuously.
	Reaches []string
	// Sweep, from a scenario file's default_sweep: ("key=range" as
	// kvcheck sweep --range takes them), are the ranges `kvcheck
	// sweep` takes for the scenario when none are given (DefaultRanges),
	// declared with the scenario; nil for a scenario whose defaults are
	// in defaultRanges.
	Sweep []string
	// FixSets are the fix combinations `kvcheck check` runs besides the
	// real code (no fix).
	FixSets [][]spec.Fix
	// Expect is the verdict expected of each variant, keyed by its fix
	// set's Label ("real-code", "joint-admission",
	// "record-draft-lens+clamp-capacity"): the invariant the variant breaks
	// first, or VerdictOK. `kvcheck check` exits 0 when every verdict is as
	// expected; `kvcheck check --expect FILE` overrides it.
	Expect map[string]string
	// Depth and MaxStates are the default search bounds.
	Depth     int
	MaxStates int
}

// Variants returns the fix sets `kvcheck check` runs the scenario under
// by default: the real code (no fix) first, then each of FixSets.
func (sc *Scenario) Variants() []spec.Fixes {
	out := []spec.Fixes{0}
	for _, set := range sc.FixSets {
		out = append(out, spec.FixSetOf(set...))
	}
	return out
}

// Spec returns the scenario's spec with fixes applied.
func (sc *Scenario) Spec(fixes spec.Fixes) (*spec.Spec, error) {
	sp, err := spec.New(sc.Config, fixes)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	sp.Scenario = sc.Info()
	return sp, nil
}

// Info returns what a Spec made from sc keeps of it (Spec.Scenario), nil
// for a nil sc: a spec built some other way (spec.New on a configuration
// of sc's space) is given its scenario's goals and checked-elsewhere
// invariants through it.
func (sc *Scenario) Info() *spec.ScenarioInfo {
	if sc == nil {
		return nil
	}
	return &sc.ScenarioInfo
}

// builtinScenarios lists every built-in scenario in the order `kvcheck
// check` runs them (scenarioNames).
var builtinScenarios = scenarioFiles()

// All returns the built-in scenarios.
func All() []*Scenario { return builtinScenarios }

// Lookup returns the built-in scenario named name, or an error
// listing the valid names.
func Lookup(name string) (*Scenario, error) {
	for _, sc := range builtinScenarios {
		if sc.Name == name {
			return sc, nil
		}
	}
	names := make([]string, 0, len(builtinScenarios))
	for _, sc := range builtinScenarios {
		names = append(names, sc.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown scenario %q; valid scenarios: %s", name, strings.Join(names, ", "))
}

// Checking returns the scenario with the invariants named taken back from
// CheckedElsewhere: a user who asks for one by name (--invariant) gets it
// checked here too. It returns sc itself when none of them was left out.
func (sc *Scenario) Checking(names []string) *Scenario {
	var back []string
	for _, n := range names {
		if _, ok := sc.CheckedElsewhere[n]; ok {
			back = append(back, n)
		}
	}
	if len(back) == 0 {
		return sc
	}
	c := *sc
	c.CheckedElsewhere = make(map[string]string, len(sc.CheckedElsewhere))
	for k, v := range sc.CheckedElsewhere {
		c.CheckedElsewhere[k] = v
	}
	for _, n := range back {
		delete(c.CheckedElsewhere, n)
	}
	return &c
}
