package spec

// This file models KVCacheV2Scheduler (scheduler/scheduler_v2.py at
// 00746ef, docs/reference.md, "The scheduler"): one pass of _schedule_loop builds a batch and
// allocates the target pool (and a paired draft pool) inline.

// scheduleAction is ScheduleAction: what one request's attempt tells the
// loop.
type scheduleAction uint8

const (
	scheduled scheduleAction = iota
	skip
	stop
)

// maxNumRequests is the V2 scheduler's max_num_requests, BudgetTracker's
// request budget: scheduler_capacity, which create_py_executor_instance
// (_util.py, the stored version after 2829508) sets to max_batch_size, one
// more when that is 1 under attention DP (room for the pad dummy).
func (c *Config) maxNumRequests() int {
	if c.MaxBatchSize == 1 && c.AttentionDP {
		return 2
	}
	return int(c.MaxBatchSize)
}

// schedulerPass is the scratch state of one _schedule_loop pass.
type schedulerPass struct {
	order           [MaxIDs]uint8 // requests_list: active requests in order
	count           int           // len(requests_list)
	end             int           // req_it_end
	frontier        int           // recompute_pause_state.frontier
	tokens          int           // BudgetTracker.num_tokens
	requests        int           // BudgetTracker.num_requests
	evicted         [MaxIDs]bool
	evictedOrder    [MaxIDs]uint8
	evictedCount    int
	recomputePaused [MaxIDs]bool
	preempted       [MaxIDs]bool
	// outcome is what the deadlock detector reads of the pass.
	outcome passOutcome
}

// activeRequests returns the rank's active_requests in order: arrival
// order (ID order), the ADP dummy after the requests that had arrived when
// it was padded (Rank.DummyAfter).
func (v rankView) activeRequests(p *schedulerPass) {
	p.count = 0
	dummy := v.request(dummyID).State.isActive()
	served := uint8(0) // the rank's requests passed so far, in arrival order
	for id := uint8(1); int(id) <= len(v.cfg.Requests); id++ {
		if !v.cfg.servesRequest(v.r, id) {
			continue
		}
		if dummy && served == v.rank.DummyAfter {
			p.order[p.count] = dummyID
			p.count++
			dummy = false
		}
		served++
		if v.request(id).State.isActive() {
			p.order[p.count] = id
			p.count++
		}
	}
	if dummy {
		p.order[p.count] = dummyID
		p.count++
	}
}

// dummyIsLast reports whether the active attention-DP dummy is
// active_requests[-1]: none of the rank's requests that arrived after it
// is active.
func (v rankView) dummyIsLast() bool {
	served := uint8(0)
	for id := uint8(1); int(id) <= len(v.cfg.Requests); id++ {
		if !v.cfg.servesRequest(v.r, id) {
			continue
		}
		if served >= v.rank.DummyAfter && v.request(id).State.isActive() {
			return false
		}
		served++
	}
	return true
}

// arrivedOnRank is the number of the rank's requests that have arrived
// (requests arrive in ID order).
func (v rankView) arrivedOnRank() uint8 {
	n := uint8(0)
	for id := uint8(1); id <= v.s.Arrived; id++ {
		if v.cfg.servesRequest(v.r, id) {
			n++
		}
	}
	return n
}

// scheduleRequest is KVCacheV2Scheduler.schedule_request followed by the
// executor's _pause_recompute_paused_requests(scheduled_batch): the
// recompute-paused victims of the pass are paused (LlmRequest::pause)
// before the forward, as the non-overlap and pipeline loops do on the rank
// that scheduled the batch it runs (the overlap loop pauses later,
// scheduleOverlap). It returns the victims as a bit set of IDs.
func (v rankView) scheduleRequest(fixes Fixes) uint16 {
	paused := v.schedulePass(fixes)
	mask := pausedMask(&paused)
	v.pauseRequests(mask)
	return mask
}

// pausedMask is the set of recompute-paused victims as a bit set of IDs.
func pausedMask(paused *[MaxIDs]bool) uint16 {
	var mask uint16
	for id := range paused {
		if paused[id] {
			mask |= 1 << id
		}
	}
	return mask
}

