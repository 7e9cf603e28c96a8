package spec

// prepareDraftResources is KVCacheManagerV2._prepare_draft_resources
// (kv_cache_manager_v2.py at 00746ef, ≈ char 210,900; the same raises at
// 0004396 and in v1.3.0rc25), the draft manager's prepare_resources. It
// runs inside request_context(not enable_joint_kv_cache_reuse): an unpaired
// mirror reads the draft view of the request cursors.
//
// It walks the batch as ScheduledRequests holds it: every context request
// first (context_requests), then every generation request
// (generation_requests), so when both kinds would raise, a context request
// raises first, and a deferral under the fix takes a context request out
// before any generation request is looked at.
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
	for _, kind := range [...]BatchKind{ContextChunk, GenerationStep} {
		if !v.prepareDraftEntries(kind, fixes) {
			return
		}
	}
}

// prepareDraftEntries is one of _prepare_draft_resources' two loops: the
// batch's entries of one kind, in scheduling order. It reports false when
// the engine crashed.
func (v rankView) prepareDraftEntries(kind BatchKind, fixes Fixes) bool {
	deferring := fixes.Has(FixDeferDraftMirror)
	unpaired := v.cfg.DraftPool == UnpairedDraftPool
	b := &v.rank.Batch
	for i := 0; i < int(b.Count); i++ {
		e := b.Entries[i]
		if e.Kind != kind {
			continue
		}
		id := e.ID
		entry := DraftEntry{Context: e.Kind == ContextChunk, DraftLen: int(v.request(id).DraftLen), Record: fixes.Has(FixRecordDraftLens)}
		if entry.Context {
			position, last := v.draftViewChunk(id, e, unpaired && !deferring)
			entry.Position, entry.Chunk, entry.Last = int(position), int(e.Chunk), last
		}
		made := v.mirrorDraftKVCache(id, fixes)
		out := v.core(Draft).prepareDraftEntry(id, made, entry)
		if entry.Context && out.Resize.Made && e.Last && !entry.Last {
			v.hit(brDraftViewMissesLast)
		}
		if out.Raise == ErrNone {
			continue
		}
		if out.Refusal && deferring {
			v.hit(brDeferDraftMirror)
			if i < int(b.Count)-1 {
				v.hit(brDeferFromMiddle)
			}
			v.deferFromBatch(i)
			i--
			continue
		}
		v.s.crash(v.r, Draft, id, FnPrepareDraftResources, out.Raise, uint8(min(out.Value, 255)))
		return false
	}
	return true
}

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
