package main

import "testing"

// TestPairRatio: pairRatio takes each round's two runs together, ratio
// the medians of all runs of each kind, which may come from different
// rounds.
func TestPairRatio(t *testing.T) {
	w := &workersResult{
		oneWall: []float64{100, 50, 80}, // the host slowed round 2 down
		twoWall: []float64{170, 100, 120},
	}
	if got, want := w.pairRatio(), 1.7; got != want {
		t.Errorf("pairRatio = %v, want %v (rounds 1.7, 2.0, 1.5)", got, want)
	}
	if got, want := w.ratio(), 1.5; got != want {
		t.Errorf("ratio = %v, want %v (120 over 80)", got, want)
	}
}
