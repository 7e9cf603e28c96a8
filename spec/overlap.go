package spec

// This file models PyExecutor._executor_loop_overlap (py_executor.py at
// 2829508, reference §4.3 and research notes §7.6): a batch's sampling
// results are applied, its responses handled and its update_resources run
// in the next iteration, and a rank the fleet vetoed while it had work
// defers that processing once more.

// scheduleOverlap is _prepare_and_schedule_batch in the overlap loop:
// the pre-schedule attention-DP pad, placeholder drafts, the V2 scheduler,
// then the post-schedule pad.
func (sp *Spec) scheduleOverlap(s *State, r uint8) {
	v := sp.view(s, r)
	v.padAttentionDPDummyRequest()
	if s.Crash.Happened {
		return
	}
	v.setPlaceholderDrafts()
	v.scheduleRequest(sp.Fixes)
	if s.Crash.Happened {
		return
	}
	v.padEmptyAttentionDPBatch()
	v.rank.Phase = PhaseScheduled
}

// prepareOverlap is the part of the overlap loop between _can_queue and
// the forward: when the batch is queued, _handle_dynamic_draft_len and
// ResourceManager.prepare_resources; when vetoed, _revert_gen_alloc (not
// before PR #13104: PreFixNoVetoRevert); then
// _finalize_adp_dummy_allocation(can_queue).
func (sp *Spec) prepareOverlap(s *State, r uint8) {
	v := sp.view(s, r)
	if v.rank.CanQueue {
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
// batch.
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
	v.updateRequestStates(&v.rank.Batch)
	v.updateV2ContextResources(&v.rank.Batch, sp.Fixes)
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
		v.handleResponses()
		v.updateAllResources(&rank.Previous)
		if s.Crash.Happened {
			return
		}
	}
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
