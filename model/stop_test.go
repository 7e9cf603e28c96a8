package model_test

import (
	"slices"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// TestStopEndsTheSearch: Options.Stop ends the search between rounds:
// the result is incomplete and interrupted, liveness is not analysed, and
// Progress saw every level expanded before it.
func TestStopEndsTheSearch(t *testing.T) {
	spec := terminalLattice{lattice{n: 2}}
	var levels []model.Progress
	calls := 0
	r := model.Check(spec, model.Options{Liveness: true, Workers: 1,
		Stop:     func() bool { calls++; return calls > 2 },
		Progress: func(p model.Progress) { levels = append(levels, p) },
	})
	if !r.Interrupted || r.Complete || r.LivenessChecked || r.Depth != 2 || r.States != 6 {
		t.Fatalf("interrupted %v complete %v liveness %v depth %d states %d", r.Interrupted, r.Complete, r.LivenessChecked, r.Depth, r.States)
	}
	if len(levels) != 2 || levels[1] != (model.Progress{States: 6, Transitions: 6, Depth: 2}) {
		t.Errorf("progress %+v", levels)
	}
	if r := model.Check(spec, model.Options{Stop: func() bool { return false }}); r.Interrupted || !r.Complete {
		t.Errorf("a Stop that never fires: interrupted %v complete %v", r.Interrupted, r.Complete)
	}
}

// TestStopAndProgressWithWorkers: with any number of workers (several
// pipeline their rounds), Options.Stop is asked before each round, after
// Progress reported the round before, and a Stop that fires at its k-th
// call leaves the result of the first k-1 rounds, which Progress reported
// as the uninterrupted search did, on a 40,000-state graph of many rounds
// a level.
func TestStopAndProgressWithWorkers(t *testing.T) {
	g := randomGraph(40000)
	type run struct {
		r        model.Result[int]
		progress []model.Progress
		calls    int
	}
	check := func(workers, k int) run {
		var out run
		out.r = model.Check(g, model.Options{KeepGoing: true, Workers: workers,
			Stop:     func() bool { out.calls++; return k > 0 && out.calls >= k },
			Progress: func(p model.Progress) { out.progress = append(out.progress, p) },
		})
		return out
	}
	for _, workers := range []int{1, 2, 3} {
		all := check(workers, 0)
		rounds := len(all.progress)
		if rounds < 10 || all.calls != rounds || !all.r.Complete {
			t.Fatalf("%d workers, no stop: %d rounds, %d calls, complete %v; want as many calls as rounds, at least 10", workers, rounds, all.calls, all.r.Complete)
		}
		if last := all.progress[rounds-1]; last.Depth != all.r.Depth+1 || last.States != all.r.States || last.Transitions != all.r.Transitions {
			t.Fatalf("%d workers: the last report %+v; the result has %d states, %d transitions, depth %d (the last level expanded is one deeper)", workers, last, all.r.States, all.r.Transitions, all.r.Depth)
		}
		for _, k := range []int{1, 2, rounds / 2, rounds} {
			got := check(workers, k)
			if !got.r.Interrupted || got.calls != k || !slices.Equal(got.progress, all.progress[:k-1]) {
				t.Errorf("%d workers, Stop at call %d: interrupted %v after %d calls, progress %v; want interrupted after %d calls, progress %v",
					workers, k, got.r.Interrupted, got.calls, got.progress, k, all.progress[:k-1])
				continue
			}
			if k > 1 {
				if last := got.progress[k-2]; got.r.States != last.States || got.r.Transitions != last.Transitions {
					t.Errorf("%d workers, Stop at call %d: %d states, %d transitions; the last report said %+v", workers, k, got.r.States, got.r.Transitions, last)
				}
			}
		}
	}
}
