package spec

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
	// Coverage scenarios (spec/scenarios/, goals in goals_coverage.go): the pressure that reaches
	// their mechanisms, a little tighter and a little looser.
	"eviction-ladder":         {"target_blocks=4..6", "max_batch_size=1..2", "max_num_tokens=6..8"},
	"host-tier-eviction":      {"target_blocks=4..6", "max_batch_size=1..2", "max_num_tokens=6..8"},
	"paired-draft-reuse":      {"draft_blocks=5..8", "draft_index_slots=1..3", "max_batch_size=1..3"},
	"overlap-two-ranks":       {"target_blocks=5..7", "draft_blocks=3..5", "max_batch_size=1..2"},
	"adp-veto-generation":     {"target_blocks=3..6", "max_num_active_requests=1..2"},
	"unchunked-prefill":       {"target_blocks=8..18", "max_batch_size=1..3", "max_num_tokens=10..12"},
	"preempt-for-pages":       {"target_blocks=9..12", "max_batch_size=1..2"},
	"disagg-gen-retry":        {"target_blocks=12..16", "max_num_active_requests=2..4"},
	"generation-token-budget": {"max_num_tokens=4..8", "max_batch_size=1..2"},
	"host-recompute-fallback": {"target_blocks=8..10", "max_batch_size=2..4"},
	"pp-eviction-ladder":      {"target_blocks=4..6", "max_batch_size=1..2", "max_num_tokens=6..8"},
	"overlap-eviction-ladder": {"target_blocks=4..6", "max_batch_size=1..2", "max_num_tokens=6..8"},
	"prefix-aware-skip":       {"target_blocks=6..8", "max_num_tokens=8..16", "shared_pages=0..2"},
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

// DefaultRanges returns the ranges `kvcheck sweep` takes for the scenario
// named name: its own, or those of the scenario it varies (a scenario made
// from another by changing a setting sweeps the same neighbourhood), or
// the sweep: of its scenario file.
func DefaultRanges(name string) []string {
	if sc, err := LookupScenario(name); err == nil && sc.Sweep != nil {
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
