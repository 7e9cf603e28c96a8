package spec

import (
	"fmt"

	"github.com/kvcheck/kvcheck/model"
)

// Bookkeeping invariants: mis-accounting that keeps every pool conserved
// and raises nothing (capacity grown and never given back, a record that
// outlives its iteration, a batch over its budgets, a cursor left behind
// by a dropped cache) is still a bug of the real code's promises. Each
// check reads a request only once the iteration that touched it has ended
// on its rank: no batch still to be updated holds it (pendingIDs).
const (
	InvBatchLimits     = "batch-within-limits"
	InvRecordsCleared  = "iteration-records-cleared"
	InvReservation     = "reservation-released"
	InvCursorAgreement = "cursor-history-agree"
)

// bookkeepingInvariants returns the bookkeeping invariants, in the order
// Invariants lists them.
func (sp *Spec) bookkeepingInvariants() []invariantDecl {
	return []invariantDecl{
		whole(InvBatchLimits,
			"a scheduled batch holds at most max_batch_size requests and max_num_tokens tokens (KVCacheV2Scheduler's BudgetTracker; attention-DP pads are outside the budget)",
			PORStable, sp.checkBatchLimits),
		sp.byRank(InvRecordsCleared,
			"an _allocated_draft_lens entry lives only while the batch that recorded it awaits its update_resources (popped there or by revert_allocate_generation)",
			sp.checkRecordsCleared),
		sp.byRank(InvReservation,
			"once its iteration ended or was vetoed, a generating request's ACTIVE cache holds at most max_beam_num_tokens - 1 + num_extra_kv_tokens tokens, plus max_draft_len for a disaggregated request (prepare_disagg_gen_init's draft tokens) (update_resources rewinds the unused draft slots, _revert_gen_alloc and the defer give the growth back); a cache suspended before its update keeps the growth, since update_resources serves ACTIVE caches only, until the scheduler resumes and resizes it",
			sp.checkReservation),
		sp.byRank(InvCursorAgreement,
			"a context request's cursors are 0 when its target cache is gone (rewind_context_after_cache_drop) and equal the target history once the cache was resumed and settled (_settle_context_cursor, update_context_resources), except that a chunk's update skipped while the cache was suspended leaves the history behind the cursor until the next update of the ACTIVE cache; a generating request's target history is max_beam_num_tokens - 1 (update_resources)",
			sp.checkCursorAgreement),
		sp.tokenInvariant(),
	}
}

// pendingIDs returns, as a bit set of request IDs, the requests of rank r
// held by a batch whose update_resources has not run on r yet: the
// current batch (unless the fleet vetoed it and it was rolled back), the
// overlap loop's previous batch, and the pipeline iterations r has not
// handled, plus requests in inflight_request_ids.
func (sp *Spec) pendingIDs(s *State, r uint8) uint16 {
	rank := &s.Ranks[r]
	var ids uint16
	add := func(b *Batch) {
		for i := 0; i < int(b.Count); i++ {
			ids |= 1 << b.Entries[i].ID
		}
	}
	vetoedAndReverted := rank.Phase == PhasePrepared && !rank.CanQueue && sp.Config.Loop == OverlapLoop
	if !vetoedAndReverted {
		add(&rank.Batch)
	}
	add(&rank.Previous)
	stage, adp := sp.Config.stageOf(r), r%sp.Config.adpWidth()
	for i := uint8(0); i < s.PipelineLen; i++ {
		// A vetoed micro-batch is skipped: no update_resources awaits it.
		if it := &s.Pipeline[i]; it.Handled&(1<<stage) == 0 && !it.Vetoed {
			add(sp.microBatch(s, i, adp))
		}
	}
	for id := range rank.Requests {
		if rank.Requests[id].Flags&requestFlagInflight != 0 {
			ids |= 1 << id
		}
	}
	return ids
}

// allPendingIDs is pendingIDs of the ranks of rs.
func (sp *Spec) allPendingIDs(s *State, rs rankRange) (out [MaxRanks]uint16) {
	for r := rs.lo; r < rs.hi; r++ {
		out[r] = sp.pendingIDs(s, r)
	}
	return out
}

// batchUnderBudget reports whether rank r's batch is the one its scheduler
// just built, with the draft lengths it budgeted: after schedule and
// before prepare_resources pads the drafts (_handle_dynamic_draft_len).
func (sp *Spec) batchUnderBudget(rank *Rank) bool {
	if sp.Config.Loop == PipelineLoop {
		return false
	}
	return rank.Phase == PhaseScheduled || rank.Phase == PhaseQueued
}

