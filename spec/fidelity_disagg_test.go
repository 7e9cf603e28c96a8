package spec

import "testing"

// This file holds the fidelity tests of the disaggregated generation
// path: the KV transfer's landing state and the first token, and
// prepare_disagg_gen_init on failure.

// disaggGenConfig is a disaggregated generation worker with attention DP
// and the overlap loop: rank 0 receives KV for a one-token request (1) and
// a two-token request (2); rank 1 runs a local request (3).
const disaggGenConfig = `tokens_per_block=4 max_draft_len=1 max_batch_size=2 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=4 max_util_for_resume=100 version=00746ef ranks=2 loop=overlap enable_attention_dp=true
max_num_active_requests=2 kv_cache_transceiver=true enable_adp_dummy_fixes=true
request prompt=4 new=1 receiving_kv=true
request prompt=4 new=2 receiving_kv=true
request prompt=4 new=2 rank=1`

// arriveAll makes every request of the configuration arrive.
func arriveAll(sp *Spec, s *State) {
	for int(s.Arrived) < len(sp.Config.Requests) {
		sp.arrive(s)
	}
}

// receivingKV brings request id of rank 0 through the placeholder drafts
// and prepare_disagg_gen_init into DISAGG_GENERATION_TRANS_IN_PROGRESS.
func receivingKV(t *testing.T, v rankView, id uint8) {
	t.Helper()
	v.setPlaceholderDrafts()
	if !v.prepareDisaggGenInit(id) || v.request(id).State != DisaggTransmission {
		t.Fatalf("request %d: prepare_disagg_gen_init did not admit it (%s)", id, v.request(id).State)
	}
}

// TestReceiveKVLandsInTransComplete follows the transceiver's
// check_gen_transfer_status as the coordinator's poll_gen_transfers runs
// it at the top of _prepare_and_schedule_batch (py_executor.py at
// 2829508): a request whose KV has landed moves from
// DISAGG_GENERATION_TRANS_IN_PROGRESS to DISAGG_GENERATION_TRANS_COMPLETE
// and has no token yet (the first token comes in
// _prepare_disagg_gen_transmission_complete); even a one-token request is
// not complete (py_executor.py sets GENERATION_COMPLETE only for dummies
// and errors).
func TestReceiveKVLandsInTransComplete(t *testing.T) {
	for _, id := range []uint8{1, 2} {
		sp, s := fidelitySpec(t, disaggGenConfig, 0)
		arriveAll(sp, s)
		v := sp.view(s, 0)
		receivingKV(t, v, id)
		sp.receiveKV(s, &Action{Kind: ActReceiveKV, Rank: 0, ID: id})
		r := v.request(id)
		if r.State != DisaggTransComplete || r.NumTokens != 0 || r.Produced != 0 {
			t.Fatalf("request %d after its KV landed: %s with %d tokens (%d produced); want kv-landed (DISAGG_GENERATION_TRANS_COMPLETE) with no token yet",
				id, r.State, r.NumTokens, r.Produced)
		}
	}
}

// landedRequest returns the spec and state of disaggGenConfig with request
// 2 of rank 0 in DISAGG_GENERATION_TRANS_COMPLETE (request 1 finished), its
// target cache at prompt + draft = 5 tokens from prepare_disagg_gen_init,
// and rank 0 scheduled (the V2 scheduler's pass on it).
func landedRequest(t *testing.T) (*Spec, *State, rankView) {
	t.Helper()
	sp, s := fidelitySpec(t, disaggGenConfig, 0)
	arriveAll(sp, s)
	v := sp.view(s, 0)
	v.request(1).State = Finished
	receivingKV(t, v, 2)
	sp.receiveKV(s, &Action{Kind: ActReceiveKV, Rank: 0, ID: 2})
	if c := v.cache(Target, 2); c.Capacity != 5 || c.History != 4 {
		t.Fatalf("prepare_disagg_gen_init left capacity %d history %d, want 5 and 4", c.Capacity, c.History)
	}
	v.rank.ExpectedActive = 1
	sp.scheduleOverlap(s, 0)
	if s.Crash.Happened {
		t.Fatal(s.Crash.Describe())
	}
	return sp, s, v
}

// TestTransCompleteScheduledAsGeneration follows
// KVCacheV2Scheduler._schedule_loop (scheduler_v2.py at 00746ef): its
// state gate is [CONTEXT_INIT, GENERATION_TO_COMPLETE) and
// DISAGG_GENERATION_TRANS_COMPLETE is 12 in llmRequest.h, inside it, so a
// landed request goes to _try_schedule_generation and
// try_allocate_generation grows its target capacity by 1 + its draft
// slots (the placeholder drafts it got in DISAGG_GENERATION_INIT).
func TestTransCompleteScheduledAsGeneration(t *testing.T) {
	_, _, v := landedRequest(t)
	b := v.rank.Batch
	if b.Count != 1 || b.Entries[0].ID != 2 || b.Entries[0].Kind != GenerationStep {
		t.Fatalf("batch %s, want the landed request 2 as a generation step", b.describe())
	}
	if c := v.cache(Target, 2); c.Capacity != 7 || c.AllocatedDraft != 2 {
		t.Fatalf("target capacity %d, _allocated_draft_lens+1 %d; want 5 + 1 + 1 = 7 and 2", c.Capacity, c.AllocatedDraft)
	}
	if r := v.request(2); r.State != DisaggTransComplete || r.NumTokens != 0 {
		t.Fatalf("request 2 %s with %d tokens after scheduling; the scheduler does not change its state", r.State, r.NumTokens)
	}
}

