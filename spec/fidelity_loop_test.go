package spec

import "testing"

// This file holds the fidelity tests of the executor loops around the
// scheduler (py_executor.py at 2829508): GENERATION_TO_COMPLETE and the
// deferred pause of the overlap loop, the context update's commits, the
// pipeline's propagated recompute pause, and the invariants the review
// added or relaxed.

// toCompleteConfig: rank 0 generates request 1 (4-token prompt, 2 new
// tokens) in the overlap loop under attention DP.
const toCompleteConfig = `tokens_per_block=4 max_batch_size=2 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=4 max_util_for_resume=100 version=00746ef ranks=2 loop=overlap enable_attention_dp=true
max_num_active_requests=2
request prompt=4 new=2
request prompt=4 new=2 rank=1`

// queueAndForward runs rank r's queued batch through the overlap loop's
// prepare and forward (can_queue true on the rank).
func queueAndForward(t *testing.T, sp *Spec, s *State, r uint8) {
	t.Helper()
	rank := &s.Ranks[r]
	rank.CanQueue, rank.CanQueueThisRank, rank.Phase = true, true, PhaseQueued
	sp.prepareOverlap(s, r)
	sp.forwardOverlap(s, &Action{Kind: ActForward, Rank: r})
	if s.Crash.Happened {
		t.Fatal(s.Crash.Describe())
	}
}

// TestGenerationToComplete follows _executor_loop_overlap's
// _update_generation_requests_that_will_complete_next_iteration
// (py_executor.py at 2829508): after a queued forward, a request whose
// token in flight is its last (LlmRequest::willCompleteNextIteration)
// turns GENERATION_TO_COMPLETE. The V2 scheduler's range [CONTEXT_INIT,
// GENERATION_TO_COMPLETE) leaves it out of the next pass, while
// _count_schedulable_active_requests (no transceiver: len(active_requests))
// still counts it, so the rank is not padded before scheduling; the
// sampler's update of that batch, one iteration later, completes it.
func TestGenerationToComplete(t *testing.T) {
	sp, s := fidelitySpec(t, toCompleteConfig, 0)
	arriveAll(sp, s)
	v := sp.view(s, 0)
	r := v.request(1)
	r.State, r.Position, r.DraftPosition, r.NumTokens = GenerationInProgress, 4, 4, 5
	activeCache(t, v, Target, 1, 4, 4)
	v.rank.ExpectedActive = 1
	sp.scheduleOverlap(s, 0)
	if b := v.rank.Batch; b.Count != 1 || b.Entries[0].ID != 1 {
		t.Fatalf("first pass: batch %s, want gen 1", b.describe())
	}
	queueAndForward(t, sp, s, 0)
	if r.State != GenerationToComplete || r.NumTokens != 5 {
		t.Fatalf("after the forward of its last token: %s with %d tokens, want GENERATION_TO_COMPLETE with 5", r.State, r.NumTokens)
	}
	if n := v.schedulableCount(); n != 1 {
		t.Fatalf("_count_schedulable_active_requests %d, want 1 (the request still counts)", n)
	}
	sp.updateResourcesOverlap(s, 0)
	v.padAttentionDPDummyRequest()
	if v.liveDummy() {
		t.Fatal("the pre-schedule pad added a dummy beside a GENERATION_TO_COMPLETE request")
	}
	sp.scheduleOverlap(s, 0)
	if s.Crash.Happened {
		t.Fatal(s.Crash.Describe())
	}
	if b := v.rank.Batch; b.Count != 1 || b.Entries[0].ID != dummyID {
		t.Fatalf("second pass: batch %s; want request 1 left out (only the empty-batch pad's dummy)", b.describe())
	}
	queueAndForward(t, sp, s, 0)
	if r.State != GenerationComplete || r.NumTokens != 6 {
		t.Fatalf("after the previous batch's sample: %s with %d tokens, want complete with 6", r.State, r.NumTokens)
	}
}

// commitConfig: request 1's 12-token prompt, 8 of them shared with its
// family, prefills in 4-token chunks with block reuse.
const commitConfig = `ranks=1 tokens_per_block=4 max_batch_size=2 max_num_tokens=4 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=4 max_util_for_resume=100 enable_block_reuse=true version=00746ef
request prompt=12 new=2 family=0 shared=8`

