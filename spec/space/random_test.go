package space

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestRandomConfigRanges: RandomConfig keeps its base's shape and, over
// many draws, covers exactly the ranges it documents for each size (so a
// changed bound or a lost choice shows), and enough of its draws are valid
// for kvcheck fuzz --random-configs to use.
func TestRandomConfigRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[string][2]int{}      // field -> [min, max] observed
	on, draws := map[string]int{}, 0 // switch -> draws that turned it on
	note := func(field string, v int) {
		r, ok := seen[field]
		if !ok {
			r = [2]int{v, v}
		}
		seen[field] = [2]int{min(r[0], v), max(r[1], v)}
	}
	for _, name := range []string{"draft-admission", "adp-dummy-leak", "pp-stage-divergence", "eviction-ladder"} {
		sc, err := scenario.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		base := sc.Config
		valid := 0
		for range 400 {
			c := RandomConfig(rng, base)
			if c.Loop != base.Loop || c.AttentionDP != base.AttentionDP || c.DraftPool != base.DraftPool || c.KVTransceiver != base.KVTransceiver {
				t.Fatalf("%s: the shape changed:\n%s", name, configtext.Format(&c))
			}
			if c.Validate() == nil {
				valid++
			}
			for f, v := range map[string]int{
				"tokens_per_block": int(c.TokensPerBlock), "max_batch_size": int(c.MaxBatchSize), "max_num_tokens": int(c.MaxNumTokens),
				"chunk_unit_size": int(c.ChunkUnitSize), "target_blocks": int(c.TargetBlocks), "draft_blocks": int(c.DraftBlocks),
				"target_index_slots": int(c.TargetIndexSlots), "draft_index_slots": int(c.DraftIndexSlots),
				"resume_gate": int(c.ResumeGatePercent), "version": int(c.Version), "requests": len(c.Requests),
			} {
				note(f, v)
			}
			if c.DraftPool != spec.NoDraftPool {
				note("max_draft_len", int(c.MaxDraftLen))
			}
			note("reserve_draft_tokens<=max_draft_len", b2i(c.ReserveDraftTokens <= c.MaxDraftLen))
			if base.Loop == spec.PipelineLoop || base.AttentionDP || base.Ranks > 1 {
				note("ranks", int(c.Ranks))
			} else if c.Ranks != base.Ranks {
				t.Fatalf("%s: ranks %d, base %d", name, c.Ranks, base.Ranks)
			}
			if c.AttentionDP {
				note("max_num_active_requests", int(c.MaxNumActiveRequests))
			}
			for r := range spec.MaxRanks {
				if c.StageTargetBlocks[r] != 0 {
					note("stage_target_blocks", int(c.StageTargetBlocks[r]))
				}
				if c.StageTargetBlocks[r] != 0 && (c.Loop != spec.PipelineLoop || r >= int(c.Ranks)) || c.StageDraftBlocks[r]|c.StageHostBlocks[r] != 0 {
					t.Fatalf("%s: stage pools %v %v %v on %d ranks", name, c.StageTargetBlocks, c.StageDraftBlocks, c.StageHostBlocks, c.Ranks)
				}
			}
			for _, r := range c.Requests {
				note("prompt_len", int(r.PromptLen))
				note("max_new_tokens", int(r.MaxNewTokens))
				note("receiving_kv", b2i(r.ReceivingKV))
				if r.Family != spec.NoFamily {
					note("family", int(r.Family))
					note("shared_prefix<=prompt_len", b2i(r.SharedPrefix <= r.PromptLen))
				}
				if c.Loop == spec.PipelineLoop {
					note("pipeline_request_rank", int(r.Rank))
				} else {
					note("request_rank<ranks", b2i(r.Rank < c.Ranks))
				}
			}
			draws++
			for f, v := range map[string]bool{"chunked_prefill": c.ChunkedPrefill, "host_tier": c.HostTier, "recompute_pause": c.RecomputePause, "block_reuse": c.BlockReuse, "early_finish": c.EarlyFinish} {
				note(f, b2i(v))
				on[f] += b2i(v)
			}
		}
		if valid < 40 {
			t.Errorf("%s: only %d of 400 draws valid", name, valid)
		}
	}
	want := map[string][2]int{
		"tokens_per_block": {1, 8}, "max_batch_size": {1, 6}, "max_num_tokens": {4, 32}, "chunk_unit_size": {1, 8},
		"target_blocks": {2, 24}, "draft_blocks": {2, 24}, "target_index_slots": {1, 8}, "draft_index_slots": {1, 8},
		"resume_gate": {50, 100}, "version": {0, 2}, "requests": {1, 6}, "max_draft_len": {1, 3},
		"reserve_draft_tokens<=max_draft_len": {1, 1}, "ranks": {2, spec.MaxRanks}, "max_num_active_requests": {0, 4},
		"stage_target_blocks": {2, 24}, "prompt_len": {1, 24}, "max_new_tokens": {1, 6}, "receiving_kv": {0, 1},
		"family": {0, 1}, "shared_prefix<=prompt_len": {1, 1}, "pipeline_request_rank": {0, 0}, "request_rank<ranks": {1, 1},
		"chunked_prefill": {0, 1}, "host_tier": {0, 1}, "recompute_pause": {0, 1}, "block_reuse": {0, 1}, "early_finish": {0, 1},
	}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("ranges drawn:\n%v\nwant\n%v", seen, want)
	}
	// The switches' odds: the usual setting three times in four (chunked
	// prefill, recompute pause on; early finish off), host tier once in
	// three, block reuse every other draw.
	for f, percent := range map[string]int{"chunked_prefill": 75, "recompute_pause": 75, "early_finish": 25, "host_tier": 33, "block_reuse": 50} {
		if got := 100 * on[f] / draws; got < percent-8 || got > percent+8 {
			t.Errorf("%s on in %d%% of %d draws, want about %d%%", f, got, draws, percent)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestRandomConfigDraftLenOdds: RandomConfig always draws max_draft_len
// (1..3) for a base with a draft pool, and for one without it keeps the
// base's value half the time; so about 2/3 of the draws move off a base
// value of 1 with a draft pool, and 1/3 without.
func TestRandomConfigDraftLenOdds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tt := range []struct {
		scenario string
		lo, hi   float64 // bounds of the share of draws off the base's max_draft_len
	}{
		{"draft-admission", 0.55, 0.78}, // unpaired draft pool
		{"eviction-ladder", 0.22, 0.45}, // no draft pool
	} {
		sc, err := scenario.Lookup(tt.scenario)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Config.MaxDraftLen != 1 {
			t.Fatalf("%s: base max_draft_len %d, want 1", tt.scenario, sc.Config.MaxDraftLen)
		}
		off := 0
		const draws = 600
		for range draws {
			if c := RandomConfig(rng, sc.Config); c.MaxDraftLen != 1 {
				if c.MaxDraftLen < 1 || c.MaxDraftLen > 3 {
					t.Fatalf("%s: max_draft_len %d outside 1..3", tt.scenario, c.MaxDraftLen)
				}
				off++
			}
		}
		if share := float64(off) / draws; share < tt.lo || share > tt.hi {
			t.Errorf("%s: %.2f of the draws changed max_draft_len, want %.2f..%.2f", tt.scenario, share, tt.lo, tt.hi)
		}
	}
}
