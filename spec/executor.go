package spec

// This file models PyExecutor._executor_loop (py_executor.py at 0004396 /
// 2829508, docs/reference.md, "The executor loops"), the non-overlap loop of a rank, as one action
// per phase: schedule, prepare-resources, forward, update. Environment
// choices (arrival, accepted draft tokens, early finish) are actions or
// action arguments, never hidden randomness. overlap.go and pipeline.go
// model the other loops with the same building blocks.

// arrive is the request fetch at the start of _prepare_and_schedule_batch:
// the next request template joins active_requests on its rank as a new
// incarnation, in CONTEXT_INIT, or in DISAGG_GENERATION_INIT for a
// disaggregated-generation request. Under pipeline parallelism it arrives
// at rank 0; a later stage activates it when it reaches the iteration rank
// 0 was in (PipelineIteration.Arrived).
func (sp *Spec) arrive(s *State) {
	id := s.Arrived + 1
	s.Arrived++
	sp.activate(&s.Ranks[sp.Config.template(id).Rank], id)
	sp.noteArrivalRole(s, sp.Config.template(id), 0)
}

// activate makes request id a new incarnation in active_requests of rank.
func (sp *Spec) activate(rank *Rank, id uint8) {
	t := sp.Config.template(id)
	req := &rank.Requests[id]
	state := ContextInit
	if t.ReceivingKV {
		state = DisaggGenerationInit
	}
	*req = Request{State: state, Incarnation: req.Incarnation + 1, Prompt: uint8(t.PromptLen)}
}

// receiveKV is the disaggregated KV transfer completing for request id. A
// receiving request moves from DISAGG_GENERATION_TRANS_IN_PROGRESS to
// DISAGG_GENERATION_TRANS_COMPLETE (the coordinator's poll_gen_transfers →
// transceiver.check_gen_transfer_status at the top of
// _prepare_and_schedule_batch, py_executor.py at 2829508); it gets its
// first token only once a batch holding it is queued
// (prepareTransmissionCompleted). A sending context-only request's send
// completes and its caches are freed (the async transfer manager's
// release, disagg.reap_context_sends), or, with PreFixSendPollAfterForward,
// at the executor's next completion poll (pollContextTransfers).
func (sp *Spec) receiveKV(s *State, a *Action) {
	r := &s.Ranks[a.Rank].Requests[a.ID]
	if r.State == DisaggContextTransmission {
		if sp.Config.PreFixes.Has(PreFixSendPollAfterForward) {
			// The KV stays pinned until the executor's completion poll
			// sees the send complete (pollContextTransfers).
			r.Flags |= requestFlagKVSent
			return
		}
		sp.view(s, a.Rank).freeResources(a.ID)
		r.State = Finished
		return
	}
	sp.hit(brDisaggReceived)
	r.State = DisaggTransComplete
}

// schedule is PyExecutor._prepare_and_schedule_batch then _can_queue: set
// placeholder draft tokens, run the V2 scheduler (which allocates pages),
// and queue the batch only when it is not empty.
func (sp *Spec) schedule(s *State, r uint8) {
	v := sp.view(s, r)
	v.setPlaceholderDrafts()
	v.scheduleRequest(sp.Fixes)
	if s.Crash.Happened {
		return
	}
	if v.rank.Batch.Count == 0 {
		v.hit(brEmptyBatch)
		v.rank.Phase = PhaseIdle
		return
	}
	v.rank.Phase = PhaseScheduled
}

// prepareResources is, for the queued batch,
// _prepare_disagg_gen_transmission_complete, _handle_dynamic_draft_len then
// ResourceManager.prepare_resources in registration order: the draft
// manager's _prepare_draft_resources (which may raise) before the target's
// no-op (the scheduler already allocated the target).
func (sp *Spec) prepareResources(s *State, r uint8) {
	v := sp.view(s, r)
	v.prepareTransmissionCompleted(&v.rank.Batch)
	v.padDynamicDraftLen(&v.rank.Batch)
	v.prepareDraftResources(sp.Fixes)
	v.rank.Phase = PhasePrepared
}

// forward is the model forward plus sampling: _update_request_states then
// _update_requests with the environment's accepted draft tokens and early
// finishes.
func (sp *Spec) forward(s *State, a *Action) {
	v := sp.view(s, a.Rank)
	b := &v.rank.Batch
	if !v.copyBatchBlockOffsets(b) {
		return
	}
	v.recordSample(b, a)
	v.updateRequestStates(b)
	v.applySample(b)
	v.rank.Phase = PhaseForwarded
}

// update is the tail of the iteration: _update_v2_context_resources,
// _handle_responses (terminate finished requests) and
// ResourceManager.update_resources (draft before target).
func (sp *Spec) update(s *State, r uint8) {
	v := sp.view(s, r)
	v.updateV2ContextResources(&v.rank.Batch, sp.Fixes)
	if s.Crash.Happened {
		return
	}
	v.handleResponses()
	v.updateAllResources(&v.rank.Batch)
	v.rank.Batch = Batch{}
	v.rank.Phase = PhaseIdle
}

// updateV2ContextResources is PyExecutor._update_v2_context_resources:
// update_context_resources on the target, and on the draft only when the
// pool is paired (or publishes, with the mirror-reuse fix).
func (v rankView) updateV2ContextResources(b *Batch, fixes Fixes) {
	v.updateContextResources(Target, b, fixes)
	if !v.cfg.hasPool(v.r, Draft) {
		return
	}
	if v.cfg.DraftPool == PairedDraftPool || fixes.Has(FixMirrorReuse) {
		v.updateContextResources(Draft, b, fixes)
	}
}

// updateAllResources is ResourceManager.update_resources: every manager in
// registration order, the draft before the target.
func (v rankView) updateAllResources(b *Batch) {
	if v.cfg.hasPool(v.r, Draft) {
		v.updateResources(Draft, b)
	}
	if v.s.Crash.Happened {
		return
	}
	v.updateResources(Target, b)
}
