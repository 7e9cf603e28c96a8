package spec

// This file holds the per-request steps of KVCacheManagerV2
// (tensorrt_llm/_torch/pyexecutor/kv_cache/kv_cache_manager_v2.py at
// 00746ef and 0004396) that act on one pool's cache, generic over the width
// of the counts like the core (core.go): the explored spec runs them from
// manager.go, update.go and draft_resources.go at uint8, and `kvcheck lin`
// checks recorded manager calls against them at uint32. Each returns the
// raise it produces instead of crashing the engine, so the caller decides
// what the raise does (the explored spec records the crash; lin compares
// it with the recorded one).

// ResizeCall is the _KVCache.resize(capacity, history) call a manager step
// made, CacheKeep for None; Made is false when the step made none.
type ResizeCall struct {
	Made              bool
	Capacity, History int
}

// draftSlots is _generation_draft_slots: the request's draft length,
// widened to _kv_reserve_draft_tokens in a draft pool.
func (c poolCore[T]) draftSlots(draftLen T) T {
	if reserve := T(c.cfg.ReserveDraftTokens); c.p == Draft && reserve > draftLen {
		c.hit(brReserveWidensDraft)
		return reserve
	}
	return draftLen
}

// tryAllocateGeneration is KVCacheManagerV2.try_allocate_generation for a
// request with draftLen draft tokens: resume a suspended cache (False on
// refusal), pop the old _allocated_draft_lens entry, grow by 1 +
// _generation_draft_slots (False on failure, entry stays popped) and record
// the width.
func (c poolCore[T]) tryAllocateGeneration(id uint8, draftLen T) (bool, ResizeCall, ErrorText) {
	x := c.cache(id)
	if x.Status == Absent {
		return false, ResizeCall{}, ErrNone
	}
	if x.Status == Suspended {
		c.hit(brAllocGenResumes)
		if !c.resume(id) {
			c.hit(brAllocGenRefused)
			return false, ResizeCall{}, ErrNone
		}
	}
	slots := c.draftSlots(draftLen)
	x.AllocatedDraft = 0
	call := ResizeCall{true, int(x.Capacity) + 1 + int(slots), keep}
	ok, raise := c.resize(id, call.Capacity, keep)
	if raise == ErrNone && !ok {
		c.hit(brAllocGenRefused)
	}
	if raise != ErrNone || !ok {
		return false, call, raise
	}
	x.AllocatedDraft = slots + 1
	return true, call, ErrNone
}

// revertAllocateGeneration is KVCacheManagerV2.revert_allocate_generation:
// only when an _allocated_draft_lens entry exists (popped) and the cache is
// ACTIVE, shrink by 1 + slots; a failed shrink raises RuntimeError.
func (c poolCore[T]) revertAllocateGeneration(id uint8) (ResizeCall, ErrorText) {
	x := c.cache(id)
	if x.AllocatedDraft == 0 {
		return ResizeCall{}, ErrNone
	}
	slots := x.AllocatedDraft - 1
	x.AllocatedDraft = 0
	if x.Status != Active {
		c.hit(brRevertGenNotActive)
		return ResizeCall{}, ErrNone
	}
	c.hit(brRevertGeneration)
	reverted := int(x.Capacity) - 1 - int(slots)
	if reverted < 0 {
		return ResizeCall{}, ErrNone
	}
	call := ResizeCall{true, reverted, keep}
	ok, raise := c.resize(id, reverted, keep)
	if raise == ErrNone && !ok {
		raise = ErrRevertGeneration
	}
	return call, raise
}

// GenerationUpdate is what KVCacheManagerV2.update_resources reads of one
// generation request: the runtime draft width (py_rewind_len +
// py_num_accepted_draft_tokens), the accepted drafts, whether its state
// keeps the capacity (GENERATION_COMPLETE or CONTEXT_INIT), and the new
// history (max_beam_num_tokens - 1; CacheKeep when
// kv_compression_manages_history). Clamp is the clamp-capacity fix.
type GenerationUpdate struct {
	Runtime, Accepted int
	KeepCapacity      bool
	History           int
	Clamp             bool
}

