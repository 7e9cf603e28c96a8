package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// procCounters is a spec of independent processes, each a counter that
// counts up to limit and stops there, or, if it is cyclic, wraps around to
// 0 and never stops. Each process's steps touch only its own counter, so
// the enabled steps of any one process are a persistent set: procCounters
// implements model.PartialOrder with the lowest process that can step.
// Invariant "proc1-below-two" fails once process 1 reaches 2.
type procCounters struct {
	procs  int
	limit  uint8
	cyclic [4]bool
}

type procState [4]uint8

func (c procCounters) Initial() procState { return procState{} }
func (c procCounters) Actions(s *procState, out []int) []int {
	for p := 0; p < c.procs; p++ {
		if c.cyclic[p] || s[p] < c.limit {
			out = append(out, p)
		}
	}
	return out
}
func (c procCounters) Next(s *procState, p int) procState {
	next := *s
	next[p]++
	if c.cyclic[p] && next[p] == c.limit {
		next[p] = 0
	}
	return next
}
func (c procCounters) Fingerprint(s *procState) uint64 {
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}
func (c procCounters) Goals() []model.Goal[procState] { return nil }
func (c procCounters) ActionString(p int) string      { return fmt.Sprintf("inc %d", p) }
func (c procCounters) Invariants() []model.Invariant[procState] {
	return []model.Invariant[procState]{{Name: "proc1-below-two", Check: func(s *procState) *model.Failure {
		if s[1] >= 2 {
			return &model.Failure{Message: "process 1 reached 2"}
		}
		return nil
	}}}
}

// IsTerminal: every counter that stops has stopped.
func (c procCounters) IsTerminal(s *procState) bool { return true }

// Persistent returns the steps of the lowest process that can step.
func (c procCounters) Persistent(s *procState, enabled []int, out []int32) []int32 {
	if len(enabled) > 0 {
		out = append(out, 0)
	}
	return out
}
func (c procCounters) Visible(s, next *procState) bool { return false }
func (c procCounters) Stable(name string) bool         { return true }

// TestPartialOrderRederivesShortest: the reduced search reaches process
// 1's violation only after process 0 has counted to its limit (depth 5),
// and the re-derivation reports the shortest trace (2 steps), with the
// states of the unreduced search up to it.
func TestPartialOrderRederivesShortest(t *testing.T) {
	spec := procCounters{procs: 3, limit: 3}
	want := model.Check[procState, int](spec, model.Options{})
	got := model.Check[procState, int](spec, model.Options{PartialOrder: true})
	if len(got.Violations) != 1 || got.Violations[0].Depth != 2 || got.Violations[0].Depth != want.Violations[0].Depth {
		t.Fatalf("violations %+v, want the 2-step one of the unreduced search %+v", got.Violations, want.Violations)
	}
	if !got.PartialOrder || got.Reduced == 0 || got.Rederived != want.States || got.States != want.States {
		t.Errorf("PartialOrder %v, %d reduced, %d re-derived, %d states; want true, >0, and the unreduced search's %d states",
			got.PartialOrder, got.Reduced, got.Rederived, got.States, want.States)
	}
	// Without the invariant the reduced search stores one path's worth of
	// states: 3 processes × 3 steps, one order.
	free := model.OnlyInvariants[procState, int](spec, nil)
	full := model.Check(free, model.Options{})
	reduced := model.Check(free, model.Options{PartialOrder: true})
	if full.States != 64 || reduced.States != 10 || !reduced.Complete {
		t.Errorf("states %d unreduced, %d reduced (complete %v); want 64 and 10", full.States, reduced.States, reduced.Complete)
	}
}

// TestPartialOrderCycleProviso: process 0 counts round a cycle forever, so
// a reduction that always took its steps would never run process 1 and
// never see its violation (the ignoring problem). The proviso expands the
// state that closes the cycle fully.
func TestPartialOrderCycleProviso(t *testing.T) {
	spec := procCounters{procs: 2, limit: 3, cyclic: [4]bool{true}}
	got := model.Check[procState, int](spec, model.Options{PartialOrder: true, KeepGoing: true})
	if len(got.Violations) != 1 || got.Violations[0].Depth != 2 {
		t.Fatalf("violations %+v, want process 1's at depth 2", got.Violations)
	}
}

// TestPartialOrderParallel wants the reduced search, with liveness and its
// index bookkeeping, to give the same result with one worker and with
// several (run under -race by make test).
func TestPartialOrderParallel(t *testing.T) {
	spec := model.OnlyInvariants[procState, int](procCounters{procs: 4, limit: 12, cyclic: [4]bool{false, true}}, nil)
	for _, liveness := range []bool{false, true} {
		opts := model.Options{PartialOrder: true, Liveness: liveness, KeepGoing: true}
		one := model.Check(spec, opts)
		opts.Workers = 3
		many := model.Check(spec, opts)
		if one.States != many.States || one.Transitions != many.Transitions || one.Reduced != many.Reduced || len(one.Violations) != len(many.Violations) {
			t.Errorf("liveness %v: one worker %d states, %d transitions, %d reduced, %d violations; three workers %d, %d, %d, %d",
				liveness, one.States, one.Transitions, one.Reduced, len(one.Violations), many.States, many.Transitions, many.Reduced, len(many.Violations))
		}
		switch {
		case one.Reduced == 0:
			t.Errorf("liveness %v: no state was reduced", liveness)
		case !liveness && one.States >= 13*13*13*12:
			t.Errorf("%d states: the reduction did nothing", one.States)
		case liveness && (len(one.Violations) != 1 || one.Violations[0].Invariant != model.LivelockInvariant || one.Rederived != one.States || one.States != 13*13*13*12):
			// The cycling process is a livelock (nothing is terminal while it
			// runs), re-derived by the whole unreduced search.
			t.Errorf("with liveness: %d states, %d re-derived, violations %+v; want the livelock and the unreduced %d states", one.States, one.Rederived, one.Violations, 13*13*13*12)
		}
	}
}

// TestPartialOrderDepthBound: with a depth bound the reduced search, which
// runs process 0 first, is cut before it reaches process 1's violation
// (depth 2 in the full graph); the unreduced search with the same bound
// replaces it, so the violation is found as without the reduction; its
// progress says why it runs.
func TestPartialOrderDepthBound(t *testing.T) {
	spec := procCounters{procs: 2, limit: 4}
	want := model.Check[procState, int](spec, model.Options{MaxDepth: 3})
	var reasons []string
	got := model.Check[procState, int](spec, model.Options{MaxDepth: 3, PartialOrder: true, Progress: func(p model.Progress) { reasons = append(reasons, p.Rederive) }})
	if len(want.Violations) != 1 || len(got.Violations) != 1 || got.Violations[0].Depth != 2 || got.States != want.States || !got.PartialOrder || got.Rederived == 0 {
		t.Errorf("unreduced: %d states, violations %+v; reduced: %d states, violations %+v, re-derived %d", want.States, want.Violations, got.States, got.Violations, got.Rederived)
	}
	if len(reasons) < 2 || reasons[0] != "" || !strings.Contains(reasons[len(reasons)-1], "reached the depth bound 3") {
		t.Errorf("progress reasons %q: want the reduced search's (empty) first and the depth bound's last", reasons)
	}
}
