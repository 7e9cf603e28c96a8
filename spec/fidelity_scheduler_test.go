package spec

import "testing"

// This file holds the fidelity tests of KVCacheV2Scheduler's pass
// (scheduler_v2.py at 00746ef): the recompute pause's frontiers and
// fallback, the prefix-aware budget and skip, and the request budget.

// branchHits returns how often the spec's run hit the branch named name.
func branchHits(t *testing.T, sp *Spec, name string) uint64 {
	t.Helper()
	n, ok := sp.Cover.Count("branch " + name)
	if !ok {
		t.Fatalf("no branch %q", name)
	}
	return n
}

// recomputeConfig: requests 1 and 2 generate with 8-token caches that
// fill a 4-page pool with request 2's suspended; request 3 is a 4-token
// first chunk behind them.
const recomputeConfig = `ranks=1 tokens_per_block=4 max_batch_size=4 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=4 target_index_slots=3 max_util_for_resume=100 enable_recompute_pause=true version=00746ef
request prompt=8 new=4
request prompt=8 new=4
request prompt=4 new=2`

// TestRecomputePauseKeepsOrdinaryFrontier follows
// KVCacheV2Scheduler._try_recompute_pause_for_gen (scheduler_v2.py at
// 00746ef): "Recompute pause does not shrink the ordinary scheduling
// frontier" — req_it_end stays, the main loop only skips the victims'
// indices. Request 1 cannot grow; eviction finds no ACTIVE started victim;
// recompute pause frees request 2 (suspended, index 1); request 3, after
// the victim in the list, still reaches pending_ctx and is scheduled in
// the same pass.
func TestRecomputePauseKeepsOrdinaryFrontier(t *testing.T) {
	sp, s := fidelitySpec(t, recomputeConfig, 0)
	arriveAll(sp, s)
	v := sp.view(s, 0)
	for _, id := range []uint8{1, 2} {
		r := v.request(id)
		r.State, r.Position, r.DraftPosition, r.NumTokens = GenerationInProgress, 8, 8, 9
		activeCache(t, v, Target, id, 8, 8)
	}
	v.suspendCache(Target, 2)
	v.scheduleRequest(0)
	if s.Crash.Happened {
		t.Fatal(s.Crash.Describe())
	}
	if r := v.request(2); r.State != ContextInit || v.cache(Target, 2).Status != Absent {
		t.Fatalf("request 2 %s, cache %s; want it recompute-paused (freed, back to context)", r.State, v.cache(Target, 2).Status)
	}
	b := v.rank.Batch
	if b.Count != 2 || b.Entries[0].ID != 1 || b.Entries[1].ID != 3 || b.Entries[1].Kind != ContextChunk {
		t.Fatalf("batch %s; want gen 1 and request 3's first chunk (the victim does not cut the pass at its index)", b.describe())
	}
}

// fallbackConfig has a host tier (can_evict) of one page.
const fallbackConfig = `ranks=1 tokens_per_block=4 max_batch_size=4 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=4 target_index_slots=4 max_util_for_resume=100 enable_recompute_pause=true host_tier=true host_blocks=1 version=00746ef
request prompt=4 new=4
request prompt=4 new=4
request prompt=4 new=8
request prompt=4 new=4`

