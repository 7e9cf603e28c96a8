package spec

// This file models PyExecutor._executor_loop_pp (py_executor.py at
// 2829508, docs/reference.md, "The executor loops"). Ranks are pipeline
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

// Pipeline parallelism with attention DP (correction 7, _executor_loop_pp
// and _pp_schedule_and_propagate at 2829508): every stage has
// StageADPRanks attention-DP ranks; rank r is ADP rank r % w of stage
// r / w. With tp_size > 1 and enable_attention_dp (is_dp_broadcast) each
// ADP rank of the first stage schedules its own micro-batch (no TP
// broadcast) and sends it down its own chain: ADP rank a of every later
// stage rebuilds ADP rank a's batch. Every rank first runs
// _fetch_and_activate_new_requests (the ADP allgather of active counts,
// over the stage's TP group) and _pad_attention_dp_dummy_request; after
// scheduling, _can_queue is a TP allgather of batch sizes within the
// stage, and a veto makes every rank _revert_gen_alloc its batch and skip
// the micro-batch (micro_batches[id] = None). The loop has no
// _pad_empty_attention_dp_batch and no _finalize_adp_dummy_allocation: a
// pre-schedule dummy stays in active_requests until a handled forward's
// _handle_responses terminates it. The stage's ADP ranks meet at those two
// allgathers in every iteration, so the spec runs a stage's ranks together
// in one action (Action.Rank is the stage's first rank).
//
// Not modeled: a first-stage ADP rank other than global rank 0 also takes
// the "self.dist.rank != 0" branch and runs schedule_request a second time
// after its own _schedule; whether the V2 scheduler grows the same
// generation requests twice there was not read (reading-notes.md,
// correction 7).

// adpWidth is the number of attention-DP ranks per pipeline stage (1
// without pipeline parallelism or attention DP).
func (c *Config) adpWidth() uint8 {
	if c.Loop == PipelineLoop && c.StageADPRanks > 1 {
		return c.StageADPRanks
	}
	return 1
}

// stages is the number of pipeline stages (Ranks outside the pipeline
// loop, where each rank is its own stage for the per-stage pool sizes).
func (c *Config) stages() uint8 { return c.Ranks / c.adpWidth() }

// stageOf is the pipeline stage of rank r.
func (c *Config) stageOf(r uint8) uint8 { return r / c.adpWidth() }

// isLastStage reports whether rank r is on the last pipeline stage.
func (c *Config) isLastStage(r uint8) bool { return c.stageOf(r) == c.stages()-1 }

// pipelineRecord is the record that holds the first stage's ADP rank
// adp's micro-batch of pipeline iteration i (see microBatch).
func (sp *Spec) pipelineRecord(s *State, i, adp uint8) *PipelineIteration {
	return &s.Pipeline[int(i)+int(adp)*int(sp.Config.stages())]
}

// microBatch is the micro-batch of the first stage's ADP rank adp in
// pipeline iteration i: ADP rank 1's lives in the record stages places
// further on (stages x 2 ranks fit MaxRanks, and at most stages
// iterations are live).
func (sp *Spec) microBatch(s *State, i, adp uint8) *Batch {
	return &s.Pipeline[int(i)+int(adp)*int(sp.Config.stages())].Batch
}

// executed reports whether the iteration's micro-batch ran (was queued and
// not empty), so its sample state travels the ring and every stage
// handles it. A queued iteration under attention DP has no empty ADP
// batch, so rank 0's tells.
func (it *PipelineIteration) executed() bool {
	return !it.Vetoed && it.Batch.Count > 0
}

// padStage is, with attention DP, the start of a stage's iteration on
// each of its ADP ranks: _fetch_and_activate_new_requests' allgather of
// active counts over the stage (expected_num_active_requests, the router's
// count capped at max_num_active_requests), _update_adp_dummy_role (the
// PP loop has no _enable_adp_dummy_fixes, so no forward intent) and
// _pad_attention_dp_dummy_request. It reports whether no rank raised.
func (sp *Spec) padStage(s *State, stage uint8) bool {
	if !sp.Config.AttentionDP {
		return true
	}
	w := sp.Config.adpWidth()
	most := 0
	for a := uint8(0); a < w; a++ {
		most = max(most, sp.view(s, stage*w+a).activeCount())
	}
	if sp.Config.MaxNumActiveRequests != 0 {
		most = min(most, int(sp.Config.MaxNumActiveRequests))
	}
	for a := uint8(0); a < w; a++ {
		v := sp.view(s, stage*w+a)
		v.updateAdpDummyRole()
		v.rank.ExpectedActive = uint8(most)
		v.padAttentionDPDummyRequest()
		if s.Crash.Happened {
			return false
		}
	}
	return true
}

