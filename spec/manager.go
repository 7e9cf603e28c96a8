package spec

// This file models the per-request operations of KVCacheManagerV2
// (tensorrt_llm/_torch/pyexecutor/kv_cache/kv_cache_manager_v2.py at
// 00746ef) that KVCacheV2Scheduler calls while it builds a batch
// (docs/reference.md, "The manager").

// request returns the rank's LlmRequest for id.
func (v rankView) request(id uint8) *Request { return &v.rank.Requests[id] }

// promptLen is the current prompt length of request id.
func (v rankView) promptLen(id uint8) uint8 { return v.request(id).Prompt }

// isFirstContextChunk is LlmRequest::isFirstContextChunk on the target
// view: the cursor still stands at the prepopulated (reused) length.
func (v rankView) isFirstContextChunk(id uint8) bool {
	r := v.request(id)
	return r.Position == r.Reused
}

// generationDraftSlots is _generation_draft_slots of request id in pool p
// (poolCore.draftSlots).
func (v rankView) generationDraftSlots(p PoolKind, id uint8) uint8 {
	return v.core(p).draftSlots(v.request(id).DraftLen)
}

// tryAllocateGeneration is KVCacheManagerV2.try_allocate_generation
// (poolCore.tryAllocateGeneration); a raise of the resize crashes the
// engine.
func (v rankView) tryAllocateGeneration(p PoolKind, id uint8) bool {
	ok, _, raise := v.core(p).tryAllocateGeneration(id, v.request(id).DraftLen)
	if raise != ErrNone {
		v.s.crash(v.r, p, id, FnResize, raise, 0)
	}
	return ok
}

// revertAllocateGeneration is KVCacheManagerV2.revert_allocate_generation
// (poolCore.revertAllocateGeneration); its raise crashes the engine.
func (v rankView) revertAllocateGeneration(p PoolKind, id uint8) {
	if _, raise := v.core(p).revertAllocateGeneration(id); raise != ErrNone {
		v.s.crash(v.r, p, id, FnRevertAllocateGeneration, raise, 0)
	}
}

// reuseTokens is the radix-tree match of _context_reuse_tokens plus the
// core's claim (poolCore.reuse): the lookup tokens are the prompt without
// its last token, and at most limit tokens are claimed (the paired reuse
// claim) when limit >= 0.
func (v rankView) reuseTokens(p PoolKind, id uint8, limit int) uint8 {
	if v.promptLen(id) == 0 {
		return 0
	}
	return v.core(p).reuse(id, v.promptLen(id)-1, limit)
}

// canReuse says whether pool p looks up and publishes blocks:
// enable_block_reuse and _can_publish_block_reuse (a draft pool only when
// paired, or with the mirror-reuse fix).
func (v rankView) canReuse(p PoolKind, fixes Fixes) bool {
	if !v.cfg.BlockReuse {
		return false
	}
	if p == Target {
		return true
	}
	return v.cfg.DraftPool == PairedDraftPool || fixes.Has(FixMirrorReuse)
}

// prepareContextCache is KVCacheManagerV2.prepare_context_cache: on the
// first chunk create the cache if missing (with a reuse lookup when block
// reuse is on, capped by reuseLimit tokens when >= 0; stop_committing
// otherwise) and resume it; on a later chunk resume it if suspended. It
// returns the reused tokens (num_committed_tokens), or false for None.
func (v rankView) prepareContextCache(p PoolKind, id uint8, reuseLimit int, fixes Fixes) (uint8, bool) {
	c := v.cache(p, id)
	if c.Status == Absent {
		var reused uint8
		reuse := v.canReuse(p, fixes)
		if reuse {
			reused = v.reuseTokens(p, id, reuseLimit)
		}
		if !v.createCache(p, id, reused) {
			return 0, false
		}
		if !reuse {
			c.Flags |= flagStopCommitting
		}
	}
	if !v.resumeCache(p, id) {
		return 0, false
	}
	return c.Committed, true
}

// prepareContext is KVCacheManagerV2.prepare_context on the target: on the
// first chunk with reuse, _settle_context_cursor moves the request cursor to
// the reused depth through set_prepopulated_prompt_len on the target view;
// the draft view follows only in DraftViewSameAsTarget mode (reference
// §2.7, LlmRequest::setPrepopulatedPromptLen).
func (v rankView) prepareContext(id uint8, reuseLimit int, fixes Fixes) bool {
	first := v.isFirstContextChunk(id)
	reused, ok := v.prepareContextCache(Target, id, reuseLimit, fixes)
	if !ok {
		return false
	}
	if first && v.cfg.BlockReuse && reused > 0 {
		r := v.request(id)
		v.hit(brSettleReusedCursor)
		r.Reused = reused
		r.Position = reused
		if v.cfg.DraftView == DraftViewSameAsTarget {
			r.DraftPosition = reused
		} else {
			v.hit(brDraftViewLags)
		}
	}
	return true
}

