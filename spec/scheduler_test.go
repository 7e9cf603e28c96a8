package spec

import "testing"

// TestScheduleChunkedPrefill covers _try_schedule_context_chunked: a
// non-final chunk is the token budget rounded down to chunk_unit_size, the
// final chunk reaches the end, and a prefix reused by an earlier request
// shortens the prefill while the chunk is budgeted from the pre-reuse
// remainder.
func TestScheduleChunkedPrefill(t *testing.T) {
	cfg := testConfig()
	cfg.MaxNumTokens = 6
	_, s, v := fixture(t, cfg)
	v.scheduleRequest(0)
	b := v.rank.Batch
	if s.Crash.Happened || b.Count != 1 {
		t.Fatalf("batch %s, want one context chunk", b.describe())
	}
	if e := b.Entries[0]; e.ID != 1 || e.Kind != ContextChunk || e.Chunk != 4 || e.Last {
		t.Fatalf("first entry %+v, want request 1, chunk 4 (6 rounded down to 4), not last", e)
	}
	if c := v.cache(Target, 1); c.Capacity != 4 {
		t.Fatalf("target capacity %d after scheduling, want 4", c.Capacity)
	}
	if c := v.cache(Draft, 1); c.Status != Absent {
		t.Fatal("v1.3.0rc25's scheduler touched the unpaired draft pool")
	}
}

// TestScheduleGenerationFirst covers the phase order of _schedule_loop:
// generation requests first (1 + draft tokens each), then context requests
// in the remaining budget.
func TestScheduleGenerationFirst(t *testing.T) {
	_, s, v := fixture(t, testConfig())
	r := v.request(2)
	r.State, r.NumTokens, r.DraftLen = GenerationInProgress, 13, 1
	activeCache(t, v, Target, 2, 12, 12)
	v.scheduleRequest(0)
	b := v.rank.Batch
	if s.Crash.Happened || b.Count != 2 {
		t.Fatalf("batch %s, want gen 2 then ctx 1", b.describe())
	}
	if b.Entries[0].ID != 2 || b.Entries[0].Kind != GenerationStep {
		t.Fatalf("first entry %+v, want generation of request 2", b.Entries[0])
	}
	if e := b.Entries[1]; e.ID != 1 || e.Chunk != 4 {
		t.Fatalf("second entry %+v, want request 1 with the 6 tokens left rounded to 4", e)
	}
	if c := v.cache(Target, 2); c.Capacity != 14 || c.AllocatedDraft != 2 {
		t.Fatalf("generation growth: capacity %d entry %d, want 14 and width 1", c.Capacity, c.AllocatedDraft)
	}
}

// TestFailedFirstChunkByVersion covers _try_schedule_context on a first
// chunk that cannot be allocated (correction 3, PR #19202). At 00746ef
// (KVCacheV2Scheduler._schedule_loop: free_resources in every manager, then
// rewind_context_after_cache_drop) it frees its caches and rewinds its
// cursor, so it holds no reuse claim while it waits and the tree blocks it
// had matched become droppable for a later request. At v1.3.0rc25, before
// the PR, it is only suspended (_suspend_request) and keeps its settled
// reuse cursor and its claim.
func TestFailedFirstChunkByVersion(t *testing.T) {
	for _, tt := range []struct {
		version     CodeVersion
		cache       CacheStatus
		reused      uint8
		batch, tree uint8
	}{
		{Version00746ef, Absent, 0, 1, 0},
		{VersionRC25, Suspended, 8, 0, 2},
	} {
		cfg := testConfig()
		cfg.RecomputePause = false
		cfg.Version = tt.version
		_, s, v := fixture(t, cfg)
		v.pool(Target).Tree[0] = 2
		v.pool(Target).Free = 0
		v.scheduleRequest(0)
		if s.Crash.Happened {
			t.Fatal(s.Crash.Describe())
		}
		for id := uint8(1); id <= 2; id++ {
			if st := v.cache(Target, id).Status; st != tt.cache {
				t.Fatalf("%s: request %d target cache %s after its first chunk failed, want %s", tt.version, id, st, tt.cache)
			}
			if r := v.request(id); r.Position != tt.reused || r.Reused != tt.reused {
				t.Fatalf("%s: request %d cursor %d reused %d, want %d", tt.version, id, r.Position, r.Reused, tt.reused)
			}
		}
		if b := v.rank.Batch; b.Count != tt.batch || v.pool(Target).Tree[0] != tt.tree {
			t.Fatalf("%s: batch %s with tree %d; want %d entries and tree %d", tt.version, b.describe(), v.pool(Target).Tree[0], tt.batch, tt.tree)
		}
		if tt.batch == 1 && v.rank.Batch.Entries[0].ID != 3 {
			t.Fatalf("%s: batch %s, want ctx 3 on the reclaimed tree blocks", tt.version, v.rank.Batch.describe())
		}
	}
}

// generatingPair makes requests 1 and 2 generate with 3-block target caches
// that fill a 6-page target pool.
func generatingPair(t *testing.T, cfg Config) (*State, rankView) {
	t.Helper()
	cfg.TargetBlocks = 6
	_, s, v := fixture(t, cfg)
	for _, id := range []uint8{1, 2} {
		r := v.request(id)
		r.State, r.NumTokens, r.DraftLen = GenerationInProgress, 13, 1
		activeCache(t, v, Target, id, 12, 12)
	}
	v.request(3).State = Finished
	return s, v
}

