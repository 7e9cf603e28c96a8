package model_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// endGraph is a graph whose nodes in ends are legitimate end states.
type endGraph struct {
	*graph
	ends map[int]bool
}

func (g endGraph) IsTerminal(s *int) bool { return g.ends[*s] }

// violationStrings renders violations as invariant@depth:trace, and a
// livelock's cycle after " ~ ".
func violationStrings[S, A any](spec model.Spec[S, A], vs []model.Violation[A]) []string {
	var out []string
	for _, v := range vs {
		if v.Depth != len(v.Trace) {
			out = append(out, fmt.Sprintf("%s: depth %d != len(trace) %d", v.Invariant, v.Depth, len(v.Trace)))
		}
		line := fmt.Sprintf("%s@%d:%s", v.Invariant, v.Depth, traceString(spec, v.Trace))
		if v.Cycle != nil {
			line += " ~ " + traceString(spec, v.Cycle)
		}
		out = append(out, line)
	}
	return out
}

// checkBoth runs Check with Workers 1 and 4 and fails unless the results
// match; it returns the sequential one.
func checkBoth[S, A any](t *testing.T, spec model.Spec[S, A], opts model.Options) model.Result[A] {
	t.Helper()
	opts.Workers = 1
	want := model.Check(spec, opts)
	want.Elapsed, want.Usage = 0, model.Usage{}
	opts.Workers = 4
	got := model.Check(spec, opts)
	got.Elapsed, got.Usage = 0, model.Usage{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v: Workers 4 gives %+v, Workers 1 %+v", opts, got, want)
	}
	return want
}

// doomedCycle: 3 is the only end state. 1 reaches it directly and 2
// through 1, but 2's other successor 4 enters the cycle 4-5-6-5 that never
// leaves; 8 and 9 form a second trap behind 1.
//
//	0 -> 1 2    1 -> 3 8    2 -> 1 4    4 -> 5    5 -> 4 6    6 -> 5    8 -> 9    9 -> 8
func doomedCycle(first, second int) endGraph {
	return endGraph{
		graph: &graph{edges: map[int][]int{
			0: {first, second}, 1: {3, 8}, 2: {1, 4}, 4: {5}, 5: {4, 6}, 6: {5}, 8: {9}, 9: {8},
		}},
		ends: map[int]bool{3: true},
	}
}

