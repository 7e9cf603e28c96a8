package spec_test

// The canonical-form tests of spec/space.Canonical live beside spec's
// own tests as external tests: they draw configurations with spec's
// randomConfig (robust_test.go, through export_test.go), which a test of
// package space cannot see.

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/space"
)

// TestCanonicalChecksTheSame: a configuration and its canonical form (with
// its ranks renamed too) reach the same number of states and the same
// verdict in the same number of steps, under random fixes. This is what
// lets a sweep check each class once.
func TestCanonicalChecksTheSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	compared, changed := 0, 0
	for i := 0; i < 3000 && compared < 35; i++ {
		cfg, ok := spec.RandomValidConfig(rng)
		if !ok || len(cfg.Requests) > 3 {
			continue
		}
		if cfg.Loop != spec.PipelineLoop && cfg.Ranks > 1 {
			// rename ranks: a rotation, which Canonical must undo.
			for j := range cfg.Requests {
				cfg.Requests[j].Rank = (cfg.Requests[j].Rank + 1) % cfg.Ranks
			}
		}
		canon := space.Canonical(cfg)
		if err := canon.Validate(); err != nil {
			t.Fatalf("canonical form invalid: %v\n%s", err, configtext.Format(&canon))
		}
		if again := space.Canonical(canon); configtext.Format(&again) != configtext.Format(&canon) {
			t.Fatalf("Canonical is not idempotent on\n%s", configtext.Format(&cfg))
		}
		fixes := spec.Fixes(rng.Uint32()) & spec.AllFixSet()
		a, b := smallCheck(t, cfg, fixes), smallCheck(t, canon, fixes)
		if !a.Complete || !b.Complete {
			continue
		}
		compared++
		if configtext.Format(&cfg) != configtext.Format(&canon) {
			changed++
		}
		if a.States != b.States || verdict(a) != verdict(b) {
			t.Fatalf("configuration %d checks differently from its canonical form (fixes %v): %d states %s vs %d states %s\n%s\ncanonical:\n%s",
				i, fixes.Names(), a.States, verdict(a), b.States, verdict(b), configtext.Format(&cfg), configtext.Format(&canon))
		}
	}
	if compared < 25 || changed < 12 {
		t.Fatalf("compared %d configurations, %d changed by Canonical: too few", compared, changed)
	}
}

func smallCheck(t *testing.T, cfg spec.Config, fixes spec.Fixes) model.Result[spec.Action] {
	t.Helper()
	sp, err := spec.New(cfg, fixes)
	if err != nil {
		t.Fatal(err)
	}
	return model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: 80, MaxStates: 4000, Workers: 1, Liveness: true})
}

func verdict(r model.Result[spec.Action]) string {
	if len(r.Violations) == 0 {
		return "ok"
	}
	v := r.Violations[0]
	if v.Invariant == model.LivelockInvariant {
		// The stem runs to the first doomed state, then on to the cycle
		// the search picked among equally short ones, which depends on
		// the order actions are listed in (renamed ranks list theirs in
		// another order); the depth of the first doomed state does not.
		return fmt.Sprintf("%s doomed after %d steps", v.Invariant, v.DoomedAt)
	}
	return fmt.Sprintf("%s after %d steps", v.Invariant, len(v.Trace))
}

// TestCanonicalKeepsPartialShares: with enable_partial_reuse a shared
// prefix that ends inside a block is reused past the block boundary, so
// two requests sharing 6 tokens of 4-token pages check differently from
// two sharing 4, and Canonical must not round the 6 down; with partial
// reuse off the two check the same and Canonical rounds.
func TestCanonicalKeepsPartialShares(t *testing.T) {
	sc, err := scenario.Lookup("paired-draft-reuse")
	if err != nil {
		t.Fatal(err)
	}
	states := func(partial bool, shared int) (int, spec.Config) {
		cfg, err := configtext.Parse(sc.Config, fmt.Sprintf("draft_pool=none target_blocks=10 max_batch_size=2 enable_partial_reuse=%v\nrequest prompt=12 new=2 family=0 shared=%d\nrequest prompt=12 new=2 family=0 shared=%d\n", partial, shared, shared))
		if err != nil {
			t.Fatal(err)
		}
		return smallCheck(t, cfg, 0).States, space.Canonical(cfg)
	}
	whole, _ := states(true, 4)
	inside, canon := states(true, 6)
	if whole == inside {
		t.Fatalf("setup: with partial reuse, sharing 6 tokens checks like sharing 4 (%d states)", whole)
	}
	if got := canon.Requests[0].SharedPrefix; got != 6 {
		t.Errorf("with partial reuse Canonical rounds a 6-token share to %d", got)
	}
	whole, _ = states(false, 4)
	inside, canon = states(false, 6)
	if whole != inside {
		t.Errorf("without partial reuse, sharing 6 tokens checks differently from 4 (%d against %d states)", inside, whole)
	}
	if got := canon.Requests[0].SharedPrefix; got != 4 {
		t.Errorf("without partial reuse Canonical keeps a 6-token share as %d, not the whole block of 4", got)
	}
}
