package spec

import (
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// BenchmarkLivenessCost runs the checker on every variant of every
// built-in scenario with and without the liveness analysis, side by side
// (safety / liveness), with KeepGoing so that every search completes and
// the analysis runs: its cost at the most. docs/liveness.md has the
// figures; `make bench-liveness` prints them.
func BenchmarkLivenessCost(b *testing.B) {
	for _, sc := range testScenarios() {
		for _, fixes := range sc.Variants() {
			sp, err := sc.Spec(fixes)
			if err != nil {
				b.Fatal(err)
			}
			for _, liveness := range []bool{false, true} {
				name := sc.Name + "/" + fixes.Label() + "/" + map[bool]string{false: "safety", true: "liveness"}[liveness]
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						model.Check[State, Action](sp, model.Options{MaxDepth: sc.Depth, KeepGoing: true, Liveness: liveness, Workers: 1})
					}
				})
			}
		}
	}
}
