package spec

import (
	"strings"
	"testing"
)

// This file holds the fidelity tests of attention DP in PyExecutor
// (py_executor.py at 2829508): the pad dummy's capacity check, its role,
// its removal, and the router's cap.

// fullPoolConfig: rank 1 receives KV for request 1, whose 12-token prompt
// and draft token fill its 4-page pool; rank 0 runs request 2.
const fullPoolConfig = `tokens_per_block=4 max_draft_len=1 max_batch_size=2 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=4 target_index_slots=4 max_util_for_resume=100 version=00746ef ranks=2 loop=overlap enable_attention_dp=true
max_num_active_requests=2 kv_cache_transceiver=true enable_adp_dummy_fixes=true
request prompt=12 new=1 rank=1 receiving_kv=true
request prompt=4 new=2`

// TestAdpDummyCapacityIsStatic follows PyExecutor._has_adp_dummy_kv_capacity
// (py_executor.py at 2829508) through KVCacheManagerV2.get_num_available_tokens
// (kv_cache_manager_v2.py at 00746ef): clamp_max_seq_len_for_mem(1,
// token_num + X) - X counts the GPU pool's total pages, not its free ones,
// so the check passes on a full pool, and add_dummy_requests finds the
// pool full itself: it returns None and no dummy is padded, or, before PR
// #14286 (pre_fix=dummy-none-unchecked), the pad indexes the None and
// raises. The check fails only when the whole pool cannot hold the dummy:
// total tokens - extra - reserve < 1 + max_draft_len.
func TestAdpDummyCapacityIsStatic(t *testing.T) {
	for _, preFix := range []bool{false, true} {
		text := fullPoolConfig
		if preFix {
			text += "\npre_fix=dummy-none-unchecked"
		}
		sp, s := fidelitySpec(t, text, 0)
		arriveAll(sp, s)
		v := sp.view(s, 1)
		receivingKV(t, v, 1)
		if v.pool(Target).Free != 0 {
			t.Fatalf("setup: %d free pages on rank 1, want a full pool", v.pool(Target).Free)
		}
		if !v.hasAdpDummyKVCapacity(false) {
			t.Fatal("_has_adp_dummy_kv_capacity refused on a full pool: get_num_available_tokens is a static capacity")
		}
		v.rank.ExpectedActive = 1
		v.padAttentionDPDummyRequest()
		if d := v.request(dummyID); d.State.isActive() || v.cache(Target, dummyID).Status != Absent {
			t.Fatalf("pre_fix=%v: dummy %s with cache %s padded into a full pool", preFix, d.State, v.cache(Target, dummyID).Status)
		}
		if s.Crash.Happened != preFix {
			t.Fatalf("pre_fix=%v: crash %v (%s)", preFix, s.Crash.Happened, s.Crash.Describe())
		}
		if preFix && (s.Crash.Function != FnAddDummyRequests || s.Crash.Error != ErrDummyNone || s.Crash.Rank != 1) {
			t.Fatalf("crash %s, want rank 1's TypeError on add_dummy_requests' None", s.Crash.Describe())
		}
	}
	// 16 tokens of pool, reserve 1: the dummy's 2 tokens fit up to 13
	// extra KV tokens. (Validate keeps every pool above this, so only a config
	// changed after New reaches the refusal.)
	sp, s := fidelitySpec(t, fullPoolConfig, 0)
	v := sp.view(s, 1)
	for extra, want := range map[uint32]bool{0: true, 13: true, 14: false} {
		sp.Config.ExtraKVTokens = extra
		if got := v.hasAdpDummyKVCapacity(false); got != want {
			t.Errorf("num_extra_kv_tokens=%d: capacity %v, want %v (16 - %d - 1 >= 2)", extra, got, want, extra)
		}
	}
}