// pauseRequests is PyExecutor._pause_recompute_paused_requests on the
// victims in mask: each still active and not finished is paused.
func (v rankView) pauseRequests(mask uint16) {
	for id := uint8(0); id < MaxIDs; id++ {
		if mask&(1<<id) != 0 && v.request(id).State.isActive() && v.request(id).State != GenerationComplete {
			v.pauseRequest(id)
		}
	}
}

// schedulePass is KVCacheV2Scheduler.schedule_request / _schedule_loop:
// phase 1 schedules generation requests in order (STOP ends the phase),
// deferring context requests to phase 2, which schedules (chunked) prefill
// within the max_batch_size and max_num_tokens budgets. It returns the
// recompute-paused victims (SchedulerOutput.recompute_paused_requests),
// whose caches it has freed (_recompute_pause_request → _free_kv_caches)
// but whose request objects it leaves to the executor.
func (v rankView) schedulePass(fixes Fixes) (recomputePaused [MaxIDs]bool) {
	v.rank.Batch = Batch{}
	var p schedulerPass
	v.activeRequests(&p)
	p.end, p.frontier = p.count, p.count
	var pending [MaxIDs]uint8
	pendingCount := 0
	for it := 0; it < p.end; it++ {
		id := p.order[it]
		r := v.request(id)
		if p.recomputePaused[id] || r.Flags&requestFlagInflight != 0 {
			continue
		}
		if r.State == DisaggGenerationInit {
			if v.prepareDisaggGenInit(id) {
				p.outcome.disagg++
			}
			continue
		}
		if p.requests >= v.cfg.maxNumRequests() {
			v.hit(brMaxBatchSize)
			break
		}
		if r.State == ContextInit {
			pending[pendingCount] = id
			pendingCount++
			continue
		}
		if !r.State.isScheduledAsGeneration() {
			continue
		}
		action, tokens := v.tryScheduleGeneration(&p, it, id, fixes)
		if v.s.Crash.Happened {
			return
		}
		if action == stop {
			break
		}
		if action == scheduled {
			v.appendToBatch(BatchEntry{ID: id, Kind: GenerationStep})
			p.tokens += tokens
			p.requests++
		}
	}
	contributed := v.collectContributedBlocks(&p, pending[:pendingCount])
	for i := 0; i < pendingCount; i++ {
		id := pending[i]
		if p.requests >= v.cfg.maxNumRequests() {
			v.hit(brMaxBatchSize)
			break
		}
		if v.cfg.ChunkedPrefill && !v.hasContextChunkBudget(&p) {
			v.hit(brNoChunkBudget)
			continue
		}
		if p.preempted[id] || p.recomputePaused[id] {
			continue
		}
		if v.pendingContextCertainlyBlocked(id) {
			v.hit(brCertainlyBlocked)
			continue
		}
		family, block, keyed := v.firstNewBlock(id)
		if contributed.active && v.isFirstContextChunk(id) && contributed.has(family, block, keyed) {
			v.hit(brPrefixSkip)
			p.outcome.deferred++
			continue
		}
		action := v.tryScheduleContext(&p, id, fixes)
		if v.s.Crash.Happened {
			return
		}
		if action == stop {
			break
		}
		if action == scheduled && contributed.active {
			contributed.add(family, block, keyed)
		}
	}
	p.outcome.scheduled = int(v.rank.Batch.Count)
	for i := 0; i < pendingCount; i++ {
		if !p.preempted[pending[i]] {
			p.outcome.contextCandidates++
		}
	}
	for id := range p.recomputePaused {
		if p.recomputePaused[id] {
			p.outcome.paused++
		}
	}
	v.detectDeadlock(&p.outcome)
	return p.recomputePaused
}

