package spec

// This file models attention data parallelism in PyExecutor (py_executor.py
// at 2829508, docs/reference.md, "The executor loops"): the pre- and post-schedule pad dummies under
// the one fixed ATTENTION_DP_DUMMY_REQUEST_ID (0), the _can_queue allgather
// veto, _revert_gen_alloc and the dummy rollback of
// _finalize_adp_dummy_allocation.

import (
	"math/bits"
	"unsafe"
)

// dummyID is ATTENTION_DP_DUMMY_REQUEST_ID (llm_request.py at 002f3cc:
// "Generated real request ids do not use 0").
const dummyID = 0

// activeCount is len(active_requests) on the rank, the dummy included.
func (v rankView) activeCount() int {
	n := 0
	for id := range v.rank.Requests {
		if v.rank.Requests[id].State.isActive() {
			n++
		}
	}
	return n
}

// schedulableCount is _count_schedulable_active_requests (py_executor.py
// at 2829508, the path without the scheduler-aware ADP dummy): without a KV
// cache transceiver every active request counts (len(active_requests),
// the dummy and finished-but-not-freed requests included); with one,
// every active request but those in DISAGG_GENERATION_INIT or
// DISAGG_GENERATION_TRANS_IN_PROGRESS.
func (v rankView) schedulableCount() int {
	if !v.cfg.KVTransceiver {
		return v.activeCount()
	}
	n := 0
	for id := range v.rank.Requests {
		switch st := v.rank.Requests[id].State; {
		case !st.isActive(), st == DisaggGenerationInit, st == DisaggTransmission:
		default:
			n++
		}
	}
	return n
}

// hasAdpDummyKVCapacity is PyExecutor._has_adp_dummy_kv_capacity
// (py_executor.py at 2829508), which both pads check before
// add_dummy_requests: a generation dummy needs token_num = 1 +
// max_total_draft_tokens and reserves the draft tokens, a context dummy
// (disaggregated serving, _adp_dummy_is_gen false) needs 1 token and
// reserves none; get_num_available_tokens(token_num_upper_bound=token_num,
// max_num_draft_tokens=reserve) must reach token_num. The pre-schedule pad
// passes the context dummy's token_nums=[1] (contextTokens); the
// post-schedule pad passes None, so 1 + D tokens, while the reserve follows
// the role either way. In KVCacheManagerV2
// (kv_cache_manager_v2.py at 00746ef) that is
// clamp_max_seq_len_for_mem(1, token_num + X) - X with X = extra + reserve:
// a static capacity, the GPU pool's total pages times tokens_per_block less
// X, whatever is free. So the check passes on any pool that could hold the
// dummy at all, and a full pool is found by add_dummy_requests itself
// (None). The spec's configurations have no max_tokens cap on it.
func (v rankView) hasAdpDummyKVCapacity(contextTokens bool) bool {
	tokenNum, reserve := 1+int(v.cfg.MaxDraftLen), int(v.cfg.MaxDraftLen)
	if contextTokens {
		tokenNum = 1
	}
	if !v.dummyIsGen() {
		reserve = 0
	}
	total := int(v.cfg.poolBlocksOn(v.r, Target)) * int(v.cfg.TokensPerBlock)
	return min(tokenNum, total-int(v.cfg.ExtraKVTokens)-reserve) >= tokenNum
}

// dummyIsGen is PyExecutor._adp_dummy_is_gen: true (a generation dummy)
// unless, with a KV cache transceiver, _update_adp_dummy_role last saw a
// context-only request arrive (Rank.AdpDummyRole).
func (v rankView) dummyIsGen() bool {
	return !v.cfg.KVTransceiver || v.rank.AdpDummyRole&adpRoleContext == 0
}

// liveDummy reports whether a request with the dummy ID is in
// active_requests.
func (v rankView) liveDummy() bool { return v.request(dummyID).State.isActive() }

// fetch is the attention-DP allgather in _fetch_and_activate_new_requests:
// every rank learns expected_num_active_requests from the router
// (DefaultADPRouter.route_requests, adp_router.py):
// min(max(ceil(total / tp_size), the busiest rank), max_num_active_requests),
// which for requests pinned to their rank is the busiest rank's active
// count (the dummy counts) capped at max_num_active_requests. With a KV
// cache transceiver _update_adp_dummy_role sets the pad dummy's role from
// the requests that arrived since the last fetch (adpRole*).
func (sp *Spec) fetch(s *State) {
	most := 0
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		most = max(most, sp.view(s, r).activeCount())
	}
	if sp.Config.MaxNumActiveRequests != 0 {
		most = min(most, int(sp.Config.MaxNumActiveRequests))
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		sp.view(s, r).updateAdpDummyRole()
		s.Ranks[r].ExpectedActive = uint8(most)
		s.Ranks[r].Phase = PhaseFetched
	}
}

