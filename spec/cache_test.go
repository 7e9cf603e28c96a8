package spec

import "testing"

// testConfig is a small one-rank configuration for transition tests:
// 4 tokens per block, 8 pages per pool, an unpaired draft pool.
func testConfig() Config {
	return Config{
		TokensPerBlock: 4, MaxDraftLen: 1, ReserveDraftTokens: 1,
		MaxBatchSize: 4, MaxNumTokens: 8, ChunkedPrefill: true, ChunkUnitSize: 4,
		TargetBlocks: 8, DraftBlocks: 8, TargetIndexSlots: 3, DraftIndexSlots: 3,
		ResumeGatePercent: 100, BlockReuse: true, RecomputePause: true,
		DraftPool: UnpairedDraftPool, Ranks: 1,
		Requests: []RequestTemplate{
			{PromptLen: 12, MaxNewTokens: 4, Family: 0, SharedPrefix: 8},
			{PromptLen: 12, MaxNewTokens: 4, Family: 0, SharedPrefix: 8},
			{PromptLen: 6, MaxNewTokens: 2, Family: NoFamily},
		},
	}
}

// fixture returns a spec, its initial state with every request arrived,
// and a view of rank 0.
func fixture(t *testing.T, cfg Config) (*Spec, *State, rankView) {
	t.Helper()
	sp, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := sp.Initial()
	for range cfg.Requests {
		sp.arrive(&s)
	}
	st := &s
	return sp, st, st.view(&sp.Config, 0)
}

// activeCache creates and resumes a cache of capacity/history for id.
func activeCache(t *testing.T, v rankView, p PoolKind, id uint8, capacity, history uint8) *Cache {
	t.Helper()
	if !v.createCache(p, id, 0) || !v.resumeCache(p, id) {
		t.Fatalf("cannot create and resume %s cache %d", p, id)
	}
	if ok, raise := v.resizeCache(p, id, int(capacity), int(history)); !ok || raise != ErrNone {
		t.Fatalf("setup resize(%d, %d) of %s cache %d: ok=%v raise=%v", capacity, history, p, id, ok, raise)
	}
	return v.cache(p, id)
}

// TestResizeCache covers _KVCache.resize (kvCache.cpp KvCache::resize):
// the two raises come before any allocation, a short pool returns false with
// no change, and blocks follow ceil(capacity / tokens_per_block).
func TestResizeCache(t *testing.T) {
	tests := []struct {
		name              string
		capacity, history int
		ok                bool
		raise             ErrorText
		wantCap, wantHist uint8
		wantFree          uint8
	}{
		{"grow within the pool", 12, keep, true, ErrNone, 12, 2, 5},
		{"grow by a partial block", 9, keep, true, ErrNone, 9, 2, 5},
		{"shrink frees trailing blocks", 4, keep, true, ErrNone, 4, 2, 7},
		{"history only", keep, 6, true, ErrNone, 8, 6, 6},
		{"history cannot decrease", keep, 1, false, ErrHistoryDecreased, 8, 2, 6},
		{"history cannot exceed capacity", 8, 9, false, ErrHistoryExceedsCapacity, 8, 2, 6},
		{"shrink below history raises", 1, keep, false, ErrHistoryExceedsCapacity, 8, 2, 6},
		{"pool too short returns false", 40, keep, false, ErrNone, 8, 2, 6},
		{"exactly the whole pool", 32, keep, true, ErrNone, 32, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, v := fixture(t, testConfig())
			activeCache(t, v, Target, 1, 8, 2)
			ok, raise := v.resizeCache(Target, 1, tt.capacity, tt.history)
			c := v.cache(Target, 1)
			if ok != tt.ok || raise != tt.raise {
				t.Fatalf("resize(%d, %d) = %v, %v; want %v, %v", tt.capacity, tt.history, ok, raise, tt.ok, tt.raise)
			}
			if c.Capacity != tt.wantCap || c.History != tt.wantHist || v.pool(Target).Free != tt.wantFree {
				t.Fatalf("after resize: capacity %d history %d free %d; want %d %d %d",
					c.Capacity, c.History, v.pool(Target).Free, tt.wantCap, tt.wantHist, tt.wantFree)
			}
		})
	}
}

// TestResizeRequiresActive: a SUSPENDED cache cannot be resized (the C++
// TLLM_CHECK_DEBUG, a Python assert).
func TestResizeRequiresActive(t *testing.T) {
	_, _, v := fixture(t, testConfig())
	if !v.createCache(Target, 1, 0) {
		t.Fatal("create failed")
	}
	if _, raise := v.resizeCache(Target, 1, 4, keep); raise != ErrResizeNotActive {
		t.Fatalf("resize of a born-SUSPENDED cache: raise %v, want ErrResizeNotActive", raise)
	}
}

// TestCreateCacheIndexSlots: _create_kv_cache returns None once every
// IndexMapper slot is taken, and close releases the slot.
func TestCreateCacheIndexSlots(t *testing.T) {
	_, _, v := fixture(t, testConfig())
	for id := uint8(1); id <= 3; id++ {
		if !v.createCache(Draft, id, 0) {
			t.Fatalf("create %d failed with free slots", id)
		}
	}
	if v.createCache(Draft, 0, 0) {
		t.Fatal("create succeeded with all 3 slots taken")
	}
	v.closeCache(Draft, 2)
	if !v.createCache(Draft, 0, 0) {
		t.Fatal("create failed after close released a slot")
	}
}

