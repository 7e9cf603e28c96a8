package main

import (
	"testing"
)

// BenchmarkScaled checks adp-dummy-leak scaled to 3 ranks x 5 requests
// under its first fix without reductions, the configuration of issue 24's
// throughput target, with one worker and with two: run it with
// -cpuprofile to see where a search's time goes (docs/engine.md,
// "Throughput").
func BenchmarkScaled(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "3x5/workers=1", 2: "3x5/workers=2"}[workers], func(b *testing.B) {
			states := 0
			for b.Loop() {
				r, err := checkOne("adp-dummy-leak", "", "3x5", "modulo", false, false, workers)
				if err != nil {
					b.Fatal(err)
				}
				states = r.States
			}
			b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}
