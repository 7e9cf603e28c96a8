package spec

import (
	"fmt"
	"sort"
	"strings"
)

// testScenario is a built-in scenario as spec's internal tests see it:
// what they read of a scenario of package spec/scenario, which imports
// spec, so that spec's own tests cannot import it (Go forbids the cycle).
// The external test file lend_scenarios_test.go (package spec_test, which
// may import spec/scenario) lends every built-in scenario through
// LendScenarios before any test runs, and TestLentScenariosAgree holds
// the copies to the originals: the same fields, the same variants, the
// same specs.
type testScenario struct {
	ScenarioInfo
	Config    Config
	FixSets   [][]Fix
	Expect    map[string]string
	Depth     int
	MaxStates int
}

// lentScenarios are the built-in scenarios LendScenarios lent, in the
// order `kvcheck check` runs them.
var lentScenarios []*testScenario

// lentByName are the placeholders testScenarioNamed handed out before the
// scenarios were lent (the package-level variables below), filled in by
// LendScenarios.
var lentByName = map[string]*testScenario{}

// testScenarios returns the built-in scenarios (scenario.All).
func testScenarios() []*testScenario {
	if len(lentScenarios) == 0 {
		panic("spec: no built-in scenarios lent to spec's internal tests (lend_scenarios_test.go)")
	}
	return lentScenarios
}

// lookupTestScenario returns the built-in scenario named name
// (scenario.Lookup), or an error listing the valid names.
func lookupTestScenario(name string) (*testScenario, error) {
	var names []string
	for _, sc := range testScenarios() {
		if sc.Name == name {
			return sc, nil
		}
		names = append(names, sc.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown scenario %q; valid scenarios: %s", name, strings.Join(names, ", "))
}

// testScenarioNamed returns a copy of the built-in scenario named name,
// filled in when the scenarios are lent, so that a package-level variable
// can name it.
func testScenarioNamed(name string) *testScenario {
	sc := &testScenario{}
	lentByName[name] = sc
	return sc
}

// The built-in scenarios under the names their Go definitions had, for
// the tests that start from one.
var (
	draftAdmission       = testScenarioNamed("draft-admission")
	draftAdmissionResume = testScenarioNamed("draft-admission-resume")
	draftViewLag         = testScenarioNamed("draft-view-lag")
	adpDummyLeak         = testScenarioNamed("adp-dummy-leak")
	ppHistoryCapacity    = testScenarioNamed("pp-history-capacity")
	ppStageDivergence    = testScenarioNamed("pp-stage-divergence")
)

// LendScenarios gives spec's internal tests the built-in scenarios
// (lend_scenarios_test.go calls it with scenario.All's, from its init).
func LendScenarios(scenarios []*testScenario) {
	lentScenarios = scenarios
	for name, sc := range lentByName {
		found, err := lookupTestScenario(name)
		if err != nil {
			panic(err)
		}
		*sc = *found
	}
}

// LentScenario is testScenario for lend_scenarios_test.go, which builds
// the copies.
type LentScenario = testScenario

// Variants returns the fix sets `kvcheck check` runs the scenario under
// (scenario.Scenario.Variants): the real code first, then each of
// FixSets.
func (sc *testScenario) Variants() []Fixes {
	out := []Fixes{0}
	for _, set := range sc.FixSets {
		out = append(out, FixSetOf(set...))
	}
	return out
}

// Spec returns the scenario's spec with fixes applied
// (scenario.Scenario.Spec).
func (sc *testScenario) Spec(fixes Fixes) (*Spec, error) {
	sp, err := New(sc.Config, fixes)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	sp.Scenario = sc.Info()
	return sp, nil
}

// Info returns what a Spec made from sc keeps of it
// (scenario.Scenario.Info).
func (sc *testScenario) Info() *ScenarioInfo { return &sc.ScenarioInfo }
