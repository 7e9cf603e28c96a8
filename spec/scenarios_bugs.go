package spec

// This file holds the scenarios of historical TensorRT-LLM bugs: each puts
// one bug back with its pre-fix switch (Config.PreFixes) and checks the
// fix that took it out. Pure data, like the seed scenarios.

// adpContextServer is the configuration the attention-DP history scenarios
// share: two ADP ranks of a disaggregated context worker running the
// overlap loop. Rank 0 prefills one context-only request, which then sends
// its KV holding the manager's only free IndexMapper slot; rank 1 serves
// an ordinary request that generates for four tokens.
var adpContextServer = Config{
	TokensPerBlock:       4,
	MaxDraftLen:          1,
	ReserveDraftTokens:   1,
	MaxBatchSize:         2,
	MaxNumTokens:         8,
	ChunkedPrefill:       true,
	ChunkUnitSize:        4,
	TargetBlocks:         8,
	TargetIndexSlots:     1,
	ResumeGatePercent:    100,
	RecomputePause:       true,
	Version:              Version00746ef,
	Ranks:                2,
	Loop:                 OverlapLoop,
	AttentionDP:          true,
	MaxNumActiveRequests: 2,
	KVTransceiver:        true,
	AdpDummyFixes:        true,
	Requests: []RequestTemplate{
		{PromptLen: 4, MaxNewTokens: 1, Family: NoFamily, Rank: 0, SendingKV: true},
		{PromptLen: 4, MaxNewTokens: 4, Family: NoFamily, Rank: 1},
	},
}

// adpVetoGrowth is TensorRT-LLM PR #13104 put back: while rank 0's only
// IndexMapper slot is held by a KV send it cannot pad a dummy, its batch is
// empty and _can_queue vetoes every forward; rank 1's V2 scheduler grows
// its generation request at every vetoed iteration and, with no
// _revert_gen_alloc, the growth accumulates until the capacity no longer
// fits a row of the host page-index buffer (max_seq_len 8: two pages).
var adpVetoGrowth = Scenario{
	Name:   "adp-veto-growth",
	Doc:    "before PR #13104 a vetoed attention-DP iteration keeps the V2 scheduler's generation growth; it accumulates past the page-index row",
	Report: "TensorRT-LLM PR #13104 (revert speculative growth on an ADP veto)",
	Config: func() Config {
		c := adpContextServer
		c.PreFixes = PreFixSetOf(PreFixNoVetoRevert)
		c.MaxSeqLen = 8
		c.Requests = []RequestTemplate{c.Requests[0], {PromptLen: 4, MaxNewTokens: 2, Family: NoFamily, Rank: 1}}
		return c
	}(),
	Goals:   []GoalDef{GoalVetoedGenerationGrowth, GoalAllFinished},
	FixSets: [][]Fix{{FixRevertOnVeto}},
	Expect:  map[string]string{"real-code": InvPageIndexRow, "revert-on-veto": VerdictOK},
	Depth:   200,
}

// adpDummyNone is TensorRT-LLM PR #14286 / #17801 put back: rank 0 has no
// active request while its context-only request's KV send holds the
// IndexMapper's only slot, so _pad_attention_dp_dummy_request's
// add_dummy_requests returns None, and the pad indexes it.
var adpDummyNone = Scenario{
	Name:   "adp-dummy-none",
	Doc:    "before PR #14286 the attention-DP pad indexes add_dummy_requests' None while in-flight KV sends hold every IndexMapper slot",
	Report: "TensorRT-LLM PR #14286 / #17801 (dummy allocation failure with a saturated IndexMapper)",
	Config: func() Config {
		c := adpContextServer
		c.PreFixes = PreFixSetOf(PreFixDummyNoneUnchecked)
		return c
	}(),
	Goals:   []GoalDef{GoalIdleRankIndexMapperFull, GoalAllFinished},
	FixSets: [][]Fix{{FixCheckDummyNone}},
	Expect:  map[string]string{"real-code": InvNoCrash, "check-dummy-none": VerdictOK},
	Depth:   200,
}