// TestContextCommitsPerChunkUnderAllReusable follows
// KVCacheManagerV2.update_context_resources (kv_cache_manager_v2.py at
// 00746ef): should_commit = is_all_reusable or context_remaining_length ==
// 0 and should_resize = not should_block_reuse or not is_all_reusable. So
// under ALL_REUSABLE (the default) a publishing target cache commits after
// every chunk (try_commit_blocks up to the cursor; the core's commit moves
// the history to the committed tokens) and its first block enters the
// reuse tree at once; under PER_REQUEST the history is resized to the
// cursor and nothing is committed before the prompt's end.
func TestContextCommitsPerChunkUnderAllReusable(t *testing.T) {
	for _, policy := range []string{"all_reusable", "per_request"} {
		sp, s := fidelitySpec(t, commitConfig+"\nblock_reuse_policy="+policy, 0)
		arriveAll(sp, s)
		sp.schedule(s, 0)
		sp.prepareResources(s, 0)
		sp.forward(s, &Action{Kind: ActForward, Rank: 0})
		sp.update(s, 0)
		if s.Crash.Happened {
			t.Fatal(s.Crash.Describe())
		}
		v := sp.view(s, 0)
		c, r := v.cache(Target, 1), v.request(1)
		if r.Position != 4 || c.History != 4 {
			t.Fatalf("%s: cursor %d, history %d after the first chunk; want both 4", policy, r.Position, c.History)
		}
		wantCommitted, wantTree := uint8(4), uint8(1)
		if policy == "per_request" {
			wantCommitted, wantTree = 0, 0
		}
		if c.Committed != wantCommitted || v.pool(Target).Tree[0] != wantTree || c.Flags&flagStopCommitting != 0 {
			t.Fatalf("%s: committed %d, tree %d, stop_committing %v; want %d, %d, not stopped",
				policy, c.Committed, v.pool(Target).Tree[0], c.Flags&flagStopCommitting != 0, wantCommitted, wantTree)
		}
	}
}

// overlapPauseConfig: in the overlap loop request 1 needs a third page of
// a full 4-page pool; request 2, generated in the previous batch, is the
// only victim; request 3's suspended first chunk fills the one-page host
// tier (so eviction frees no GPU page).
const overlapPauseConfig = `ranks=1 loop=overlap tokens_per_block=4 max_batch_size=4 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=4 target_index_slots=4 max_util_for_resume=100 enable_recompute_pause=true host_tier=true host_blocks=1 version=00746ef
request prompt=4 new=8
request prompt=4 new=4
request prompt=4 new=2`

// TestOverlapPausesAfterPreviousUpdate follows _executor_loop_overlap
// (py_executor.py at 2829508): after scheduling it runs only
// _terminate_recompute_paused_requests (the victims' caches are freed),
// and _pause_recompute_paused_requests comes after the previous batch's
// _update_requests. A victim whose token from the previous batch was still
// in flight gets that token first, so LlmRequest::pause makes it part of
// the new prompt (6 tokens, not 5).
func TestOverlapPausesAfterPreviousUpdate(t *testing.T) {
	sp, s := fidelitySpec(t, overlapPauseConfig, 0)
	arriveAll(sp, s)
	v := sp.view(s, 0)
	activeCache(t, v, Target, 3, 4, 0)
	v.suspendCache(Target, 3)
	v.cache(Target, 3).Offloaded = 1
	v.pool(Target).Free++
	r1 := v.request(1)
	r1.State, r1.Position, r1.DraftPosition, r1.NumTokens = GenerationInProgress, 4, 4, 8
	activeCache(t, v, Target, 1, 8, 7)
	victim := v.request(2)
	victim.State, victim.Position, victim.DraftPosition, victim.NumTokens = GenerationInProgress, 4, 4, 5
	activeCache(t, v, Target, 2, 5, 4)
	v.rank.Previous = Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 2, Kind: GenerationStep, Incarnation: victim.Incarnation}}}
	sp.scheduleOverlap(s, 0)
	if s.Crash.Happened {
		t.Fatal(s.Crash.Describe())
	}
	if b := v.rank.Batch; b.Count != 1 || b.Entries[0].ID != 1 || v.cache(Target, 2).Status != Absent {
		t.Fatalf("batch %s, victim cache %s; want gen 1 after recompute-pausing request 2", b.describe(), v.cache(Target, 2).Status)
	}
	if victim.State != GenerationInProgress || v.rank.PendingPause != 1<<2 {
		t.Fatalf("after scheduling: victim %s, pending pause %b; want it freed but not yet paused", victim.State, v.rank.PendingPause)
	}
	sp.canQueue(s, &Action{Kind: ActCanQueue, Rank: 0})
	sp.prepareOverlap(s, 0)
	sp.forwardOverlap(s, &Action{Kind: ActForward, Rank: 0})
	if s.Crash.Happened {
		t.Fatal(s.Crash.Describe())
	}
	if victim.State != ContextInit || victim.Prompt != 6 || v.rank.PendingPause != 0 {
		t.Fatalf("victim %s with prompt %d (pending %b); want context with the previous batch's token in its prompt (6)", victim.State, victim.Prompt, v.rank.PendingPause)
	}
}