// dummyOrderConfig: rank 0 receives KV for request 1, then request 2
// arrives there; rank 1 runs request 3.
const dummyOrderConfig = `tokens_per_block=4 max_draft_len=1 max_batch_size=2 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=4 max_util_for_resume=100 version=00746ef ranks=2 loop=overlap enable_attention_dp=true
max_num_active_requests=3 kv_cache_transceiver=true enable_adp_dummy_fixes=true
request prompt=4 new=2 receiving_kv=true
request prompt=4 new=2
request prompt=4 new=2 rank=1`

// TestDummyRemovedOnlyWhenLast follows PyExecutor._update_request_states_tp
// (py_executor.py at 2829508): the ADP dummy is terminated there only when
// it is active_requests[-1]. Rank 0 pads a dummy while request 1 receives
// KV (not schedulable); when request 2 arrives after it, the dummy is no
// longer last and stays until _handle_responses terminates it; with no
// later arrival it is removed at once.
func TestDummyRemovedOnlyWhenLast(t *testing.T) {
	for _, later := range []bool{true, false} {
		sp, s := fidelitySpec(t, dummyOrderConfig, 0)
		sp.arrive(s)
		v := sp.view(s, 0)
		receivingKV(t, v, 1)
		v.rank.ExpectedActive = 1
		v.padAttentionDPDummyRequest()
		if !v.liveDummy() || v.rank.DummyAfter != 1 {
			t.Fatalf("no dummy padded behind request 1 (DummyAfter %d)", v.rank.DummyAfter)
		}
		if later {
			sp.arrive(s)
			var p schedulerPass
			v.activeRequests(&p)
			if p.count != 3 || p.order[1] != dummyID || p.order[2] != 2 {
				t.Fatalf("active_requests %v, want [1 dummy 2]", p.order[:p.count])
			}
		}
		v.updateRequestStates(&Batch{})
		if v.liveDummy() != later {
			t.Fatalf("later arrival %v: dummy live=%v after _update_request_states_tp; want it kept only when it is not last", later, v.liveDummy())
		}
		v.handleResponses()
		if v.liveDummy() || v.cache(Target, dummyID).Status != Absent {
			t.Fatalf("later arrival %v: the dummy survived _handle_responses", later)
		}
	}
}

// roleConfig: context-only (sending) and generation-only (receiving)
// requests and one with neither arrive on rank 0; rank 1 is empty and
// pads.
const roleConfig = `tokens_per_block=4 max_draft_len=1 max_batch_size=2 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=4 max_util_for_resume=100 version=00746ef ranks=2 loop=overlap enable_attention_dp=true
max_num_active_requests=4 kv_cache_transceiver=true enable_adp_dummy_fixes=true
request prompt=4 new=1 sending_kv=true
request prompt=4 new=2
request prompt=4 new=2 receiving_kv=true
request prompt=4 new=2`

// TestAdpDummyRole follows PyExecutor._update_adp_dummy_role
// (py_executor.py at 2829508), called by _fetch_new_requests with every
// rank's new requests under attention DP and a KV cache transceiver: a
// context-only arrival makes _adp_dummy_is_gen False, so the next pad is a
// context dummy (add_dummy_requests(token_nums=[1], is_gen=False):
// CONTEXT_INIT, a one-token prompt, capacity 1 + extra, no history); a
// generation-only arrival makes it a generation dummy again (capacity 1 +
// D + extra, then + D + 1, history D); an arrival that is neither leaves
// the role as it was.
func TestAdpDummyRole(t *testing.T) {
	sp, s := fidelitySpec(t, roleConfig, 0)
	v := sp.view(s, 1)
	for i, want := range []RequestState{ContextInit, ContextInit, GenerationInProgress, GenerationInProgress} {
		sp.arrive(s)
		sp.fetch(s)
		v.padAttentionDPDummyRequest()
		d, c := v.request(dummyID), v.cache(Target, dummyID)
		if d.State != want {
			t.Fatalf("after arrival %d (%s): pad dummy %s, want %s", i+1, describeArrival(sp.Config.template(uint8(i+1))), d.State, want)
		}
		if want == ContextInit && (d.Prompt != 1 || c.Capacity != 1 || c.History != 0) {
			t.Fatalf("context dummy: prompt %d, capacity %d, history %d; want 1, 1 + extra = 1, 0", d.Prompt, c.Capacity, c.History)
		}
		if want == GenerationInProgress && (c.Capacity != 4 || c.History != 1) {
			t.Fatalf("generation dummy: capacity %d, history %d; want 2 + 1 + 1 = 4 and 1", c.Capacity, c.History)
		}
		v.terminateRequest(dummyID)
	}
}

