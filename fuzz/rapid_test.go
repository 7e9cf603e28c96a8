package fuzz

import (
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model/poolbench"
	"pgregory.net/rapid"
)

// TestRapidClosedVariants runs every fix set that closes its scenario as a
// rapid state machine: it must pass.
func TestRapidClosedVariants(t *testing.T) {
	for _, v := range closedVariants(t) {
		t.Run(v.name(), func(t *testing.T) {
			rapid.Check(t, RapidStateMachine(v.sp, nil))
		})
	}
	t.Run("poolbench", func(t *testing.T) {
		pool := newPool(t, false)
		rapid.Check(t, RapidStateMachine[poolbench.State, poolbench.Action](pool, nil))
	})
}

// TestRapidFindsEachCrash runs the same property on the real code of every
// scenario the checker finds a crash in, under a recording harness: rapid
// must report a failure, with one of the checker's violations, no shorter
// than the checker's shortest.
func TestRapidFindsEachCrash(t *testing.T) {
	for _, v := range crashVariants(t) {
		out := RunRapid(v.sp, 1, 0)
		if !out.Failed || out.Violation == nil {
			t.Errorf("%s: rapid reported no failure:\n%s", v.name(), out.Report)
			continue
		}
		if !strings.Contains(out.Report, "[rapid] failed") || !strings.Contains(out.Report, out.Violation.Invariant) {
			t.Errorf("%s: rapid's report does not name the failure:\n%s", v.name(), out.Report)
		}
		shortest := v.shortest(out.Violation.Key)
		if shortest == nil || len(out.Violation.Trace) < len(shortest) {
			t.Errorf("%s: rapid found %s in %d steps; the checker's shortest for it: %d", v.name(), out.Violation.Key, len(out.Violation.Trace), len(shortest))
		}
	}
	pool := newPool(t, true)
	if out := RunRapid[poolbench.State, poolbench.Action](pool, 1, 0); !out.Failed || out.Violation == nil || out.Violation.Invariant != "conservation" {
		t.Errorf("poolbench bug: rapid outcome %+v", out)
	}
}