// addDummyRequest is KVCacheManagerV2.add_dummy_requests([0],
// prepare_resource=True) as the attention-DP pads call it (on the target
// only: no draft_kv_cache_manager argument; kv_cache_manager_v2.py at
// 00746ef). A generation dummy (is_gen=True, token_num = 1 +
// max_num_draft_tokens): create, resume, stop_committing, resize to
// token_num + extra with history token_num - 1, then grow by reserve + 1
// for the generation step, GENERATION_IN_PROGRESS. A context dummy
// (is_gen=False, token_nums=[1], the pre-schedule pad of a disaggregated
// context worker): resize to 1 + extra, no history, a one-token prompt in
// CONTEXT_INIT. Any failure releases what was created and returns None
// (false). The dummy sits at the end of active_requests (DummyAfter).
func (v rankView) addDummyRequest(isGen bool) bool {
	req := v.request(dummyID)
	incarnation := req.Incarnation + 1
	*req = Request{Incarnation: incarnation}
	tokenNum := 1 + int(v.cfg.MaxDraftLen)
	if !isGen {
		tokenNum = 1
	}
	if !v.createCache(Target, dummyID, 0) {
		return false
	}
	c := v.cache(Target, dummyID)
	if !v.resumeCache(Target, dummyID) {
		v.closeCache(Target, dummyID)
		return false
	}
	c.Flags |= flagStopCommitting
	history := keep
	if isGen {
		history = tokenNum - 1
	}
	ok, _ := v.resizeCache(Target, dummyID, tokenNum+int(v.cfg.ExtraKVTokens), history)
	if ok && isGen {
		reserve := int(v.cfg.MaxDraftLen)
		ok, _ = v.resizeCache(Target, dummyID, int(c.Capacity)+reserve+1, history)
	}
	if !ok {
		v.closeCache(Target, dummyID)
		return false
	}
	*req = Request{
		State:       GenerationInProgress,
		Incarnation: incarnation,
		Prompt:      uint8(tokenNum - 1),
		NumTokens:   uint8(tokenNum),
		DraftLen:    uint8(v.cfg.MaxDraftLen),
		Flags:       requestFlagAdpDummy,
	}
	if !isGen {
		v.hit(brContextDummy)
		*req = Request{State: ContextInit, Incarnation: incarnation, Prompt: 1, Flags: requestFlagAdpDummy}
	}
	v.rank.DummyAfter = v.arrivedOnRank()
	return true
}

// padAttentionDPDummyRequest is _pad_attention_dp_dummy_request, before
// scheduling (py_executor.py at 2829508): a rank with no schedulable
// request (schedulableCount) while the fleet has work adds a dummy of the
// role _update_adp_dummy_role chose (a generation dummy, or with a KV cache
// transceiver a one-token context dummy), if _has_adp_dummy_kv_capacity
// says it fits. Only with
// _enable_adp_dummy_fixes and a KV cache transceiver is it registered as
// _pending_adp_dummy_request (and skipped while a live dummy exists);
// otherwise it lives until a forward terminates it. A None from
// add_dummy_requests leaves the rank unpadded, or, before PR #14286
// (PreFixDummyNoneUnchecked), raises when the pad indexes it.
func (v rankView) padAttentionDPDummyRequest() {
	if !v.cfg.AttentionDP || v.rank.ExpectedActive == 0 || v.schedulableCount() > 0 || v.liveDummy() {
		return
	}
	if !v.hasAdpDummyKVCapacity(!v.dummyIsGen()) {
		v.hit(brPadNoKVCapacity)
		return
	}
	if !v.addDummyRequest(v.dummyIsGen()) {
		v.hit(brAddDummyFailed)
		if v.cfg.PreFixes.Has(PreFixDummyNoneUnchecked) {
			v.s.crash(v.r, Target, dummyID, FnAddDummyRequests, ErrDummyNone, 0)
		}
		return
	}
	v.hit(brPadPreSchedule)
	if v.cfg.AdpDummyFixes && v.cfg.KVTransceiver {
		v.hit(brPadPending)
		v.request(dummyID).Flags |= requestFlagPendingDummy
	}
}

