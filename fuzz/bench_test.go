package fuzz

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/kvcheck/kvcheck/model/poolbench"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// poolStates is the pinned number of reachable states of the benchmark
// pool model (model/poolbench's TestExhaustiveDefault).
const poolStates = 864_517

// BenchmarkWalkPool measures random steps per second on one core on the
// benchmark pool model: bare (walk and invariants), plain (plus recording
// every fingerprint) and novelty (plus the corpus and restarts); swarm
// walks classify actions by their transcript line's first word (the pool
// has no ActionClasses), or through classedPool's.
func BenchmarkWalkPool(b *testing.B) {
	pool := newPool(b, false)
	for _, mode := range []Mode{ModeBare, ModePlain, ModeNovelty} {
		b.Run(fmt.Sprintf("mode=%s", mode), func(b *testing.B) {
			res := Run(pool, Options{Seed: 1, Mode: mode, MaxSteps: b.N})
			b.ReportMetric(float64(res.Steps)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(0, "ns/op")
		})
		b.Run(fmt.Sprintf("mode=%s/swarm=by-word", mode), func(b *testing.B) {
			res := Run(pool, Options{Seed: 1, Mode: mode, Swarm: true, MaxSteps: b.N})
			b.ReportMetric(float64(res.Steps)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(0, "ns/op")
		})
		b.Run(fmt.Sprintf("mode=%s/swarm=classes", mode), func(b *testing.B) {
			res := Run(classedPool{pool}, Options{Seed: 1, Mode: mode, Swarm: true, MaxSteps: b.N})
			b.ReportMetric(float64(res.Steps)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// classedPool is the pool model with ActionClasses: one class per kind.
type classedPool struct{ *poolbench.Pool }

func (classedPool) ActionClasses() []string {
	return []string{"allocate", "grow", "shrink", "free", "flush"}
}

func (classedPool) ActionClass(a *poolbench.Action) int { return int(a.Kind) }

// BenchmarkCoveragePool measures how long walks take to reach 90% of the
// pool model's reachable states, novelty-guided and plain, on one worker
// and on every core.
func BenchmarkCoveragePool(b *testing.B) {
	pool := newPool(b, false)
	target := poolStates * 9 / 10
	for _, mode := range []Mode{ModeNovelty, ModePlain} {
		for _, workers := range []int{1, runtime.NumCPU()} {
			b.Run(fmt.Sprintf("mode=%s/workers=%d", mode, workers), func(b *testing.B) {
				var res Result[poolbench.Action]
				for b.Loop() {
					res = Run(pool, Options{Seed: 1, Mode: mode, Workers: workers, StopAtStates: target})
				}
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s-to-90%")
				b.ReportMetric(float64(res.Steps), "steps")
				b.ReportMetric(float64(res.States)/poolStates*100, "%states")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkWalkKV measures novelty steps per second on the KV-cache spec
// (a fix set of the first scenario, so walks do not stop at a crash).
func BenchmarkWalkKV(b *testing.B) {
	sc := scenario.All()[0]
	if len(sc.FixSets) == 0 {
		b.Skip("the first scenario has no fix set")
	}
	fixes := spec.FixSetOf(sc.FixSets[0]...)
	sp, err := sc.Spec(fixes)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []Mode{ModeBare, ModeNovelty} {
		b.Run("mode="+mode.String(), func(b *testing.B) {
			res := Run(sp, Options{Seed: 1, Mode: mode, Swarm: true, MaxSteps: b.N})
			b.ReportMetric(float64(res.Steps)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkDecodePool measures the work of one go test -fuzz execution on
// the pool model: decoding a random 256-byte input.
func BenchmarkDecodePool(b *testing.B) {
	pool := newPool(b, false)
	rng := rand.New(rand.NewPCG(1, 1))
	data := make([]byte, 256)
	steps := 0
	for b.Loop() {
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		trace, _ := Decode(pool, data)
		steps += len(trace)
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}