// prepareDisaggGenInit is _try_schedule_disagg_gen_init →
// KVCacheManagerV2.prepare_disagg_gen_init on the target
// (kv_cache_manager_v2.py and scheduler_v2.py at 00746ef): get or create
// the cache and resume it (prepare_context_cache), then resize it to the
// full prompt plus draft tokens and extra tokens with history = prompt_len,
// outside the request and token budgets; on success the request starts
// receiving KV. On failure the manager only suspends the cache ("cache is
// suspended on resize failure"; a refused first resume leaves it
// suspended too): it stays in kv_cache_map with its IndexMapper slot and
// its pages, and the scheduler returns SKIP, so the request retries next
// pass. The draft pool is not allocated here ("Cache-transceiver mode
// disables the separate one-model draft manager"). It reports whether the
// request was admitted (a disagg candidate).
func (v rankView) prepareDisaggGenInit(id uint8) bool {
	r := v.request(id)
	if v.cache(Target, id).Status == Absent && !v.createCache(Target, id, 0) {
		v.hit(brDisaggGenInitRetry)
		return false
	}
	c := v.cache(Target, id)
	c.Flags |= flagStopCommitting
	if c.Status == Suspended && !v.resumeCache(Target, id) {
		v.hit(brDisaggGenInitRetry)
		return false
	}
	ok, raise := v.resizeCache(Target, id, max(int(c.Capacity), int(r.Prompt)+int(r.DraftLen)+int(v.cfg.ExtraKVTokens)), int(r.Prompt))
	if raise != ErrNone {
		v.s.crash(v.r, Target, id, FnResize, raise, 0)
		return false
	}
	if ok {
		v.hit(brDisaggGenInit)
		r.State = DisaggTransmission
		return true
	}
	v.hit(brDisaggGenInitRetry)
	v.hit(brDisaggGenInitSuspends)
	v.suspendCache(Target, id)
	return false
}

// appendToBatch adds an entry to the scheduled batch.
func (v rankView) appendToBatch(e BatchEntry) {
	e.Incarnation = v.request(e.ID).Incarnation
	b := &v.rank.Batch
	b.Entries[b.Count] = e
	b.Count++
}

// inBatch reports whether id was scheduled in this pass.
func (v rankView) inBatch(id uint8) bool {
	b := &v.rank.Batch
	for i := 0; i < int(b.Count); i++ {
		if b.Entries[i].ID == id {
			return true
		}
	}
	return false
}

// tryScheduleGeneration is _try_schedule_generation: STOP when 1 + draft
// tokens do not fit the token budget; else _try_allocate_generation, then
// the eviction ladder (_try_evict_for_gen, _try_recompute_pause_for_gen);
// a request that still cannot grow suspends itself (target and draft) and
// stops the phase.
func (v rankView) tryScheduleGeneration(p *schedulerPass, it int, id uint8, fixes Fixes) (scheduleAction, int) {
	tokens := 1 + int(v.request(id).DraftLen)
	if p.tokens+tokens > int(v.cfg.MaxNumTokens) {
		v.hit(brGenTokenBudgetStop)
		return stop, 0
	}
	ok := v.tryAllocateGenerationPair(id, fixes)
	if !ok && !v.s.Crash.Happened {
		ok = v.tryEvictForGeneration(p, it, id, fixes)
	}
	if !ok && !v.s.Crash.Happened {
		ok = v.tryRecomputePauseForGeneration(p, it, id, fixes)
	}
	if ok {
		return scheduled, tokens
	}
	if v.cache(Target, id).Status == Active {
		v.hit(brGenerationSuspends)
		v.suspendRequest(id)
		v.markEvicted(p, id)
	}
	return stop, 0
}

// tryAllocateGenerationPair is KVCacheV2Scheduler._try_allocate_generation:
// grow the target; then an unpaired pool only admits the mirror
// (_admit_unpaired_draft: create and resume, no growth) while a paired pool
// grows too; if the draft side fails the target growth is reverted. With
// FixJointAdmission an unpaired mirror is admitted and grown here as well.
func (v rankView) tryAllocateGenerationPair(id uint8, fixes Fixes) bool {
	if !v.tryAllocateGeneration(Target, id) {
		return false
	}
	ok := true
	switch v.draftPool() {
	case UnpairedDraftPool:
		if v.cfg.hasAdmitMirror() || fixes.Has(FixJointAdmission) {
			ok = v.admitMirror(id, fixes)
		}
		if ok && fixes.Has(FixJointAdmission) {
			v.hit(brJointGrowsMirrorGen)
			ok = v.tryAllocateGeneration(Draft, id)
		}
	case PairedDraftPool:
		ok = v.tryAllocateGeneration(Draft, id)
	}
	if !ok {
		v.hit(brGenerationPairRevert)
		v.revertAllocateGeneration(Target, id)
	}
	return ok
}