// updateGeneration is update_resources (0004396 ≈ char 200,000; 00746ef ≈
// char 276,900) on one generation request with an ACTIVE cache (none
// otherwise: the call is skipped):
//
//	allocated = _allocated_draft_lens.get(id, max(runtime, reserve) for a
//	            draft pool, runtime for a target)
//	rewind    = max(allocated - accepted, 0)
//	capacity  = None if the state keeps it else capacity - rewind
//	resize(capacity, history)
//
// The core raises "History length cannot exceed capacity" when history >
// capacity; a False return raises "Failed to resize KV cache ... at
// generation update". The entry of _allocated_draft_lens is popped. With
// the clamp-capacity fix a new capacity below the history is raised to it
// (PR #19120).
func (c poolCore[T]) updateGeneration(id uint8, u GenerationUpdate) (ResizeCall, ErrorText) {
	x := c.cache(id)
	if x.Status != Active {
		return ResizeCall{}, ErrNone
	}
	allocated := u.Runtime
	if c.p == Draft {
		allocated = max(u.Runtime, int(c.cfg.ReserveDraftTokens))
	}
	if x.AllocatedDraft != 0 {
		c.hit(brUpdateRecorded)
		allocated = int(x.AllocatedDraft) - 1
	}
	rewind := max(allocated-u.Accepted, 0)
	call := ResizeCall{true, keep, u.History}
	if !u.KeepCapacity {
		call.Capacity = int(x.Capacity) - rewind
		if rewind > 0 {
			c.hit(brUpdateRewinds)
		}
	} else {
		c.hit(brUpdateKeepCapacity)
	}
	if u.Clamp && call.Capacity != keep && u.History != keep && call.Capacity < u.History {
		c.hit(brUpdateClamp)
		call.Capacity = u.History
	}
	ok, raise := c.resize(id, call.Capacity, call.History)
	if raise == ErrNone && !ok {
		raise = ErrGenerationUpdate
	}
	if raise == ErrNone {
		x.AllocatedDraft = 0
	}
	return call, raise
}

// mirror is KVCacheManagerV2._mirror_draft_kv_cache on a draft pool: the
// cache under the request ID (whatever incarnation created it), or a new
// one with the reused tokens when the pool reuses (else tokens=None and
// stop_committing); false when the IndexMapper is full.
func (c poolCore[T]) mirror(id, incarnation uint8, reuse bool, reused T) bool {
	if c.cache(id).Status != Absent {
		return true
	}
	if !c.createSlot(id, incarnation, reused) {
		return false
	}
	c.hit(brMirrorCreated)
	if !reuse {
		c.cache(id).Flags |= flagStopCommitting
	}
	return true
}

// DraftEntry is one batch entry as _prepare_draft_resources sizes its
// mirror: a context chunk (position and chunk of the view the mirror
// reads, is_last_context_chunk of that view, the draft length added on a
// last chunk) or a generation step (the draft length, widened to the
// reserve). Record says _allocated_draft_lens records the growth
// (record-draft-lens, PR #19120).
type DraftEntry struct {
	Context         bool
	Position, Chunk int
	Last            bool
	DraftLen        int
	Record          bool
}

// DraftOutcome is what _prepare_draft_resources did with one entry: the
// resize it called, and the raise, with Refusal set when the fix that
// defers a request (PR #19231) would defer it instead, and Value the token
// count the raise names.
type DraftOutcome struct {
	Resize  ResizeCall
	Raise   ErrorText
	Refusal bool
	Value   int
}

// prepareDraftEntry is the loop body of _prepare_draft_resources (00746ef
// ≈ char 210,900) for one entry whose mirror mirror() made (or could not:
// made false). Context: resume (refusal: "Failed to resume draft KV
// cache"), then a plain resize(position + chunk + (draft_len if last) +
// extra), raising "Draft KV cache context resize failed" on False.
// Generation: resume (refusal), skip when the paired scheduler recorded
// _allocated_draft_lens, else grow by 1 + max(draft, reserve) without
// recording the width, raising on False.
func (c poolCore[T]) prepareDraftEntry(id uint8, made bool, e DraftEntry) DraftOutcome {
	if !made {
		if e.Context {
			return DraftOutcome{Raise: ErrMirrorMissing}
		}
		return DraftOutcome{Raise: ErrDraftMirrorExhausted}
	}
	if !c.resume(id) {
		return DraftOutcome{Raise: ErrDraftResume, Refusal: true}
	}
	x := c.cache(id)
	var out DraftOutcome
	var slots T
	if e.Context {
		c.hit(brDraftContextResize)
		out.Resize = ResizeCall{true, e.Position + e.Chunk + int(c.cfg.ExtraKVTokens), keep}
		if e.Last {
			out.Resize.Capacity += e.DraftLen
		}
	} else {
		if x.AllocatedDraft != 0 {
			c.hit(brDraftGenRecorded)
			return out
		}
		c.hit(brDraftGenGrowth)
		slots = c.draftSlots(T(e.DraftLen))
		out.Resize = ResizeCall{true, int(x.Capacity) + 1 + int(slots), keep}
	}
	ok, raise := c.resize(id, out.Resize.Capacity, keep)
	switch {
	case raise != ErrNone:
		out.Raise = raise
	case !ok && e.Context:
		out.Raise, out.Refusal, out.Value = ErrDraftContextResize, true, out.Resize.Capacity
	case !ok:
		out.Raise, out.Refusal, out.Value = ErrDraftGenerationResize, true, out.Resize.Capacity
	case !e.Context && e.Record:
		c.hit(brRecordDraftLens)
		x.AllocatedDraft = slots + 1
	}
	return out
}