func (sp *Spec) checkBatchLimits(s *State) *model.Failure {
	if s.Crash.Happened {
		return nil // the engine is down mid-iteration; no-crash-on-refusal reports it
	}
	check := func(r uint8, where string, b *Batch, drafts bool) *model.Failure {
		requests, tokens := 0, 0
		for i := 0; i < int(b.Count); i++ {
			e := &b.Entries[i]
			if e.ID == dummyID {
				continue
			}
			requests++
			draft := 0
			if drafts {
				draft = int(s.Ranks[r].Requests[e.ID].DraftLen)
			}
			switch {
			case e.Kind == GenerationStep:
				tokens += 1 + draft
			case e.Last:
				tokens += int(e.Chunk) + draft
			default:
				tokens += int(e.Chunk)
			}
		}
		if requests > sp.Config.maxNumRequests() || tokens > int(sp.Config.MaxNumTokens) {
			return &model.Failure{Message: fmt.Sprintf("rank %d %s: %d requests and %d tokens, max_batch_size %d, max_num_tokens %d",
				r, where, requests, tokens, sp.Config.MaxBatchSize, sp.Config.MaxNumTokens)}
		}
		return nil
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		if rank := &s.Ranks[r]; sp.batchUnderBudget(rank) {
			if f := check(r, "scheduled batch", &rank.Batch, true); f != nil {
				return f
			}
		}
	}
	for i := 0; i < int(s.PipelineLen); i++ {
		if f := check(0, fmt.Sprintf("micro-batch of pipeline iteration %d", i), &s.Pipeline[i].Batch, false); f != nil {
			return f
		}
	}
	return nil
}

func (sp *Spec) checkRecordsCleared(s *State, rs rankRange) *model.Failure {
	if s.Crash.Happened {
		return nil // the engine is down mid-iteration; no-crash-on-refusal reports it
	}
	pending := sp.allPendingIDs(s, rs)
	return sp.eachCache(s, rs, func(v rankView, p PoolKind, id uint8, c *Cache) *model.Failure {
		if c.AllocatedDraft == 0 || pending[v.r]&(1<<id) != 0 {
			return nil
		}
		return &model.Failure{Message: fmt.Sprintf("rank %d %s pool request %d: _allocated_draft_lens holds %d draft slots, but no batch awaiting update_resources holds the request",
			v.r, p, id, c.AllocatedDraft-1)}
	})
}

func (sp *Spec) checkReservation(s *State, rs rankRange) *model.Failure {
	if s.Crash.Happened {
		return nil // the engine is down mid-iteration; no-crash-on-refusal reports it
	}
	pending := sp.allPendingIDs(s, rs)
	return sp.eachCache(s, rs, func(v rankView, p PoolKind, id uint8, c *Cache) *model.Failure {
		r := v.request(id)
		if id == dummyID || (r.State != GenerationInProgress && r.State != GenerationToComplete) || pending[v.r]&(1<<id) != 0 {
			return nil
		}
		if c.Status != Active {
			// update_resources serves ACTIVE caches only (READ at 00746ef):
			// a cache suspended while its iteration was pending keeps the
			// growth until the scheduler resumes and resizes it.
			return nil
		}
		slack := 0
		if sp.Config.template(id).ReceivingKV {
			slack = int(sp.Config.MaxDraftLen)
		}
		limit := int(r.NumTokens) - 1 + int(sp.Config.ExtraKVTokens) + slack
		if int(c.Capacity) <= limit {
			return nil
		}
		return &model.Failure{Message: fmt.Sprintf("rank %d %s pool request %d holds capacity %d after its iteration, more than %d tokens + %d extra + %d draft slack = %d",
			v.r, p, id, c.Capacity, int(r.NumTokens)-1, sp.Config.ExtraKVTokens, slack, limit)}
	})
}

func (sp *Spec) checkCursorAgreement(s *State, rs rankRange) *model.Failure {
	if s.Crash.Happened {
		return nil // the engine is down mid-iteration; no-crash-on-refusal reports it
	}
	for r := rs.lo; r < rs.hi; r++ {
		v := s.view(&sp.Config, r)
		pending := sp.pendingIDs(s, r)
		for id := uint8(1); int(id) <= len(sp.Config.Requests); id++ {
			req := v.request(id)
			if pending&(1<<id) != 0 {
				continue
			}
			c := v.cache(Target, id)
			switch {
			case req.State == ContextInit && c.Status == Absent:
				if req.Position != 0 || req.DraftPosition != 0 || req.Reused != 0 {
					return &model.Failure{Message: fmt.Sprintf("rank %d request %d has no target cache but its cursors stand at %d (draft %d, reused %d)",
						r, id, req.Position, req.DraftPosition, req.Reused)}
				}
			case req.State == ContextInit && c.Flags&flagNeverResumed != 0:
				// Created by a reuse lookup whose resume was refused (kept,
				// suspended, at v1.3.0rc25): _settle_context_cursor runs only
				// once prepare_context_cache returns the resumed cache.
			case req.State == ContextInit && c.Flags&flagHistoryLags != 0:
				// update_context_resources skipped the cache while it was
				// suspended: the history may lag, never lead, until its
				// next update.
				if c.History > req.Position {
					return &model.Failure{Message: fmt.Sprintf("rank %d request %d: context cursor %d, target history %d ahead of it",
						r, id, req.Position, c.History)}
				}
			case req.State == ContextInit:
				if c.History != req.Position {
					return &model.Failure{Message: fmt.Sprintf("rank %d request %d: context cursor %d, target history %d",
						r, id, req.Position, c.History)}
				}
			case (req.State == GenerationInProgress || req.State == GenerationToComplete) && c.Status == Active:
				// update_resources sets the history of ACTIVE caches only;
				// a suspended one catches up at its next update.
				if int(c.History) != int(req.NumTokens)-1 {
					return &model.Failure{Message: fmt.Sprintf("rank %d request %d: %d tokens, target history %d (want tokens - 1)",
						r, id, req.NumTokens, c.History)}
				}
			}
		}
	}
	return nil
}