// TestTransCompleteFirstTokenWhenQueued follows
// PyExecutor._prepare_disagg_gen_transmission_complete (py_executor.py at
// 2829508), which _executor_loop_overlap runs only inside `if can_queue`,
// before _handle_dynamic_draft_len and prepare_resources: the scheduled
// TRANS_COMPLETE request turns GENERATION_IN_PROGRESS with its context
// cursor at the prompt's end and the context server's first token
// (add_new_token: NumTokens = prompt + 1). A vetoed batch skips it: the
// request stays TRANS_COMPLETE and _revert_gen_alloc gives back the
// scheduler's growth.
func TestTransCompleteFirstTokenWhenQueued(t *testing.T) {
	for _, queued := range []bool{true, false} {
		sp, s, v := landedRequest(t)
		v.rank.CanQueue, v.rank.CanQueueThisRank = queued, true
		v.rank.Phase = PhaseQueued
		sp.prepareOverlap(s, 0)
		if s.Crash.Happened {
			t.Fatal(s.Crash.Describe())
		}
		r, c := v.request(2), v.cache(Target, 2)
		if queued {
			if r.State != GenerationInProgress || r.NumTokens != 5 || r.Position != 4 || r.DraftPosition != 4 || r.Produced != 1 {
				t.Fatalf("queued: request 2 %s, %d tokens, cursors %d/%d, produced %d; want generation with the first token (5), cursors at 4",
					r.State, r.NumTokens, r.Position, r.DraftPosition, r.Produced)
			}
			if c.Capacity != 7 {
				t.Fatalf("queued: target capacity %d, want the scheduler's 7 kept", c.Capacity)
			}
			continue
		}
		if r.State != DisaggTransComplete || r.NumTokens != 0 {
			t.Fatalf("vetoed: request 2 %s with %d tokens, want still kv-landed with no token", r.State, r.NumTokens)
		}
		if c.Capacity != 5 || c.AllocatedDraft != 0 {
			t.Fatalf("vetoed: target capacity %d entry %d, want the growth given back (5, no entry)", c.Capacity, c.AllocatedDraft)
		}
	}
}

// disaggRetryConfig is a generation worker whose rank 0 pool (5 pages)
// cannot take request 1's prompt (8 tokens + 1 draft = 3 pages) while
// request 2 holds 3 pages; target_index_slots=2.
const disaggRetryConfig = `tokens_per_block=4 max_draft_len=1 max_batch_size=2 max_num_tokens=12 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=5 target_index_slots=2 max_util_for_resume=100 version=00746ef ranks=2 loop=overlap enable_attention_dp=true
max_num_active_requests=3 kv_cache_transceiver=true enable_adp_dummy_fixes=true
request prompt=8 new=2 receiving_kv=true
request prompt=12 new=2
request prompt=4 new=2
request prompt=4 new=2 rank=1`

// TestPrepareDisaggGenInitSuspendsOnFailure follows
// KVCacheManagerV2.prepare_disagg_gen_init (kv_cache_manager_v2.py at
// 00746ef): on a failed resize it only suspends the cache ("if
// req.is_first_context_chunk: kv_cache.suspend(); return False"), which
// stays in kv_cache_map with its IndexMapper slot; the scheduler's
// _try_schedule_disagg_gen_init returns SKIP. The next pass resumes it and
// retries the resize.
func TestPrepareDisaggGenInitSuspendsOnFailure(t *testing.T) {
	sp, s := fidelitySpec(t, disaggRetryConfig, 0)
	arriveAll(sp, s)
	v := sp.view(s, 0)
	v.setPlaceholderDrafts()
	activeCache(t, v, Target, 2, 12, 0)
	free := v.pool(Target).Free
	if v.prepareDisaggGenInit(1) {
		t.Fatal("prepare_disagg_gen_init admitted 9 tokens into 2 free pages")
	}
	c := v.cache(Target, 1)
	if c.Status != Suspended || v.request(1).State != DisaggGenerationInit {
		t.Fatalf("after the failed resize: cache %s, request %s; want the cache suspended in kv_cache_map and the request still DISAGG_GENERATION_INIT",
			c.Status, v.request(1).State)
	}
	if v.pool(Target).Free != free {
		t.Fatalf("free pages %d, want %d: the failure neither takes nor gives back pages", v.pool(Target).Free, free)
	}
	// The suspended cache holds the second IndexMapper slot: request 3's
	// first chunk cannot get one.
	if v.createCache(Target, 3, 0) {
		t.Fatal("a third cache got an IndexMapper slot: the suspended cache gave its slot back")
	}
	v.freeResources(2)
	if !v.prepareDisaggGenInit(1) {
		t.Fatal("the retry after request 2 freed its pages failed")
	}
	if c := v.cache(Target, 1); c.Status != Active || c.Capacity != 9 || c.History != 8 || v.request(1).State != DisaggTransmission {
		t.Fatalf("retry: cache %+v, request %s; want it resumed and resized to 9 with history 8, receiving KV", *c, v.request(1).State)
	}
}