func TestLivelockCycle(t *testing.T) {
	// Discovery order: 0 | 2 1 | 4 3 8 | 5 9 | 6. The doomed states are
	// 4 5 6 8 9; the shallowest are 4 and 8 (depth 2), and 4 comes first;
	// its shortest cycle is 4 5 4.
	g := doomedCycle(2, 1)
	r := checkBoth(t, g, model.Options{Liveness: true})
	// Transitions out of 0 1 2 4 5 6 8 9: 2+2+2+1+2+1+1+1 = 12.
	if got, want := summarize(r), (summary{states: 9, transitions: 12, depth: 4, complete: true}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if !r.LivenessChecked {
		t.Error("LivenessChecked is false")
	}
	if got, want := violationStrings(g, r.Violations), []string{"livelock@2:2 4 ~ 5 4"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("violations %q, want %q", got, want)
	}
	v := r.Violations[0]
	if v.Invariant != model.LivelockInvariant || !strings.Contains(v.Message, "nothing progresses") || v.Group != "" || v.DoomedAt != 2 || v.Refused != -1 {
		t.Errorf("violation = %+v", v)
	}
	states, err := model.Replay(g, append(v.Trace, v.Cycle...))
	if err != nil || !reflect.DeepEqual(states, []int{0, 2, 4, 5, 4}) {
		t.Errorf("Replay = %v, %v; want [0 2 4 5 4]", states, err)
	}

	// Discovery order: 0 | 1 2 | 3 8 4 | 9 5 | 6: 8 now comes before 4.
	g = doomedCycle(1, 2)
	r = checkBoth(t, g, model.Options{Liveness: true})
	if got, want := violationStrings(g, r.Violations), []string{"livelock@2:1 8 ~ 9 8"}; !reflect.DeepEqual(got, want) {
		t.Errorf("edges of 0 swapped: violations %q, want %q", got, want)
	}

	// Once 5 can leave its cycle for 3, only the 8-9 trap is left.
	g = doomedCycle(2, 1)
	g.edges[5] = []int{4, 6, 3}
	r = checkBoth(t, g, model.Options{Liveness: true})
	if got, want := violationStrings(g, r.Violations), []string{"livelock@2:1 8 ~ 9 8"}; !reflect.DeepEqual(got, want) {
		t.Errorf("5 -> 3 added: violations %q, want %q", got, want)
	}
	// And without 1 -> 8 nothing is doomed.
	g.edges[1] = []int{3}
	r = checkBoth(t, g, model.Options{Liveness: true})
	if len(r.Violations) != 0 || !r.LivenessChecked || !r.Complete {
		t.Errorf("no trap: violations %q, checked %v, complete %v; want none, true, true",
			violationStrings(g, r.Violations), r.LivenessChecked, r.Complete)
	}
}

// TestLivelockDeep: the doom starts deep, after a cycle that can still
// escape; the stem is the shortest path to the first doomed state, then on
// to the cycle.
func TestLivelockDeep(t *testing.T) {
	// 0 -> 1 -> 2 -> 3 -> 0 is a cycle; 3 -> 4 (end), 2 -> 5 -> 6 -> 5 (trap),
	// and the long way 0 -> 7 -> 8 -> 9 -> 5 reaches the trap too.
	g := endGraph{
		graph: &graph{edges: map[int][]int{
			0: {7, 1}, 1: {2}, 2: {3, 5}, 3: {0, 4}, 5: {6}, 6: {5}, 7: {8}, 8: {9}, 9: {5},
		}},
		ends: map[int]bool{4: true},
	}
	r := checkBoth(t, g, model.Options{Liveness: true})
	// Discovery: 0 | 7 1 | 8 2 | 9 3 5 | 4 6. Doomed: 5 6 7 8 9; the first
	// is 7 at depth 1 (it can only go on to 8 9 5, then 6 5 forever).
	if got, want := violationStrings(g, r.Violations), []string{"livelock@4:7 8 9 5 ~ 6 5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("violations %q, want %q", got, want)
	}
	if r.Violations[0].DoomedAt != 1 {
		t.Errorf("DoomedAt %d, want 1", r.Violations[0].DoomedAt)
	}
	// Without 0 -> 7 the first doomed state is 5, via 1 2 5.
	g.edges[0] = []int{1}
	r = checkBoth(t, g, model.Options{Liveness: true})
	if got, want := violationStrings(g, r.Violations), []string{"livelock@3:1 2 5 ~ 6 5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("without 0 -> 7: violations %q, want %q", got, want)
	}
}

func TestLivenessAllReachEnd(t *testing.T) {
	// Cycles everywhere, but every state can leave for the end state 3;
	// 2's self-loop and repeated edges are harmless.
	g := endGraph{
		graph: &graph{edges: map[int][]int{0: {1}, 1: {0, 2, 2}, 2: {2, 1, 3}}},
		ends:  map[int]bool{3: true},
	}
	r := checkBoth(t, g, model.Options{Liveness: true})
	if len(r.Violations) != 0 || !r.LivenessChecked || !r.Complete {
		t.Errorf("violations %q, checked %v, complete %v; want none, true, true",
			violationStrings(g, r.Violations), r.LivenessChecked, r.Complete)
	}
	// 1 and 2 are expanded in the same round and both find the new state
	// 3; 2's only way to the end is that edge, recorded when 1 has
	// already stored 3.
	g = endGraph{
		graph: &graph{edges: map[int][]int{0: {1, 2}, 1: {3}, 2: {3, 3}, 3: {4}}},
		ends:  map[int]bool{4: true},
	}
	r = checkBoth(t, g, model.Options{Liveness: true})
	if len(r.Violations) != 0 || !r.LivenessChecked {
		t.Errorf("shared successor: violations %q, checked %v; want none, true", violationStrings(g, r.Violations), r.LivenessChecked)
	}
	// Every lattice state reaches the terminal corner.
	spec := terminalLattice{lattice{n: 3}}
	r2 := checkBoth(t, spec, model.Options{Liveness: true})
	if len(r2.Violations) != 0 || !r2.LivenessChecked || r2.States != 16 {
		t.Errorf("lattice: violations %q, checked %v, %d states; want none, true, 16",
			violationStrings(spec, r2.Violations), r2.LivenessChecked, r2.States)
	}
}

func TestLivelockSelfLoop(t *testing.T) {
	// 1 can only stay where it is; 2 has a self-loop too but can leave.
	g := endGraph{
		graph: &graph{edges: map[int][]int{0: {2, 1}, 1: {1}, 2: {2, 3}}},
		ends:  map[int]bool{3: true},
	}
	r := checkBoth(t, g, model.Options{Liveness: true})
	if got, want := violationStrings(g, r.Violations), []string{"livelock@1:1 ~ 1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("violations %q, want %q", got, want)
	}
	if got, want := summarize(r), (summary{states: 4, transitions: 5, depth: 2, complete: true}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// A lone self-looping initial state is doomed at depth 0.
	g = endGraph{graph: &graph{edges: map[int][]int{0: {0}}}}
	r = checkBoth(t, g, model.Options{Liveness: true})
	if got, want := violationStrings(g, r.Violations), []string{"livelock@0: ~ 0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lone self-loop: violations %q, want %q", got, want)
	}
}

func TestLivenessSkippedWhenIncomplete(t *testing.T) {
	g := doomedCycle(2, 1) // depth 4, 9 states
	for _, tt := range []struct {
		opts    model.Options
		checked bool
	}{
		{model.Options{MaxDepth: 2}, false},
		{model.Options{MaxDepth: 4}, false}, // 6 at depth 4 has an action left
		{model.Options{MaxDepth: 5}, true},
		{model.Options{MaxStates: 8}, false},
		{model.Options{MaxStates: 9}, true},
	} {
		opts := tt.opts
		opts.Liveness = true
		r := checkBoth(t, g, opts)
		want := []string(nil)
		if tt.checked {
			want = []string{"livelock@2:2 4 ~ 5 4"}
		}
		if got := violationStrings(g, r.Violations); r.LivenessChecked != tt.checked || r.Complete != tt.checked || !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: checked %v, complete %v, violations %q; want %v, %v, %q",
				opts, r.LivenessChecked, r.Complete, got, tt.checked, tt.checked, want)
		}
	}
}