// isStartedRequest is _is_started_request: a context request past its
// first chunk, or one in a generation-in-progress state (GENERATION_TO_COMPLETE
// and DISAGG_GENERATION_TRANS_COMPLETE included).
func (v rankView) isStartedRequest(id uint8) bool {
	r := v.request(id)
	return (r.State == ContextInit && !v.isFirstContextChunk(id)) || r.State.isGenerationInProgress()
}

// isVictimCandidate is what _is_evictable and _is_recompute_pause_candidate
// share: a started request that is not in inflight_request_ids (a request
// whose batch is still in the pipeline is never a victim).
func (v rankView) isVictimCandidate(id uint8) bool {
	return v.request(id).Flags&requestFlagInflight == 0 && v.isStartedRequest(id)
}

// tryEvictForGeneration is _try_evict_for_gen: suspend started, ACTIVE
// victims from the tail of the pass (each shortens the pass) and retry.
// It runs whatever the tiers; with GPU as the last tier the suspend frees
// nothing and the retry fails again.
func (v rankView) tryEvictForGeneration(p *schedulerPass, it int, id uint8, fixes Fixes) bool {
	for p.end > it {
		victim := -1
		for i := p.end - 1; i > it; i-- {
			cand := p.order[i]
			if v.isVictimCandidate(cand) && v.cache(Target, cand).Status == Active {
				victim = i
				break
			}
		}
		if victim < 0 {
			return false
		}
		vid := p.order[victim]
		v.hit(brEvictForGeneration)
		v.suspendRequest(vid)
		v.markEvicted(p, vid)
		p.end = victim
		if v.tryAllocateGenerationPair(id, fixes) {
			return true
		}
		if v.s.Crash.Happened {
			return false
		}
	}
	return false
}

// tryRecomputePauseForGeneration is _try_recompute_pause_for_gen
// (scheduler_v2.py at 00746ef; only with enable_recompute_pause): free a
// started victim's caches in both pools (_recompute_pause_request) so it
// re-prefills later, and retry. Victims come from the tail down to the
// request after this one, below the pass's own recompute frontier
// (_RecomputePauseState, which starts at the end of the list and drops to
// each victim), skipping requests already paused; with can_evict (a tier
// below GPU) an evicted request qualifies too, and when the scan finds
// nothing the first evicted candidate, in eviction order, is taken. The
// ordinary frontier req_it_end is not shrunk ("Recompute pause does not
// shrink the ordinary scheduling frontier"): the main loop skips the
// victims' indices. With can_evict a failed retry evicts again.
func (v rankView) tryRecomputePauseForGeneration(p *schedulerPass, it int, id uint8, fixes Fixes) bool {
	if !v.cfg.RecomputePause {
		return false
	}
	for {
		victim := -1
		for i := p.frontier - 1; i > it; i-- {
			cand := p.order[i]
			if p.recomputePaused[cand] {
				continue
			}
			if (v.cfg.HostTier || !p.evicted[cand]) && v.isRecomputePauseCandidate(cand) {
				victim = i
				break
			}
		}
		if victim >= 0 && p.evicted[p.order[victim]] {
			v.hit(brRecomputePauseEvictedScan)
		}
		if victim < 0 && v.cfg.HostTier {
			victim = v.firstEvictedCandidate(p)
			if victim >= 0 {
				v.hit(brRecomputePauseEvicted)
			}
		}
		if victim < 0 {
			return false
		}
		vid := p.order[victim]
		p.frontier = min(p.frontier, victim)
		v.hit(brRecomputePauseVictim)
		p.evicted[vid] = false
		v.freeResources(vid)
		p.recomputePaused[vid] = true
		if v.tryAllocateGenerationPair(id, fixes) {
			return true
		}
		if v.s.Crash.Happened {
			return false
		}
		if v.cfg.HostTier && v.tryEvictForGeneration(p, it, id, fixes) {
			return true
		}
	}
}

