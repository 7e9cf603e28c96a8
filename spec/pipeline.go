package spec

// This file models PyExecutor._executor_loop_pp (py_executor.py at
// 2829508, reference §4.5, research notes pp-answers). Ranks are pipeline
// stages. Rank 0 schedules each micro-batch and sends down the chain only
// request-ID lists (SerializableSchedulerOutput: context requests still
// chunking, last-chunk context requests, generation requests); every other
// stage rebuilds the batch from its own LlmRequest objects, and also runs
// its own scheduler every iteration ("scheduler may change llm requests'
// state"), which allocates on its own pools for whatever it picks and
// writes its own objects' context_chunk_size: the forward and
// move_to_next_context_chunk use that local chunk size. Nothing but the
// disaggregated gen-init result is reconciled. The last stage samples. Rank
// 0 handles every executed batch whose sample state came back (waiting for
// one when any is outstanding), and every stage handles the same number,
// in the same order (_handle_executed_batch). The placeholder-draft step of
// _prepare_and_schedule_batch does not run in this loop.
//
// Each stage therefore runs the same sequence of iterations; the state
// keeps the iterations not yet finished by every stage in State.Pipeline
// (oldest first) and each stage's position in it.

// isLastStage reports whether rank r is the last pipeline stage.
func (c *Config) isLastStage(r uint8) bool { return r == c.Ranks-1 }

// pipelineStart is rank 0's iteration: a new PipelineIteration, the V2
// scheduler on rank 0 (skipping inflight requests), _add_inflight_ids (last
// context chunks and generation requests), prepare_resources and the
// forward with _update_request_states.
func (sp *Spec) pipelineStart(s *State) {
	v := sp.view(s, 0)
	it := &s.Pipeline[s.PipelineLen]
	*it = PipelineIteration{Arrived: s.Arrived}
	s.PipelineLen++
	v.scheduleRequest(sp.Fixes)
	if s.Crash.Happened {
		return
	}
	it.Batch = v.rank.Batch
	sp.pipelineForward(s, 0, nil)
}

// pipelineFollow is a later stage's iteration: activate the requests rank 0
// had seen, run the local scheduler (its allocations and chunk sizes stay;
// its batch is dropped), rebuild rank 0's micro-batch from the local
// objects (to_scheduler_result: rank 0's IDs and last-chunk classification,
// the local context_chunk_size), then prepare_resources and the forward.
// The last stage samples: the action carries the environment's choices.
//
// Recompute pause (correction 4): _executor_loop_pp at 2829508 runs
// _terminate_recompute_paused_requests and _pause_recompute_paused_requests
// on scheduled_batch, which on a later stage is the batch rebuilt by
// to_scheduler_result. SerializableSchedulerOutput carries context, last
// chunk, generation, paused and disagg gen-init IDs, and no
// recompute-paused list (read in scheduler.py; the fields are the same in
// every version read), so the rebuilt batch's recompute_paused_requests is
// empty: a later stage pauses nobody. Its local scheduler's victims have
// their caches freed (schedulePass) but keep their state, and rank 0's
// victims are not reset on the later stage either.
func (sp *Spec) pipelineFollow(s *State, a *Action) {
	r := a.Rank
	v := sp.view(s, r)
	it := &s.Pipeline[v.rank.PipelinePos]
	for id := uint8(1); id <= it.Arrived; id++ {
		if v.request(id).State == NotArrived {
			sp.hit(brStageActivates)
			sp.activate(v.rank, id)
		}
	}
	v.schedulePass(sp.Fixes)
	if s.Crash.Happened {
		return
	}
	v.rank.Batch = it.Batch
	b := &v.rank.Batch
	for i := 0; i < int(b.Count); i++ {
		if e := &b.Entries[i]; e.Kind == ContextChunk {
			if e.Chunk != v.request(e.ID).ChunkSize {
				v.hit(brStageChunkDiffers)
			}
			e.Chunk = v.request(e.ID).ChunkSize
		}
	}
	sp.pipelineForward(s, r, a)
}

// pipelineForward runs the adopted micro-batch on stage r: inflight IDs,
// _handle_dynamic_draft_len, prepare_resources (the draft pool on the last
// stage), the forward and _update_request_states; the last stage records
// the sample state in the iteration.
func (sp *Spec) pipelineForward(s *State, r uint8, a *Action) {
	v := sp.view(s, r)
	it := &s.Pipeline[v.rank.PipelinePos]
	b := &v.rank.Batch
	for i := 0; i < int(b.Count); i++ {
		if e := &b.Entries[i]; e.Kind == GenerationStep || e.Last {
			v.request(e.ID).Flags |= requestFlagInflight
		}
	}
	v.padDynamicDraftLen(b)
	v.prepareDraftResources(sp.Fixes)
	if s.Crash.Happened || !v.copyBatchBlockOffsets(b) {
		return
	}
	if sp.Config.isLastStage(r) && a != nil {
		v.recordSample(&it.Batch, a)
	}
	v.updateRequestStates(b)
	it.Forwarded |= 1 << r
	v.rank.Batch = Batch{}
	v.rank.Phase = PhaseForwarded
}