func TestLivenessWithDeadlocksAndViolations(t *testing.T) {
	// No Terminator: the corner deadlocks. Without KeepGoing the search
	// stops there and liveness does not run.
	spec := lattice{n: 2}
	r := checkBoth(t, spec, model.Options{Liveness: true})
	if got, want := violationStrings(spec, r.Violations), []string{"deadlock@4:x x y y"}; !reflect.DeepEqual(got, want) || r.LivenessChecked {
		t.Errorf("violations %q, checked %v; want %q, false", got, r.LivenessChecked, want)
	}
	// With KeepGoing it runs: nothing is a good end state, so every state
	// is doomed, but the lattice has no cycle, so there is no livelock.
	r = checkBoth(t, spec, model.Options{Liveness: true, KeepGoing: true})
	if got, want := violationStrings(spec, r.Violations), []string{"deadlock@4:x x y y"}; !reflect.DeepEqual(got, want) || !r.LivenessChecked {
		t.Errorf("KeepGoing: violations %q, checked %v; want %q, true", got, r.LivenessChecked, want)
	}

	// A violating state that goes on (4 -> 3) hides nothing: no livelock,
	// as no cycle, and no deadlock.
	g := endGraph{
		graph: &graph{edges: map[int][]int{0: {1, 2}, 1: {3}, 2: {4}, 4: {3}}, bad: map[int]string{4: ""}},
		ends:  map[int]bool{3: true},
	}
	r2 := checkBoth(t, g, model.Options{Liveness: true, KeepGoing: true})
	if got, want := violationStrings(g, r2.Violations), []string{"no-bad@2:2 4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("violating dead end: violations %q, want %q", got, want)
	}
	r2 = checkBoth(t, g, model.Options{Liveness: true})
	if got, want := violationStrings(g, r2.Violations), []string{"no-bad@2:2 4"}; !reflect.DeepEqual(got, want) || r2.LivenessChecked {
		t.Errorf("violation stops the search: violations %q, checked %v; want %q, false", got, r2.LivenessChecked, want)
	}
	// A terminal state that violates an invariant is not a good end, but
	// a run that stops at a violation is that violation, not a livelock
	// (the false alarm of a 0-step "livelock" before every crash).
	g = endGraph{
		graph: &graph{edges: map[int][]int{0: {1}}, bad: map[int]string{1: ""}},
		ends:  map[int]bool{1: true},
	}
	r2 = checkBoth(t, g, model.Options{Liveness: true, KeepGoing: true})
	if got, want := violationStrings(g, r2.Violations), []string{"no-bad@1:1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("violating terminal state: violations %q, want %q", got, want)
	}
}

