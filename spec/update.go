package spec

// updateContextResources is KVCacheManagerV2.update_context_resources
// (00746ef, ≈ char 274,300) on pool p for the batch's context entries with
// an ACTIVE cache: advance history to the context cursor
// (_resize_context_history, raising "Failed to resize history length ... at
// context update" on False) and, when the prompt is done, commit the
// prompt's blocks and stop_committing (try_commit_blocks; the reuse policy
// is not ALL_REUSABLE, so commits happen at context end). The executor calls
// it for the target always and for the draft only when paired
// (PyExecutor._update_v2_context_resources), so an unpaired mirror's
// history stays 0 for the whole prefill.
func (v rankView) updateContextResources(p PoolKind, b *Batch, fixes Fixes) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.Kind != ContextChunk {
			continue
		}
		c := v.cache(p, e.ID)
		if c.Status != Active {
			continue
		}
		r := v.entryRequest(b, e)
		ok, raise := v.resizeCache(p, e.ID, keep, int(r.Position))
		if raise != ErrNone {
			v.s.crash(v.r, p, e.ID, FnUpdateContextResources, raise, 0)
			return
		}
		if !ok {
			v.s.crash(v.r, p, e.ID, FnUpdateContextResources, ErrContextUpdate, 0)
			return
		}
		if r.Position == v.promptLen(e.ID) && v.canReuse(p, fixes) {
			v.hit(brContextEndCommit)
			v.commitCache(p, e.ID, r.Position, true)
		}
	}
}

// updateResources is KVCacheManagerV2.update_resources (00746ef, ≈ char
// 276,900) on pool p: for each generation entry whose ID has an ACTIVE cache
// in this manager (looked up by ID only, whatever incarnation owns it),
// rewind the unused draft slots and set history to max_beam_num_tokens - 1:
//
//	allocated = _allocated_draft_lens.get(id, max(runtime, reserve) for a
//	            draft pool, runtime for a target), runtime = py_rewind_len +
//	            accepted = the sampler's runtime draft width
//	rewind    = max(allocated - accepted, 0)
//	capacity  = None if GENERATION_COMPLETE or CONTEXT_INIT else capacity - rewind
//	resize(capacity, history)
//
// The core raises "History length cannot exceed capacity" when history >
// capacity; a False return raises "Failed to resize KV cache ... at
// generation update". The entry of _allocated_draft_lens is popped.
//
// With FixSkipDummyUpdate dummy requests are skipped; with FixClampCapacity
// a new capacity below the history is raised to it (PR #19120).
func (v rankView) updateResources(p PoolKind, b *Batch) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.Kind != GenerationStep {
			continue
		}
		c := v.cache(p, e.ID)
		if c.Status != Active {
			continue
		}
		r := v.entryRequest(b, e)
		if v.fixes.Has(FixSkipDummyUpdate) && r.Flags&requestFlagAdpDummy != 0 {
			v.hit(brUpdateSkipDummy)
			continue
		}
		runtime := int(v.cfg.MaxDraftLen)
		allocated := runtime
		if p == Draft {
			allocated = max(runtime, int(v.cfg.ReserveDraftTokens))
		}
		if c.AllocatedDraft != 0 {
			v.hit(brUpdateRecorded)
			allocated = int(c.AllocatedDraft) - 1
		}
		rewind := max(allocated-int(r.Accepted), 0)
		capacity := keep
		if r.State != GenerationComplete && r.State != ContextInit {
			capacity = int(c.Capacity) - rewind
			if rewind > 0 {
				v.hit(brUpdateRewinds)
			}
		} else {
			v.hit(brUpdateKeepCapacity)
		}
		history := int(r.NumTokens) - 1
		if v.fixes.Has(FixClampCapacity) && capacity != keep && capacity < history {
			v.hit(brUpdateClamp)
			capacity = history
		}
		ok, raise := v.resizeCache(p, e.ID, capacity, history)
		if raise != ErrNone {
			v.s.crash(v.r, p, e.ID, FnUpdateResources, raise, 0)
			return
		}
		if !ok {
			v.s.crash(v.r, p, e.ID, FnUpdateResources, ErrGenerationUpdate, 0)
			return
		}
		c.AllocatedDraft = 0
	}
}

// freeResources is ResourceManager.free_resources: every manager in
// reverse registration order (DRAFT → KV registered, so the target first,
// then the draft), each KVCacheManagerV2.free_resources closing the cache
// under the request ID if any (a no-op otherwise).
func (v rankView) freeResources(id uint8) {
	v.closeCache(Target, id)
	v.closeCache(Draft, id)
}
