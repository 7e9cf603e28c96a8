package spec

// Coverage scenarios: small configurations, not taken from a seed report,
// that reach the mechanisms the seed scenarios leave alone (coverage.go
// lists what each run reaches; TestEveryMechanismReachedOrExcused wants
// every mechanism reached by some built-in scenario). Each has goals that
// prove its region was reached, so a change that stops reaching it fails
// `kvcheck check` instead of passing vacuously.

// evictionLadder is KVCacheV2Scheduler's eviction ladder with GPU as the
// last tier: two generating requests outgrow a four-page pool, so a
// request that cannot grow suspends itself, and in a later pass the other
// one's _try_evict_for_gen finds no ACTIVE victim and
// _try_recompute_pause_for_gen frees the suspended one, whose generated
// tokens become its new prompt (LlmRequest::pause).
var evictionLadder = Scenario{
	Name:   "eviction-ladder",
	Doc:    "two generating requests outgrow the target pool: suspension, eviction and a recompute pause that keeps the generated tokens",
	Report: "kvcheck coverage scenario (no seed report): the V2 scheduler's eviction ladder without a host tier",
	Config: Config{
		TokensPerBlock:    4,
		MaxDraftLen:       1,
		MaxBatchSize:      2,
		MaxNumTokens:      6,
		ChunkedPrefill:    true,
		ChunkUnitSize:     4,
		TargetBlocks:      4,
		TargetIndexSlots:  3,
		ResumeGatePercent: 100,
		RecomputePause:    true,
		Ranks:             1,
		Requests: []RequestTemplate{
			{PromptLen: 4, MaxNewTokens: 8, Family: NoFamily},
			{PromptLen: 4, MaxNewTokens: 8, Family: NoFamily},
		},
	},
	Goals:  []GoalDef{GoalRecomputePausedGeneration, GoalAllFinished},
	Expect: map[string]string{"real-code": VerdictOK},
	Depth:  200,
}

// hostTierEviction is evictionLadder with a host tier below GPU: the
// storage manager evicts a suspended cache's pages to host to make room,
// and a later resume brings them back (or is refused while GPU is full).
var hostTierEviction = func() Scenario {
	sc := evictionLadder
	sc.Name = "host-tier-eviction"
	sc.Doc = "evictionLadder with a host tier: suspended caches' pages move to host and come back on resume"
	sc.Report = "kvcheck coverage scenario (no seed report): eviction to a host tier"
	sc.Config.HostTier = true
	sc.Goals = []GoalDef{GoalEvictedToHost, GoalAllFinished}
	return sc
}()

// pairedDraftReuse is a paired draft pool (enable_joint_kv_cache_reuse)
// with block reuse in two prompt families, a draft IndexMapper smaller
// than the number of requests, _kv_reserve_draft_tokens above
// max_draft_len and early finishes: _prepare_context_pair's coordinated
// claims and their refusals, a reused prefix followed by two more chunks.
var pairedDraftReuse = Scenario{
	Name:   "paired-draft-reuse",
	Doc:    "paired draft pool with block reuse in two prompt families and a short draft IndexMapper: coordinated reuse claims, draft refusals that revert the target, early finishes",
	Report: "kvcheck coverage scenario (no seed report): the paired (joint) draft pool",
	Config: Config{
		TokensPerBlock:     4,
		MaxDraftLen:        1,
		ReserveDraftTokens: 2,
		MaxBatchSize:       2,
		MaxNumTokens:       8,
		ChunkedPrefill:     true,
		ChunkUnitSize:      4,
		TargetBlocks:       8,
		DraftBlocks:        6,
		TargetIndexSlots:   3,
		DraftIndexSlots:    2,
		ResumeGatePercent:  100,
		RecomputePause:     true,
		BlockReuse:         true,
		EarlyFinish:        true,
		DraftPool:          PairedDraftPool,
		Ranks:              1,
		Requests: []RequestTemplate{
			{PromptLen: 12, MaxNewTokens: 3, Family: 1, SharedPrefix: 4},
			{PromptLen: 12, MaxNewTokens: 3, Family: 1, SharedPrefix: 4},
			{PromptLen: 8, MaxNewTokens: 3, Family: 0, SharedPrefix: 4},
		},
	},
	Goals:  []GoalDef{GoalReusedPrefixThenChunks, GoalSecondFamilyPublished, GoalIndexMapperFull, GoalAllFinished},
	Expect: map[string]string{"real-code": VerdictOK},
	Depth:  200,
}

