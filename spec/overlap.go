package spec

// This file models PyExecutor._executor_loop_overlap (py_executor.py at
// 2829508, docs/reference.md, "The executor loops"): a batch's sampling
// results are applied, its responses handled and its update_resources run
// in the next iteration, and a rank the fleet vetoed while it had work
// defers that processing once more.

// scheduleOverlap is _prepare_and_schedule_batch in the overlap loop:
// the pre-schedule attention-DP pad, placeholder drafts, the V2 scheduler
// (its victims' caches freed, _terminate_recompute_paused_requests), then
// the post-schedule pad. The loop pauses the victims
// (_pause_recompute_paused_requests) only after the previous batch's
// _update_requests (py_executor.py at 2829508), so a victim's token from
// the previous batch becomes part of its new prompt (pausePending).
func (sp *Spec) scheduleOverlap(s *State, r uint8) {
	v := sp.view(s, r)
	v.padAttentionDPDummyRequest()
	if s.Crash.Happened {
		return
	}
	v.setPlaceholderDrafts()
	paused := v.schedulePass(sp.Fixes)
	if s.Crash.Happened {
		return
	}
	v.rank.PendingPause = pausedMask(&paused)
	v.padEmptyAttentionDPBatch()
	v.rank.Phase = PhaseScheduled
}

// prepareOverlap is the part of the overlap loop between _can_queue and
// the forward: when the batch is queued,
// _prepare_disagg_gen_transmission_complete, _handle_dynamic_draft_len and
// ResourceManager.prepare_resources; when vetoed, _revert_gen_alloc (not
// before PR #13104: PreFixNoVetoRevert); then
// _finalize_adp_dummy_allocation(can_queue).
func (sp *Spec) prepareOverlap(s *State, r uint8) {
	v := sp.view(s, r)
	if v.rank.CanQueue {
		v.prepareTransmissionCompleted(&v.rank.Batch)
		v.padDynamicDraftLen(&v.rank.Batch)
		v.prepareDraftResources(sp.Fixes)
	} else if !v.cfg.PreFixes.Has(PreFixNoVetoRevert) {
		v.revertGenAlloc()
	}
	if s.Crash.Happened {
		return
	}
	v.finalizeAdpDummyAllocation()
	v.rank.Phase = PhasePrepared
}

// shouldProcessPreviousBatch is should_process_previous_batch = can_queue
// or not can_queue_this_rank: a rank the fleet vetoed while it had work
// defers its previous batch.
func (r *Rank) shouldProcessPreviousBatch() bool {
	return r.CanQueue || !r.CanQueueThisRank
}

// forwardOverlap runs only when the batch is queued: the forward of the
// current batch (its sample state records the environment's choices), then
// _update_requests(previous_batch) when it is processed this iteration, then
// _update_request_states and _update_v2_context_resources of the current
// batch, and the requests whose token in flight is their last turn
// GENERATION_TO_COMPLETE.
func (sp *Spec) forwardOverlap(s *State, a *Action) {
	v := sp.view(s, a.Rank)
	if !v.copyBatchBlockOffsets(&v.rank.Batch) {
		return
	}
	v.recordSample(&v.rank.Batch, a)
	if v.rank.Previous.Count > 0 && v.rank.shouldProcessPreviousBatch() {
		v.hit(brPreviousInFwd)
		v.applySample(&v.rank.Previous)
		v.rank.PreviousSampled = true
	}
	v.pausePending()
	v.updateRequestStates(&v.rank.Batch)
	v.updateV2ContextResources(&v.rank.Batch, sp.Fixes)
	v.updateGenerationRequestsThatWillCompleteNextIteration(&v.rank.Batch)
	v.rank.Phase = PhaseForwarded
}

// updateResourcesOverlap is the end of the overlap iteration: when the
// previous batch is processed, _update_requests (if the forward did not run)
// and _process_previous_batch (_handle_responses, then
// ResourceManager.update_resources of that batch); else an empty
// _enqueue_responses. Then previous_batch becomes the current batch when it
// was queued, None when this rank had nothing, and stays otherwise.
func (sp *Spec) updateResourcesOverlap(s *State, r uint8) {
	v := sp.view(s, r)
	rank := v.rank
	if rank.Previous.Count > 0 && !rank.shouldProcessPreviousBatch() {
		v.hit(brPreviousDeferred)
	}
	if rank.Previous.Count > 0 && rank.shouldProcessPreviousBatch() {
		v.hit(brPreviousDone)
		if !rank.PreviousSampled {
			v.applySample(&rank.Previous)
		}
		v.pausePending()
		v.handleResponses()
		v.updateAllResources(&rank.Previous)
		if s.Crash.Happened {
			return
		}
	}
	v.pausePending()
	if rank.CanQueue || v.idle() {
		v.pollContextTransfers()
	}
	switch {
	case rank.CanQueue:
		rank.Previous = rank.Batch
	case !rank.CanQueueThisRank:
		rank.Previous = Batch{}
	}
	rank.Batch = Batch{}
	rank.PreviousSampled = false
	rank.CanQueue, rank.CanQueueThisRank = false, false
	rank.Phase = PhaseIdle
}

// previousBatchFate says what update-resources does with the previous
// batch: "previous" (processed), "deferred" or "" (none).
func (r *Rank) previousBatchFate() string {
	switch {
	case r.Previous.Count == 0:
		return ""
	case r.shouldProcessPreviousBatch():
		return "previous"
	}
	return "deferred"
}

// pausePending is the overlap loop's _pause_recompute_paused_requests of
// this iteration's victims, after the previous batch's _update_requests.
func (v rankView) pausePending() {
	if v.rank.PendingPause != 0 {
		v.hit(brPauseAfterPrevious)
		v.pauseRequests(v.rank.PendingPause)
		v.rank.PendingPause = 0
	}
}
