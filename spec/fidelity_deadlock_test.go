package spec

import (
	"strings"
	"testing"
)

// This file holds the fidelity tests of the V2 scheduler's deadlock
// detector (deadlock.go) at each modeled version.

// stalledConfig has request 1 generating with a 12-token target cache in a
// 4-page pool it fills to 3/4, above max_util_for_resume=50: once
// suspended, try_allocate_generation cannot resume it, nothing can be
// evicted and recompute pause is off, so every pass stalls.
const stalledConfig = `ranks=1 tokens_per_block=4 max_batch_size=2 max_num_tokens=8 target_blocks=4 target_index_slots=3
max_util_for_resume=50 enable_recompute_pause=false deadlock_stall_passes=3
request prompt=4 new=8
request prompt=4 new=2
request prompt=4 new=2`

// stalledRank returns stalledConfig at version with every request arrived,
// requests 2 and 3 finished and request 1 generating from a suspended
// cache.
func stalledRank(t *testing.T, version string) (*Spec, *State, rankView) {
	t.Helper()
	sp, s := fidelitySpec(t, stalledConfig+"\nversion="+version, 0)
	arriveAll(sp, s)
	v := sp.view(s, 0)
	v.request(2).State, v.request(3).State = Finished, Finished
	r := v.request(1)
	r.State, r.Position, r.DraftPosition, r.NumTokens = GenerationInProgress, 4, 4, 12
	activeCache(t, v, Target, 1, 12, 11)
	v.suspendCache(Target, 1)
	return sp, s, v
}

// TestDetectDeadlockRaisesAtThreshold follows
// KVCacheV2Scheduler._detect_deadlock (scheduler_v2.py at 00746ef), called
// once per _schedule_loop pass: a pass with a generation candidate and no
// progress increments _stalled_schedules, and the pass that brings it to
// _DEADLOCK_STALL_ITERS (scaled: deadlock_stall_passes=3) raises "V2
// scheduler deadlock: 1 generation and 0 context request(s) active ...".
func TestDetectDeadlockRaisesAtThreshold(t *testing.T) {
	_, s, v := stalledRank(t, "00746ef")
	for pass := 1; pass <= 3; pass++ {
		v.schedulePass(0)
		if pass < 3 {
			if s.Crash.Happened || v.rank.StalledPasses != uint8(pass) {
				t.Fatalf("pass %d: stalled passes %d, crash %v; want %d and no raise yet", pass, v.rank.StalledPasses, s.Crash.Happened, pass)
			}
			continue
		}
		if !s.Crash.Happened || s.Crash.Function != FnDetectDeadlock || s.Crash.Error != ErrSchedulerDeadlock || s.Crash.ID != 1 {
			t.Fatalf("pass 3: crash %+v; want _detect_deadlock's raise on request 1", s.Crash)
		}
		if msg := s.Crash.Describe(); !strings.Contains(msg, "1 generation and 0 context request(s)") {
			t.Fatalf("raise %q does not count the candidates", msg)
		}
	}
}

// TestDetectDeadlockSelfEvictionIsProgress follows _detect_deadlock's
// made_progress at 00746ef: `evicted` includes a generation request that
// suspended itself. With the resume gate at 100 the cache resumes, its
// growth fails (request 2, complete and not yet terminated, holds the
// last page), it suspends itself (_try_schedule_generation), and the pass
// resets the count instead of adding to it.
func TestDetectDeadlockSelfEvictionIsProgress(t *testing.T) {
	sp, s, v := stalledRank(t, "00746ef")
	sp.Config.ResumeGatePercent = 100
	v.request(2).State = GenerationComplete
	activeCache(t, v, Target, 2, 4, 4)
	v.rank.StalledPasses = 2
	v.schedulePass(0)
	if s.Crash.Happened || v.rank.StalledPasses != 0 || v.cache(Target, 1).Status != Suspended {
		t.Fatalf("stalled passes %d, crash %v, cache %s; want the self-eviction to reset the count", v.rank.StalledPasses, s.Crash.Happened, v.cache(Target, 1).Status)
	}
}

