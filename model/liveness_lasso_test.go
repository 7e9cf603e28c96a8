package model_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// progressGraph is an endGraph whose steps may make progress or refuse
// work (model.Progress), keyed by [from, to].
type progressGraph struct {
	endGraph
	progress, refused map[[2]int]bool
}

func (g progressGraph) Progress(from *int, _ int, to *int) bool {
	return g.progress[[2]int{*from, *to}]
}
func (g progressGraph) Refused(from *int, _ int, to *int) bool { return g.refused[[2]int{*from, *to}] }

// trapGraph: 0 goes to the end 9 or into the trap at 1, whose cycles are
// 1 2 1 (2 progresses), 1 5 1 (shortest without progress) and 1 3 4 1
// (without progress, through 1 -> 3, which refuses work).
func trapGraph() progressGraph {
	return progressGraph{
		endGraph: endGraph{
			graph: &graph{edges: map[int][]int{0: {9, 1}, 1: {2, 3, 5}, 2: {1}, 3: {4}, 4: {1}, 5: {1}}},
			ends:  map[int]bool{9: true},
		},
		progress: map[[2]int]bool{{1, 2}: true},
		refused:  map[[2]int]bool{{1, 3}: true},
	}
}

// checkLasso checks that the livelock of r replays: its cycle returns to
// the state the stem ends in and no step on it makes progress (unless
// thrash), and returns it rendered.
func checkLasso(t *testing.T, g progressGraph, r model.Result[int], thrash bool) string {
	t.Helper()
	if len(r.Violations) != 1 || r.Violations[0].Invariant != model.LivelockInvariant {
		t.Fatalf("violations %q, want one livelock", violationStrings(g, r.Violations))
	}
	v := r.Violations[0]
	states, err := model.Replay(g, append(v.Trace, v.Cycle...))
	if err != nil {
		t.Fatal(err)
	}
	start := states[len(v.Trace)]
	if len(v.Cycle) == 0 || states[len(states)-1] != start {
		t.Errorf("cycle %v from %d ends at %d", v.Cycle, start, states[len(states)-1])
	}
	progressed := false
	for i := len(v.Trace); i+1 < len(states); i++ {
		progressed = progressed || g.progress[[2]int{states[i], states[i+1]}]
	}
	if progressed != thrash {
		t.Errorf("cycle %v makes progress: %v, want %v", v.Cycle, progressed, thrash)
	}
	if got := strings.Contains(v.Message, "undoing"); got != thrash {
		t.Errorf("message %q: thrash %v, want %v", v.Message, got, thrash)
	}
	return violationStrings(g, r.Violations)[0]
}

func TestLassoCycleReturnsWithoutProgress(t *testing.T) {
	g := trapGraph()
	r := checkBoth(t, g, model.Options{Liveness: true})
	if got, want := checkLasso(t, g, r, false), "livelock@1:1 ~ 3 4 1"; got != want {
		t.Errorf("lasso %q, want %q (through the refused step)", got, want)
	}
	if v := r.Violations[0]; v.Refused != 0 || v.DoomedAt != 1 {
		t.Errorf("Refused %d, DoomedAt %d; want 0, 1", v.Refused, v.DoomedAt)
	}

	// Without a refusal, the shortest cycle without progress.
	g.refused = nil
	r = checkBoth(t, g, model.Options{Liveness: true})
	if got, want := checkLasso(t, g, r, false), "livelock@1:1 ~ 5 1"; got != want {
		t.Errorf("no refusal: lasso %q, want %q", got, want)
	}
	if r.Violations[0].Refused != -1 {
		t.Errorf("Refused %d, want -1", r.Violations[0].Refused)
	}

	// When every cycle progresses somewhere, it is a thrash.
	g.progress = map[[2]int]bool{{1, 2}: true, {5, 1}: true, {4, 1}: true}
	r = checkBoth(t, g, model.Options{Liveness: true})
	if got, want := checkLasso(t, g, r, true), "livelock@1:1 ~ 2 1"; got != want {
		t.Errorf("thrash: lasso %q, want %q", got, want)
	}

	// The trap entered deeper: the stem goes on from the first doomed
	// state (7) to the cycle.
	g = trapGraph()
	g.edges[0] = []int{9, 7}
	g.edges[7] = []int{8}
	g.edges[8] = []int{1}
	r = checkBoth(t, g, model.Options{Liveness: true})
	if got, want := checkLasso(t, g, r, false), "livelock@3:7 8 1 ~ 3 4 1"; got != want {
		t.Errorf("deep trap: lasso %q, want %q", got, want)
	}
	if r.Violations[0].DoomedAt != 1 {
		t.Errorf("DoomedAt %d, want 1", r.Violations[0].DoomedAt)
	}
}

// TestKeepGoingLooksPastViolations: a violation that does not end the run
// hides nothing beyond it.
func TestKeepGoingLooksPastViolations(t *testing.T) {
	g := &graph{
		edges: map[int][]int{0: {1}, 1: {2}, 2: {3}},
		bad:   map[int]string{1: "leak", 3: "crash"},
		worse: map[int]string{2: ""},
	}
	r := model.Check(g, model.Options{KeepGoing: true, Liveness: true})
	want := []string{"no-bad@1:1", "no-worse@2:1 2", "no-bad@3:1 2 3"}
	if got := violationStrings(g, r.Violations); !reflect.DeepEqual(got, want) {
		t.Errorf("violations %q, want %q (and no deadlock at the crash, no livelock)", got, want)
	}
}

// storyGraph is a progressGraph that tells the story of a livelock
// (model.LivelockStory), or none ("") for a cycle that starts at 31.
type storyGraph struct{ progressGraph }

func (g storyGraph) LivelockStory(start *int, cycle []int) string {
	if *start == 31 {
		return ""
	}
	return fmt.Sprintf("stuck at %d going round %v", *start, cycle)
}

// TestLassoCycleBeyondTheNearestSteps: when none of the steps nearest the
// doomed state lies on a cycle (here the 20 steps out of 1), the lasso
// still finds the cycle deeper down, by a depth-first search for a back
// edge, and the spec's LivelockStory becomes its message unless it is
// empty.
//
//	0 -> 9 (end) 1    1 -> 10..29    10..29 -> 30    30 -> 31    31 -> 30
func TestLassoCycleBeyondTheNearestSteps(t *testing.T) {
	edges := map[int][]int{0: {9, 1}, 30: {31}, 31: {30}}
	for n := 10; n < 30; n++ {
		edges[1] = append(edges[1], n)
		edges[n] = []int{30}
	}
	g := storyGraph{progressGraph{endGraph: endGraph{graph: &graph{edges: edges}, ends: map[int]bool{9: true}}}}
	r := checkBoth(t, g, model.Options{Liveness: true})
	if got, want := checkLasso(t, g.progressGraph, r, false), "livelock@3:1 10 30 ~ 31 30"; got != want {
		t.Errorf("lasso %q, want %q", got, want)
	}
	if got, want := r.Violations[0].Message, "stuck at 30 going round [31 30]"; got != want {
		t.Errorf("message %q, want the spec's story %q", got, want)
	}

	// A story of "" leaves the checker's own message: entered at 31, the
	// cycle starts there.
	edges[0] = []int{9, 31}
	r = checkBoth(t, g, model.Options{Liveness: true})
	if got, want := r.Violations[0].Message, "no run from here finishes"; !strings.HasPrefix(got, want) {
		t.Errorf("message %q, want the checker's %q...", got, want)
	}
}
