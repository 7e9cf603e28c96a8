package spec

// prepareTransmissionCompleted is PyExecutor._prepare_disagg_gen_transmission_complete
// (py_executor.py at 2829508, through the coordinator's
// prepare_transmission_completed), which every loop runs only on a queued
// batch, after _can_queue and before _handle_dynamic_draft_len and
// prepare_resources. Each DISAGG_GENERATION_TRANS_COMPLETE request the
// scheduler put among the generation requests turns
// GENERATION_IN_PROGRESS with its context cursor at the prompt's end, the
// context server's draft tokens (or [0] * max_total_draft_tokens with
// speculation on) and the context server's first token (add_new_token).
// A vetoed batch skips it: the request stays TRANS_COMPLETE and
// _revert_gen_alloc gives its growth back.
func (v rankView) prepareTransmissionCompleted(b *Batch) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.Kind != GenerationStep {
			continue
		}
		r := v.entryRequest(b, e)
		if r.State != DisaggTransComplete {
			continue
		}
		v.hit(brDisaggFirstToken)
		r.State = GenerationInProgress
		r.Position = r.Prompt
		r.DraftPosition = r.Prompt
		r.NumTokens = r.Prompt + 1
		r.Produced = 1 // the context server's forward produced the first token
		r.DraftLen = uint8(v.cfg.MaxDraftLen)
	}
}

// updateGenerationRequestsThatWillCompleteNextIteration is
// PyExecutor._update_generation_requests_that_will_complete_next_iteration
// (py_executor.py at 2829508), which the overlap loop runs after a queued
// forward: a request whose token in flight reaches max_new_tokens
// (LlmRequest::willCompleteNextIteration: generated + 1 >= max_new_tokens,
// one token per iteration) turns GENERATION_TO_COMPLETE, so the next
// pass does not schedule it. _update_request_states_tp does the same for a
// prompt that finished in this forward.
func (v rankView) updateGenerationRequestsThatWillCompleteNextIteration(b *Batch) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.ID == dummyID {
			continue
		}
		r := v.entryRequest(b, e)
		if r.State != GenerationInProgress {
			continue
		}
		// max_beam_num_tokens counts the prompt (a re-prefilled prompt
		// holds the tokens generated before the pause).
		tokens := max(int(r.NumTokens), int(r.Prompt))
		if tokens+1 >= v.maxTokens(e.ID) {
			v.hit(brWillComplete)
			r.State = GenerationToComplete
		}
	}
}