// describeArrival names the kind of a request for the role test's messages.
func describeArrival(t *RequestTemplate) string {
	switch {
	case t.SendingKV:
		return "context-only"
	case t.ReceivingKV:
		return "generation-only"
	}
	return "neither"
}

// capConfig: four requests, three pinned to rank 0, under
// max_num_active_requests=2.
const capConfig = `tokens_per_block=4 max_batch_size=2 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=4 max_util_for_resume=100 version=00746ef ranks=2 loop=overlap enable_attention_dp=true
max_num_active_requests=2
request prompt=4 new=2
request prompt=4 new=2
request prompt=4 new=2
request prompt=4 new=2 rank=1`

// TestAdpRouterCap follows the attention-DP admission path of
// PyExecutor._fetch_new_requests (py_executor.py at 2829508):
// request_utils.get_from_waiting_queue admits a request pinned to its rank
// only while that rank has fewer than max_num_active_requests active
// requests (else it waits, and so does everything behind it), and
// DefaultADPRouter.route_requests caps expected_num_active_requests at
// max_num_active_requests.
func TestAdpRouterCap(t *testing.T) {
	sp, s := fidelitySpec(t, capConfig, 0)
	arrivals := func() bool {
		for _, a := range sp.Actions(s, nil) {
			if a.Kind == ActArrive {
				return true
			}
		}
		return false
	}
	sp.arrive(s)
	sp.arrive(s)
	if arrivals() {
		t.Fatal("request 3 may arrive while rank 0 holds max_num_active_requests=2 active requests")
	}
	s.Ranks[0].Requests[1].State = Finished
	if !arrivals() {
		t.Fatal("request 3 still waits after request 1 finished")
	}
	// A dummy that survived a vetoed iteration can leave a rank one over
	// the cap; the router's expectation stays at the cap.
	s.Ranks[0].Requests[1].State = ContextInit
	s.Ranks[0].Requests[dummyID] = Request{State: GenerationInProgress, Incarnation: 1, Flags: requestFlagAdpDummy}
	sp.fetch(s)
	for r := uint8(0); r < 2; r++ {
		if got := s.Ranks[r].ExpectedActive; got != 2 {
			t.Fatalf("rank %d: expected_num_active_requests %d with 3 active on rank 0, want the cap 2", r, got)
		}
	}
}

// TestRecomputePauseWithTransceiverRefused follows the gate of PR #15252
// as _util.py applies it (KVCacheV2Scheduler(enable_recompute_pause=not
// is_disagg)): a configuration with both enable_recompute_pause and a KV
// cache transceiver is not one the engine runs, and Validate says so,
// naming both keys and the PR (configtext.Parse validates what it parses).
func TestRecomputePauseWithTransceiverRefused(t *testing.T) {
	cfg, err := parseConfigText(Config{}, fullPoolConfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("without recompute pause: %v", err)
	}
	cfg.RecomputePause = true
	err = cfg.Validate()
	if err == nil {
		t.Fatal("Validate accepted enable_recompute_pause=true with kv_cache_transceiver=true")
	}
	for _, want := range []string{"enable_recompute_pause", "kv_cache_transceiver", "#15252"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if _, err := parseConfigText(Config{}, fullPoolConfig+"\nenable_recompute_pause=true"); err == nil || !strings.Contains(err.Error(), "#15252") {
		t.Fatalf("parseConfigText of both keys: %v", err)
	}
}