// fallbackPass returns a rank and a hand-built _schedule_loop pass in
// which _try_recompute_pause_for_gen must fall back to the evicted list:
// request 3 (index 2) needs a page in a full pool; requests 1 and 2
// (indices 0 and 1, evicted in that order, each holding a GPU page)
// cannot move to the full host tier (request 4's suspended first chunk
// fills it); request 4 (index 3), the only request the scan sees, is no
// candidate (not started). The scheduler cannot reach this pass (an
// evicted request sits past the request that evicted it, inside the scan:
// the coverage exception declared with branch recompute-pause-evicted-fallback), so the
// fallback is tested on the function itself.
func fallbackPass(t *testing.T) (*Spec, *State, rankView, *schedulerPass) {
	t.Helper()
	sp, s := fidelitySpec(t, fallbackConfig, 0)
	sp.Cover = NewCoverage()
	arriveAll(sp, s)
	v := sp.view(s, 0)
	activeCache(t, v, Target, 4, 4, 0)
	v.suspendCache(Target, 4)
	v.cache(Target, 4).Offloaded = 1
	v.pool(Target).Free++
	for _, id := range []uint8{1, 2} {
		r := v.request(id)
		r.State, r.Position, r.DraftPosition, r.NumTokens = GenerationInProgress, 4, 4, 5
		activeCache(t, v, Target, id, 4, 4)
		v.suspendCache(Target, id)
	}
	r := v.request(3)
	r.State, r.Position, r.DraftPosition, r.NumTokens = GenerationInProgress, 4, 4, 8
	activeCache(t, v, Target, 3, 8, 7)
	if v.pool(Target).Free != 0 || v.core(Target).hostFreeBlocks() != 0 {
		t.Fatalf("setup: %d free pages, %d free host pages; want both full", v.pool(Target).Free, v.core(Target).hostFreeBlocks())
	}
	p := &schedulerPass{count: 4, end: 4, frontier: 4}
	copy(p.order[:], []uint8{1, 2, 3, 4})
	for _, id := range []uint8{1, 2} {
		v.markEvicted(p, id)
	}
	return sp, s, v, p
}

// TestRecomputePauseFallbackTakesFirstEvicted follows the fallback of
// _try_recompute_pause_for_gen (scheduler_v2.py at 00746ef): when the scan
// finds no victim and can_evict, the victim is the first entry of
// `evicted` (the earliest evicted this pass) that is a recompute-pause
// candidate, not the last one. firstEvictedCandidate skips entries no
// longer evicted, already paused, or not candidates (GENERATION_TO_COMPLETE).
func TestRecomputePauseFallbackTakesFirstEvicted(t *testing.T) {
	sp, s, v, p := fallbackPass(t)
	if !v.tryRecomputePauseForGeneration(p, 2, 3, 0) || s.Crash.Happened {
		t.Fatalf("request 3 did not grow after the fallback (crash %v)", s.Crash.Happened)
	}
	if !p.recomputePaused[1] || p.recomputePaused[2] || v.cache(Target, 1).Status != Absent || v.cache(Target, 2).Status != Suspended {
		t.Fatalf("paused %v/%v, caches %s/%s; want request 1 (evicted first) paused and freed, request 2 kept",
			p.recomputePaused[1], p.recomputePaused[2], v.cache(Target, 1).Status, v.cache(Target, 2).Status)
	}
	if branchHits(t, sp, "recompute-pause-evicted-fallback") != 1 {
		t.Fatal("the victim did not come from the fallback")
	}
	for _, tt := range []struct {
		name  string
		setup func(v rankView, p *schedulerPass)
		want  int
	}{
		{"both evicted", func(rankView, *schedulerPass) {}, 0},
		{"first paused", func(_ rankView, p *schedulerPass) { p.recomputePaused[1] = true }, 1},
		{"first no longer evicted", func(_ rankView, p *schedulerPass) { p.evicted[1] = false }, 1},
		{"first GENERATION_TO_COMPLETE", func(v rankView, _ *schedulerPass) { v.request(1).State = GenerationToComplete }, 1},
		{"none left", func(_ rankView, p *schedulerPass) { p.evicted[1], p.evicted[2] = false, false }, -1},
	} {
		_, _, v, p := fallbackPass(t)
		tt.setup(v, p)
		if got := v.firstEvictedCandidate(p); got != tt.want {
			t.Errorf("%s: firstEvictedCandidate %d, want index %d", tt.name, got, tt.want)
		}
	}
}

