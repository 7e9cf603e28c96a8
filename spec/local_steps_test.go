package spec

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestLocalPartsStayPut checks the claim the checker fingerprints
// successors by (LocalPart, model.LocalSteps): a rank-local action's step
// changes nothing outside its rank but the shared crash record. A wrong
// claim would give a successor its parent's hash for a rank that changed,
// merging states that differ, so it is checked on sampled reachable
// states of every built-in scenario and variant and of random multi-rank
// configurations, every enabled action of each.
func TestLocalPartsStayPut(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	steps := 0
	var enabled []Action
	for _, sp := range partSpecs(t, 40) {
		for _, s := range sampleStates(sp, rng, 1000, 30, 150) {
			enabled = sp.Actions(&s, enabled[:0])
			for _, a := range enabled {
				part, local := sp.LocalPart(a)
				if !local {
					continue
				}
				next := sp.Next(&s, a)
				steps++
				if where := changedOutside(sp, &s, &next, uint8(part)); where != "" {
					t.Fatalf("%s: %s is rank-local (part %d) but changed %s\nstate:\n%s\nreproduce: go test ./spec -run TestLocalPartsStayPut", sp.label(), a, part, where, sp.Dump(&s))
				}
			}
		}
	}
	if steps < 10000 {
		t.Fatalf("only %d rank-local steps checked; the sample no longer reaches them (reproduce: go test ./spec -run TestLocalPartsStayPut)", steps)
	}
	t.Logf("%d rank-local steps checked", steps)
}

// TestLocalStepsReadTheirRankOnly checks the claim the checker memoizes
// rank-local steps by (MemoizeLocalSteps, model.PureLocalSteps): such a
// step's effect on the shared head and its own rank depends on them and
// the action alone, not on the other ranks. A wrong claim would give a
// successor computed beside other ranks, so each enabled rank-local
// action of sampled reachable states (every built-in scenario and
// variant, 40 random multi-rank configurations) is applied again to the
// state with every other rank taken from another sampled state, and the
// head and the rank it gives must be the same.
func TestLocalStepsReadTheirRankOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 4))
	steps := 0
	var enabled []Action
	head := int(unsafe.Offsetof(State{}.Ranks))
	for _, sp := range partSpecs(t, 40) {
		if !sp.MemoizeLocalSteps() {
			t.Fatalf("%s: a spec that records no coverage does not let the checker memoize its local steps", sp.label())
		}
		states := sampleStates(sp, rng, 1000, 30, 150)
		for i := range states {
			s := &states[i]
			enabled = sp.Actions(s, enabled[:0])
			for _, a := range enabled {
				part, local := sp.LocalPart(a)
				if !local {
					continue
				}
				r := uint8(part)
				donor := &states[rng.IntN(len(states))]
				mixed := *s
				for q := uint8(0); q < sp.Config.Ranks; q++ {
					if q != r {
						mixed.Ranks[q] = donor.Ranks[q]
					}
				}
				want := sp.Next(s, a)
				got, panicked := nextRecovering(sp, &mixed, a)
				steps++
				switch {
				case panicked != nil:
					t.Fatalf("%s: %s is rank-local (rank %d) but panics beside other ranks: %v\nstate:\n%s\nreproduce: go test ./spec -run TestLocalStepsReadTheirRankOnly", sp.label(), a, r, panicked, sp.Dump(&mixed))
				case !bytesEqual(&want, &got, head):
					t.Fatalf("%s: %s is rank-local (rank %d) but gives another head beside other ranks\nstate:\n%s\nreproduce: go test ./spec -run TestLocalStepsReadTheirRankOnly", sp.label(), a, r, sp.Dump(s))
				case !rankBytesEqual(&want.Ranks[r], &got.Ranks[r]):
					t.Fatalf("%s: %s is rank-local (rank %d) but gives its rank otherwise beside other ranks\nstate:\n%s\nreproduce: go test ./spec -run TestLocalStepsReadTheirRankOnly", sp.label(), a, r, sp.Dump(s))
				}
			}
		}
	}
	if steps < 10000 {
		t.Fatalf("only %d rank-local steps checked; the sample no longer reaches them (reproduce: go test ./spec -run TestLocalStepsReadTheirRankOnly)", steps)
	}
	t.Logf("%d rank-local steps checked beside other ranks", steps)
}

// nextRecovering is sp.Next(s, a), or the panic it raised.
func nextRecovering(sp *Spec, s *State, a Action) (next State, panicked any) {
	defer func() { panicked = recover() }()
	return sp.Next(s, a), nil
}

// bytesEqual compares the first n bytes of two states.
func bytesEqual(a, b *State, n int) bool {
	return string(unsafe.Slice((*byte)(unsafe.Pointer(a)), n)) == string(unsafe.Slice((*byte)(unsafe.Pointer(b)), n))
}