// isRecomputePauseCandidate is _is_recompute_pause_candidate: a started
// request not in inflight_request_ids and not GENERATION_TO_COMPLETE. It
// need not be ACTIVE: an evicted request can be paused.
func (v rankView) isRecomputePauseCandidate(id uint8) bool {
	return v.request(id).State != GenerationToComplete && v.isVictimCandidate(id)
}

// firstEvictedCandidate is the fallback of _try_recompute_pause_for_gen:
// the index in the pass's list of the first request of evicted, in the
// order it was evicted, that is still evicted, not paused and a recompute
// pause candidate; -1 if none.
func (v rankView) firstEvictedCandidate(p *schedulerPass) int {
	for k := 0; k < p.evictedCount; k++ {
		cand := p.evictedOrder[k]
		if !p.evicted[cand] || p.recomputePaused[cand] || !v.isRecomputePauseCandidate(cand) {
			continue
		}
		for i := 0; i < p.count; i++ {
			if p.order[i] == cand {
				return i
			}
		}
	}
	return -1
}

func (v rankView) markEvicted(p *schedulerPass, id uint8) {
	p.outcome.suspended++
	if !p.evicted[id] {
		p.evicted[id] = true
		p.evictedOrder[p.evictedCount] = id
		p.evictedCount++
	}
}

// suspendRequest is KVCacheV2Scheduler._suspend_request: suspend the target
// and (if any) the draft cache.
func (v rankView) suspendRequest(id uint8) {
	v.suspendCache(Target, id)
	v.suspendCache(Draft, id)
}

// pauseRequest is the executor's _pause_recompute_paused_requests on a
// victim whose caches were freed: LlmRequest::pause resets both cursors and
// makes every token so far the new prompt, back in CONTEXT_INIT.
func (v rankView) pauseRequest(id uint8) {
	r := v.request(id)
	v.hit(brPauseRequest)
	if r.State == GenerationInProgress && r.NumTokens > r.Prompt {
		v.hit(brPauseKeepsGenerated)
		r.Prompt = r.NumTokens
	}
	r.State = ContextInit
	r.DraftLen = 0
	r.Accepted = 0
	v.rewindContextAfterCacheDrop(id)
}

// hasContextChunkBudget is _has_context_chunk_budget: some token budget
// left, at least one chunk unit.
func (v rankView) hasContextChunkBudget(p *schedulerPass) bool {
	remaining := int(v.cfg.MaxNumTokens) - p.tokens
	return remaining > 0 && remaining >= int(v.cfg.ChunkUnitSize)
}

// pendingContextCertainlyBlocked is _pending_ctx_certainly_blocked (00746ef,
// chunked prefill, unpaired draft pool): skip a context request whose target
// cache is ACTIVE while its mirror exists, is suspended, and the draft pool
// is above the resume gate (mirror_admission_certainly_blocked).
func (v rankView) pendingContextCertainlyBlocked(id uint8) bool {
	if !v.cfg.hasAdmitMirror() || !v.cfg.ChunkedPrefill || v.draftPool() != UnpairedDraftPool {
		return false
	}
	if v.cache(Target, id).Status != Active {
		return false
	}
	return v.cache(Draft, id).Status == Suspended && v.utilizationAbove(Draft)
}

// tryScheduleContext is _try_schedule_context: the chunked or full path.
// A first chunk that is not scheduled for any reason has its caches freed
// in every manager (so it holds no prefix-reuse claims) and its cursor
// rewound, from PR #19202 on; before it (v1.3.0rc25) its caches are only
// suspended (Config.dropsUnscheduledFirstChunk).
func (v rankView) tryScheduleContext(p *schedulerPass, id uint8, fixes Fixes) scheduleAction {
	first := v.isFirstContextChunk(id)
	action := v.tryScheduleContextChunk(p, id, fixes)
	if first && action != scheduled && !v.s.Crash.Happened {
		if v.cfg.dropsUnscheduledFirstChunk() {
			v.hit(brFirstChunkDropped)
			v.freeResources(id)
			v.rewindContextAfterCacheDrop(id)
		} else {
			v.hit(brFirstChunkSuspended)
			v.suspendRequest(id)
		}
	}
	return action
}