// pipelineStart is the first stage's iteration: a new PipelineIteration;
// on each ADP rank the pre-schedule pad and the V2 scheduler (skipping
// inflight requests); then _can_queue and, when queued, _add_inflight_ids
// (last context chunks and generation requests), prepare_resources and
// the forward with _update_request_states.
func (sp *Spec) pipelineStart(s *State) {
	i := s.PipelineLen
	it := &s.Pipeline[i]
	*it = PipelineIteration{Arrived: s.Arrived}
	s.PipelineLen++
	if !sp.padStage(s, 0) {
		return
	}
	for a := uint8(0); a < sp.Config.adpWidth(); a++ {
		v := sp.view(s, a)
		paused := v.scheduleRequest(sp.Fixes)
		if s.Crash.Happened {
			return
		}
		b := sp.microBatch(s, i, a)
		*b = v.rank.Batch
		setDummyIncarnation(b, 0)
		sp.pipelineRecord(s, i, a).RecomputePaused = paused
	}
	sp.pipelineRun(s, 0, nil)
}

// pipelineFollow is a later stage's iteration, on each of its ADP ranks:
// activate the requests the same ADP rank of stage 0 had seen, the
// pre-schedule pad, the local scheduler (its allocations and chunk sizes
// stay; its batch is dropped), then rebuild that ADP rank's micro-batch
// from the local objects (to_scheduler_result: its IDs and last-chunk
// classification, the local context_chunk_size); then _can_queue and,
// when queued, prepare_resources and the forward. The last stage samples:
// the action carries the environment's choices.
//
// Recompute pause: _executor_loop_pp at 2829508 runs
// _terminate_recompute_paused_requests and _pause_recompute_paused_requests
// on scheduled_batch right after scheduling, which on a later stage is the
// batch rebuilt by to_scheduler_result. PR #15252 says serialization
// carries the recompute-paused requests, so a later stage frees rank 0's
// victims and pauses them (Config.PPPropagatesRecomputePause, INFER: the
// stored scheduler.py versions predate the field). Off, a later stage
// pauses nobody. Either way its local scheduler's own victims have their
// caches freed (schedulePass) but keep their state, as the local pass's
// output is dropped. Without a KV cache transceiver there is no
// DisaggPPTerminationHandler (it needs pp_size > 1, block reuse and a
// transceiver), so the teardown is immediate on every stage.
func (sp *Spec) pipelineFollow(s *State, a *Action) {
	w := sp.Config.adpWidth()
	stage := sp.Config.stageOf(a.Rank)
	pos := s.Ranks[a.Rank].PipelinePos
	it := &s.Pipeline[pos]
	for adp := uint8(0); adp < w; adp++ {
		v := sp.view(s, stage*w+adp)
		for id := uint8(1); id <= it.Arrived; id++ {
			if v.request(id).State == NotArrived && sp.Config.template(id).Rank == adp {
				sp.hit(brStageActivates)
				sp.activate(v.rank, id)
				sp.noteArrivalRole(s, sp.Config.template(id), stage)
			}
		}
	}
	if !sp.padStage(s, stage) {
		return
	}
	for adp := uint8(0); adp < w; adp++ {
		v := sp.view(s, stage*w+adp)
		v.schedulePass(sp.Fixes)
		if s.Crash.Happened {
			return
		}
		if paused := sp.pipelineRecord(s, pos, adp).RecomputePaused; paused != 0 && sp.Config.PPPropagatesRecomputePause.On() {
			v.hit(brStagePausesVictims)
			for id := uint8(0); id < MaxIDs; id++ {
				if paused&(1<<id) != 0 {
					v.freeResources(id)
				}
			}
			v.pauseRequests(paused)
		}
		v.rank.Batch = *sp.microBatch(s, pos, adp)
		b := &v.rank.Batch
		setDummyIncarnation(b, v.request(dummyID).Incarnation)
		for i := 0; i < int(b.Count); i++ {
			if e := &b.Entries[i]; e.Kind == ContextChunk {
				if e.Chunk != v.request(e.ID).ChunkSize {
					v.hit(brStageChunkDiffers)
				}
				e.Chunk = v.request(e.ID).ChunkSize
			}
		}
	}
	sp.pipelineRun(s, stage, a)
}

