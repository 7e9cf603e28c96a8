package model_test

import (
	"fmt"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// counters is a spec of n interchangeable counters, each counting from 0
// to top: an action increments one counter (action i: counter i). Its
// symmetry permutes the counters; Canonicalize sorts them. Two counters at
// 2 and 1 are stuck: their only action swaps them (a livelock whose
// quotient is a self-loop, a concrete cycle of two steps). The invariant
// "no counter at bad" is broken with a message naming the counter.
type counters struct {
	n, top, bad int
	stuck       bool // enable the 2-and-1 trap
	symmetric   bool // implement HasSymmetry as true
}

type countState [4]uint8

const swapAction = 99

func (c counters) Initial() countState { return countState{} }

func (c counters) trapped(s *countState) bool {
	return c.stuck && c.n == 2 && (s[0] == 2 && s[1] == 1 || s[0] == 1 && s[1] == 2)
}

func (c counters) Actions(s *countState, out []int) []int {
	if c.trapped(s) {
		return append(out, swapAction)
	}
	for i := 0; i < c.n; i++ {
		if int(s[i]) < c.top {
			out = append(out, i)
		}
	}
	return out
}

func (c counters) Next(s *countState, a int) countState {
	next := *s
	if a == swapAction {
		next[0], next[1] = next[1], next[0]
		return next
	}
	next[a]++
	return next
}

func (c counters) Fingerprint(s *countState) uint64 {
	var fp uint64
	for _, v := range s {
		fp = fp*31 + uint64(v) + 1
	}
	return fp
}

func (c counters) Invariants() []model.Invariant[countState] {
	return []model.Invariant[countState]{{Name: "no-bad", Check: func(s *countState) *model.Failure {
		for i := 0; i < c.n; i++ {
			if int(s[i]) == c.bad {
				return &model.Failure{Message: fmt.Sprintf("counter %d at %d", i, c.bad)}
			}
		}
		return nil
	}}}
}

func (c counters) Goals() []model.Goal[countState] { return nil }

func (c counters) ActionString(a int) string { return fmt.Sprint(a) }

func (c counters) IsTerminal(s *countState) bool {
	for i := 0; i < c.n; i++ {
		if int(s[i]) != c.top {
			return false
		}
	}
	return true
}

func (c counters) HasSymmetry() bool { return c.symmetric }

// Canonicalize sorts the counters, smallest first, so that the first
// successor of a canonical state (counter 0 incremented) is not canonical.
func (c counters) Canonicalize(s *countState) {
	for i := 1; i < c.n; i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestSymmetryStoresOrbits checks that the search stores one state per
// orbit (multisets of counter values), that a violation's trace is a
// concrete run of the spec, of the same length as without symmetry, whose
// end state gives the message, and that the result does not depend on the
// worker count.
func TestSymmetryStoresOrbits(t *testing.T) {
	c := counters{n: 3, top: 3, bad: 9, symmetric: true}
	for _, workers := range []int{1, 2} {
		plain := model.Check[countState, int](c, model.Options{Workers: workers})
		sym := model.Check[countState, int](c, model.Options{Workers: workers, Symmetry: true})
		// 4 values per counter: 4³ = 64 states, C(4+2, 3) = 20 multisets.
		if plain.States != 64 || sym.States != 20 || !sym.Symmetric || plain.Symmetric {
			t.Fatalf("workers %d: %d states without symmetry (want 64), %d with (want 20), symmetric %v", workers, plain.States, sym.States, sym.Symmetric)
		}
	}
	off := c
	off.symmetric = false
	if r := model.Check[countState, int](off, model.Options{Symmetry: true}); r.States != 64 || r.Symmetric {
		t.Fatalf("a spec without symmetry: %d states, symmetric %v", r.States, r.Symmetric)
	}

	c.bad = 2
	plain := model.Check[countState, int](c, model.Options{})
	for _, workers := range []int{1, 2} {
		sym := model.Check[countState, int](c, model.Options{Workers: workers, Symmetry: true})
		if len(sym.Violations) != 1 || len(plain.Violations) != 1 || sym.Violations[0].Depth != plain.Violations[0].Depth {
			t.Fatalf("violations %+v with symmetry, %+v without", sym.Violations, plain.Violations)
		}
		v := sym.Violations[0]
		states, err := model.Replay[countState, int](c, v.Trace)
		if err != nil {
			t.Fatal(err)
		}
		end := states[len(states)-1]
		if f := c.Invariants()[0].Check(&end); f == nil || f.Message != v.Message {
			t.Errorf("trace %v ends in %v, message %q; want the end state's message", v.Trace, end, v.Message)
		}
	}
}

// TestSymmetryLivelock checks that a livelock whose quotient is a
// self-loop (the swap of two stuck counters leads to the same orbit) is
// found with symmetry and reported as a concrete cycle that returns to its
// start.
func TestSymmetryLivelock(t *testing.T) {
	c := counters{n: 2, top: 3, bad: 9, stuck: true, symmetric: true}
	plain := model.Check[countState, int](c, model.Options{Liveness: true})
	sym := model.Check[countState, int](c, model.Options{Liveness: true, Symmetry: true})
	if len(plain.Violations) != 1 || len(sym.Violations) != 1 || sym.Violations[0].Invariant != model.LivelockInvariant {
		t.Fatalf("violations %+v with symmetry, %+v without", sym.Violations, plain.Violations)
	}
	if sym.States >= plain.States || sym.Violations[0].DoomedAt != plain.Violations[0].DoomedAt {
		t.Errorf("%d states with symmetry, %d without; doomed at %d, %d", sym.States, plain.States, sym.Violations[0].DoomedAt, plain.Violations[0].DoomedAt)
	}
	v := sym.Violations[0]
	states, err := model.Replay[countState, int](c, append(v.Trace, v.Cycle...))
	if err != nil {
		t.Fatal(err)
	}
	if start := states[len(v.Trace)]; len(v.Cycle) != 2 || states[len(states)-1] != start {
		t.Errorf("cycle %v from %v ends at %v", v.Cycle, start, states[len(states)-1])
	}
}
