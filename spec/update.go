package spec

// updateContextResources is KVCacheManagerV2.update_context_resources
// (kv_cache_manager_v2.py at 00746ef) on pool p for the batch's context
// entries with an ACTIVE cache (a suspended one is skipped on purpose:
// "iteration N+1's eviction may suspend a ctx request's KV cache while
// iteration N's update still needs to process it"; its history lags until
// its next update, Cache flag flagHistoryLags). A cache that publishes
// blocks (enable_block_reuse, _can_publish_block_reuse, not a dummy) under
// the ALL_REUSABLE policy commits its blocks up to the context cursor after
// every chunk (try_commit_blocks), and the commit moves its history; any
// other cache has its history advanced to the cursor
// (_resize_context_history, raising "Failed to resize history length ...
// at context update" on False) and, publishing under PER_REQUEST, commits
// when the prompt is done. stop_committing follows the prompt's last
// commit. The executor calls it for the target always and for the draft
// only when paired (PyExecutor._update_v2_context_resources), so an
// unpaired mirror's history stays 0 for the whole prefill.
func (v rankView) updateContextResources(p PoolKind, b *Batch, fixes Fixes) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.Kind != ContextChunk {
			continue
		}
		c := v.cache(p, e.ID)
		if c.Status != Active {
			if c.Status == Suspended {
				v.hit(brContextUpdateSkipsSuspended)
				c.Flags |= flagHistoryLags
			}
			continue
		}
		r := v.entryRequest(b, e)
		done := r.Position == v.promptLen(e.ID)
		publishes := v.canReuse(p, fixes) && e.ID != dummyID
		if publishes && v.cfg.ReusePolicy == AllReusable {
			if !done {
				v.hit(brChunkCommit)
			} else {
				v.hit(brContextEndCommit)
			}
			v.commitCache(p, e.ID, r.Position, done)
			c.Flags &^= flagHistoryLags
			continue
		}
		ok, raise := v.resizeCache(p, e.ID, keep, int(r.Position))
		if raise != ErrNone {
			v.s.crash(v.r, p, e.ID, FnUpdateContextResources, raise, 0)
			return
		}
		if !ok {
			v.s.crash(v.r, p, e.ID, FnUpdateContextResources, ErrContextUpdate, 0)
			return
		}
		c.Flags &^= flagHistoryLags
		if done && publishes {
			v.hit(brContextEndCommit)
			v.commitCache(p, e.ID, r.Position, true)
		}
	}
}

// updateResources is KVCacheManagerV2.update_resources on pool p
// (poolCore.updateGeneration) for each generation entry whose ID has an
// ACTIVE cache in this manager (looked up by ID only, whatever incarnation
// owns it). The spec's sampler fills the runtime draft width: the runtime
// width is max_draft_len. A raise crashes the engine. With
// FixSkipDummyUpdate dummy requests are skipped; with FixClampCapacity a
// new capacity below the history is raised to it (PR #19120).
func (v rankView) updateResources(p PoolKind, b *Batch) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.Kind != GenerationStep || v.cache(p, e.ID).Status != Active {
			continue
		}
		r := v.entryRequest(b, e)
		if v.fixes.Has(FixSkipDummyUpdate) && r.Flags&requestFlagAdpDummy != 0 {
			v.hit(brUpdateSkipDummy)
			continue
		}
		u := GenerationUpdate{
			Runtime:      int(v.cfg.MaxDraftLen),
			Accepted:     int(r.Accepted),
			KeepCapacity: r.State == GenerationComplete || r.State == ContextInit,
			History:      int(r.NumTokens) - 1,
			Clamp:        v.fixes.Has(FixClampCapacity),
		}
		if _, raise := v.core(p).updateGeneration(e.ID, u); raise != ErrNone {
			v.s.crash(v.r, p, e.ID, FnUpdateResources, raise, 0)
			return
		}
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