// ppConfig is a two-stage pipeline whose stages generate requests 1 and 2.
const ppConfig = `tokens_per_block=4 max_batch_size=3 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=3 max_util_for_resume=100 enable_recompute_pause=true ranks=2 loop=pipeline version=00746ef
request prompt=8 new=4
request prompt=8 new=4`

// TestPipelinePropagatesRecomputePause follows _executor_loop_pp
// (py_executor.py at 2829508), which runs
// _terminate_recompute_paused_requests and _pause_recompute_paused_requests
// on the scheduled batch a later stage rebuilt from
// SerializableSchedulerOutput: with pp_propagates_recompute_pause (PR
// #15252's serialization, the default) stage 1 frees rank 0's victim
// (request 2) and pauses it with its generated token in the new prompt;
// without it stage 1 keeps the victim generating with its cache.
func TestPipelinePropagatesRecomputePause(t *testing.T) {
	for _, propagate := range []bool{true, false} {
		text := ppConfig
		if !propagate {
			text += "\npp_propagates_recompute_pause=false"
		}
		sp, s := fidelitySpec(t, text, 0)
		arriveAll(sp, s)
		for r := uint8(0); r < 2; r++ {
			v := sp.view(s, r)
			for id := uint8(1); id <= 2; id++ {
				if r == 1 {
					sp.activate(v.rank, id) // stage 1 saw them arrive
				}
				q := v.request(id)
				q.State, q.Position, q.DraftPosition, q.NumTokens = GenerationInProgress, 8, 8, 9
				activeCache(t, v, Target, id, 8, 8)
			}
		}
		// Rank 0 scheduled gen 1 and recompute-paused request 2.
		s.Ranks[0].Requests[2] = Request{State: ContextInit, Incarnation: 1, Prompt: 9}
		sp.view(s, 0).freeResources(2)
		s.PipelineLen = 1
		s.Pipeline[0] = PipelineIteration{Arrived: 2, Forwarded: 1, RecomputePaused: 1 << 2,
			Batch: Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 1, Kind: GenerationStep, Incarnation: 1}}}}
		s.Ranks[0].Phase = PhaseForwarded
		sp.pipelineFollow(s, &Action{Kind: ActForward, Rank: 1})
		if s.Crash.Happened {
			t.Fatal(s.Crash.Describe())
		}
		v := sp.view(s, 1)
		victim, c := v.request(2), v.cache(Target, 2)
		paused := victim.State == ContextInit && victim.Prompt == 9 && c.Status == Absent
		if paused != propagate {
			t.Fatalf("propagate=%v: stage 1's request 2 %s, prompt %d, cache %s; paused=%v", propagate, victim.State, victim.Prompt, c.Status, paused)
		}
		if !propagate && (victim.State != GenerationInProgress || c.Status != Active) {
			t.Fatalf("without propagation: request 2 %s with cache %s, want still generating with its cache", victim.State, c.Status)
		}
	}
}

// TestForwardOverActiveCaches follows the invariant
// forward-over-active-caches: suspend() cuts a cache's page-index buffers
// (_restore_page_index_bufs docstring, kv_cache_manager_v2.py at 00746ef),
// so a forward that runs a request whose cache is suspended reads stale
// page indices. Nothing raises; the forward records a Hazard that the
// invariant reports.
func TestForwardOverActiveCaches(t *testing.T) {
	for _, suspend := range []bool{false, true} {
		sp, s := fidelitySpec(t, commitConfig, 0)
		arriveAll(sp, s)
		sp.schedule(s, 0)
		sp.prepareResources(s, 0)
		v := sp.view(s, 0)
		if suspend {
			v.suspendCache(Target, 1)
		}
		sp.forward(s, &Action{Kind: ActForward, Rank: 0})
		if s.Crash.Happened {
			t.Fatal(s.Crash.Describe())
		}
		f := sp.checkForwardOverActive(s)
		if (f != nil) != suspend {
			t.Fatalf("suspended=%v: forward-over-active-caches reports %v", suspend, f)
		}
		if suspend && (s.Hazard.ID != 1 || s.Hazard.Pool != Target || s.Hazard.Status != Suspended) {
			t.Fatalf("hazard %+v, want request 1's suspended target cache", s.Hazard)
		}
	}
}

