package spec

import "testing"

// TestTryAllocateGeneration covers KVCacheManagerV2.try_allocate_generation
// and revert_allocate_generation: grow by 1 + draft slots and record the
// width; the revert pops it and shrinks back; a failed grow leaves the entry
// popped.
func TestTryAllocateGeneration(t *testing.T) {
	_, _, v := fixture(t, testConfig())
	c := activeCache(t, v, Target, 1, 12, 12)
	v.request(1).DraftLen = 1
	if !v.tryAllocateGeneration(Target, 1) {
		t.Fatal("try_allocate_generation failed with free pages")
	}
	if c.Capacity != 14 || c.AllocatedDraft != 2 {
		t.Fatalf("capacity %d allocated-draft entry %d; want 14 and width 1 (+1)", c.Capacity, c.AllocatedDraft)
	}
	v.revertAllocateGeneration(Target, 1)
	if c.Capacity != 12 || c.AllocatedDraft != 0 {
		t.Fatalf("after revert: capacity %d entry %d; want 12, none", c.Capacity, c.AllocatedDraft)
	}
	v.revertAllocateGeneration(Target, 1) // no entry: a no-op
	if c.Capacity != 12 {
		t.Fatalf("revert without an entry changed capacity to %d", c.Capacity)
	}
	c.AllocatedDraft = 2
	v.pool(Target).Free = 0
	c.Capacity = 16
	if v.tryAllocateGeneration(Target, 1) {
		t.Fatal("try_allocate_generation succeeded with no free page")
	}
	if c.AllocatedDraft != 0 {
		t.Fatal("a failed try_allocate_generation kept the old _allocated_draft_lens entry")
	}
}

// TestDraftGenerationSlots: a draft pool reserves max(draft, reserve)
// (_generation_draft_slots).
func TestDraftGenerationSlots(t *testing.T) {
	cfg := testConfig()
	cfg.ReserveDraftTokens = 3
	cfg.MaxDraftLen = 3
	_, _, v := fixture(t, cfg)
	v.request(1).DraftLen = 1
	if got := v.generationDraftSlots(Target, 1); got != 1 {
		t.Fatalf("target slots %d, want 1", got)
	}
	if got := v.generationDraftSlots(Draft, 1); got != 3 {
		t.Fatalf("draft slots %d, want 3", got)
	}
}

// TestPrepareContextSettlesTargetCursor covers prepare_context and
// _settle_context_cursor: the target cursor moves to the reused depth; the
// draft view follows only in same-as-target mode.
func TestPrepareContextSettlesTargetCursor(t *testing.T) {
	for _, mode := range []DraftViewMode{DraftViewSameAsTarget, DraftViewLagByReuse} {
		cfg := testConfig()
		cfg.DraftView = mode
		_, _, v := fixture(t, cfg)
		v.pool(Target).Tree[0] = 2
		v.pool(Target).Free = 6
		if !v.prepareContext(2, -1, 0) {
			t.Fatalf("%s: prepare_context failed", mode)
		}
		r := v.request(2)
		wantDraft := uint8(8)
		if mode == DraftViewLagByReuse {
			wantDraft = 0
		}
		if r.Position != 8 || r.Reused != 8 || r.DraftPosition != wantDraft {
			t.Fatalf("%s: position %d reused %d draft position %d; want 8, 8, %d", mode, r.Position, r.Reused, r.DraftPosition, wantDraft)
		}
		if c := v.cache(Target, 2); c.Status != Active || c.Capacity != 8 || c.Shared != 2 {
			t.Fatalf("%s: cache %+v, want ACTIVE with the 8 reused tokens", mode, *c)
		}
	}
}

// TestResizeContextKeepsHistory covers resize_context: grow to
// max(capacity, position + n + extra), record py_ctx_pre_resize_cap, leave
// history alone; a failed first chunk is suspended.
func TestResizeContextKeepsHistory(t *testing.T) {
	_, _, v := fixture(t, testConfig())
	if !v.prepareContext(1, -1, 0) {
		t.Fatal("prepare_context failed")
	}
	if !v.resizeContext(1, 8) {
		t.Fatal("resize_context failed")
	}
	c := v.cache(Target, 1)
	if c.Capacity != 8 || c.History != 0 || v.request(1).PreResizeCapacity != 1 {
		t.Fatalf("capacity %d history %d pre-resize %d; want 8, 0, 0(+1)", c.Capacity, c.History, v.request(1).PreResizeCapacity)
	}
	v.pool(Target).Free = 0
	if !v.prepareContext(3, -1, 0) {
		t.Fatal("prepare_context of request 3 failed")
	}
	if v.resizeContext(3, 6) {
		t.Fatal("resize_context succeeded with no free page")
	}
	if v.cache(Target, 3).Status != Suspended {
		t.Fatal("a first chunk whose resize_context failed was not suspended")
	}
}

// TestAdmitMirrorDoesNotGrow covers admit_mirror (00746ef): create with
// tokens=None, stop_committing, resume; capacity stays 0.
func TestAdmitMirrorDoesNotGrow(t *testing.T) {
	_, _, v := fixture(t, testConfig())
	if !v.admitMirror(1, 0) {
		t.Fatal("admit_mirror failed")
	}
	c := v.cache(Draft, 1)
	if c.Status != Active || c.Capacity != 0 || c.Flags&flagStopCommitting == 0 {
		t.Fatalf("mirror %+v, want ACTIVE at capacity 0 with stop_committing", *c)
	}
}

