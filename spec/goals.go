package spec

import "github.com/kvcheck/kvcheck/model"

// GoalDef is a scenario's reachability goal: some reachable state must
// satisfy it, so a scenario that never reaches the interesting region fails
// instead of passing vacuously.
type GoalDef struct {
	Name string
	Doc  string
	// POR says whether the partial-order reduction preserves the goal
	// (Spec.Stable), declared with it.
	POR     PORClass
	Reached func(sp *Spec, s *State) bool
}

// Goals returns the scenario's goals bound to this spec.
func (sp *Spec) Goals() []model.Goal[State] {
	if sp.Scenario == nil {
		return nil
	}
	out := make([]model.Goal[State], 0, len(sp.Scenario.Goals))
	for _, g := range sp.Scenario.Goals {
		reached := g.Reached
		out = append(out, model.Goal[State]{Name: g.Name, Doc: g.Doc, Reached: func(s *State) bool { return reached(sp, s) }})
	}
	return out
}

// GoalAllFinished is reached when every request completed and was freed:
// the engine made progress (a fix that only blocks requests never reaches
// it).
var GoalAllFinished = defineGoal(GoalDef{
	Name:    "all-requests-finished",
	POR:     PORStable,
	Doc:     "every request of the scenario completes and is freed",
	Reached: func(sp *Spec, s *State) bool { return !s.Crash.Happened && sp.allFinished(s) },
})

// GoalPrefixSharing is reached when block reuse made a target pool hold
// fewer pages than its live caches' blocks add up to: prefix blocks shared
// by several live requests are held once.
var GoalPrefixSharing = defineGoal(GoalDef{
	Name: "prefix-sharing-saves-target-blocks",
	POR:  PORStable,
	Doc:  "block reuse made the target pool hold fewer pages than the sum of its live caches' blocks",
	Reached: func(sp *Spec, s *State) bool {
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			v := s.view(&sp.Config, r)
			sum := 0
			for id := range v.pool(Target).Caches {
				if c := v.cache(Target, uint8(id)); c.Status != Absent {
					sum += int(sp.Config.blocksFor(c.Capacity))
				}
			}
			used := int(sp.Config.poolBlocksOn(r, Target)) - int(v.pool(Target).Free) - v.droppableBlocks(Target)
			if used < sum {
				return true
			}
		}
		return false
	},
})

// GoalDraftPoolFull is reached when a draft pool has no page left to give
// (no free page, no droppable tree block): the scenario drives the draft
// pool into the pressure the seed report describes, so a fix that passes
// has really handled a full draft pool. A configuration without a draft
// pool never reaches it (poolFull, goals_pressure.go).
var GoalDraftPoolFull = defineGoal(GoalDef{
	Name: "draft-pool-full",
	POR:  PORStable,
	Doc:  "a draft pool runs out of pages (no free page and no droppable reuse block)",
	Reached: func(sp *Spec, s *State) bool {
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			if s.view(&sp.Config, r).poolFull(Draft) {
				return true
			}
		}
		return false
	},
})

// GoalDummyRolledBackWhilePeerDeferred is reached when a rank rolled back
// its pending attention-DP dummy after a veto while it defers a previous
// batch that held an earlier dummy under the same ID: seed 003's
// interleaving, which the fix must survive, not avoid.
var GoalDummyRolledBackWhilePeerDeferred = defineGoal(GoalDef{
	Name: "dummy-rolled-back-while-peer-deferred",
	POR:  PORStable,
	Doc:  "a dummy was rolled back on a vetoed rank that defers a previous batch holding an earlier dummy",
	Reached: func(sp *Spec, s *State) bool {
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			rank := &s.Ranks[r]
			if rank.Phase != PhasePrepared || rank.CanQueue || !rank.CanQueueThisRank {
				continue
			}
			d := &rank.Requests[dummyID]
			if d.State != Finished || !batchHasDummy(&rank.Batch, d.Incarnation) {
				continue
			}
			for i := 0; i < int(rank.Previous.Count); i++ {
				if e := rank.Previous.Entries[i]; e.ID == dummyID && e.Incarnation < d.Incarnation {
					return true
				}
			}
		}
		return false
	},
})

