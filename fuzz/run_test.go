package fuzz

import (
	"reflect"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/model/poolbench"
	"github.com/kvcheck/kvcheck/spec"
)

func newPool(tb testing.TB, bug bool) *poolbench.Pool {
	tb.Helper()
	cfg := poolbench.DefaultConfig
	cfg.Bug = bug
	p, err := poolbench.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// sameRun compares two results but their elapsed time.
func sameRun[A any](a, b Result[A]) bool {
	a.Elapsed, b.Elapsed = 0, 0
	return reflect.DeepEqual(a, b)
}

// TestRunIsReproducible: one seed and worker count give the same run, down
// to the violation's trace; another seed gives another run.
func TestRunIsReproducible(t *testing.T) {
	pool := newPool(t, false)
	for _, workers := range []int{1, 3} {
		for _, swarm := range []bool{false, true} {
			opts := Options{Seed: 7, Workers: workers, Swarm: swarm, MaxSteps: 200_000, RoundSteps: 5000}
			a, b := Run(pool, opts), Run(pool, opts)
			if !sameRun(a, b) {
				t.Errorf("workers %d swarm %v: two runs differ:\n%+v\n%+v", workers, swarm, a, b)
			}
			opts.Seed = 8
			if c := Run(pool, opts); c.States == a.States && c.Walks == a.Walks {
				t.Errorf("workers %d swarm %v: seeds 7 and 8 both ran %d walks to %d states", workers, swarm, c.Walks, c.States)
			}
		}
	}
	v := crashVariants(t)[0]
	for _, workers := range []int{1, 2} {
		opts := Options{Seed: 3, Workers: workers, Walks: 100_000}
		a, b := Run(v.sp, opts), Run(v.sp, opts)
		if a.Violation == nil || !sameRun(a, b) {
			t.Errorf("%s workers %d: want the same violation twice, got %+v and %+v", v.name(), workers, a.Violation, b.Violation)
		}
	}
}

// TestRunFindsEachCrash: on every scenario whose real code the checker
// finds a violation in, a seeded run finds one of the checker's
// violations, and its trace replays to it.
func TestRunFindsEachCrash(t *testing.T) {
	for _, v := range crashVariants(t) {
		for _, swarm := range []bool{false, true} {
			res := Run(v.sp, Options{Seed: 1, Swarm: swarm, Walks: 100_000})
			if res.Violation == nil {
				t.Errorf("%s swarm %v: no violation in %d walks; the checker finds %s", v.name(), swarm, res.Walks, v.check.Violations[0].Message)
				continue
			}
			if v.shortest(res.Violation.Key) == nil {
				t.Errorf("%s swarm %v: found %s, which the checker does not report", v.name(), swarm, res.Violation.Key)
			}
			replayed, err := replayViolation(v.sp, res.Violation.Trace, res.Violation.Key)
			if err != nil || replayed == nil || replayed.Key != res.Violation.Key || replayed.Message != res.Violation.Message {
				t.Errorf("%s swarm %v: the trace replays to %+v, %v; want %s", v.name(), swarm, replayed, err, res.Violation.Message)
			}
		}
	}
}

// TestRunStaysCleanOnClosedVariants: where the checker finds nothing, a run
// finds nothing either, reaches every goal the checker reaches, and never
// counts more states than the checker stores.
func TestRunStaysCleanOnClosedVariants(t *testing.T) {
	for _, v := range closedVariants(t) {
		res := Run(v.sp, Options{Seed: 1, Workers: 2, Swarm: true, Walks: 3000})
		if res.Violation != nil {
			t.Errorf("%s: %s: %s%s", v.name(), res.Violation.Key, res.Violation.Message, lines(res.Violation.Trace))
		}
		if v.check.Complete && res.States > v.check.States {
			t.Errorf("%s: %d distinct states; the complete check stores %d", v.name(), res.States, v.check.States)
		}
		for i, g := range res.Goals {
			if v.check.Goals[i].Reached && !g.Reached {
				t.Errorf("%s: goal %s not reached in %d walks", v.name(), g.Name, res.Walks)
			}
		}
	}
}

// TestNoveltyNeedsFewerSteps: on the pool model, novelty-guided walks reach
// half of the reachable states in fewer steps than plain walks from the
// initial state.
func TestNoveltyNeedsFewerSteps(t *testing.T) {
	pool := newPool(t, false)
	target := model.Check(pool, model.Options{MaxDepth: 8}).States
	steps := map[Mode]int{}
	for _, mode := range []Mode{ModeNovelty, ModePlain} {
		res := Run(pool, Options{Seed: 1, Mode: mode, StopAtStates: target, RoundSteps: 1 << 12, MaxSteps: 50_000_000})
		if res.States < target {
			t.Fatalf("%s: %d states in %d steps, want %d", mode, res.States, res.Steps, target)
		}
		steps[mode] = res.Steps
	}
	if steps[ModeNovelty] >= steps[ModePlain] {
		t.Errorf("novelty needed %d steps to %d states, plain walks %d", steps[ModeNovelty], target, steps[ModePlain])
	}
}

// TestBudgets: walk and step budgets are shared out between the workers
// and kept exactly; bare mode records no state.
func TestBudgets(t *testing.T) {
	pool := newPool(t, false)
	if res := Run(pool, Options{Seed: 1, Workers: 3, Walks: 10}); res.Walks != 10 {
		t.Errorf("Walks 10 over 3 workers ran %d walks", res.Walks)
	}
	res := Run(pool, Options{Seed: 1, Workers: 2, MaxSteps: 5000, MaxWalkSteps: 100, Mode: ModeBare})
	if res.Steps != 5000 || res.Walks != 50 || res.States != 0 || res.Goals != nil {
		t.Errorf("bare run: %d steps %d walks %d states goals %v; want 5000, 50, 0, none", res.Steps, res.Walks, res.States, res.Goals)
	}
}

// TestDeadlockIsAViolation: a state with no enabled action that the spec
// does not call terminal stops the run as the checker's deadlock.
func TestDeadlockIsAViolation(t *testing.T) {
	pool := newPool(t, false) // no Terminator: a full pool with nothing queued deadlocks
	res := Run(stuck{pool}, Options{Seed: 1, Walks: 1000})
	if res.Violation == nil || res.Violation.Invariant != model.DeadlockInvariant {
		t.Fatalf("violation %+v, want a deadlock", res.Violation)
	}
	if v, err := FirstViolation[poolbench.State, poolbench.Action](stuck{pool}, res.Violation.Trace); err != nil || v == nil || v.Invariant != model.DeadlockInvariant {
		t.Errorf("the deadlock trace replays to %+v, %v", v, err)
	}
}

// stuck is the pool model without its frees: a request can never give its
// blocks back, so the pool fills and deadlocks.
type stuck struct{ *poolbench.Pool }

func (s stuck) Actions(st *poolbench.State, out []poolbench.Action) []poolbench.Action {
	all := s.Pool.Actions(st, out)
	kept := all[:0]
	for _, a := range all {
		if a.Kind == poolbench.Allocate || a.Kind == poolbench.Grow {
			kept = append(kept, a)
		}
	}
	return kept
}

// TestSwarmWeights: a swarm walk never takes a class its seed switched off
// while another class is enabled, takes a favoured class more often than a
// normal one, and falls back to a uniform choice when all are off.
func TestSwarmWeights(t *testing.T) {
	v := crashVariants(t)[0]
	r := newRun[spec.State, spec.Action](v.sp, &Options{Seed: 1, Swarm: true, Workers: 1, CorpusBytes: 1 << 20})
	w := r.workers[0]
	// One action of each of the first three classes: arrive, schedule,
	// prepare-resources.
	w.actions = []spec.Action{{Kind: spec.ActArrive, ID: 1}, {Kind: spec.ActSchedule}, {Kind: spec.ActPrepareResources}}
	seen := map[[3]int]bool{}
	for range 200 {
		w.plan()
		weights := [3]int{w.walkPlan.weight(0), w.walkPlan.weight(1), w.walkPlan.weight(2)}
		seen[weights] = true
		counts := [3]int{}
		for range 400 {
			counts[w.chooseWeighted()]++
		}
		allOff := weights == [3]int{}
		for c := range 3 {
			if weights[c] == weightOff && !allOff && counts[c] > 0 {
				t.Fatalf("weights %v: class %d taken %d times", weights, c, counts[c])
			}
			if allOff && counts[c] == 0 {
				t.Fatalf("all classes off: class %d never taken; want a uniform choice", c)
			}
		}
		for a := range 3 {
			for b := range 3 {
				if weights[a] == weightFavoured && weights[b] == weightNormal && counts[a] <= counts[b] {
					t.Fatalf("weights %v: favoured class %d taken %d times, normal class %d %d times", weights, a, counts[a], b, counts[b])
				}
			}
		}
	}
	if len(seen) < 10 {
		t.Errorf("200 swarm walks drew only %d weight combinations", len(seen))
	}
}

// TestClassifierFallback: a spec without ActionClasses gets classes from the
// first word of its transcript lines.
func TestClassifierFallback(t *testing.T) {
	pool := newPool(t, false)
	c := newClassifier[poolbench.Action](pool, pool.ActionString)
	grow1, grow2 := poolbench.Action{Kind: poolbench.Grow, Request: 1}, poolbench.Action{Kind: poolbench.Grow, Request: 2}
	flush := poolbench.Action{Kind: poolbench.Flush}
	if c.class(&grow1) != c.class(&grow2) || c.class(&grow1) == c.class(&flush) {
		t.Errorf("classes grow q1 %d, grow q2 %d, flush %d", c.class(&grow1), c.class(&grow2), c.class(&flush))
	}
}
