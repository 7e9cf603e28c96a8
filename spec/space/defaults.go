package space

import "github.com/kvcheck/kvcheck/spec/scenario"

// defaultRanges are the ranges `kvcheck sweep` takes for a scenario when
// none are given: the neighbourhood of the scenario's configuration, sized
// to finish in about a minute on 2 cores (see docs/sweep.md for the
// measurements).
var defaultRanges = map[string][]string{
	// seed 000: up to three requests of one to three pages sharing up to two
	// pages of prefix, both pools from 4 to 8 pages, both code versions.
	"draft-admission": {
		"requests=1..3", "prompt_pages=1..3", "new_tokens=2", "shared_pages=0..2",
		"target_blocks=4..8", "draft_blocks=4..8", "version=all",
	},
	// seed 003: one or two requests on either rank, generating or receiving
	// their KV, pools from 3 to 7 pages, the pad cap and the batch size.
	"adp-dummy-leak": {
		"requests=1..2", "prompt_pages=1..2", "new_tokens=1..2", "receiving_kv=all", "spread=true",
		"target_blocks=3..7", "draft_blocks=3..7", "max_num_active_requests=2..3", "max_batch_size=1..2",
	},
	// PR #13104: the scenario's requests (one sends its KV), the pool, the page-index row
	// (max_seq_len), the pad cap and the batch size.
	"adp-veto-growth": {
		"target_blocks=3..12", "max_seq_len=8..16", "max_num_active_requests=2..3", "max_batch_size=1..2",
	},
	// PR #13104 under pipeline parallelism with attention DP: the
	// scenario's requests (routed to the ADP ranks of stage 0, which the
	// request mix cannot draw), the pool, the page-index row (max_seq_len)
	// and the batch size.
	"pp-adp-veto-growth": {
		"target_blocks=4..8", "max_seq_len=8..12", "max_batch_size=1..2",
	},
	// PR #14286 / #17801: the scenario's requests (those sending their KV
	// hold IndexMapper slots), the slots, the pool, the pad cap and the
	// batch size.
	"adp-dummy-none": {
		"target_blocks=3..12", "target_index_slots=1..4", "max_num_active_requests=2..3", "max_batch_size=1..2",
	},
	// Coverage scenarios (spec/scenario/scenarios/, goals in spec/goals_coverage.go): the pressure that reaches
	// their mechanisms, a little tighter and a little looser.
	"eviction-ladder": {"target_blocks=4..6", "max_batch_size=1..2", "max_num_tokens=6..8"},
	// host-tier-eviction also with a host tier of 2 pages, smaller than
	// the GPU pool (host_blocks=0 is as many as on GPU).
	"host-tier-eviction": {"target_blocks=4..6", "max_batch_size=1..2", "max_num_tokens=6..8", "host_blocks=0,2"},
	// paired-draft-reuse also with partial reuse (a match may end inside
	// a block; the real default).
	"paired-draft-reuse": {"draft_blocks=5..8", "draft_index_slots=1..3", "max_batch_size=1..3", "enable_partial_reuse=all"},
	// overlap-two-ranks also with MTP's draft padding after allocation
	// (PR #19120).
	"overlap-two-ranks":       {"target_blocks=5..7", "draft_blocks=3..5", "max_batch_size=1..2", "pad_draft_after_allocation=all"},
	"adp-veto-generation":     {"target_blocks=3..6", "max_num_active_requests=1..2", "draft_pool=all", "draft_blocks=8"},
	"unchunked-prefill":       {"target_blocks=8..18", "max_batch_size=1..3", "max_num_tokens=10..12"},
	"preempt-for-pages":       {"target_blocks=9..12", "max_batch_size=1..2"},
	"disagg-gen-retry":        {"target_blocks=12..16", "max_num_active_requests=2..4"},
	"generation-token-budget": {"max_num_tokens=4..8", "max_batch_size=1..2"},
	"host-recompute-fallback": {"target_blocks=8..10", "max_batch_size=2..4"},
	// pp-eviction-ladder also without the propagation of rank 0's
	// recompute-paused requests (an INFER setting, PR #15252).
	"pp-eviction-ladder":      {"target_blocks=4..6", "max_batch_size=1..2", "max_num_tokens=6..8"},
	"overlap-eviction-ladder": {"target_blocks=4..6", "max_batch_size=1..2", "max_num_tokens=6..8"},
	// prefix-aware-skip also under both reuse policies and without
	// prefix-aware scheduling (PR #18195's switch).
	"prefix-aware-skip": {"target_blocks=6..8", "max_num_tokens=8..16", "shared_pages=0..2", "block_reuse_policy=all", "enable_prefix_aware_scheduling=all"},
	// PR #17379: the scenario's requests (they send their KV, which the
	// request mix cannot draw yet), the pool, the pad cap and the batch
	// size.
	"adp-empty-batch-veto": {
		"target_blocks=4..12", "max_num_active_requests=0..3", "max_batch_size=1..2",
	},
	// seed 001: one or two requests of one to four pages, each stage's
	// target pool from 4 to 10 pages, the batch size.
	"pp-history-capacity": {
		"requests=1..2", "prompt_pages=1..4", "new_tokens=1..4",
		"target_blocks=4..10", "stage_target_blocks.1=4..10", "max_batch_size=2..3",
	},
}

