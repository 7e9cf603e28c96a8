package scenario

import (
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
)

// TestEveryScenarioHasItsFixes: `kvcheck check` runs every scenario whose
// real code breaks an invariant with fixes (a coverage scenario the real
// code passes needs none), every declared fix is checked by some scenario,
// and a scenario that puts a historical bug back also checks the fix that
// removes it.
func TestEveryScenarioHasItsFixes(t *testing.T) {
	for _, sc := range All() {
		if real, _ := sc.Expected(0); len(sc.FixSets) == 0 && real != spec.VerdictOK {
			t.Errorf("scenario %s breaks %s in the real code but has no fix set", sc.Name, real)
		}
		if err := sc.Config.Validate(); err != nil {
			t.Errorf("scenario %s: %v", sc.Name, err)
		}
	}
	checked := map[spec.Fix]bool{}
	for _, sc := range All() {
		for _, set := range sc.FixSets {
			for _, f := range set {
				checked[f] = true
			}
		}
		for _, p := range spec.AllPreFixes() {
			if !sc.Config.PreFixes.Has(p) {
				continue
			}
			reverted := false
			for _, fixes := range sc.Variants() {
				for _, f := range fixes.List() {
					reverted = reverted || f.Reverts().Has(p)
				}
			}
			if !reverted {
				t.Errorf("scenario %s sets pre-fix switch %s but checks no fix that reverts it", sc.Name, p)
			}
		}
	}
	for _, f := range spec.AllFixes() {
		if !checked[f] {
			t.Errorf("fix %s is checked by no scenario's FixSets", f)
		}
	}
	if _, err := Lookup("no-such"); err == nil || !strings.Contains(err.Error(), "draft-admission") {
		t.Fatalf("unknown scenario error %v does not list the valid names", err)
	}
}
