package spec

// prepareDraftResources is KVCacheManagerV2._prepare_draft_resources
// (kv_cache_manager_v2.py at 00746ef, ≈ char 210,900; the same raises at
// 0004396 and in v1.3.0rc25), the draft manager's prepare_resources. It
// runs inside request_context(not enable_joint_kv_cache_reuse): an unpaired
// mirror reads the draft view of the request cursors.
//
// Context requests: get or create the mirror (a None only logs a warning,
// and copy_batch_block_offsets asserts later in the iteration), resume it
// (raise "Failed to resume draft KV cache" on refusal), then a plain
// resize(position + chunk + (draft_len if last chunk) + extra), not
// max(current, ...), raising "Draft KV cache context resize failed" on
// False. Generation requests: get or create the mirror (raise when the
// IndexMapper is exhausted), resume (raise), skip when the paired scheduler
// recorded _allocated_draft_lens, else grow by 1 + max(draft, reserve)
// without recording the width, raising on False.
//
// With FixDeferDraftMirror (PR #19231) every refusal defers the request: its
// target allocation is reverted and it leaves the batch; the mirror's
// context capacity is sized from the target cursor. With FixRecordDraftLens
// (PR #19120) the generation growth is recorded in _allocated_draft_lens.
func (v rankView) prepareDraftResources(fixes Fixes) {
	if !v.cfg.hasPool(v.r, Draft) {
		return
	}
	deferring := fixes.Has(FixDeferDraftMirror)
	unpaired := v.cfg.DraftPool == UnpairedDraftPool
	b := &v.rank.Batch
	for i := 0; i < int(b.Count); i++ {
		e := b.Entries[i]
		id := e.ID
		refused := func(err ErrorText, value uint8) bool {
			if deferring {
				v.hit(brDeferDraftMirror)
				if i < int(b.Count)-1 {
					v.hit(brDeferFromMiddle)
				}
				v.deferFromBatch(i)
				return true
			}
			v.s.crash(v.r, Draft, id, FnPrepareDraftResources, err, value)
			return false
		}
		if e.Kind == ContextChunk {
			if !v.mirrorDraftKVCache(id, fixes) {
				v.s.crash(v.r, Draft, id, FnPrepareDraftResources, ErrMirrorMissing, 0)
				return
			}
			if !v.resumeCache(Draft, id) {
				if refused(ErrDraftResume, 0) {
					i--
					continue
				}
				return
			}
			position, last := v.draftViewChunk(id, e, unpaired && !deferring)
			v.hit(brDraftContextResize)
			if e.Last && !last {
				v.hit(brDraftViewMissesLast)
			}
			capacity := int(position) + int(e.Chunk) + int(v.cfg.ExtraKVTokens)
			if last {
				capacity += int(v.request(id).DraftLen)
			}
			ok, raise := v.resizeCache(Draft, id, capacity, keep)
			if raise != ErrNone {
				v.s.crash(v.r, Draft, id, FnPrepareDraftResources, raise, 0)
				return
			}
			if !ok {
				if refused(ErrDraftContextResize, uint8(capacity)) {
					i--
					continue
				}
				return
			}
			continue
		}
		if !v.mirrorDraftKVCache(id, fixes) {
			v.s.crash(v.r, Draft, id, FnPrepareDraftResources, ErrDraftMirrorExhausted, 0)
			return
		}
		if !v.resumeCache(Draft, id) {
			if refused(ErrDraftResume, 0) {
				i--
				continue
			}
			return
		}
		c := v.cache(Draft, id)
		if c.AllocatedDraft != 0 {
			v.hit(brDraftGenRecorded)
			continue
		}
		v.hit(brDraftGenGrowth)
		slots := v.generationDraftSlots(Draft, id)
		capacity := int(c.Capacity) + 1 + int(slots)
		ok, raise := v.resizeCache(Draft, id, capacity, keep)
		if raise != ErrNone {
			v.s.crash(v.r, Draft, id, FnPrepareDraftResources, raise, 0)
			return
		}
		if !ok {
			if refused(ErrDraftGenerationResize, uint8(min(capacity, 255))) {
				i--
				continue
			}
			return
		}
		if fixes.Has(FixRecordDraftLens) {
			v.hit(brRecordDraftLens)
			c.AllocatedDraft = slots + 1
		}
	}
}

// draftViewChunk returns the context cursor and is_last_context_chunk the
// mirror sees for a scheduled context entry. Under the draft view
// (unpaired) that is the draft cursor; LlmRequest::isLastContextChunk is
// position + chunk == prompt_len of that view, so a lagging draft view never
// sees its last chunk.
func (v rankView) draftViewChunk(id uint8, e BatchEntry, draftView bool) (uint8, bool) {
	r := v.request(id)
	if !draftView {
		return r.Position, e.Last
	}
	return r.DraftPosition, r.DraftPosition+e.Chunk == v.promptLen(id)
}

// deferFromBatch removes entry i from the batch and reverts the target
// (and paired draft) allocation the scheduler made for it, the way
// PR #19231 defers a request whose mirror cannot be sized.
func (v rankView) deferFromBatch(i int) {
	b := &v.rank.Batch
	e := b.Entries[i]
	if e.Kind == GenerationStep {
		v.revertAllocateGeneration(Target, e.ID)
		v.revertAllocateGeneration(Draft, e.ID)
	} else if !v.revertAllocateContext(Target, e.ID) {
		v.hit(brDeferDropsMirror)
		v.closeCache(Draft, e.ID)
	}
	copy(b.Entries[i:], b.Entries[i+1:b.Count])
	b.Count--
	b.Entries[b.Count] = BatchEntry{}
}