// resizeContext is KVCacheManagerV2.resize_context(req, n): grow the target
// to max(capacity, position + n + extra); on failure suspend a first chunk
// and return False; on growth record py_ctx_pre_resize_cap. History is not
// touched.
func (v rankView) resizeContext(id uint8, n uint8) bool {
	c := v.cache(Target, id)
	if c.Status == Absent {
		return false
	}
	r := v.request(id)
	want := max(int(c.Capacity), int(r.Position)+int(n)+int(v.cfg.ExtraKVTokens))
	before := c.Capacity
	ok, raise := v.resizeCache(Target, id, want, keep)
	if raise != ErrNone {
		v.s.crash(v.r, Target, id, FnResize, raise, 0)
		return false
	}
	if !ok {
		v.hit(brResizeContextRefused)
		if v.isFirstContextChunk(id) {
			v.suspendCache(Target, id)
		}
		return false
	}
	r.PreResizeCapacity = 0
	if c.Capacity > before {
		r.PreResizeCapacity = before + 1
	}
	return true
}

// tryAllocateDraftContext is KVCacheManagerV2.try_allocate_draft_context
// (paired draft pool): resume, then grow to max(capacity, position + n +
// extra).
func (v rankView) tryAllocateDraftContext(id uint8, n uint8) bool {
	if v.cache(Draft, id).Status == Absent || !v.resumeCache(Draft, id) {
		return false
	}
	r := v.request(id)
	c := v.cache(Draft, id)
	want := max(int(c.Capacity), int(r.Position)+int(n)+int(v.cfg.ExtraKVTokens))
	ok, raise := v.resizeCache(Draft, id, want, keep)
	if raise != ErrNone {
		v.s.crash(v.r, Draft, id, FnResize, raise, 0)
		return false
	}
	return ok
}

// revertAllocateContext is KVCacheManagerV2.revert_allocate_context: undo
// a context growth back to py_ctx_pre_resize_cap and suspend; when history
// already passed that capacity, free the cache and rewind the request
// instead (returns false: the caller drops the draft pool too).
func (v rankView) revertAllocateContext(p PoolKind, id uint8) bool {
	r := v.request(id)
	if r.PreResizeCapacity == 0 {
		return true
	}
	pre := r.PreResizeCapacity - 1
	r.PreResizeCapacity = 0
	c := v.cache(p, id)
	if c.Status != Active || pre >= c.Capacity {
		return true
	}
	if c.History > pre {
		v.hit(brRevertContextDrop)
		v.closeCache(p, id)
		v.rewindContextAfterCacheDrop(id)
		return false
	}
	v.hit(brRevertContextShrink)
	if _, raise := v.resizeCache(p, id, int(pre), int(min(c.History, pre))); raise != ErrNone {
		v.s.crash(v.r, p, id, FnResize, raise, 0)
		return false
	}
	if pre > 0 {
		v.suspendCache(p, id)
	}
	return true
}

// mirrorDraftKVCache is KVCacheManagerV2._mirror_draft_kv_cache
// (poolCore.mirror): a missing mirror is created with a reuse lookup when
// the draft pool reuses and the request is still in context.
func (v rankView) mirrorDraftKVCache(id uint8, fixes Fixes) bool {
	var reused uint8
	reuse := v.canReuse(Draft, fixes)
	if reuse && id != 0 && v.request(id).State == ContextInit && v.cache(Draft, id).Status == Absent {
		v.hit(brMirrorReuseLookup)
		reused = v.reuseTokens(Draft, id, -1)
	}
	return v.core(Draft).mirror(id, v.rank.Requests[id].Incarnation, reuse, reused)
}

// admitMirror is KVCacheManagerV2.admit_mirror (00746ef, called by
// KVCacheV2Scheduler._admit_unpaired_draft): create the mirror if missing,
// then resume it through the max_util_for_resume gate. It does not grow
// capacity: a fresh mirror sits ACTIVE at capacity 0.
func (v rankView) admitMirror(id uint8, fixes Fixes) bool {
	v.hit(brAdmitMirror)
	if !v.mirrorDraftKVCache(id, fixes) {
		return false
	}
	return v.resumeCache(Draft, id)
}

// rewindContextAfterCacheDrop is llm_request.rewind_context_after_cache_drop:
// the request's caches are gone, so both context cursors go back to 0.
func (v rankView) rewindContextAfterCacheDrop(id uint8) {
	r := v.request(id)
	r.Position, r.DraftPosition, r.Reused, r.PreResizeCapacity = 0, 0, 0, 0
}