// padEmptyAttentionDPBatch is _pad_empty_attention_dp_batch, after
// scheduling: an empty batch on a rank with active requests is padded with
// a generation dummy (py_skip_gen_alloc_revert, always pending) unless the
// rank is at max_num_active_requests, already has a live dummy, or fails
// _has_adp_dummy_kv_capacity. It came with TensorRT-LLM PR #17379; before
// it (PreFixEmptyBatchPad) nothing pads after scheduling.
func (v rankView) padEmptyAttentionDPBatch() {
	if v.cfg.PreFixes.Has(PreFixEmptyBatchPad) {
		return
	}
	b := &v.rank.Batch
	if !v.cfg.AttentionDP || b.Count != 0 || v.activeCount() == 0 || v.rank.ExpectedActive == 0 {
		return
	}
	if v.cfg.MaxNumActiveRequests != 0 && v.activeCount() >= int(v.cfg.MaxNumActiveRequests) {
		v.hit(brPadAtMaxActive)
		return
	}
	if v.liveDummy() {
		return
	}
	if !v.hasAdpDummyKVCapacity(false) {
		v.hit(brPadNoKVCapacity)
		return
	}
	if !v.addDummyRequest(true) {
		v.hit(brAddDummyFailed)
		return
	}
	v.hit(brPadPostSchedule)
	d := v.request(dummyID)
	d.Flags |= requestFlagSkipGenRevert | requestFlagPendingDummy
	v.appendToBatch(BatchEntry{ID: dummyID, Kind: GenerationStep, Incarnation: d.Incarnation})
}

// canQueue is PyExecutor._can_queue: with attention DP an allgather of
// every rank's batch size, can_queue = no rank is empty (one empty rank
// vetoes the forward everywhere), can_queue_this_rank = this rank is not
// empty; without it both are "this batch is not empty".
func (sp *Spec) canQueue(s *State, a *Action) {
	all := true
	if sp.Config.AttentionDP {
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			all = all && s.Ranks[r].Batch.Count > 0
		}
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		if !sp.Config.AttentionDP && r != a.Rank {
			continue
		}
		rank := &s.Ranks[r]
		rank.CanQueueThisRank = rank.Batch.Count > 0
		rank.CanQueue = all && rank.CanQueueThisRank
		if rank.CanQueueThisRank && !rank.CanQueue {
			sp.hit(brVeto)
		}
		rank.Phase = PhaseQueued
	}
}

// revertGenAlloc is PyExecutor._revert_gen_alloc after a veto: every
// generation entry but py_skip_gen_alloc_revert dummies reverts its target
// growth, and its draft growth only when the pool is paired (an unpaired
// mirror was never grown by the scheduler).
func (v rankView) revertGenAlloc() {
	b := &v.rank.Batch
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.Kind != GenerationStep || v.entryRequest(b, e).Flags&requestFlagSkipGenRevert != 0 {
			continue
		}
		if e.ID != dummyID && v.cache(Target, e.ID).AllocatedDraft != 0 {
			v.hit(brVetoRevertsGrown)
		}
		if v.entryRequest(b, e).State == DisaggTransComplete {
			v.hit(brDisaggTransVetoed)
		}
		v.revertAllocateGeneration(Target, e.ID)
		if v.draftPool() == PairedDraftPool {
			v.revertAllocateGeneration(Draft, e.ID)
		}
	}
}

// finalizeAdpDummyAllocation is PyExecutor._finalize_adp_dummy_allocation:
// take and clear the pending dummy; when the forward was vetoed mark it
// GENERATION_COMPLETE and free it in the spec manager and the target KV
// manager only ("only the KV and speculative managers have allocated
// anything"), then drop it from active_requests. The draft pool is not
// freed, though the V2 scheduler's admit_mirror created a mirror for the
// dummy: the leak of seed 003. FixFreeUnpairedMirror frees it in whichever
// draft pool exists.
func (v rankView) finalizeAdpDummyAllocation() {
	d := v.request(dummyID)
	if d.Flags&requestFlagPendingDummy == 0 {
		return
	}
	d.Flags &^= requestFlagPendingDummy
	if v.rank.CanQueue || !d.State.isActive() {
		return
	}
	d.State = GenerationComplete
	v.hit(brDummyRollback)
	v.closeCache(Target, dummyID)
	if v.fixes.Has(FixFreeUnpairedMirror) {
		if v.cache(Draft, dummyID).Status != Absent {
			v.hit(brRollbackMirror)
		}
		v.closeCache(Draft, dummyID)
	}
	v.retireDummy()
	d.State = Finished
}

// canonicalizeDummyIncarnations clears the position of a dummy that is no
// longer active and renumbers, per rank, the incarnations of
// the dummy ID still referenced (by the live or last dummy, by caches and by
// batches) to 1..k in their order. Only their order and equality matter,
// and without this every new dummy would make the state space infinite.
func (sp *Spec) canonicalizeDummyIncarnations(s *State) {
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		canonicalizeRankDummyIncarnations(&s.Ranks[r])
	}
}