// tryScheduleContextChunk is _try_schedule_context_chunked (or
// _try_schedule_context_full without chunking; scheduler_v2.py at
// 00746ef): prepare the pair, size the chunk from the budget (rounded down
// to chunk_unit_size unless it reaches the end; draft tokens added on the
// last chunk), then _try_allocate_context; an allocation failure tries
// preempt_for_pages (STOP on success) else SKIP. With
// enable_prefix_aware_scheduling (the default) the budget counts the
// context left after the reuse lookup; without it the length before
// prepare, charged even when reuse makes the chunk shorter, and the full
// path checks it before preparing.
func (v rankView) tryScheduleContextChunk(p *schedulerPass, id uint8, fixes Fixes) scheduleAction {
	r := v.request(id)
	remainingBudget := int(v.cfg.MaxNumTokens) - p.tokens
	prePrepareRemaining := int(r.Prompt) - int(r.Position)
	if r.Reused > 0 && r.Position > r.Reused {
		v.hit(brReusedThenChunks)
	}
	prefixAware := v.cfg.PrefixAwareScheduling.On()
	if !v.cfg.ChunkedPrefill && !prefixAware && p.tokens+prePrepareRemaining+int(r.DraftLen) > int(v.cfg.MaxNumTokens) {
		v.hit(brUnchunkedOverBudget)
		return stop
	}
	if !v.prepareContextPair(id, fixes) {
		v.hit(brContextPrepareFailed)
		if v.cfg.ChunkedPrefill {
			return skip
		}
		return stop
	}
	contextRemaining := int(r.Prompt) - int(r.Position)
	if contextRemaining < prePrepareRemaining {
		v.hit(brBudgetAfterReuse)
	}
	budgetRemaining := prePrepareRemaining
	if prefixAware {
		budgetRemaining = contextRemaining
	}
	var chunk int
	if v.cfg.ChunkedPrefill {
		chunk = min(remainingBudget, budgetRemaining, int(v.cfg.MaxNumTokens))
		if chunk < budgetRemaining {
			v.hit(brNonFinalChunk)
			chunk = chunk / int(v.cfg.ChunkUnitSize) * int(v.cfg.ChunkUnitSize)
		}
		if chunk <= 0 {
			v.hit(brChunkRoundsToZero)
			return skip
		}
	} else {
		chunk = contextRemaining
		if prefixAware && p.tokens+contextRemaining+int(r.DraftLen) > int(v.cfg.MaxNumTokens) {
			v.hit(brUnchunkedOverBudget)
			return stop
		}
	}
	budgetChunk := chunk
	chunk = min(chunk, contextRemaining)
	if v.cfg.Loop == PipelineLoop {
		r.ChunkSize = uint8(chunk)
	}
	last := int(r.Position)+chunk == int(r.Prompt)
	tokens, resize := budgetChunk, chunk
	if last {
		tokens += int(r.DraftLen)
		resize += int(r.DraftLen)
	}
	if !v.cfg.ChunkedPrefill {
		tokens = budgetRemaining + int(r.DraftLen)
	}
	if !v.tryAllocateContext(id, uint8(resize), uint8(chunk), last, fixes) {
		v.hit(brContextAllocFailed)
		if v.s.Crash.Happened {
			return stop
		}
		if v.preemptForPages(p, id) {
			return stop
		}
		return skip
	}
	v.appendToBatch(BatchEntry{ID: id, Kind: ContextChunk, Chunk: uint8(chunk), Last: last})
	p.tokens += tokens
	p.requests++
	return scheduled
}

