package spec

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkCanonicalize measures Canonicalize on reachable states of
// adp-dummy-leak on three ranks holding alike requests (five rank
// permutations besides the identity once every request arrived).
func BenchmarkCanonicalize(b *testing.B) {
	sc, err := lookupTestScenario("adp-dummy-leak")
	if err != nil {
		b.Fatal(err)
	}
	sp, err := New(symmetric(sc.Config, 3, []int{2, 0}, true), sc.Variants()[1])
	if err != nil {
		b.Fatal(err)
	}
	states := sampleStates(sp, rand.New(rand.NewPCG(1, 2)), 0, 200, 150)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s := states[i%len(states)]
		sp.Canonicalize(&s)
	}
}
