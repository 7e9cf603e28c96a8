package spec

// The pressure goals: what a check of a deployment's configuration must
// reach before its "ok" means something (`kvcheck check --config` requires
// them, cmd/internal/configfile/pressure.go). A configuration whose pools
// never fill exercises none of the KV cache manager's refusal paths, so a
// check of it passes whatever the code does there. GoalDraftPoolFull
// (goals.go) is the draft pool's.

// poolFull reports whether pool p of the rank has no page left to give:
// no free page and no radix-tree block that no live cache references.
func (v rankView) poolFull(p PoolKind) bool {
	return v.cfg.hasPool(v.r, p) && v.pool(p).Free == 0 && v.droppableBlocks(p) == 0
}

// GoalTargetPoolFull is reached when a target pool has no page left to
// give: GoalDraftPoolFull's target-pool twin.
var GoalTargetPoolFull = defineGoal(GoalDef{
	Name: "target-pool-full",
	POR:  PORStable,
	Doc:  "a target pool runs out of pages (no free page and no droppable reuse block)",
	Reached: func(sp *Spec, s *State) bool {
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			if s.view(&sp.Config, r).poolFull(Target) {
				return true
			}
		}
		return false
	},
})

// GoalRequestEvicted is reached when a started request lost its place: its
// target cache is suspended in mid-request (the V2 scheduler's
// _try_evict_for_gen or a generation request that suspends itself), some
// of its pages went to the host tier, or it was recompute-paused after it
// had generated (its generated tokens became its prompt).
var GoalRequestEvicted = defineGoal(GoalDef{
	Name: "request-evicted",
	POR:  PORStable,
	Doc:  "a started request was suspended or evicted in mid-request, or recompute-paused after generating",
	Reached: func(sp *Spec, s *State) bool {
		return eachRequest(sp, s, func(v rankView, id uint8, r *Request) bool {
			suspended := v.cache(Target, id).Status == Suspended
			switch {
			case r.State == GenerationInProgress && suspended:
				return true
			case r.State == ContextInit && suspended && r.Position > r.Reused:
				return true
			case r.State == ContextInit && uint32(r.Prompt) > sp.Config.template(id).PromptLen:
				return true
			}
			return v.cache(Target, id).Offloaded > 0 || v.cache(Draft, id).Offloaded > 0
		})
	},
})

// GoalRequestRefused is reached when a pool is full while an active request
// that wants pages in it holds no active cache there: the scheduler can
// only refuse it (or evict another request) until pages come back.
var GoalRequestRefused = defineGoal(GoalDef{
	Name: "request-refused",
	POR:  PORStable,
	Doc:  "a pool is full while an active request waiting for pages holds no active cache in it",
	Reached: func(sp *Spec, s *State) bool {
		return eachRequest(sp, s, func(v rankView, id uint8, r *Request) bool {
			if r.State != ContextInit && r.State != GenerationInProgress && r.State != DisaggGenerationInit {
				return false
			}
			for p := Target; p < numPools; p++ {
				if v.poolFull(p) && v.cache(p, id).Status != Active {
					return true
				}
			}
			return false
		})
	},
})
