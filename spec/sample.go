package spec

// This file models what every executor loop does with a batch once it has
// run: the request-state update after the forward, the sampler's update of
// the request objects, and the termination of finished requests.

// entryRequest returns the request object a batch entry holds: the rank's
// live object, or the batch's own copy of an attention-DP dummy that was
// retired while the batch still referenced it (same fixed ID, older
// incarnation).
func (v rankView) entryRequest(b *Batch, e *BatchEntry) *Request {
	if e.ID == 0 && v.request(0).Incarnation != e.Incarnation && b.Dummy.Incarnation == e.Incarnation {
		v.hit(brRetiredDummyObject)
		return &b.Dummy
	}
	return v.request(e.ID)
}

// maxTokens is the request's prompt plus max_tokens: handle_stop_criteria
// ends it there.
func (v rankView) maxTokens(id uint8) int {
	if id == 0 {
		return int(v.request(0).Prompt) + 1 + int(v.cfg.MaxDraftLen)
	}
	t := v.cfg.template(id)
	return int(t.PromptLen) + int(t.MaxNewTokens)
}

// updateRequestStates is PyExecutor._update_request_states after a
// forward: each context entry's cursors advance by its chunk
// (LlmRequest::moveToNextContextChunk moves both views) and a finished
// prompt turns GENERATION_IN_PROGRESS; with attention DP a live dummy is
// terminated through every manager when it is active_requests[-1]
// (_update_request_states_tp → _terminate_request, py_executor.py at
// 2829508); one with a later arrival behind it stays until
// _handle_responses.
func (v rankView) updateRequestStates(b *Batch) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.Kind != ContextChunk {
			continue
		}
		r := v.entryRequest(b, e)
		if r.State != ContextInit {
			continue
		}
		r.Position += e.Chunk
		r.DraftPosition += e.Chunk
		r.ChunkSize = 0
		if r.Position >= r.Prompt {
			r.Position = r.Prompt
			r.State = GenerationInProgress
		}
	}
	if v.cfg.AttentionDP && v.request(0).State.isActive() {
		if !v.dummyIsLast() {
			v.hit(brDummyNotLast)
			return
		}
		v.hit(brDummyTerminated)
		v.terminateRequest(0)
	}
}

// applySample is the sampler's update_requests on a batch that ran
// (TorchSampler / SpecSampler.update_requests, applied by _update_requests):
// a finished prompt gets its first token and [1] * draft_len placeholder
// drafts; a generation entry gains 1 + accepted tokens, and
// py_num_accepted_draft_tokens is set; handle_stop_criteria completes a
// request at max_tokens or, if the environment chose it, at EOS. A
// context-only request (SendingKV) turns DISAGG_CONTEXT_TRANS_IN_PROGRESS
// with its first token (_send_kv_async) and leaves active_requests, keeping
// its caches. Requests already GENERATION_COMPLETE are skipped.
func (v rankView) applySample(b *Batch) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		r := v.entryRequest(b, e)
		if r.State != GenerationInProgress && r.State != GenerationToComplete {
			continue
		}
		limit := v.maxTokens(e.ID)
		switch e.Kind {
		case ContextChunk:
			if !e.Last || r.NumTokens > r.Prompt {
				continue
			}
			r.NumTokens = r.Prompt + 1
			r.Accepted = 0
			r.DraftLen = uint8(v.cfg.MaxDraftLen)
			if v.cfg.PadDraftAfterAllocation {
				r.DraftLen = 0
			}
		case GenerationStep:
			if e.Accepted > 0 {
				v.hit(brAcceptedDrafts)
			}
			r.NumTokens = uint8(min(int(r.NumTokens)+1+int(e.Accepted), limit))
			r.Accepted = e.Accepted
			r.DraftLen = uint8(v.cfg.MaxDraftLen)
		}
		if e.Kind == ContextChunk && e.ID != dummyID && v.cfg.template(e.ID).SendingKV {
			v.hit(brContextOnlySends)
			r.State = DisaggContextTransmission
		} else if int(r.NumTokens) >= limit {
			v.hit(brMaxTokens)
			r.State = GenerationComplete
		} else if e.EOS {
			v.hit(brEarlyFinish)
			r.State = GenerationComplete
		}
	}
}

// recordSample stores the environment's sampling choices for the batch's
// generation entries (the sample state the forward produces).
func (v rankView) recordSample(b *Batch, a *Action) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.Kind != GenerationStep {
			continue
		}
		e.Accepted = a.Accepted[e.ID]
		e.EOS = a.EOS&(1<<e.ID) != 0
	}
	v.produceTokens(b)
}

// handleResponses is PyExecutor._handle_responses: finished requests and
// attention-DP dummies still in active_requests are terminated
// (_terminate_request → ResourceManager.free_resources).
func (v rankView) handleResponses() {
	for id := uint8(0); id < MaxIDs; id++ {
		r := v.request(id)
		if r.State == GenerationComplete || (id == 0 && r.State.isActive()) {
			v.terminateRequest(id)
		}
	}
}

// terminateRequest is PyExecutor._terminate_request: free the request in
// every manager and drop it from active_requests. A retired dummy's object
// is copied into every batch that still references it.
func (v rankView) terminateRequest(id uint8) {
	v.freeResources(id)
	r := v.request(id)
	if id == 0 {
		r.State = GenerationComplete
		v.retireDummy()
	}
	r.State = Finished
	r.Flags &^= requestFlagPendingDummy | requestFlagInflight
}

// retireDummy copies the live dummy object into the batches that hold its
// incarnation, so a deferred update reads the old object's fields while the
// ID moves on to the next dummy.
func (v rankView) retireDummy() {
	d := *v.request(0)
	keepDummy := func(b *Batch) {
		for i := 0; i < int(b.Count); i++ {
			if b.Entries[i].ID == 0 && b.Entries[i].Incarnation == d.Incarnation {
				b.Dummy = d
			}
		}
	}
	keepDummy(&v.rank.Batch)
	keepDummy(&v.rank.Previous)
	for i := 0; i < int(v.s.PipelineLen); i++ {
		keepDummy(&v.s.Pipeline[i].Batch)
	}
}

// padDynamicDraftLen is PyExecutor._handle_dynamic_draft_len for MTP: pad
// each generation entry's py_draft_tokens to the runtime draft length,
// after the scheduler allocated (PadDraftAfterAllocation).
func (v rankView) padDynamicDraftLen(b *Batch) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.Kind == GenerationStep {
			if r := v.entryRequest(b, e); r.DraftLen < uint8(v.cfg.MaxDraftLen) {
				r.DraftLen = uint8(v.cfg.MaxDraftLen)
			}
		}
	}
}

// setPlaceholderDrafts is _prepare_and_schedule_batch's one-model step:
// GENERATION_IN_PROGRESS and DISAGG_GENERATION_INIT requests with no
// py_draft_tokens get [0] *
// max_total_draft_tokens so the scheduler budgets and allocates 1 + D
// (skipped when MTP pads after allocation).
func (v rankView) setPlaceholderDrafts() {
	if v.cfg.PadDraftAfterAllocation {
		return
	}
	for id := range v.rank.Requests {
		r := &v.rank.Requests[id]
		if (r.State == GenerationInProgress || r.State == DisaggGenerationInit) && r.DraftLen == 0 {
			r.DraftLen = uint8(v.cfg.MaxDraftLen)
		}
	}
}
