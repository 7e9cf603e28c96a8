package model_test

import (
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