// overlapTwoRanks is the overlap loop on two ranks without attention DP
// (each rank on its own) at v1.3.0rc25 with an unpaired draft pool smaller
// than the target: the mirror, left out of admission, is refused a
// generation resize and _prepare_draft_resources raises; PR #19231's defer
// takes the request out of a two-request batch instead, from its middle,
// and every request generates its four tokens.
var overlapTwoRanks = Scenario{
	Name:   "overlap-two-ranks",
	Doc:    "overlap loop on two ranks without attention DP: an unpaired mirror outside admission is refused a generation resize; the defer fix takes it out of the batch",
	Report: "kvcheck coverage scenario (no seed report): seed 000's mechanism in the overlap loop",
	Config: Config{
		TokensPerBlock:     4,
		MaxDraftLen:        1,
		ReserveDraftTokens: 1,
		MaxBatchSize:       2,
		MaxNumTokens:       8,
		ChunkedPrefill:     true,
		ChunkUnitSize:      4,
		TargetBlocks:       6,
		DraftBlocks:        3,
		TargetIndexSlots:   3,
		DraftIndexSlots:    3,
		ResumeGatePercent:  100,
		RecomputePause:     true,
		DraftPool:          UnpairedDraftPool,
		Ranks:              2,
		Loop:               OverlapLoop,
		Requests: []RequestTemplate{
			{PromptLen: 4, MaxNewTokens: 4, Family: NoFamily, Rank: 0},
			{PromptLen: 4, MaxNewTokens: 4, Family: NoFamily, Rank: 0},
			{PromptLen: 4, MaxNewTokens: 4, Family: NoFamily, Rank: 1},
		},
	},
	Goals:   []GoalDef{GoalOverlapLongGeneration, GoalAllFinished},
	FixSets: [][]Fix{{FixDeferDraftMirror}},
	Expect:  map[string]string{"real-code": InvNoCrash, "defer-draft-mirror": VerdictOK},
	Depth:   200,
}

// adpVetoGeneration is attention DP on two overlap-loop ranks of a
// disaggregated generation worker with no draft pool: rank 1 generates
// while rank 0, at max_num_active_requests with two requests receiving KV,
// cannot pad its empty batch and vetoes the forward, so _revert_gen_alloc
// gives back the growth rank 1's scheduler made; one disaggregated request
// then generates past its first token.
var adpVetoGeneration = Scenario{
	Name:   "adp-veto-generation",
	Doc:    "an attention-DP veto while a generation request holds grown capacity; a disaggregated request generating after its KV arrives",
	Report: "kvcheck coverage scenario (no seed report): seed 003's configuration without the draft pool",
	Config: func() Config {
		c := Config{
			TokensPerBlock: 4, MaxDraftLen: 1, ReserveDraftTokens: 1, MaxBatchSize: 2, MaxNumTokens: 8,
			ChunkedPrefill: true, ChunkUnitSize: 4, TargetBlocks: 8, TargetIndexSlots: 4, DraftIndexSlots: 4,
			ResumeGatePercent: 100, RecomputePause: true, Version: Version00746ef, Ranks: 2, Loop: OverlapLoop,
			AttentionDP: true, MaxNumActiveRequests: 2, KVTransceiver: true, AdpDummyFixes: true,
		}
		c.Requests = []RequestTemplate{
			{PromptLen: 4, MaxNewTokens: 4, Family: NoFamily, Rank: 1},
			{PromptLen: 4, MaxNewTokens: 3, Family: NoFamily, Rank: 0, ReceivingKV: true},
			{PromptLen: 4, MaxNewTokens: 1, Family: NoFamily, Rank: 0, ReceivingKV: true},
		}
		return c
	}(),
	Goals:  []GoalDef{GoalVetoWithGrownGeneration, GoalDisaggGenerated, GoalAllFinished},
	Expect: map[string]string{"real-code": VerdictOK},
	Depth:  200,
}

// coverageScenarios are appended to the built-in scenarios.
var coverageScenarios = []*Scenario{&evictionLadder, &hostTierEviction, &pairedDraftReuse, &overlapTwoRanks, &adpVetoGeneration}

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
	Doc:  "a request of the overlap loop generated at least three tokens",
	Reached: func(sp *Spec, s *State) bool {
		return sp.Config.Loop == OverlapLoop && eachRequest(sp, s, func(v rankView, id uint8, r *Request) bool {
			return int(r.NumTokens) >= int(sp.Config.template(id).PromptLen)+3
		})
	},
})

// GoalVetoWithGrownGeneration is reached when the fleet vetoed the forward
// of a rank whose batch holds a real generation request with grown
// capacity (_allocated_draft_lens recorded), before _revert_gen_alloc.
var GoalVetoWithGrownGeneration = defineGoal(GoalDef{
	Name: "veto-with-grown-generation",
	Doc:  "the fleet vetoed a batch holding a generation request whose capacity the scheduler grew",
	Reached: func(sp *Spec, s *State) bool {
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			rank := &s.Ranks[r]
			if rank.Phase != PhaseQueued || rank.CanQueue || !rank.CanQueueThisRank {
				continue
			}
			for i := 0; i < int(rank.Batch.Count); i++ {
				e := rank.Batch.Entries[i]
				if e.ID != dummyID && e.Kind == GenerationStep && rank.Pools[Target].Caches[e.ID].AllocatedDraft != 0 {
					return true
				}
			}
		}
		return false
	},
})

// GoalDisaggGenerated is reached when a disaggregated-generation request
// generated a token past the one the context server sent.
var GoalDisaggGenerated = defineGoal(GoalDef{
	Name: "disaggregated-request-generates",
	Doc:  "a disaggregated-generation request generated past its first token",
	Reached: func(sp *Spec, s *State) bool {
		return eachRequest(sp, s, func(v rankView, id uint8, r *Request) bool {
			t := sp.Config.template(id)
			return t.ReceivingKV && int(r.NumTokens) >= int(t.PromptLen)+2
		})
	},
})
