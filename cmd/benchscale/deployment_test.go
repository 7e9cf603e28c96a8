package main

import (
	"testing"

	"github.com/kvcheck/kvcheck/cmd/internal/configfile"
	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
)

// TestDeploymentFile: the deployment make bench-scale checks is a 4-rank
// attention-DP disaggregated worker with MTP 1 and three requests, whose
// real code crashes in update_resources and whose first fix is
// clamp-capacity (the variant bench-scale checks to completion).
func TestDeploymentFile(t *testing.T) {
	f, err := configfile.Load("deepseek-adp4-disagg.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc := f.Scenario
	cfg := sc.Config
	if cfg.Ranks != 4 || !cfg.AttentionDP || cfg.MaxDraftLen != 1 || !cfg.KVTransceiver || len(cfg.Requests) != 3 {
		t.Fatalf("ranks %d, attention DP %v, max_draft_len %d, transceiver %v, %d requests; want 4, true, 1, true, 3",
			cfg.Ranks, cfg.AttentionDP, cfg.MaxDraftLen, cfg.KVTransceiver, len(cfg.Requests))
	}
	vs := sc.Variants()
	if len(vs) < 2 || vs[1] != spec.FixSetOf(spec.FixClampCapacity) {
		t.Fatalf("variants %v, want the real code then clamp-capacity", vs)
	}
	sp, err := sc.Spec(vs[0])
	if err != nil {
		t.Fatal(err)
	}
	res := model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: sc.Depth, PartialOrder: true})
	if len(res.Violations) != 1 || res.Violations[0].Invariant != spec.InvNoCrash {
		t.Fatalf("the real code: %d violations %+v, want the crash (%s)", len(res.Violations), res.Violations, spec.InvNoCrash)
	}
	t.Logf("the real code crashes in %d steps: %s", res.Violations[0].Depth, res.Violations[0].Message)
}
