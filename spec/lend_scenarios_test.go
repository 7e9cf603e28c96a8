package spec_test

import (
	"reflect"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// init lends spec's internal tests the built-in scenarios (testscenarios_test.go):
// they cannot import spec/scenario, which imports spec; this external test
// file, compiled into the same test binary, can, and its init runs before
// any test.
func init() {
	spec.LendScenarios(lentScenarios())
}

// lentScenarios are copies of scenario.All's scenarios as spec's internal
// tests read them.
func lentScenarios() []*spec.LentScenario {
	var out []*spec.LentScenario
	for _, sc := range scenario.All() {
		out = append(out, &spec.LentScenario{ScenarioInfo: sc.ScenarioInfo, Config: sc.Config, FixSets: sc.FixSets,
			Expect: sc.Expect, Depth: sc.Depth, MaxStates: sc.MaxStates})
	}
	return out
}

// TestLentScenariosAgree: the scenarios spec's internal tests see are the
// built-in ones: the same names in the same order, the same fields, and
// under each variant the same spec (configuration, fixes, goals and
// invariants checked elsewhere), so that a test of spec that starts from a
// scenario checks what `kvcheck check` checks.
func TestLentScenariosAgree(t *testing.T) {
	lent := lentScenarios()
	all := scenario.All()
	if len(lent) != len(all) {
		t.Fatalf("%d scenarios lent, %d built in (reproduce: go test ./spec -run TestLentScenariosAgree)", len(lent), len(all))
	}
	for i, sc := range all {
		l := lent[i]
		if l.Name != sc.Name || !reflect.DeepEqual(l.Variants(), sc.Variants()) || l.Depth != sc.Depth || l.MaxStates != sc.MaxStates ||
			!reflect.DeepEqual(l.Expect, sc.Expect) {
			t.Errorf("lent scenario %d (%s) differs from the built-in %s (reproduce: go test ./spec -run TestLentScenariosAgree)", i, l.Name, sc.Name)
			continue
		}
		for _, fixes := range sc.Variants() {
			want, err := sc.Spec(fixes)
			if err != nil {
				t.Fatal(err)
			}
			got, err := l.Spec(fixes)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Config, want.Config) || got.Fixes != want.Fixes || !reflect.DeepEqual(specNames(got), specNames(want)) ||
				!reflect.DeepEqual(got.Scenario.CheckedElsewhere, want.Scenario.CheckedElsewhere) {
				t.Errorf("%s/%s: the lent scenario's spec differs from the built-in one's (reproduce: go test ./spec -run TestLentScenariosAgree)", sc.Name, fixes.Label())
			}
		}
	}
}

// specNames are the names of sp's scenario, seed report, goals and
// invariants, which TestLentScenariosAgree compares (a goal's and an
// invariant's check are functions, which do not compare).
func specNames(sp *spec.Spec) []string {
	out := []string{sp.Scenario.Name, sp.Scenario.Doc, sp.Scenario.Report}
	for _, g := range sp.Goals() {
		out = append(out, "goal "+g.Name)
	}
	for _, inv := range sp.Invariants() {
		out = append(out, "invariant "+inv.Name)
	}
	return out
}