// TestEvictForGeneration covers _try_evict_for_gen with a host tier: the
// started request later in the list is suspended and its pages evicted to
// host so the earlier one grows.
func TestEvictForGeneration(t *testing.T) {
	cfg := testConfig()
	cfg.HostTier = true
	s, v := generatingPair(t, cfg)
	v.scheduleRequest(0)
	if s.Crash.Happened {
		t.Fatal(s.Crash.Describe())
	}
	if b := v.rank.Batch; b.Count != 1 || b.Entries[0].ID != 1 {
		t.Fatalf("batch %s, want only gen 1", b.describe())
	}
	if c := v.cache(Target, 2); c.Status != Suspended || c.Offloaded != 1 {
		t.Fatalf("victim cache %s offloaded %d; want suspended with 1 page on host", c.Status, c.Offloaded)
	}
}

// TestEvictionWithoutHostTierStalls: with GPU as the last tier the suspend
// of _try_evict_for_gen frees nothing, and the evicted victim is no longer a
// recompute-pause candidate (can_evict is false), so the request suspends
// itself and the phase stops.
func TestEvictionWithoutHostTierStalls(t *testing.T) {
	s, v := generatingPair(t, testConfig())
	v.scheduleRequest(0)
	if s.Crash.Happened {
		t.Fatal(s.Crash.Describe())
	}
	if b := v.rank.Batch; b.Count != 0 {
		t.Fatalf("batch %s, want nothing", b.describe())
	}
	if v.cache(Target, 1).Status != Suspended || v.cache(Target, 2).Status != Suspended {
		t.Fatal("both requests should end suspended")
	}
}

// TestRecomputePauseForGeneration covers _try_recompute_pause_for_gen: a
// started victim that eviction skipped (its cache is already suspended) is
// freed in both pools and goes back to CONTEXT_INIT with all its tokens as
// the prompt, so the earlier request grows.
func TestRecomputePauseForGeneration(t *testing.T) {
	s, v := generatingPair(t, testConfig())
	v.suspendCache(Target, 2)
	v.scheduleRequest(0)
	if s.Crash.Happened {
		t.Fatal(s.Crash.Describe())
	}
	if b := v.rank.Batch; b.Count != 1 || b.Entries[0].ID != 1 {
		t.Fatalf("batch %s, want only gen 1", b.describe())
	}
	victim := v.request(2)
	if victim.State != ContextInit || victim.Prompt != 13 || v.cache(Target, 2).Status != Absent {
		t.Fatalf("victim state %s prompt %d cache %s; want context, 13, absent", victim.State, victim.Prompt, v.cache(Target, 2).Status)
	}
}

// TestJointAdmissionRefusesMirrorShortage: with PR #19006 a context chunk
// is admitted only when the mirror can grow too; otherwise the target is
// reverted and, for a first chunk, dropped.
func TestJointAdmissionRefusesMirrorShortage(t *testing.T) {
	cfg := testConfig()
	cfg.Version = Version00746ef // a dropped first chunk needs PR #19202
	_, s, v := fixture(t, cfg)
	v.pool(Draft).Free = 1
	v.scheduleRequest(Fixes(0).With(FixJointAdmission))
	if s.Crash.Happened {
		t.Fatal(s.Crash.Describe())
	}
	b := v.rank.Batch
	if b.Count != 0 {
		t.Fatalf("batch %s admitted without room in the draft pool", b.describe())
	}
	if v.cache(Target, 1).Status != Absent || v.pool(Target).Free != 8 {
		t.Fatalf("target not rolled back: %s, free %d", v.cache(Target, 1).Status, v.pool(Target).Free)
	}
}

// TestPairedDraftPoolAdmission covers the paired path
// (enable_joint_kv_cache_reuse): _prepare_context_pair claims reuse in both
// pools, _try_allocate_context grows the draft with
// try_allocate_draft_context, and when the draft cannot grow the target is
// reverted (revert_allocate_context) and, for a first chunk, dropped.
func TestPairedDraftPoolAdmission(t *testing.T) {
	cfg := testConfig()
	cfg.DraftPool = PairedDraftPool
	cfg.Version = Version00746ef // a dropped first chunk needs PR #19202
	_, s, v := fixture(t, cfg)
	v.scheduleRequest(0)
	if s.Crash.Happened || v.rank.Batch.Count != 1 {
		t.Fatalf("batch %s, want request 1's first chunk", v.rank.Batch.describe())
	}
	if tc, dc := v.cache(Target, 1), v.cache(Draft, 1); tc.Capacity != 8 || dc.Capacity != 8 || dc.Status != Active {
		t.Fatalf("target %+v draft %+v, want both grown to 8 at admission", *tc, *dc)
	}
	_, s, v = fixture(t, cfg)
	v.pool(Draft).Free = 1
	v.scheduleRequest(0)
	if s.Crash.Happened || v.rank.Batch.Count != 0 {
		t.Fatalf("batch %s admitted with no room in the paired draft pool", v.rank.Batch.describe())
	}
	if v.cache(Target, 1).Status != Absent || v.pool(Target).Free != 8 {
		t.Fatalf("target %s with %d free pages, want dropped and all 8 free", v.cache(Target, 1).Status, v.pool(Target).Free)
	}
}