// TestPrepareDraftResourcesRaises covers _prepare_draft_resources: a
// refused context resize raises with the real text and the token count; a
// resume refusal raises "Failed to resume draft KV cache".
func TestPrepareDraftResourcesRaises(t *testing.T) {
	_, s, v := fixture(t, testConfig())
	v.pool(Draft).Free = 2
	v.rank.Batch = Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 1, Kind: ContextChunk, Chunk: 12, Last: true}}}
	v.prepareDraftResources(0)
	want := "RuntimeError: Draft KV cache context resize failed for request 1: could not resize to 12 tokens"
	if !s.Crash.Happened || s.Crash.String() != want || s.Crash.Function != FnPrepareDraftResources || s.Crash.Pool != Draft {
		t.Fatalf("crash %+v (%q), want %q", s.Crash, s.Crash.String(), want)
	}

	cfg := testConfig()
	cfg.ResumeGatePercent = 10
	_, s, v = fixture(t, cfg)
	activeCache(t, v, Draft, 2, 8, 0)
	v.rank.Batch = Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 1, Kind: ContextChunk, Chunk: 4}}}
	v.prepareDraftResources(0)
	if want := "RuntimeError: Failed to resume draft KV cache for request 1"; s.Crash.String() != want {
		t.Fatalf("crash %q, want %q", s.Crash.String(), want)
	}
}

// TestPrepareDraftResourcesDefers: with PR #19231's deferral the refused
// request leaves the batch and its target growth is reverted, no raise.
func TestPrepareDraftResourcesDefers(t *testing.T) {
	_, s, v := fixture(t, testConfig())
	if !v.prepareContext(1, -1, 0) || !v.resizeContext(1, 8) {
		t.Fatal("setup failed")
	}
	v.pool(Draft).Free = 1
	v.rank.Batch = Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 1, Kind: ContextChunk, Chunk: 8}}}
	v.prepareDraftResources(Fixes(0).With(FixDeferDraftMirror))
	if s.Crash.Happened {
		t.Fatalf("deferral raised: %s", s.Crash.String())
	}
	if v.rank.Batch.Count != 0 {
		t.Fatalf("batch still holds %d entries", v.rank.Batch.Count)
	}
	if c := v.cache(Target, 1); c.Capacity != 0 {
		t.Fatalf("target capacity %d after the deferral, want the pre-resize 0", c.Capacity)
	}
}

// TestUpdateResourcesRewind covers update_resources: the recorded width is
// rewound less the accepted tokens and history becomes
// max_beam_num_tokens - 1; without a record the draft pool falls back to
// max(runtime, reserve).
func TestUpdateResourcesRewind(t *testing.T) {
	_, s, v := fixture(t, testConfig())
	r := v.request(1)
	r.State, r.NumTokens, r.DraftLen, r.Accepted = GenerationInProgress, 14, 1, 1
	tc := activeCache(t, v, Target, 1, 14, 12)
	tc.AllocatedDraft = 2
	dc := activeCache(t, v, Draft, 1, 14, 0)
	v.rank.Batch = Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 1, Kind: GenerationStep}}}
	v.updateResources(Draft, &v.rank.Batch)
	v.updateResources(Target, &v.rank.Batch)
	if s.Crash.Happened {
		t.Fatalf("unexpected raise: %s", s.Crash.Describe())
	}
	if tc.Capacity != 14 || tc.History != 13 || tc.AllocatedDraft != 0 {
		t.Fatalf("target capacity %d history %d entry %d; want 14, 13, none", tc.Capacity, tc.History, tc.AllocatedDraft)
	}
	if dc.Capacity != 14 || dc.History != 13 {
		t.Fatalf("draft capacity %d history %d; want 14, 13", dc.Capacity, dc.History)
	}
	r.Accepted = 0
	r.NumTokens = 16
	v.updateResources(Draft, &v.rank.Batch)
	if want := "ValueError: History length cannot exceed capacity"; s.Crash.String() != want || s.Crash.Function != FnUpdateResources {
		t.Fatalf("crash %q in %s, want %q in update_resources", s.Crash.String(), s.Crash.Function, want)
	}
}

// TestFreeResourcesByID: free_resources closes whatever cache sits under
// the ID in each pool, and is a no-op where there is none.
func TestFreeResourcesByID(t *testing.T) {
	_, _, v := fixture(t, testConfig())
	activeCache(t, v, Target, 1, 8, 0)
	activeCache(t, v, Draft, 1, 12, 0)
	v.freeResources(1)
	v.freeResources(2)
	if v.cache(Target, 1).Status != Absent || v.cache(Draft, 1).Status != Absent {
		t.Fatal("free_resources left a cache behind")
	}
	if v.pool(Target).Free != 8 || v.pool(Draft).Free != 8 {
		t.Fatalf("free pages %d/%d after freeing everything", v.pool(Target).Free, v.pool(Draft).Free)
	}
}