// TestDetectDeadlockCounting follows the order of checks in
// _detect_deadlock (scheduler_v2.py at 00746ef): made_progress (scheduled
// requests, disagg candidates, evictions, recompute pauses or preemptions,
// prefix deferrals) resets _stalled_schedules; so do no candidates at all
// ("legitimately idle", an in-flight request is no candidate) and a
// request whose KV transfer is in flight (_TRANSFER_HOLDING_STATE_VALUES,
// the async transfer manager's sends); context candidates alone count.
func TestDetectDeadlockCounting(t *testing.T) {
	for _, tt := range []struct {
		name    string
		outcome passOutcome
		setup   func(v rankView)
		want    uint8
	}{
		{name: "stalled generation", want: 3},
		{name: "context candidates alone", outcome: passOutcome{contextCandidates: 1}, setup: func(v rankView) { v.request(1).State = Finished }, want: 3},
		{name: "scheduled", outcome: passOutcome{scheduled: 1}},
		{name: "disagg candidate", outcome: passOutcome{disagg: 1}},
		{name: "eviction", outcome: passOutcome{suspended: 1}},
		{name: "recompute pause", outcome: passOutcome{paused: 1}},
		{name: "prefix deferral", outcome: passOutcome{deferred: 1}},
		{name: "no candidates", setup: func(v rankView) { v.request(1).State = Finished }},
		{name: "only an in-flight request", setup: func(v rankView) { v.request(1).Flags |= requestFlagInflight }},
		{name: "receiving KV", setup: func(v rankView) { v.request(2).State = DisaggTransmission }},
		{name: "sending KV", setup: func(v rankView) { v.request(2).State = DisaggContextTransmission }},
	} {
		_, s, v := stalledRank(t, "00746ef")
		if tt.setup != nil {
			tt.setup(v)
		}
		v.rank.StalledPasses = 2
		o := tt.outcome
		v.detectDeadlock(&o)
		if v.rank.StalledPasses != tt.want {
			t.Errorf("%s: stalled passes %d after a third pass, want %d", tt.name, v.rank.StalledPasses, tt.want)
		}
		if raised := s.Crash.Happened; raised != (tt.want == 3) {
			t.Errorf("%s: raised=%v at the threshold 3", tt.name, raised)
		}
	}
}

// TestDetectDeadlockByVersion follows the detector each version runs
// (Config.deadlockDetector): with PR #19181 on 00746ef a stalled pass only
// warns, so nothing raises however long the stall; at v1.3.0rc25 the
// inline check at the end of _schedule_loop (scheduler_v2.py at 9ba713c,
// with the audit's recompute-paused and inflight exemptions) raises on the
// first pass that scheduled nothing while a generation candidate waits and
// nothing was evicted or paused and nothing is in flight; context
// candidates alone never raise there.
func TestDetectDeadlockByVersion(t *testing.T) {
	_, s, v := stalledRank(t, "00746ef+pr19181")
	for pass := 0; pass < 10; pass++ {
		v.schedulePass(0)
	}
	if s.Crash.Happened {
		t.Fatalf("00746ef+pr19181: %s; PR #19181 turns the raise into a warning", s.Crash.Describe())
	}
	_, s, v = stalledRank(t, "v1.3.0rc25")
	v.schedulePass(0)
	if !s.Crash.Happened || s.Crash.Error != ErrSchedulerDeadlockRC25 || s.Crash.ID != 1 {
		t.Fatalf("v1.3.0rc25: crash %+v after one stalled pass; want the immediate raise on request 1", s.Crash)
	}
	for _, tt := range []struct {
		name    string
		outcome passOutcome
		setup   func(v rankView)
	}{
		{name: "evicted", outcome: passOutcome{suspended: 1}},
		{name: "recompute-paused", outcome: passOutcome{paused: 1}},
		{name: "in flight", setup: func(v rankView) { v.request(2).State, v.request(2).Flags = ContextInit, requestFlagInflight }},
		{name: "context only", outcome: passOutcome{contextCandidates: 1}, setup: func(v rankView) { v.request(1).State = Finished }},
	} {
		_, s, v := stalledRank(t, "v1.3.0rc25")
		if tt.setup != nil {
			tt.setup(v)
		}
		o := tt.outcome
		v.detectDeadlock(&o)
		if s.Crash.Happened {
			t.Errorf("v1.3.0rc25, %s: raised %s", tt.name, s.Crash.Describe())
		}
	}
}