// liveGraph is a random graph over n nodes: the low half has three edges
// per node into the low half, some end states (no edges, terminal) and a
// few edges into the high half, whose nodes only lead to each other.
func liveGraph(n int) endGraph {
	rng := rand.New(rand.NewPCG(3, 5))
	g := endGraph{graph: &graph{edges: map[int][]int{}}, ends: map[int]bool{}}
	half := n / 2
	for v := range half {
		if v%701 == 11 {
			g.ends[v] = true
			continue
		}
		g.edges[v] = []int{1 + rng.IntN(half-1), 1 + rng.IntN(half-1), 1 + rng.IntN(half-1)}
		if v%211 == 13 {
			g.edges[v] = append(g.edges[v], half+rng.IntN(half))
		}
	}
	for v := half; v < n; v++ {
		g.edges[v] = []int{half + rng.IntN(half), half + rng.IntN(half)}
	}
	return g
}

// referenceLivelock computes by brute force, as Check should with Liveness
// and KeepGoing, the BFS discovery order of g from 0 (violating nodes are
// expanded), the doomed nodes (no good end state reachable), the trapped
// ones (doomed, with a cycle of doomed nodes reachable: what is left of
// the doomed nodes after removing, again and again, those with no doomed
// successor left) and the first discovered trapped node with its depth;
// -1 if there is none.
func referenceLivelock(g endGraph) (node, depth int, doomed map[int]bool) {
	bad := func(v int) bool {
		_, b := g.bad[v]
		_, w := g.worse[v]
		return b || w
	}
	order, depths := []int{0}, map[int]int{0: 0}
	for i := 0; i < len(order); i++ {
		u := order[i]
		for _, v := range g.edges[u] {
			if _, ok := depths[v]; !ok {
				depths[v] = depths[u] + 1
				order = append(order, v)
			}
		}
	}
	good := map[int]bool{}
	for _, v := range order {
		good[v] = !bad(v) && len(g.edges[v]) == 0 && g.ends[v]
	}
	for changed := true; changed; {
		changed = false
		for _, u := range order {
			if good[u] {
				continue
			}
			for _, v := range g.edges[u] {
				if good[v] {
					good[u], changed = true, true
					break
				}
			}
		}
	}
	doomed, trapped := map[int]bool{}, map[int]bool{}
	for _, v := range order {
		doomed[v], trapped[v] = !good[v], !good[v]
	}
	for changed := true; changed; {
		changed = false
		for _, u := range order {
			if !trapped[u] {
				continue
			}
			stuck := false
			for _, v := range g.edges[u] {
				stuck = stuck || trapped[v]
			}
			if !stuck {
				trapped[u], changed = false, true
			}
		}
	}
	for _, v := range order {
		if trapped[v] {
			return v, depths[v], doomed
		}
	}
	return -1, 0, doomed
}