// pipelineRun is the rest of a stage's iteration once every ADP rank holds
// its micro-batch: with attention DP, _can_queue (an empty ADP batch
// vetoes the stage, and every stage sees the same batch sizes), and on a
// veto _revert_gen_alloc (not before PR #13104: PreFixNoVetoRevert) with
// the micro-batch skipped; otherwise pipelineForward on each ADP rank.
func (sp *Spec) pipelineRun(s *State, stage uint8, a *Action) {
	w := sp.Config.adpWidth()
	pos := s.Ranks[stage*w].PipelinePos
	it := &s.Pipeline[pos]
	if sp.Config.AttentionDP && !it.Vetoed {
		for adp := uint8(0); adp < w; adp++ {
			it.Vetoed = it.Vetoed || sp.microBatch(s, pos, adp).Count == 0
		}
	}
	for adp := uint8(0); adp < w; adp++ {
		r := stage*w + adp
		v := sp.view(s, r)
		if it.Vetoed {
			if v.rank.Batch.Count > 0 {
				sp.hit(brVeto)
			}
			if !v.cfg.PreFixes.Has(PreFixNoVetoRevert) {
				v.revertGenAlloc()
			}
			v.rank.Batch = Batch{}
			v.rank.Phase = PhaseForwarded
			continue
		}
		if !sp.pipelineForward(s, r, adp, a) {
			return
		}
	}
	it.Forwarded |= 1 << stage
}

// pipelineForward runs the adopted micro-batch on rank r (ADP rank adp of
// its stage): inflight IDs, _prepare_disagg_gen_transmission_complete,
// _handle_dynamic_draft_len, prepare_resources
// (the draft pool on the last stage), the forward and
// _update_request_states; the last stage records the sample state in the
// iteration. It reports whether the forward ran (no raise).
func (sp *Spec) pipelineForward(s *State, r, adp uint8, a *Action) bool {
	v := sp.view(s, r)
	pos := v.rank.PipelinePos
	b := &v.rank.Batch
	for i := 0; i < int(b.Count); i++ {
		if e := &b.Entries[i]; e.Kind == GenerationStep || e.Last {
			v.request(e.ID).Flags |= requestFlagInflight
		}
	}
	v.prepareTransmissionCompleted(b)
	v.padDynamicDraftLen(b)
	v.prepareDraftResources(sp.Fixes)
	if s.Crash.Happened || !v.copyBatchBlockOffsets(b) {
		return false
	}
	if sp.Config.isLastStage(r) && a != nil {
		mb := sp.microBatch(s, pos, adp)
		v.recordSample(mb, a)
		// Every stage's request objects take the sample state the last
		// stage broadcasts (_ring_broadcast_sample_state).
		w := sp.Config.adpWidth()
		for stage := uint8(0); stage+1 < sp.Config.stages(); stage++ {
			sp.view(s, stage*w+adp).produceTokens(mb)
		}
	}
	v.updateRequestStates(b)
	v.rank.Batch = Batch{}
	v.rank.Phase = PhaseForwarded
	return true
}

// rank0HandleCount is Stage 2 and 3 of _executor_loop_pp on rank 0 in
// the default synchronous relay: at the end of iteration i rank 0 blocks on
// the sample state of the micro-batch of iteration i-(P-1)
// (_ring_broadcast_sample_state) and then handles its response queue,
// which holds exactly that batch (none when it was skipped). It returns the
// count and whether rank 0 can go on (false: the last stage has not
// sampled that batch yet).
func (sp *Spec) rank0HandleCount(s *State) (uint8, bool) {
	stages := sp.Config.stages()
	t := int(s.Ranks[0].PipelinePos) - (int(stages) - 1)
	if t < 0 {
		return 0, true
	}
	it := &s.Pipeline[t]
	if !it.executed() || it.Handled&1 != 0 {
		return 0, true
	}
	last := uint8(1) << (stages - 1)
	return 1, it.Forwarded&last != 0
}

// pipelineHandle ends a stage's iteration on each of its ADP ranks:
// _handle_executed_batch on the count oldest executed batches it has not
// handled (rank 0 chooses the count; the others repeat rank 0's):
// _update_requests, _update_v2_context_resources, _handle_responses,
// update_resources and _remove_inflight_ids.
func (sp *Spec) pipelineHandle(s *State, a *Action) {
	w := sp.Config.adpWidth()
	stage := sp.Config.stageOf(a.Rank)
	pos := s.Ranks[a.Rank].PipelinePos
	if stage == 0 {
		s.Pipeline[pos].HandleCount = a.Count + 1
	}
	left := int(a.Count)
	for i := uint8(0); i < s.PipelineLen && left > 0; i++ {
		it := &s.Pipeline[i]
		if !it.executed() || it.Handled&(1<<stage) != 0 {
			continue
		}
		for adp := uint8(0); adp < w; adp++ {
			v := sp.view(s, stage*w+adp)
			b := *sp.microBatch(s, i, adp)
			setDummyIncarnation(&b, v.request(dummyID).Incarnation)
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
		}
		it.Handled |= 1 << stage
		left--
	}
	s.Pipeline[pos].Done |= 1 << stage
	for adp := uint8(0); adp < w; adp++ {
		rank := &s.Ranks[stage*w+adp]
		rank.PipelinePos++
		rank.Phase = PhaseIdle
	}
	sp.retireFinishedIterations(s)
}