// TestRecomputePauseLowersFrontier follows _RecomputePauseState in
// _try_recompute_pause_for_gen (scheduler_v2.py at 00746ef): every victim,
// the fallback's included, sets frontier = min(frontier, its index), and
// the scan only looks below the frontier. In a pass whose frontier stands
// at 2, request 1 takes request 2 (index 1), not the candidates at or past
// the frontier (requests 3 and 4); the fallback's victim at index 0 lowers
// the frontier to 0.
func TestRecomputePauseLowersFrontier(t *testing.T) {
	_, s, v, p := fallbackPass(t)
	v.tryRecomputePauseForGeneration(p, 2, 3, 0)
	if s.Crash.Happened || p.frontier != 0 {
		t.Fatalf("frontier %d after the fallback paused index 0, want 0", p.frontier)
	}
	sp, s := fidelitySpec(t, `ranks=1 tokens_per_block=4 max_batch_size=4 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=6 target_index_slots=4 max_util_for_resume=100 enable_recompute_pause=true version=00746ef
request prompt=8 new=4
request prompt=8 new=4
request prompt=8 new=4
request prompt=8 new=4`, 0)
	arriveAll(sp, s)
	v = sp.view(s, 0)
	v.request(3).State = Finished
	for _, id := range []uint8{1, 2, 3, 4} {
		if id == 3 {
			continue
		}
		r := v.request(id)
		r.State, r.Position, r.DraftPosition, r.NumTokens = GenerationInProgress, 8, 8, 9
		activeCache(t, v, Target, id, 8, 8)
		if id != 1 {
			v.suspendCache(Target, id)
		}
	}
	// Request 3's slot of the list holds request 4, a candidate past the
	// frontier; so is index 2.
	p = &schedulerPass{count: 3, end: 3, frontier: 2}
	copy(p.order[:], []uint8{1, 2, 4})
	if v.pool(Target).Free != 0 {
		t.Fatalf("setup: %d free pages, want a full pool", v.pool(Target).Free)
	}
	if !v.tryRecomputePauseForGeneration(p, 0, 1, 0) || s.Crash.Happened {
		t.Fatal("request 1 did not grow")
	}
	if !p.recomputePaused[2] || p.recomputePaused[4] || p.frontier != 1 {
		t.Fatalf("paused request 2 %v, request 4 %v, frontier %d; want request 2 (below the frontier) paused and the frontier at 1",
			p.recomputePaused[2], p.recomputePaused[4], p.frontier)
	}
}

// prefixBudgetConfig: request 1's 12-token prompt shares 8 tokens (two
// blocks, already in the reuse tree) with its family; request 2 is a
// 4-token prompt; 8 tokens of budget.
const prefixBudgetConfig = `ranks=1 tokens_per_block=4 max_batch_size=4 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=4 max_util_for_resume=100 enable_block_reuse=true version=00746ef
request prompt=12 new=2 family=0 shared=8
request prompt=4 new=2`

// TestPrefixAwareBudgetCountsAfterReuse follows
// _try_schedule_context_chunked (scheduler_v2.py at 00746ef):
// budget_context_remaining is the context left after _prepare_context_pair's
// reuse lookup when enable_prefix_aware_scheduling (the default, PR
// #18195), the pre-prepare length otherwise, and the budget is charged the
// chunk sized from it. Request 1 reuses 8 of its 12 tokens: with the knob
// its chunk costs 4 and request 2 fits the remaining 4; without it the
// chunk is sized and charged from 12 (min(8, 12) = 8), so request 2 gets
// no budget, though both run a 4-token chunk of request 1.
func TestPrefixAwareBudgetCountsAfterReuse(t *testing.T) {
	for _, aware := range []bool{true, false} {
		text := prefixBudgetConfig
		if !aware {
			text += "\nenable_prefix_aware_scheduling=false"
		}
		sp, s := fidelitySpec(t, text, 0)
		arriveAll(sp, s)
		v := sp.view(s, 0)
		v.pool(Target).Tree[0] = 2
		v.pool(Target).Free -= 2
		v.scheduleRequest(0)
		if s.Crash.Happened {
			t.Fatal(s.Crash.Describe())
		}
		b := v.rank.Batch
		if b.Count == 0 || b.Entries[0].ID != 1 || b.Entries[0].Chunk != 4 || !b.Entries[0].Last {
			t.Fatalf("prefix-aware=%v: batch %s; want request 1's last 4 tokens after the reused 8", aware, b.describe())
		}
		if got, want := b.Count, map[bool]uint8{true: 2, false: 1}[aware]; got != want {
			t.Fatalf("prefix-aware=%v: batch %s, want %d entries (request 2 fits only when the budget counts after reuse)", aware, b.describe(), want)
		}
	}
}

