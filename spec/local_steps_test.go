package spec

import (
	"math/rand/v2"
	"testing"
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