// batchHasDummy reports whether b holds the dummy incarnation.
func batchHasDummy(b *Batch, incarnation uint8) bool {
	for i := 0; i < int(b.Count); i++ {
		if b.Entries[i].ID == dummyID && b.Entries[i].Incarnation == incarnation {
			return true
		}
	}
	return false
}

// GoalVetoedGenerationGrowth is reached when a vetoed attention-DP rank
// holds a generation request the V2 scheduler grew this iteration: the
// situation _revert_gen_alloc (PR #13104) exists for, so a fix that passes
// has met it.
var GoalVetoedGenerationGrowth = defineGoal(GoalDef{
	Name: "vetoed-generation-growth",
	POR:  PORStable,
	Doc:  "a vetoed attention-DP rank has a scheduled generation request whose capacity the V2 scheduler grew",
	Reached: func(sp *Spec, s *State) bool {
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			rank := &s.Ranks[r]
			if rank.Phase != PhaseQueued || rank.CanQueue || !rank.CanQueueThisRank {
				continue
			}
			for i := 0; i < int(rank.Batch.Count); i++ {
				if e := rank.Batch.Entries[i]; e.Kind == GenerationStep && e.ID != dummyID && rank.Pools[Target].Caches[e.ID].AllocatedDraft != 0 {
					return true
				}
			}
		}
		return false
	},
})

// GoalIdleRankIndexMapperFull is reached when an attention-DP rank that
// must pad (no schedulable request while the fleet has work) finds every
// IndexMapper slot of its target manager taken: add_dummy_requests returns
// None there (PR #14286).
var GoalIdleRankIndexMapperFull = defineGoal(GoalDef{
	Name: "idle-rank-index-mapper-full",
	POR:  PORStable,
	Doc:  "an attention-DP rank with nothing to schedule finds every IndexMapper slot of its target manager taken",
	Reached: func(sp *Spec, s *State) bool {
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			v := s.view(&sp.Config, r)
			if v.rank.Phase == PhaseFetched && v.rank.ExpectedActive > 0 && v.schedulableCount() == 0 &&
				v.liveCaches(Target) >= int(sp.Config.indexSlots(Target)) {
				return true
			}
		}
		return false
	},
})

// GoalDummyMirrorFillsDraftIndex is reached when an attention-DP dummy's
// mirror takes the last IndexMapper slot of a draft manager that also holds
// CUDA-graph padding dummies: the case PR #17347's draft reservation was
// one slot short for, so a fix that passes has met it.
var GoalDummyMirrorFillsDraftIndex = defineGoal(GoalDef{
	Name: "dummy-mirror-fills-draft-index",
	POR:  PORStable,
	Doc:  "an attention-DP dummy's mirror takes the last draft IndexMapper slot next to CUDA-graph padding dummies",
	Reached: func(sp *Spec, s *State) bool {
		if sp.Config.CudaGraphPaddingDummies == 0 {
			return false
		}
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			v := s.view(&sp.Config, r)
			if v.cache(Draft, dummyID).Status != Absent && v.liveCaches(Draft) >= int(sp.Config.indexSlots(Draft)) {
				return true
			}
		}
		return false
	},
})

// GoalVetoedMicroBatchGeneration is reached when, under pipeline
// parallelism with attention DP, _can_queue vetoed a micro-batch that
// carried a generation request: the first stage's V2 scheduler grew it and
// every stage reverts (_revert_gen_alloc in _executor_loop_pp at 2829508)
// or, before PR #13104, keeps that growth.
var GoalVetoedMicroBatchGeneration = defineGoal(GoalDef{
	Name: "vetoed-micro-batch-generation",
	POR:  PORUnstable, // reads the pipeline's shared records
	Doc:  "a vetoed pipeline micro-batch carried a generation request (pipeline parallelism with attention DP)",
	Reached: func(sp *Spec, s *State) bool {
		for i := uint8(0); i < s.PipelineLen; i++ {
			if !s.Pipeline[i].Vetoed {
				continue
			}
			for adp := uint8(0); adp < sp.Config.adpWidth(); adp++ {
				b := sp.microBatch(s, i, adp)
				for j := 0; j < int(b.Count); j++ {
					if e := b.Entries[j]; e.Kind == GenerationStep && e.ID != dummyID {
						return true
					}
				}
			}
		}
		return false
	},
})