// prefixSkipConfig: two requests of one family whose first new block (the
// first of their 8 shared tokens) is the same; the budget and pool hold
// both prompts.
const prefixSkipConfig = `ranks=1 tokens_per_block=4 max_batch_size=4 max_num_tokens=24 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=4 max_util_for_resume=100 version=00746ef
request prompt=12 new=2 family=0 shared=8
request prompt=12 new=2 family=0 shared=8`

// TestPrefixAwareSkipDefersDuplicatePrefix follows phase 2 of
// _schedule_loop (scheduler_v2.py at 00746ef, PR #18195):
// _collect_contributed_blocks arms the skip when pending_ctx holds two
// first chunks, and a first chunk whose probe_first_new_block_key is a
// block that a request scheduled earlier in the pass contributes is
// deferred (deferred_behind_contributor), without a cache or budget. The
// skip needs _prefix_skip_enabled: the knob, block reuse and the
// ALL_REUSABLE policy.
func TestPrefixAwareSkipDefersDuplicatePrefix(t *testing.T) {
	for _, tt := range []struct {
		extra    string
		deferred bool
	}{
		{"enable_block_reuse=true", true},
		{"enable_block_reuse=true enable_prefix_aware_scheduling=false", false},
		{"enable_block_reuse=true block_reuse_policy=per_request", false},
		{"enable_block_reuse=false", false},
	} {
		sp, s := fidelitySpec(t, prefixSkipConfig+"\n"+tt.extra, 0)
		sp.Cover = NewCoverage()
		arriveAll(sp, s)
		v := sp.view(s, 0)
		v.scheduleRequest(0)
		if s.Crash.Happened {
			t.Fatal(s.Crash.Describe())
		}
		b := v.rank.Batch
		if b.Count == 0 || b.Entries[0].ID != 1 {
			t.Fatalf("%q: batch %s, want request 1 scheduled first", tt.extra, b.describe())
		}
		deferred := b.Count == 1 && v.cache(Target, 2).Status == Absent
		if deferred != tt.deferred || (b.Count == 2) == tt.deferred {
			t.Fatalf("%q: batch %s, request 2's cache %s; deferred=%v, want %v", tt.extra, b.describe(), v.cache(Target, 2).Status, deferred, tt.deferred)
		}
		if hits := branchHits(t, sp, "prefix-aware-skip"); (hits == 1) != tt.deferred {
			t.Fatalf("%q: prefix-aware-skip hit %d times", tt.extra, hits)
		}
	}
}

// TestMaxNumRequestsUnderAttentionDP follows create_py_executor_instance
// (_util.py, the stored version after 2829508): the V2 scheduler's
// scheduler_capacity is max_batch_size, plus one when that is 1 under
// attention DP (v2_scheduler_capacity, room for the pad dummy), so
// BudgetTracker admits two requests with max_batch_size=1 there, one
// without attention DP.
func TestMaxNumRequestsUnderAttentionDP(t *testing.T) {
	for _, adp := range []bool{true, false} {
		text := `tokens_per_block=4 max_batch_size=1 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4
target_blocks=8 target_index_slots=4 max_util_for_resume=100 version=00746ef
request prompt=4 new=2
request prompt=4 new=2`
		if adp {
			text += "\nranks=2 loop=overlap enable_attention_dp=true\nrequest prompt=4 new=2 rank=1"
		} else {
			text += "\nranks=1"
		}
		sp, s := fidelitySpec(t, text, 0)
		arriveAll(sp, s)
		v := sp.view(s, 0)
		v.scheduleRequest(0)
		if got, want := v.rank.Batch.Count, map[bool]uint8{true: 2, false: 1}[adp]; got != want {
			t.Fatalf("attention DP %v, max_batch_size=1: batch %s, want %d requests", adp, v.rank.Batch.describe(), want)
		}
	}
}