// TestResumeGate: _KVCache.resume refuses above max_util_for_resume and
// changes nothing; droppable reuse blocks count as available.
func TestResumeGate(t *testing.T) {
	cfg := testConfig()
	cfg.ResumeGatePercent = 50
	_, _, v := fixture(t, cfg)
	activeCache(t, v, Target, 1, 20, 0) // 5 of 8 pages: 62.5%
	if !v.createCache(Target, 2, 0) {
		t.Fatal("create failed")
	}
	if v.resumeCache(Target, 2) {
		t.Fatal("resume allowed at 62.5% utilization with a 50% gate")
	}
	if c := v.cache(Target, 2); c.Status != Suspended {
		t.Fatalf("refused resume changed status to %s", c.Status)
	}
	v.resizeCache(Target, 1, 16, keep) // 4 of 8 pages: 50%, not above
	if !v.resumeCache(Target, 2) {
		t.Fatal("resume refused at exactly the gate")
	}
}

// TestCommitPublishesSharedPrefix: committing a prompt publishes the full
// blocks of the family's shared prefix once; a later request of the family
// reuses them (the shared blocks count once in the pool), and after both
// close the tree keeps them as droppable blocks that an allocation reclaims.
func TestCommitPublishesSharedPrefix(t *testing.T) {
	_, _, v := fixture(t, testConfig())
	activeCache(t, v, Target, 1, 12, 0)
	v.commitCache(Target, 1, 12, true)
	c1 := v.cache(Target, 1)
	if c1.Shared != 2 || v.pool(Target).Tree[0] != 2 || c1.History != 12 {
		t.Fatalf("after commit: shared %d, tree %d, history %d; want 2, 2, 12", c1.Shared, v.pool(Target).Tree[0], c1.History)
	}
	if n := v.reuseTokens(Target, 2, -1); n != 8 {
		t.Fatalf("request 2 matches %d tokens, want 8", n)
	}
	if !v.createCache(Target, 2, 8) || !v.resumeCache(Target, 2) {
		t.Fatal("create with reuse failed")
	}
	if ok, _ := v.resizeCache(Target, 2, 12, keep); !ok {
		t.Fatal("grow after reuse failed")
	}
	// 3 blocks of request 1 (2 in the tree) + 1 private block of request 2.
	if free := v.pool(Target).Free; free != 4 {
		t.Fatalf("free pages %d, want 4 (shared blocks held once)", free)
	}
	v.closeCache(Target, 1)
	v.closeCache(Target, 2)
	if v.pool(Target).Free != 6 || v.droppableBlocks(Target) != 2 {
		t.Fatalf("after close: free %d droppable %d; want 6, 2", v.pool(Target).Free, v.droppableBlocks(Target))
	}
	activeCache(t, v, Target, 3, 32, 0) // needs all 8 pages: drops the tree
	if v.pool(Target).Tree[0] != 0 || v.pool(Target).Free != 0 {
		t.Fatalf("allocation did not reclaim droppable blocks: tree %d free %d", v.pool(Target).Tree[0], v.pool(Target).Free)
	}
}

// TestReuseNeverMatchesLastPromptToken: the lookup tokens are prompt[:-1],
// so a prompt entirely inside the shared prefix never reuses its last block.
func TestReuseNeverMatchesLastPromptToken(t *testing.T) {
	cfg := testConfig()
	cfg.Requests[1] = RequestTemplate{PromptLen: 8, MaxNewTokens: 1, Family: 0, SharedPrefix: 8}
	_, _, v := fixture(t, cfg)
	v.pool(Target).Tree[0] = 2
	v.pool(Target).Free = 6
	if n := v.reuseTokens(Target, 2, -1); n != 4 {
		t.Fatalf("an 8-token prompt matched %d tokens, want 4", n)
	}
	if n := v.reuseTokens(Target, 2, 0); n != 0 {
		t.Fatalf("reuse limit 0 matched %d tokens", n)
	}
}

// TestHostTierEviction: with a tier below GPU, an allocation evicts a
// suspended cache's pages to host, and its resume brings them back.
func TestHostTierEviction(t *testing.T) {
	cfg := testConfig()
	cfg.HostTier = true
	_, _, v := fixture(t, cfg)
	activeCache(t, v, Target, 1, 16, 0)
	v.suspendCache(Target, 1)
	activeCache(t, v, Target, 2, 24, 0) // 6 pages: 2 come from request 1
	if c := v.cache(Target, 1); c.Offloaded != 2 {
		t.Fatalf("offloaded %d pages, want 2", c.Offloaded)
	}
	if v.resumeCache(Target, 1) {
		t.Fatal("resume succeeded with no page to bring the evicted blocks back")
	}
	v.resizeCache(Target, 2, 16, keep)
	if !v.resumeCache(Target, 1) || v.cache(Target, 1).Offloaded != 0 || v.pool(Target).Free != 0 {
		t.Fatalf("resume after pages freed: status %s offloaded %d free %d",
			v.cache(Target, 1).Status, v.cache(Target, 1).Offloaded, v.pool(Target).Free)
	}
}
