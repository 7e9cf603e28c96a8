package spec

import "testing"

// This file and fidelity_*_test.go hold one test per correction of the
// fidelity review of 4f43288 (spec/reading-notes.md, "Fidelity
// corrections"; issue #19): each names the TensorRT-LLM function and commit
// the spec now follows. By mechanism: fidelity_disagg_test.go (the
// disaggregated generation path), fidelity_deadlock_test.go
// (_detect_deadlock), fidelity_scheduler_test.go (the scheduler pass),
// fidelity_adp_test.go (attention DP, the PR #15252 gate),
// fidelity_loop_test.go (the executor loops and the invariants).

// fidelitySpec returns a spec of cfgText with no fixes and its initial
// state.
func fidelitySpec(t *testing.T, cfgText string, fixes Fixes) (*Spec, *State) {
	t.Helper()
	cfg, err := parseConfigText(Config{}, cfgText)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := New(cfg, fixes)
	if err != nil {
		t.Fatal(err)
	}
	s := sp.Initial()
	return sp, &s
}

// TestPrepareDraftResourcesContextFirst follows
// KVCacheManagerV2._prepare_draft_resources (kv_cache_manager_v2.py at
// 00746ef): it loops over scheduled_batch.context_requests, then
// generation_requests. The V2 scheduler appends generation requests
// first (phase 1), so in a batch where both a generation mirror and a
// context mirror cannot be sized, the context request raises.
func TestPrepareDraftResourcesContextFirst(t *testing.T) {
	sp, s := fidelitySpec(t, `ranks=1 tokens_per_block=4 max_draft_len=1 kv_reserve_draft_tokens=1 max_batch_size=2 max_num_tokens=16 target_index_slots=4 draft_index_slots=4 max_util_for_resume=100
target_blocks=8 draft_blocks=4 draft_pool=unpaired version=00746ef
request prompt=8 new=4
request prompt=8 new=4`, 0)
	v := sp.view(s, 0)
	// Request 1 generates with a mirror at capacity 8 in a 4-page draft
	// pool that request 2's mirror (capacity 8) fills.
	for id := uint8(1); id <= 2; id++ {
		v.rank.Requests[id] = Request{State: ContextInit, Incarnation: 1, Prompt: 8, DraftLen: 1}
		for _, p := range []PoolKind{Target, Draft} {
			if !v.createCache(p, id, 0) || !v.resumeCache(p, id) {
				t.Fatalf("request %d: no %s cache", id, p)
			}
			v.cache(p, id).Incarnation = 1
			if ok, _ := v.resizeCache(p, id, 8, 0); !ok {
				t.Fatalf("request %d: %s resize to 8 failed", id, p)
			}
		}
	}
	r1 := v.request(1)
	r1.State, r1.Position, r1.DraftPosition, r1.NumTokens = GenerationInProgress, 8, 8, 9
	v.request(2).Position, v.request(2).DraftPosition = 4, 4
	v.rank.Batch = Batch{}
	v.appendToBatch(BatchEntry{ID: 1, Kind: GenerationStep})
	v.appendToBatch(BatchEntry{ID: 2, Kind: ContextChunk, Chunk: 4, Last: true})
	v.prepareDraftResources(0)
	if !s.Crash.Happened || s.Crash.ID != 2 || s.Crash.Error != ErrDraftContextResize {
		t.Fatalf("crash %+v; want request 2's context resize (context_requests are prepared before generation_requests)", s.Crash)
	}
}
