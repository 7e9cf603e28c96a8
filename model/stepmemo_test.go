package model_test

import (
	"reflect"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestStepMemoChangesNothing: a search whose rank-local steps come from
// the workers' memos (model.PureLocalSteps) gives the result of one that
// computes every step (the same spec recording coverage, which turns the
// memo off): the same result, timing aside, with one worker and two,
// with and without liveness and the partial-order reduction, on
// three-rank configurations of the multi-rank scenarios.
func TestStepMemoChangesNothing(t *testing.T) {
	for _, name := range []string{"adp-dummy-leak", "adp-veto-generation", "overlap-two-ranks"} {
		sc, err := scenario.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sc.Config
		cfg.Ranks = 3
		for i := range cfg.Requests {
			cfg.Requests[i].Rank = uint8(i % 3)
		}
		for _, fixes := range sc.Variants() {
			memo, err := spec.New(cfg, fixes)
			if err != nil {
				t.Fatal(err)
			}
			plain, _ := spec.New(cfg, fixes)
			plain.Cover = spec.NewCoverage()
			if !memo.MemoizeLocalSteps() || plain.MemoizeLocalSteps() {
				t.Fatalf("%s: MemoizeLocalSteps %v without coverage, %v with it; want true, false", name, memo.MemoizeLocalSteps(), plain.MemoizeLocalSteps())
			}
			for _, opts := range []model.Options{
				{MaxDepth: sc.Depth, Workers: 1},
				{MaxDepth: sc.Depth, Workers: 2, KeepGoing: true},
				{MaxDepth: sc.Depth, Workers: 1, Liveness: true, KeepGoing: true},
				{MaxDepth: sc.Depth, Workers: 2, PartialOrder: true},
			} {
				got := withoutTiming(model.Check[spec.State, spec.Action](memo, opts))
				want := withoutTiming(model.Check[spec.State, spec.Action](plain, opts))
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %s %+v: with the memo %d states, %d transitions, depth %d, violations %+v; computing every step %d, %d, %d, %+v (reproduce: go test ./model -run TestStepMemoChangesNothing)",
						name, fixes.Label(), opts, got.States, got.Transitions, got.Depth, got.Violations, want.States, want.Transitions, want.Depth, want.Violations)
				}
			}
		}
	}
}