func TestLivenessRandomMatchesReference(t *testing.T) {
	withBad := endGraph{graph: randomGraph(40000), ends: map[int]bool{}}
	for v := range 40000 {
		if v%1009 == 7 && v%2 == 0 {
			withBad.ends[v] = true // dead ends of randomGraph; the odd ones deadlock
		}
		if v%997 == 5 && v%3 == 0 && withBad.edges[v] != nil {
			// Past the violation at v, a two-node trap.
			a := 40000 + v
			withBad.edges[v] = append(withBad.edges[v], a)
			withBad.edges[a], withBad.edges[a+1] = []int{a + 1}, []int{a, a + 1}
		}
	}
	for _, tc := range []struct {
		name string
		g    endGraph
		opts model.Options
	}{
		{"liveGraph", liveGraph(40000), model.Options{Liveness: true}},
		{"liveGraph/KeepGoing", liveGraph(40000), model.Options{Liveness: true, KeepGoing: true}},
		{"randomGraph/KeepGoing", withBad, model.Options{Liveness: true, KeepGoing: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node, depth, doomed := referenceLivelock(tc.g)
			if node < 0 {
				t.Fatal("the reference finds no livelock; the test graph is too tame")
			}
			var r model.Result[int]
			for _, workers := range []int{1, 2, 3, 4} {
				opts := tc.opts
				opts.Workers = workers
				got := model.Check(tc.g, opts)
				got.Elapsed, got.Usage = 0, model.Usage{}
				if workers == 1 {
					r = got
				} else if !reflect.DeepEqual(got, r) {
					t.Errorf("Workers %d: got %+v, want %+v as with Workers 1", workers, summarize(got), summarize(r))
				}
			}
			if !r.Complete || !r.LivenessChecked {
				t.Fatalf("complete %v, checked %v; want true, true", r.Complete, r.LivenessChecked)
			}
			var live []model.Violation[int]
			for _, v := range r.Violations {
				if v.Invariant == model.LivelockInvariant {
					live = append(live, v)
				}
			}
			if len(live) != 1 {
				t.Fatalf("%d livelock violations, want 1", len(live))
			}
			v := live[0]
			states, err := model.Replay(tc.g, append(v.Trace, v.Cycle...))
			if err != nil {
				t.Fatal(err)
			}
			if got := states[v.DoomedAt]; got != node || v.DoomedAt != depth {
				t.Errorf("doomed from node %d, step %d; reference: node %d, depth %d", got, v.DoomedAt, node, depth)
			}
			for i, s := range states[:v.DoomedAt] {
				if doomed[s] {
					t.Errorf("stem state %d (node %d) is doomed already", i, s)
				}
			}
			if len(v.Cycle) == 0 || states[len(v.Trace)] != states[len(states)-1] {
				t.Errorf("cycle %v does not return to node %d", v.Cycle, states[len(v.Trace)])
			}
			for _, s := range states[v.DoomedAt:] {
				if !doomed[s] {
					t.Errorf("lasso state %d is not doomed", s)
				}
			}
			t.Logf("doomed from node %d at depth %d; stem %d steps, cycle %d, of %d states", node, depth, len(v.Trace), len(v.Cycle), r.States)
		})
	}
}

// TestLivenessOffChangesNothing: turning Liveness on only adds the livelock
// violation and LivenessChecked.
func TestLivenessOffChangesNothing(t *testing.T) {
	strip := func(r model.Result[int]) model.Result[int] {
		r.Elapsed, r.Usage = 0, model.Usage{}
		r.LivenessChecked = false
		var vs []model.Violation[int]
		for _, v := range r.Violations {
			if v.Invariant != model.LivelockInvariant {
				vs = append(vs, v)
			}
		}
		r.Violations = vs
		return r
	}
	specs := map[string]model.Spec[int, int]{
		"doomedCycle": doomedCycle(2, 1),
		"twoPaths":    twoPaths(),
		"randomGraph": randomGraph(40000),
		"liveGraph":   liveGraph(40000),
	}
	for name, spec := range specs {
		for _, opts := range []model.Options{
			{}, {KeepGoing: true}, {KeepGoing: true, MaxDepth: 3}, {MaxStates: 5000}, {Workers: 3, KeepGoing: true},
		} {
			off := model.Check(spec, opts)
			if off.LivenessChecked {
				t.Errorf("%s %+v: LivenessChecked without Liveness", name, opts)
			}
			off.Elapsed, off.Usage = 0, model.Usage{}
			for _, v := range off.Violations {
				if v.Invariant == model.LivelockInvariant {
					t.Errorf("%s %+v: livelock reported without Liveness", name, opts)
				}
			}
			opts.Liveness = true
			on := model.Check(spec, opts)
			if on.LivenessChecked != on.Complete {
				t.Errorf("%s %+v: LivenessChecked %v, Complete %v", name, opts, on.LivenessChecked, on.Complete)
			}
			if got := strip(on); !reflect.DeepEqual(got, off) {
				t.Errorf("%s %+v: with Liveness %+v, without %+v", name, opts, summarize(got), summarize(off))
			}
		}
	}
}
