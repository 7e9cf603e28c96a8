package spec

import (
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// checkLivelockReplays checks a livelock of sp: its stem and cycle replay,
// the cycle returns to the state the stem ends in, no step on it makes
// progress, one refuses work, and from the stem's end no run finishes.
func checkLivelockReplays(t *testing.T, sp *Spec, v model.Violation[Action]) {
	t.Helper()
	states, err := model.Replay[State, Action](sp, append(append([]Action(nil), v.Trace...), v.Cycle...))
	if err != nil {
		t.Fatalf("the lasso does not replay: %v", err)
	}
	start := states[len(v.Trace)]
	if len(v.Cycle) == 0 || sp.Fingerprint(&start) != sp.Fingerprint(&states[len(states)-1]) {
		t.Fatalf("the cycle of %d steps does not return to its first state", len(v.Cycle))
	}
	refused := false
	for i := len(v.Trace); i+1 < len(states); i++ {
		a := v.Cycle[i-len(v.Trace)]
		if sp.Progress(&states[i], a, &states[i+1]) {
			t.Errorf("cycle step %d (%s) makes progress", i-len(v.Trace)+1, a)
		}
		refused = refused || sp.Refused(&states[i], a, &states[i+1])
	}
	if !refused || v.Refused < 0 {
		t.Errorf("no step of the cycle refuses work (Refused %d)", v.Refused)
	}
	from := model.Check(model.From[State, Action](sp, start), model.Options{Liveness: true, Workers: 1})
	for _, g := range from.Goals {
		if g.Name == GoalAllFinished.Name && g.Reached {
			t.Errorf("from the cycle's state a run still finishes every request")
		}
	}
}

// TestProgressAndRefusal: what counts as progress and as refused work.
func TestProgressAndRefusal(t *testing.T) {
	sp := scenarioSpec(t, "adp-empty-batch-veto")
	var s State
	s.Ranks[0].Requests[3] = Request{State: ContextInit, Prompt: 8}
	next := s
	next.Ranks[0].Requests[3].Position = 8
	if !sp.Progress(&s, Action{Kind: ActForward}, &next) {
		t.Error("a context position that advances is not progress")
	}
	paused := next
	paused.Ranks[0].Requests[3].Position = 0
	if sp.Progress(&next, Action{Kind: ActSchedule}, &paused) {
		t.Error("a recompute pause (position back to 0) is progress")
	}
	sent := s
	sent.Ranks[0].Requests[3].State = DisaggContextTransmission
	done := sent
	done.Ranks[0].Requests[3].State = Finished
	if !sp.Progress(&sent, Action{Kind: ActUpdateResources}, &done) {
		t.Error("a request that finishes is not progress")
	}
	dummy := s
	dummy.Ranks[0].Requests[dummyID].NumTokens = 2
	if sp.Progress(&s, Action{Kind: ActForward}, &dummy) {
		t.Error("a dummy's tokens are progress")
	}
	scheduled := s
	scheduled.Ranks[0].Phase = PhaseScheduled
	if !sp.Refused(&s, Action{Kind: ActSchedule, Rank: 0}, &scheduled) {
		t.Error("an empty batch while request 3 waits is not refused work")
	}
	scheduled.Ranks[0].Batch.Count = 1
	if sp.Refused(&s, Action{Kind: ActSchedule, Rank: 0}, &scheduled) {
		t.Error("a non-empty batch is refused work")
	}
}

// TestLivelockStoryNamesTheStuckWork: the story of the PR #17379 livelock,
// with the deadlock detector quiet because rank 0 holds a KV transfer.
func TestLivelockStoryNamesTheStuckWork(t *testing.T) {
	sp := scenarioSpec(t, "adp-empty-batch-veto")
	res := model.Check[State, Action](sp, model.Options{Liveness: true, Workers: 1})
	if len(res.Violations) != 1 || res.Violations[0].Invariant != model.LivelockInvariant {
		t.Fatalf("violations %+v, want one livelock", res.Violations)
	}
	v := res.Violations[0]
	checkLivelockReplays(t, sp, v)
	for _, want := range []string{"rank 0 schedules an empty batch", "request 3", "vetoes every forward", "stays pinned", "_detect_deadlock (00746ef) never raises on it", "holds a KV transfer"} {
		if !strings.Contains(v.Message, want) {
			t.Errorf("story %q lacks %q", v.Message, want)
		}
	}
}
