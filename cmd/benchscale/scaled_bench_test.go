package main

import (
	"fmt"
	"testing"
)

// BenchmarkScaled checks adp-dummy-leak scaled to 3 ranks x 5 requests
// under its first fix without reductions, the configuration of issue 24's
// throughput target, with one worker and with two: run it with
// -cpuprofile to see where a search's time goes (docs/engine.md,
// "Throughput").
//
// 3x4 is the same mix of states at a fifth of the size, for instruction
// counts under valgrind (docs/engine.md).
func BenchmarkScaled(b *testing.B) {
	for _, c := range []struct {
		size    string
		workers int
	}{{"3x5", 1}, {"3x5", 2}, {"3x4", 1}} {
		b.Run(fmt.Sprintf("%s/workers=%d", c.size, c.workers), func(b *testing.B) {
			states := 0
			for b.Loop() {
				r, err := checkOne("adp-dummy-leak", "", c.size, "modulo", false, false, c.workers)
				if err != nil {
					b.Fatal(err)
				}
				states = r.States
			}
			b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}
