package spec

import (
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// TestDeadlockThresholdKeepsVerdicts: every built-in scenario variant gives
// the same first violation (invariant and message) with the deadlock
// detector's scaled threshold doubled (docs/liveness.md, "Why a small
// threshold keeps the verdicts"): no built-in verdict rests on a stalled
// stretch that would end before the real 1000 passes.
func TestDeadlockThresholdKeepsVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("checks every scenario twice")
	}
	first := func(sp *Spec, depth int) string {
		res := model.Check[State, Action](sp, model.Options{MaxDepth: depth, Workers: 1, Liveness: true})
		if len(res.Violations) == 0 {
			return VerdictOK
		}
		v := res.Violations[0]
		if v.Invariant == model.LivelockInvariant {
			return v.Invariant
		}
		return v.Invariant + ": " + v.Message
	}
	for _, sc := range testScenarios() {
		for _, fixes := range sc.Variants() {
			sp, err := sc.Spec(fixes)
			if err != nil {
				t.Fatal(err)
			}
			want := first(sp, sc.Depth)
			sp.Config.DeadlockStallPasses = 2 * DefaultDeadlockStallPasses
			if got := first(sp, sc.Depth); got != want {
				t.Errorf("%s %s: deadlock_stall_passes=%d gives %q, the default %q", sc.Name, fixes.Label(), 2*DefaultDeadlockStallPasses, got, want)
			}
		}
	}
}