// valueClassReasons say, for each setting some of whose value classes
// (valueclasses.go) no default sweep reaches, why not;
// TestDefaultRangesCoverValueClasses fails for a setting with unreached
// classes and no reason here, and for a reason no longer needed.
var valueClassReasons = map[string]string{
	"tokens_per_block": "the page size is fixed at 4 tokens in every scenario, so lengths in pages and the page boundary " +
		"(max_seq_len, max_num_tokens not whole pages) are what vary; a 1-token page would make every length a whole number of pages",
	"num_extra_kv_tokens": "0 is MTP's with max_draft_len 1, the only drafter modeled; another drafter's extra KV tokens only widen each step's KV",
	"target_blocks":       "a pool of 1 page holds no request that grows past its prompt page, which Validate refuses (pools must hold the longest request)",
	"draft_blocks":        "as target_blocks: a 1-page draft pool holds no growing request",
	"stage_host_blocks":   "per-stage host quotas need a pipeline with a host tier, and no pipeline scenario has one yet",
	"stage_draft_blocks": "pp-history-capacity's family varies the stages' rounding through stage_target_blocks.1; a per-stage draft " +
		"pool size is not varied yet (it would multiply those spaces, the largest pipeline ones, by its range's length)",
	"target_pool_groups": "not varied yet: the pool-group mechanism (the smallest group binds) is tested by TestPoolGroupsSmallestBinds " +
		"(realsize_test.go), and for a full-attention cache the binding group acts as a smaller target_blocks, which the sweeps vary",
	"draft_pool_groups": "as target_pool_groups, for the draft pool",
	"deadlock_stall_passes": "the scaled threshold is the checker's stand-in for _DEADLOCK_STALL_ITERS, not a deployment knob: " +
		"TestDeadlockThresholdKeepsVerdicts checks every built-in variant at twice the default instead, and a sweep would only repeat that",
	"pp_propagates_recompute_pause": "an INFER about the code, not a deployment knob: true is PR #15252's SerializableSchedulerOutput " +
		"(later stages pause rank 0's recompute victims); false models code without it, and a default sweep of the real code " +
		"over false would report that code's raise (pp-history-capacity #1443 in docs/findings.md) as the real code's; " +
		"--range pp_propagates_recompute_pause=false checks it on purpose",
}

// DefaultRanges returns the ranges `kvcheck sweep` takes for the scenario
// named name: its own, or those of the scenario it varies (a scenario made
// from another by changing a setting sweeps the same neighbourhood), or
// the sweep: of its scenario file.
func DefaultRanges(name string) []string {
	if sc, err := scenario.Lookup(name); err == nil && sc.Sweep != nil {
		return sc.Sweep
	}
	if r, ok := defaultRanges[name]; ok {
		return r
	}
	switch name {
	case "draft-admission-resume", "draft-view-lag":
		return defaultRanges["draft-admission"]
	case "pp-stage-divergence", "pp-forward-over-suspended":
		return defaultRanges["pp-history-capacity"]
	case "adp-veto-growth", "adp-dummy-none", "adp-draft-dummy-slot":
		// the historical ADP bugs: seed 003's neighbourhood, with each
		// scenario's own pre-fix switch
		return defaultRanges["adp-dummy-leak"]
	}
	return nil
}