// TestInFlightCachesActive follows the invariant in-flight-caches-active:
// under pipeline parallelism a stage that forwarded a micro-batch and has
// not handled it must not free its requests' target caches, nor suspend
// them where a host tier can take their pages (a non-last context chunk
// is not in inflight_request_ids, so the stage's own scheduler may pick
// it). Stage 1 forwards request 1's first chunk; suspending it there
// before the batch is handled breaks the invariant with a host tier, not
// without one; freeing it breaks it either way; after the batch is
// handled nothing does.
func TestInFlightCachesActive(t *testing.T) {
	for _, host := range []bool{false, true} {
		text := `tokens_per_block=4 max_batch_size=3 max_num_tokens=4 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=3 max_util_for_resume=100 ranks=2 loop=pipeline version=00746ef
request prompt=12 new=2`
		if host {
			text += "\nhost_tier=true"
		}
		sp, s0 := fidelitySpec(t, text, 0)
		s := *s0
		for _, a := range []Action{{Kind: ActArrive, ID: 1}, {Kind: ActSchedule, Rank: 0}, {Kind: ActForward, Rank: 1}} {
			s = sp.Next(&s, a)
		}
		if s.Crash.Happened || s.PipelineLen != 1 || s.Pipeline[0].Forwarded != 3 || s.Pipeline[0].Handled != 0 {
			t.Fatalf("setup: pipeline %d iterations, forwarded %b handled %b (crash %v); want stage 0 and 1 forwarded, none handled",
				s.PipelineLen, s.Pipeline[0].Forwarded, s.Pipeline[0].Handled, s.Crash.Happened)
		}
		if f := sp.checkInFlightCachesActive(&s); f != nil {
			t.Fatalf("host tier %v, before any suspend: %s", host, f.Message)
		}
		suspended := s
		sp.view(&suspended, 1).suspendCache(Target, 1)
		if f := sp.checkInFlightCachesActive(&suspended); (f != nil) != host {
			t.Fatalf("host tier %v: stage 1 suspended request 1 while its forwarded chunk is in flight: failure %v, want one only with a host tier", host, f)
		}
		freed := s
		sp.view(&freed, 1).closeCache(Target, 1)
		if f := sp.checkInFlightCachesActive(&freed); f == nil {
			t.Fatalf("host tier %v: stage 1 freed request 1 while its forwarded chunk is in flight, and in-flight-caches-active passed", host)
		}
		freed.Pipeline[0].Handled |= 1 << 1
		if f := sp.checkInFlightCachesActive(&freed); f != nil {
			t.Fatalf("host tier %v, after stage 1 handled the batch: %s", host, f.Message)
		}
	}
}

// TestCursorHistoryMayLagWhileSuspended follows the relaxed
// cursor-history-agree: update_context_resources (kv_cache_manager_v2.py at
// 00746ef) skips a context entry whose cache is not ACTIVE ("iteration
// N+1's eviction may suspend a ctx request's KV cache while iteration N's
// update still needs to process it"), so after it skipped a suspended
// cache (flagHistoryLags) the history may lag the cursor, but never lead
// it; the next update of the ACTIVE cache catches it up and clears the
// flag. Without the flag a lagging history is still a violation.
func TestCursorHistoryMayLagWhileSuspended(t *testing.T) {
	sp, s := fidelitySpec(t, commitConfig+"\nblock_reuse_policy=per_request", 0)
	arriveAll(sp, s)
	v := sp.view(s, 0)
	r := v.request(1)
	activeCache(t, v, Target, 1, 8, 0)
	r.Position, r.DraftPosition = 4, 4
	v.suspendCache(Target, 1)
	b := Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 1, Kind: ContextChunk, Chunk: 4, Incarnation: r.Incarnation}}}
	v.updateContextResources(Target, &b, 0)
	c := v.cache(Target, 1)
	if c.Flags&flagHistoryLags == 0 || c.History != 0 {
		t.Fatalf("update over a suspended cache: flags %b, history %d; want it skipped (history 0) and marked lagging", c.Flags, c.History)
	}
	if f := sp.checkCursorAgreement(s, sp.allRanks()); f != nil {
		t.Fatalf("history 0 behind cursor 4 after a skipped update: %s", f.Message)
	}
	c.History = 8
	if f := sp.checkCursorAgreement(s, sp.allRanks()); f == nil {
		t.Fatal("history 8 ahead of cursor 4 passed")
	}
	c.History = 0
	c.Flags &^= flagHistoryLags
	if f := sp.checkCursorAgreement(s, sp.allRanks()); f == nil {
		t.Fatal("a lagging history with no skipped update passed")
	}
	c.Flags |= flagHistoryLags
	if !v.resumeCache(Target, 1) {
		t.Fatal("resume refused")
	}
	v.updateContextResources(Target, &b, 0)
	if c.History != 4 || c.Flags&flagHistoryLags != 0 {
		t.Fatalf("update of the resumed cache: history %d, flags %b; want 4 and the flag cleared", c.History, c.Flags)
	}
	if f := sp.checkCursorAgreement(s, sp.allRanks()); f != nil {
		t.Fatal(f.Message)
	}
}
