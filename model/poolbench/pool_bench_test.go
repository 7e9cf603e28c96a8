package poolbench_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/model/poolbench"
)

// BenchmarkCheckPool measures an exhaustive check of the default pool.
func BenchmarkCheckPool(b *testing.B) {
	p := newPool(b, poolbench.DefaultConfig)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var states int
			for b.Loop() {
				states = model.Check(p, model.Options{Workers: workers}).States
			}
			b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}

// BenchmarkCheckPoolLiveness is BenchmarkCheckPool with Options.Liveness:
// the search records its transitions, then the liveness analysis runs. The
// pool has no Terminator, so it has no good end state and every state is
// doomed; the result is not asserted, only the cost measured.
func BenchmarkCheckPoolLiveness(b *testing.B) {
	p := newPool(b, poolbench.DefaultConfig)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var states int
			for b.Loop() {
				r := model.Check(p, model.Options{Workers: workers, Liveness: true})
				if !r.LivenessChecked {
					b.Fatal("liveness not checked")
				}
				states = r.States
			}
			b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}

// BenchmarkRandomWalk measures random simulation of the default pool: one
// step picks an enabled action, applies it and checks the invariants.
func BenchmarkRandomWalk(b *testing.B) {
	p := newPool(b, poolbench.DefaultConfig)
	rng := rand.New(rand.NewPCG(1, 2))
	invariants := p.Invariants()
	s := p.Initial()
	var actions []poolbench.Action
	for b.Loop() {
		actions = p.Actions(&s, actions[:0])
		if len(actions) == 0 {
			s = p.Initial()
			continue
		}
		s = p.Next(&s, actions[rng.IntN(len(actions))])
		for _, inv := range invariants {
			if f := inv.Check(&s); f != nil {
				b.Fatalf("%s: %s", inv.Name, f.Message)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