// rank0HandleCount is Stage 2 and 3 of _executor_loop_pp on rank 0 in
// the default synchronous relay: at the end of iteration i rank 0 blocks on
// the sample state of the micro-batch of iteration i-(P-1)
// (_ring_broadcast_sample_state) and then handles its response queue,
// which holds exactly that batch. It returns the count and whether rank 0
// can go on (false: the last stage has not sampled that batch yet).
func (sp *Spec) rank0HandleCount(s *State) (uint8, bool) {
	t := int(s.Ranks[0].PipelinePos) - (int(sp.Config.Ranks) - 1)
	if t < 0 {
		return 0, true
	}
	it := &s.Pipeline[t]
	if it.Batch.Count == 0 || it.Handled&1 != 0 {
		return 0, true
	}
	last := uint8(1) << (sp.Config.Ranks - 1)
	return 1, it.Forwarded&last != 0
}

// pipelineHandle ends stage r's iteration: _handle_executed_batch on the
// count oldest executed batches it has not handled (rank 0 chooses the
// count; the others repeat rank 0's): _update_requests,
// _update_v2_context_resources, _handle_responses, update_resources and
// _remove_inflight_ids.
func (sp *Spec) pipelineHandle(s *State, a *Action) {
	r := a.Rank
	v := sp.view(s, r)
	pos := v.rank.PipelinePos
	if r == 0 {
		s.Pipeline[pos].HandleCount = a.Count + 1
	}
	left := int(a.Count)
	for i := 0; i < int(s.PipelineLen) && left > 0; i++ {
		it := &s.Pipeline[i]
		if it.Batch.Count == 0 || it.Handled&(1<<r) != 0 {
			continue
		}
		b := it.Batch
		v.hit(brStageHandles)
		v.applySample(&b)
		v.updateV2ContextResources(&b, sp.Fixes)
		if s.Crash.Happened {
			return
		}
		v.handleResponses()
		v.updateAllResources(&b)
		if s.Crash.Happened {
			return
		}
		for j := 0; j < int(b.Count); j++ {
			if e := &b.Entries[j]; e.Kind == GenerationStep || e.Last {
				v.request(e.ID).Flags &^= requestFlagInflight
			}
		}
		it.Handled |= 1 << r
		left--
	}
	s.Pipeline[pos].Done |= 1 << r
	v.rank.PipelinePos++
	v.rank.Phase = PhaseIdle
	sp.retireFinishedIterations(s)
}

// retireFinishedIterations drops the oldest iterations every stage has
// finished and whose batch every stage handled, keeping the state
// canonical (positions are relative to the oldest live iteration).
func (sp *Spec) retireFinishedIterations(s *State) {
	all := uint8(1)<<sp.Config.Ranks - 1
	for s.PipelineLen > 0 {
		it := &s.Pipeline[0]
		if it.Done != all || (it.Batch.Count > 0 && it.Handled != all) {
			return
		}
		copy(s.Pipeline[:], s.Pipeline[1:s.PipelineLen])
		s.PipelineLen--
		s.Pipeline[s.PipelineLen] = PipelineIteration{}
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			s.Ranks[r].PipelinePos--
		}
	}
}

// pipelineActions appends the pipeline loop's enabled actions.
func (sp *Spec) pipelineActions(s *State, out []Action) []Action {
	stages := sp.Config.Ranks
	for r := uint8(0); r < stages; r++ {
		rank := &s.Ranks[r]
		pos := rank.PipelinePos
		switch rank.Phase {
		case PhaseIdle:
			if r == 0 {
				if s.PipelineLen < stages && sp.hasActiveRequests(rank) {
					out = append(out, Action{Kind: ActSchedule, Rank: 0})
				}
				continue
			}
			if pos >= s.PipelineLen {
				continue
			}
			it := &s.Pipeline[pos]
			if it.Batch.Count > 0 && it.Forwarded&(1<<(r-1)) == 0 {
				continue
			}
			if sp.Config.isLastStage(r) && it.Batch.Count > 0 {
				out = sp.forwardChoices(&it.Batch, r, out)
			} else {
				out = append(out, Action{Kind: ActForward, Rank: r})
			}
		case PhaseForwarded:
			if r == 0 {
				count, ready := sp.rank0HandleCount(s)
				if ready {
					out = append(out, Action{Kind: ActHandle, Rank: 0, Count: count})
				}
				continue
			}
			if count := s.Pipeline[pos].HandleCount; count > 0 {
				out = append(out, Action{Kind: ActHandle, Rank: r, Count: count - 1})
			}
		}
	}
	return out
}