// canonicalizeRankDummyIncarnations is canonicalizeDummyIncarnations for
// one rank.
func canonicalizeRankDummyIncarnations(rank *Rank) {
	if !rank.Requests[dummyID].State.isActive() {
		rank.DummyAfter = 0
	}
	if dummyIncarnationsCanonical(rank) {
		return
	}
	var used incarnationSet
	batches := [...]*Batch{&rank.Batch, &rank.Previous}
	used.add(rank.Requests[dummyID].Incarnation)
	for p := range rank.Pools {
		if c := &rank.Pools[p].Caches[dummyID]; c.Status != Absent {
			used.add(c.Incarnation)
		}
	}
	for _, b := range batches {
		for i := 0; i < int(b.Count); i++ {
			if b.Entries[i].ID == dummyID {
				used.add(b.Entries[i].Incarnation)
			}
		}
	}
	rank.Requests[dummyID].Incarnation = used.rank(rank.Requests[dummyID].Incarnation)
	for p := range rank.Pools {
		if c := &rank.Pools[p].Caches[dummyID]; c.Status != Absent {
			c.Incarnation = used.rank(c.Incarnation)
		}
	}
	for _, b := range batches {
		keepSnapshot := false
		for i := 0; i < int(b.Count); i++ {
			if e := &b.Entries[i]; e.ID == dummyID {
				keepSnapshot = keepSnapshot || b.Dummy.Incarnation == e.Incarnation
				e.Incarnation = used.rank(e.Incarnation)
			}
		}
		if keepSnapshot {
			b.Dummy.Incarnation = used.rank(b.Dummy.Incarnation)
		} else {
			b.Dummy = Request{}
		}
	}
}

// dummyIncarnationsCanonical reports whether canonicalizeDummyIncarnations
// would leave rank as it is, reading it once without writing: the dummy
// incarnations in use are already 1..k and no batch keeps a dummy
// snapshot it would drop. Most steps leave the dummies alone, so this
// spares most states the renumbering pass.
func dummyIncarnationsCanonical(rank *Rank) bool {
	// Bit i: incarnation i < 64 is in use; a larger one takes the full
	// pass.
	used := uint64(1) << (rank.Requests[dummyID].Incarnation & 63)
	large := rank.Requests[dummyID].Incarnation
	for p := range rank.Pools {
		if c := &rank.Pools[p].Caches[dummyID]; c.Status != Absent {
			used |= 1 << (c.Incarnation & 63)
			large |= c.Incarnation
		}
	}
	for _, b := range [...]*Batch{&rank.Batch, &rank.Previous} {
		keep := false
		for i := 0; i < int(b.Count); i++ {
			if e := &b.Entries[i]; e.ID == dummyID {
				used |= 1 << (e.Incarnation & 63)
				large |= e.Incarnation
				keep = keep || b.Dummy.Incarnation == e.Incarnation
			}
		}
		if !keep && !zeroRequest(&b.Dummy) {
			return false
		}
	}
	if large >= 64 {
		return false
	}
	used &^= 1 // incarnation 0 is not one
	// 1..k: the bits above bit 0 are contiguous from bit 1 (and at most 8,
	// which incarnationSet holds).
	k := bits.OnesCount64(used)
	return k <= 8 && used == (1<<(k+1))-2
}

// zeroRequest reports whether every field of *q is zero, in two loads
// (which overlap: a Request is 8 to 16 bytes).
func zeroRequest(q *Request) bool {
	const size = unsafe.Sizeof(Request{})
	p := unsafe.Pointer(q)
	return *(*uint64)(p)|*(*uint64)(unsafe.Add(p, size-8)) == 0
}

var _ = [1]struct{}{}[(unsafe.Sizeof(Request{})-8)/9] // 8 <= Sizeof(Request) < 17

// incarnationSet is a small set of the non-zero incarnations in use (at
// most a handful: the live dummy, a leaked cache, two batches).
type incarnationSet struct {
	values [8]uint8
	n      int
}

func (u *incarnationSet) add(inc uint8) {
	if inc == 0 {
		return
	}
	for i := 0; i < u.n; i++ {
		if u.values[i] == inc {
			return
		}
	}
	if u.n < len(u.values) {
		u.values[u.n] = inc
		u.n++
	}
}

// rank is 1 + the number of members below inc (0 stays 0).
func (u *incarnationSet) rank(inc uint8) uint8 {
	if inc == 0 {
		return 0
	}
	k := uint8(1)
	for i := 0; i < u.n; i++ {
		if u.values[i] < inc {
			k++
		}
	}
	return k
}
