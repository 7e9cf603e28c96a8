package spec

// The goals of the coverage scenarios (spec/scenario/scenarios/eviction-ladder.yaml,
// host-tier-eviction, paired-draft-reuse, overlap-two-ranks,
// adp-veto-generation): small configurations, not taken from a seed
// report, that reach the mechanisms the seed scenarios leave alone
// (coverage.go; TestEveryMechanismReachedOrExcused wants every mechanism
// reached by some built-in scenario). Each goal proves its region was
// reached, so a change that stops reaching it fails `kvcheck check`
// instead of passing vacuously. The goals are declared in package spec,
// initialized before spec/scenario reads the scenario files that name
// them.

// eachRequest reports whether f holds for some real request of some rank.
func eachRequest(sp *Spec, s *State, f func(v rankView, id uint8, r *Request) bool) bool {
	for rank := uint8(0); rank < sp.Config.Ranks; rank++ {
		v := s.view(&sp.Config, rank)
		for id := uint8(1); int(id) <= len(sp.Config.Requests); id++ {
			if f(v, id, v.request(id)) {
				return true
			}
		}
	}
	return false
}

// GoalRecomputePausedGeneration is reached when a request that had
// generated tokens was recompute-paused: back in CONTEXT_INIT with a
// prompt longer than the one it arrived with.
var GoalRecomputePausedGeneration = defineGoal(GoalDef{
	Name: "recompute-paused-generation",
	POR:  PORStable,
	Doc:  "a generating request was recompute-paused and its generated tokens became its prompt",
	Reached: func(sp *Spec, s *State) bool {
		return eachRequest(sp, s, func(v rankView, id uint8, r *Request) bool {
			return r.State == ContextInit && uint32(r.Prompt) > sp.Config.template(id).PromptLen
		})
	},
})

// GoalEvictedToHost is reached when some cache has pages on the host tier.
var GoalEvictedToHost = defineGoal(GoalDef{
	Name: "evicted-to-host",
	POR:  PORStable,
	Doc:  "a suspended cache's pages were evicted to the host tier",
	Reached: func(sp *Spec, s *State) bool {
		return eachRequest(sp, s, func(v rankView, id uint8, r *Request) bool {
			return v.cache(Target, id).Offloaded > 0 || v.cache(Draft, id).Offloaded > 0
		})
	},
})

// GoalReusedPrefixThenChunks is reached when a request that reused a
// prefix has prefilled a chunk past it and still has prompt left.
var GoalReusedPrefixThenChunks = defineGoal(GoalDef{
	Name: "reused-prefix-then-chunks",
	POR:  PORStable,
	Doc:  "a request that reused a prefix prefilled more chunks after it",
	Reached: func(sp *Spec, s *State) bool {
		return eachRequest(sp, s, func(v rankView, id uint8, r *Request) bool {
			return r.State == ContextInit && r.Reused > 0 && r.Position > r.Reused && r.Position < r.Prompt
		})
	},
})

// GoalSecondFamilyPublished is reached when two prompt families have
// blocks in one pool's reuse tree at once.
var GoalSecondFamilyPublished = defineGoal(GoalDef{
	Name: "two-families-published",
	POR:  PORStable,
	Doc:  "two prompt families have published blocks in one reuse tree",
	Reached: func(sp *Spec, s *State) bool {
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			for p := range s.Ranks[r].Pools {
				n := 0
				for _, blocks := range s.Ranks[r].Pools[p].Tree {
					if blocks > 0 {
						n++
					}
				}
				if n >= 2 {
					return true
				}
			}
		}
		return false
	},
})

// GoalIndexMapperFull is reached when a pool's IndexMapper is full while
// an active request has no cache in it.
var GoalIndexMapperFull = defineGoal(GoalDef{
	Name: "index-mapper-full",
	POR:  PORStable,
	Doc:  "a pool's IndexMapper has no free slot while an active request has no cache there",
	Reached: func(sp *Spec, s *State) bool {
		return eachRequest(sp, s, func(v rankView, id uint8, r *Request) bool {
			for p := Target; p < numPools; p++ {
				if v.cfg.hasPool(v.r, p) && r.State.isActive() && v.cache(p, id).Status == Absent && v.liveCaches(p) >= int(v.cfg.indexSlots(p)) {
					return true
				}
			}
			return false
		})
	},
})

// GoalOverlapLongGeneration is reached when a request of the overlap loop
// has generated three tokens or more.
var GoalOverlapLongGeneration = defineGoal(GoalDef{
	Name: "overlap-generates-three-tokens",
	POR:  PORStable,
	Doc:  "a request of the overlap loop generated at least three tokens",
	Reached: func(sp *Spec, s *State) bool {
		return sp.Config.Loop == OverlapLoop && eachRequest(sp, s, func(v rankView, id uint8, r *Request) bool {
			return int(r.NumTokens) >= int(sp.Config.template(id).PromptLen)+3
		})
	},
})

// GoalDisaggGenerated is reached when a disaggregated-generation request
// generated a token past the one the context server sent.
var GoalDisaggGenerated = defineGoal(GoalDef{
	Name: "disaggregated-request-generates",
	POR:  PORStable,
	Doc:  "a disaggregated-generation request generated past its first token",
	Reached: func(sp *Spec, s *State) bool {
		return eachRequest(sp, s, func(v rankView, id uint8, r *Request) bool {
			t := sp.Config.template(id)
			return t.ReceivingKV && int(r.NumTokens) >= int(t.PromptLen)+2
		})
	},
})
