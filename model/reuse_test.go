package model_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestTablesCarryNothing: a search that takes the tables, workers and
// caches a finished search left (model's reuse of tables across searches)
// gives the result a search from new ones gives, whatever ran before it:
// specs of 1 to 4 ranks (parts of one size, states of different sizes),
// with and without liveness, the partial-order reduction, symmetry and a
// second worker, failing and passing, and one configuration under two
// max_seq_len (the same states, other invariant verdicts).
func TestTablesCarryNothing(t *testing.T) {
	type run struct {
		name string
		sp   model.Spec[spec.State, spec.Action]
		opts model.Options
	}
	var runs []run
	for _, c := range []struct {
		scenario    string
		fix         int // variant
		ranks, reqs int
		maxSeqLen   uint32 // 0: the scenario's
	}{
		{"adp-dummy-leak", 1, 2, 3, 0},
		// The same layout under another fix: the same rank and head, under
		// the same action, step elsewhere, so a memo of local steps that
		// outlived its search would give the fix's successors to the real
		// code.
		{"adp-dummy-leak", 0, 2, 3, 0},
		{"adp-dummy-leak", 0, 4, 2, 0},
		{"adp-dummy-leak", 1, 3, 3, 0},
		{"draft-admission", 0, 1, 2, 0},
		{"adp-veto-growth", 0, 2, 2, 0},
		// The same states under another max_seq_len: page-index-row-bounded
		// holds on a rank's part under one and fails under the other, so a
		// memo of Part invariants that outlived its search would pass it.
		{"adp-veto-growth", 0, 2, 2, 16},
		{"adp-veto-growth", 0, 2, 2, 10},
	} {
		sc, err := scenario.Lookup(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sc.Config
		cfg.Ranks = uint8(c.ranks)
		if c.maxSeqLen != 0 {
			cfg.MaxSeqLen = c.maxSeqLen
		}
		base := cfg.Requests
		cfg.Requests = nil
		for i := range c.reqs {
			r := base[i%len(base)]
			r.Rank = uint8(i % c.ranks)
			cfg.Requests = append(cfg.Requests, r)
		}
		sp, err := spec.New(cfg, sc.Variants()[c.fix])
		if err != nil {
			t.Fatal(err)
		}
		sp.Scenario = sc.Info()
		for _, opts := range []model.Options{
			{MaxDepth: sc.Depth},
			{MaxDepth: sc.Depth, Liveness: true, KeepGoing: true},
			{MaxDepth: sc.Depth, PartialOrder: true, Workers: 2},
			{MaxDepth: sc.Depth, Symmetry: true, Liveness: true},
		} {
			runs = append(runs, run{fmt.Sprintf("%s %dx%d max_seq_len %d liveness %v por %v symmetry %v workers %d", c.scenario, c.ranks, c.reqs, cfg.MaxSeqLen, opts.Liveness, opts.PartialOrder, opts.Symmetry, opts.Workers), sp, opts})
		}
	}
	key := withoutTiming
	fresh := make([]model.Result[spec.Action], len(runs))
	for i, r := range runs {
		model.ForgetTables()
		fresh[i] = key(model.Check(r.sp, r.opts))
	}
	// Every run after every other, twice over, in two orders.
	for pass := range 2 {
		for k := range runs {
			i := k
			if pass == 1 {
				i = (k * 7) % len(runs)
			}
			if got := key(model.Check(runs[i].sp, runs[i].opts)); !reflect.DeepEqual(got, fresh[i]) {
				t.Fatalf("%s after other searches: %d states, %d violations; from new tables %d states, %d violations",
					runs[i].name, got.States, len(got.Violations), fresh[i].States, len(fresh[i].Violations))
			}
		}
	}
}

// withoutTiming is r without what depends on the machine rather than the
// search (its time and resource usage), for comparing results whole.
func withoutTiming(r model.Result[spec.Action]) model.Result[spec.Action] {
	r.Elapsed, r.Usage = 0, model.Usage{}
	return r
}
