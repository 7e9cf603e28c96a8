package spec

import (
	"math/rand/v2"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// label names a spec in the part tests' failures.
func (sp *Spec) label() string {
	name := "random configuration"
	if sp.Scenario != nil {
		name = sp.Scenario.Name
	}
	return name + " " + sp.Fixes.Label()
}

// partSpecs are the specs whose states the part tests sample: every
// built-in scenario under each of its variants, and random multi-rank
// configurations.
func partSpecs(t *testing.T, random int) []*Spec {
	t.Helper()
	var out []*Spec
	for _, sc := range testScenarios() {
		for _, fixes := range sc.Variants() {
			sp, err := sc.Spec(fixes)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, sp)
		}
	}
	rng := rand.New(rand.NewPCG(24, 1))
	for len(out) < random+len(testScenarios()) {
		cfg, ok := randomConfig(rng)
		if !ok || cfg.Ranks < 2 {
			continue
		}
		sp, err := New(cfg, Fixes(rng.Uint32())&AllFixSet())
		if err != nil {
			continue
		}
		out = append(out, sp)
	}
	return out
}

// TestInvariantPartsLocal checks, on sampled reachable states, the two
// claims that let the checker evaluate an invariant's Part once per
// distinct (shared records, rank) instead of once per state
// (model.Invariant.Part): Check(s) is Part(s, r) of the first rank r where
// that fails, message and group included; and Part(s, r) reads only the
// shared records and rank r: it gives the same answer when every other
// rank is replaced by that rank of another reachable state.
func TestInvariantPartsLocal(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 2))
	checked, failing := 0, 0
	for _, sp := range partSpecs(t, 12) {
		states := sampleStates(sp, rng, 1500, 30, 150)
		for i := range states {
			s := &states[i]
			other := &states[rng.IntN(len(states))]
			for _, inv := range sp.Invariants() {
				if inv.Part == nil {
					continue
				}
				var first *model.Failure
				for r := range int(sp.Config.Ranks) {
					if first = inv.Part(s, r); first != nil {
						break
					}
				}
				whole := inv.Check(s)
				if (whole == nil) != (first == nil) || whole != nil && *whole != *first {
					t.Fatalf("%s: %s's Check gives %+v, its Parts %+v\n%s", sp.label(), inv.Name, whole, first, sp.Dump(s))
				}
				if whole != nil {
					failing++
				}
				for r := range int(sp.Config.Ranks) {
					mixed := *other
					mixed.Arrived, mixed.PipelineLen, mixed.Crash, mixed.Pipeline = s.Arrived, s.PipelineLen, s.Crash, s.Pipeline
					mixed.Ranks[r] = s.Ranks[r]
					a, b := inv.Part(s, r), inv.Part(&mixed, r)
					if (a == nil) != (b == nil) || a != nil && *a != *b {
						t.Fatalf("%s: %s's Part for rank %d reads another rank: %+v, with the other ranks of another state %+v\n%s", sp.label(), inv.Name, r, a, b, sp.Dump(s))
					}
				}
				checked++
			}
		}
	}
	if checked == 0 || failing == 0 {
		t.Fatalf("%d (state, invariant) pairs checked, %d failing: the sample must hold both", checked, failing)
	}
	t.Logf("%d (state, invariant) pairs, %d failing", checked, failing)
}

// TestReachableDummyIncarnationsCanonical: every reachable state's dummy
// incarnations are canonical, so that Next canonicalizes only the rank a
// rank-local step changed; and dummyIncarnationsCanonical, the check that
// spares the renumbering, agrees with the renumbering itself, on reachable
// ranks and on ranks whose incarnations are scrambled.
func TestReachableDummyIncarnationsCanonical(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	scrambled := 0
	for _, sp := range partSpecs(t, 12) {
		if !sp.Config.AttentionDP {
			continue
		}
		for _, s := range sampleStates(sp, rng, 1500, 30, 150) {
			c := s
			sp.canonicalizeDummyIncarnations(&c)
			if c != s {
				t.Fatalf("%s: a reachable state's dummy incarnations are not canonical\n%s", sp.label(), sp.Dump(&s))
			}
			for r := range sp.Config.Ranks {
				rank := s.Ranks[r]
				// Scramble: shift the incarnations, or give the batch a
				// stale dummy snapshot.
				switch rng.IntN(3) {
				case 0:
					rank.Requests[dummyID].Incarnation += uint8(rng.IntN(3))
				case 1:
					for p := range rank.Pools {
						if c := &rank.Pools[p].Caches[dummyID]; c.Status != Absent {
							c.Incarnation = uint8(rng.IntN(70))
						}
					}
				case 2:
					rank.Batch.Dummy.Incarnation = uint8(rng.IntN(4))
				}
				renumbered := rank
				canonicalizeRankDummyIncarnations(&renumbered)
				if got, want := dummyIncarnationsCanonical(&rank), renumbered == rank; got != want {
					t.Fatalf("%s rank %d: dummyIncarnationsCanonical says %v, the renumbering %v\n%+v", sp.label(), r, got, want, rank)
				}
				if renumbered != rank {
					scrambled++
				}
			}
		}
	}
	if scrambled == 0 {
		t.Fatal("no scrambled rank needed renumbering: the test checks nothing")
	}
}
