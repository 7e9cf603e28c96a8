package spec

// This file models PyExecutor._executor_loop (py_executor.py at 0004396 /
// 2829508, reference §4.2), the non-overlap loop of one rank, as one action
// per phase: schedule, prepare-resources, forward, update. Environment
// choices (arrival, accepted draft tokens, early finish) are actions or
// action arguments, never hidden randomness.

// arrive is the request fetch at the start of _prepare_and_schedule_batch:
// the next request template joins active_requests on its rank as a new
// incarnation in CONTEXT_INIT.
func (sp *Spec) arrive(s *State) {
	id := s.Arrived + 1
	t := sp.Config.template(id)
	s.Arrived++
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		if r != t.Rank {
			continue
		}
		req := &s.Ranks[r].Requests[id]
		*req = Request{State: ContextInit, Incarnation: req.Incarnation + 1, Prompt: t.PromptLen}
	}
}

// schedule is PyExecutor._prepare_and_schedule_batch then _can_queue: set
// placeholder draft tokens ([0] * max_total_draft_tokens for generation
// requests with none, one-model MTP), run the V2 scheduler (which allocates
// pages), and queue the batch only when it is not empty.
func (sp *Spec) schedule(s *State, r uint8) {
	v := s.view(&sp.Config, r)
	for id := range v.rank.Requests {
		req := &v.rank.Requests[id]
		if req.State == GenerationInProgress && req.DraftLen == 0 {
			req.DraftLen = sp.Config.MaxDraftLen
		}
	}
	v.scheduleRequest(sp.Fixes)
	if s.Crash.Happened {
		return
	}
	if v.rank.Batch.Count == 0 {
		v.rank.Phase = PhaseIdle
		return
	}
	v.rank.Phase = PhaseScheduled
}

// prepareResources is ResourceManager.prepare_resources in registration
// order: the draft manager's _prepare_draft_resources (which may raise)
// before the target's no-op (the scheduler already allocated the target).
func (sp *Spec) prepareResources(s *State, r uint8) {
	v := s.view(&sp.Config, r)
	v.prepareDraftResources(sp.Fixes)
	v.rank.Phase = PhasePrepared
}

// forward is the model forward plus sampling and _update_request_states:
// context cursors advance by the chunk (both views,
// moveToNextContextChunk); a finished prompt samples its first token and
// gets [1] * draft_len placeholder drafts; a generation request gains
// 1 + accepted tokens (py_num_accepted_draft_tokens chosen by the
// environment) and completes at max_tokens or, if chosen, at EOS
// (handle_stop_criteria).
func (sp *Spec) forward(s *State, a *Action) {
	v := s.view(&sp.Config, a.Rank)
	b := &v.rank.Batch
	for i := 0; i < int(b.Count); i++ {
		e := b.Entries[i]
		req := v.request(e.ID)
		t := sp.Config.template(e.ID)
		limit := int(t.PromptLen) + int(t.MaxNewTokens)
		switch e.Kind {
		case ContextChunk:
			req.Position += e.Chunk
			req.DraftPosition += e.Chunk
			if req.Position >= req.Prompt {
				req.State = GenerationInProgress
				req.NumTokens = req.Prompt + 1
				req.DraftLen = sp.Config.MaxDraftLen
				req.Accepted = 0
				if int(req.NumTokens) >= limit {
					req.State = GenerationComplete
				}
			}
		case GenerationStep:
			accepted := a.Accepted[e.ID]
			req.NumTokens = uint8(min(int(req.NumTokens)+1+int(accepted), limit))
			req.Accepted = accepted
			req.DraftLen = sp.Config.MaxDraftLen
			if int(req.NumTokens) >= limit || a.EOS&(1<<e.ID) != 0 {
				req.State = GenerationComplete
			}
		}
	}
	v.rank.Phase = PhaseForwarded
}

// update is the tail of the iteration: _update_v2_context_resources (target;
// draft only when paired), _handle_responses (terminate finished requests:
// ResourceManager.free_resources) and ResourceManager.update_resources
// (draft before target).
func (sp *Spec) update(s *State, r uint8) {
	v := s.view(&sp.Config, r)
	v.updateContextResources(Target, sp.Fixes)
	if sp.Config.DraftPool == PairedDraftPool || (sp.Config.DraftPool == UnpairedDraftPool && sp.Fixes.Has(FixMirrorReuse)) {
		v.updateContextResources(Draft, sp.Fixes)
	}
	if s.Crash.Happened {
		return
	}
	for id := range v.rank.Requests {
		req := &v.rank.Requests[id]
		if req.State == GenerationComplete {
			v.freeResources(uint8(id))
			req.State = Finished
		}
	}
	if sp.Config.DraftPool != NoDraftPool {
		v.updateResources(Draft)
	}
	if s.Crash.Happened {
		return
	}
	v.updateResources(Target)
	v.rank.Batch = Batch{}
	v.rank.Phase = PhaseIdle
}