// prepareContextPair is _prepare_context_pair. Unpaired:
// prepare_context(target) and _admit_unpaired_draft (admit_mirror at
// 00746ef; nothing at v1.3.0rc25). Paired: coordinated reuse claims, the
// shallower of the two pools' matches, then prepare_context_cache on both;
// on failure both are suspended.
func (v rankView) prepareContextPair(id uint8, fixes Fixes) bool {
	switch v.draftPool() {
	case PairedDraftPool:
		limit := -1
		if v.isFirstContextChunk(id) && v.cache(Target, id).Status == Absent && v.cfg.BlockReuse {
			t, d := v.reuseTokens(Target, id, -1), v.reuseTokens(Draft, id, -1)
			if t != d {
				v.hit(brPairedReuseCapped)
			}
			limit = int(min(t, d))
		}
		if !v.prepareContext(id, limit, fixes) {
			return false
		}
		if _, ok := v.prepareContextCache(Draft, id, limit, fixes); !ok {
			v.hit(brPairedDraftFailed)
			v.suspendRequest(id)
			return false
		}
		return true
	case UnpairedDraftPool:
		if !v.prepareContext(id, -1, fixes) {
			return false
		}
		if v.cfg.hasAdmitMirror() || fixes.Has(FixJointAdmission) {
			return v.admitMirror(id, fixes)
		}
		v.hit(brRC25NoAdmission)
		return true
	}
	return v.prepareContext(id, -1, fixes)
}

// tryAllocateContext is _try_allocate_context: resize_context on the
// target; a paired draft pool grows with try_allocate_draft_context and a
// failure reverts the target (revert_allocate_context, dropping the draft
// when the target was dropped) and suspends both. The unpaired draft pool
// is not consulted, unless FixJointAdmission sizes the mirror here to what
// _prepare_draft_resources will ask for.
func (v rankView) tryAllocateContext(id uint8, resize, chunk uint8, last bool, fixes Fixes) bool {
	if !v.resizeContext(id, resize) {
		return false
	}
	var ok bool
	switch {
	case v.draftPool() == PairedDraftPool:
		ok = v.tryAllocateDraftContext(id, resize)
	case v.draftPool() == UnpairedDraftPool && fixes.Has(FixJointAdmission):
		ok = v.growMirrorForContext(id, chunk, last, fixes)
	default:
		return true
	}
	if ok || v.s.Crash.Happened {
		return ok
	}
	v.hit(brContextDraftReverted)
	if !v.revertAllocateContext(Target, id) {
		v.closeCache(Draft, id)
	}
	v.suspendRequest(id)
	return false
}

// growMirrorForContext is FixJointAdmission's admission of the unpaired
// mirror: grow it (never shrink) to the capacity _prepare_draft_resources
// will ask for this chunk.
func (v rankView) growMirrorForContext(id uint8, chunk uint8, last bool, fixes Fixes) bool {
	v.hit(brJointGrowsMirrorCtx)
	if !v.admitMirror(id, fixes) {
		return false
	}
	e := BatchEntry{ID: id, Kind: ContextChunk, Chunk: chunk, Last: last}
	position, lastView := v.draftViewChunk(id, e, !fixes.Has(FixDeferDraftMirror))
	want := int(position) + int(chunk) + int(v.cfg.ExtraKVTokens)
	if lastView {
		want += int(v.request(id).DraftLen)
	}
	c := v.cache(Draft, id)
	want = max(want, int(c.Capacity))
	ok, raise := v.resizeCache(Draft, id, want, keep)
	if raise != ErrNone {
		v.s.crash(v.r, Draft, id, FnResize, raise, 0)
		return false
	}
	return ok
}

// preemptForPages is _try_preempt_for_pages, used when a context
// allocation fails: only with GPU as the last tier and recompute pause on,
// free the newest started, ACTIVE request not scheduled in this pass
// (both pools) and mark it recompute-paused.
func (v rankView) preemptForPages(p *schedulerPass, id uint8) bool {
	if v.cfg.HostTier || !v.cfg.RecomputePause {
		return false
	}
	for i := p.count - 1; i >= 0; i-- {
		victim := p.order[i]
		if victim == id || v.inBatch(victim) || p.recomputePaused[victim] {
			continue
		}
		if !v.isRecomputePauseCandidate(victim) || v.cache(Target, victim).Status != Active {
			continue
		}
		v.hit(brPreemptForPages)
		v.freeResources(victim)
		p.recomputePaused[victim] = true
		p.preempted[victim] = true
		return true
	}
	return false
}
