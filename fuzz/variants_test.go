package fuzz

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// variant is a built-in scenario under a fix set, with the exhaustive
// checker's verdict on it: the expectations of these tests come from
// model.Check at test time, not from pinned numbers, so they follow the
// spec as it changes.
type variant struct {
	scenario *scenario.Scenario
	fixes    spec.Fixes
	sp       *spec.Spec
	check    model.Result[spec.Action] // KeepGoing: one shortest trace per key
}

func (v *variant) name() string {
	fixes := strings.Join(v.fixes.Names(), "+")
	if fixes == "" {
		fixes = "real-code"
	}
	return v.scenario.Name + "/" + fixes
}

// shortest returns the checker's shortest trace for key, or nil.
func (v *variant) shortest(key Key) []spec.Action {
	for _, viol := range v.check.Violations {
		if (Key{viol.Invariant, viol.Group}) == key {
			return viol.Trace
		}
	}
	return nil
}

// checkStates bounds the exhaustive checks these tests run.
const checkStates = 1 << 20

var (
	variantsOnce sync.Once
	allVariants  []*variant
	variantsErr  error
)

// variants returns every built-in scenario as the real code behaves and
// under each of its fix sets, checked exhaustively once per test binary.
func variants(tb testing.TB) []*variant {
	tb.Helper()
	variantsOnce.Do(func() {
		for _, sc := range scenario.All() {
			for _, fixes := range sc.Variants() {
				sp, err := sc.Spec(fixes)
				if err != nil {
					variantsErr = err
					return
				}
				res := model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: sc.Depth, MaxStates: checkStates, KeepGoing: true, Liveness: true, Workers: 2})
				allVariants = append(allVariants, &variant{scenario: sc, fixes: fixes, sp: sp, check: res})
			}
		}
	})
	if variantsErr != nil {
		tb.Fatal(variantsErr)
	}
	return allVariants
}

// crashVariants are the real-code variants where the checker finds a
// violation: the seed scenarios' crashes.
func crashVariants(tb testing.TB) []*variant {
	var out []*variant
	for _, v := range variants(tb) {
		if v.fixes == 0 && len(v.check.Violations) > 0 {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		tb.Fatal("no built-in scenario has a violation on the real code")
	}
	return out
}

// closedVariants are the fix sets the checker finds no violation under.
func closedVariants(tb testing.TB) []*variant {
	var out []*variant
	for _, v := range variants(tb) {
		if v.fixes != 0 && len(v.check.Violations) == 0 {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		tb.Fatal("no built-in fix set closes its scenario")
	}
	return out
}

// keyOf is the key of a checker violation.
func keyOf(v model.Violation[spec.Action]) Key { return Key{v.Invariant, v.Group} }

// lines renders a trace as numbered transcript lines.
func lines(trace []spec.Action) string {
	var b strings.Builder
	for i, a := range trace {
		fmt.Fprintf(&b, "\n  %4d  %s", i+1, a)
	}
	return b.String()
}

// replayViolation replays trace and returns the violation it shows for key:
// the first invariant failure, or for a livelock the one a bounded search
// from its end confirms.
func replayViolation(sp *spec.Spec, trace []spec.Action, key Key) (*Violation[spec.Action], error) {
	if key.Invariant == model.LivelockInvariant {
		return ConfirmLivelock[spec.State, spec.Action](sp, trace)
	}
	return FirstViolation(sp, trace)
}