// retireFinishedIterations drops the oldest iterations every stage has
// finished and whose batch every stage handled, keeping the state
// canonical (positions are relative to the oldest live iteration).
func (sp *Spec) retireFinishedIterations(s *State) {
	all := uint8(1)<<sp.Config.stages() - 1
	for s.PipelineLen > 0 {
		it := &s.Pipeline[0]
		if it.Done != all || (it.executed() && it.Handled != all) {
			return
		}
		copy(s.Pipeline[:], s.Pipeline[1:s.PipelineLen])
		s.PipelineLen--
		s.Pipeline[s.PipelineLen] = PipelineIteration{}
		if sp.Config.adpWidth() > 1 {
			for i := uint8(0); i < s.PipelineLen; i++ {
				*sp.microBatch(s, i, 1) = *sp.microBatch(s, i+1, 1)
				sp.pipelineRecord(s, i, 1).RecomputePaused = sp.pipelineRecord(s, i+1, 1).RecomputePaused
			}
			*sp.microBatch(s, s.PipelineLen, 1) = Batch{}
			sp.pipelineRecord(s, s.PipelineLen, 1).RecomputePaused = 0
		}
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			s.Ranks[r].PipelinePos--
		}
	}
}

// pipelineActions appends the pipeline loop's enabled actions, one per
// stage (on the stage's first rank: its ADP ranks move together).
func (sp *Spec) pipelineActions(s *State, out []Action) []Action {
	stages, w := sp.Config.stages(), sp.Config.adpWidth()
	for stage := uint8(0); stage < stages; stage++ {
		r := stage * w
		rank := &s.Ranks[r]
		pos := rank.PipelinePos
		switch rank.Phase {
		case PhaseIdle:
			if stage == 0 {
				if s.PipelineLen < stages && sp.stageHasActiveRequests(s, 0) {
					out = append(out, Action{Kind: ActSchedule, Rank: 0})
				}
				continue
			}
			if pos >= s.PipelineLen {
				continue
			}
			it := &s.Pipeline[pos]
			if it.executed() && it.Forwarded&(1<<(stage-1)) == 0 {
				continue
			}
			if sp.Config.isLastStage(r) && it.executed() {
				var peer *Batch
				if w > 1 {
					peer = sp.microBatch(s, pos, 1)
				}
				out = sp.forwardChoicesFor(r, out, &it.Batch, peer)
			} else {
				out = append(out, Action{Kind: ActForward, Rank: r})
			}
		case PhaseForwarded:
			if stage == 0 {
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

// stageHasActiveRequests reports whether any ADP rank of the stage has an
// active request.
func (sp *Spec) stageHasActiveRequests(s *State, stage uint8) bool {
	w := sp.Config.adpWidth()
	for adp := uint8(0); adp < w; adp++ {
		if sp.hasActiveRequests(&s.Ranks[stage*w+adp]) {
			return true
		}
	}
	return false
}

// servesRequest reports whether rank r holds request id: the rank it is
// routed to, or under pipeline parallelism every stage's rank of the ADP
// rank it is routed to (every stage, without attention DP).
func (c *Config) servesRequest(r, id uint8) bool {
	route := c.template(id).Rank
	if c.Loop == PipelineLoop {
		return r%c.adpWidth() == route
	}
	return r == route
}

// setDummyIncarnation sets the incarnation of b's dummy entry. A
// micro-batch travels the pipeline as request IDs, and each stage rebuilds
// it from its own objects (to_scheduler_result), so the iteration record
// keeps the dummy entry with incarnation 0 and each stage adopts it as its
// own live dummy; dummies on different stages are numbered independently
// (canonicalizeDummyIncarnations).
func setDummyIncarnation(b *Batch, incarnation uint8) {
	for i := 0; i < int(b.Count); i++ {
		if b.Entries[i].ID == dummyID {
			b.Entries[i].Incarnation = incarnation
		}
	}
}
