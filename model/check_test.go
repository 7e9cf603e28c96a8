package model_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvcheck/kvcheck/model"
)

// graph is a spec whose states are the nodes of an explicit directed graph
// and whose actions are the target nodes. Node 0 is initial.
type graph struct {
	edges map[int][]int
	bad   map[int]string // node -> group for invariant "no-bad"
	worse map[int]string // node -> group for invariant "no-worse"
}

func (g *graph) Initial() int                    { return 0 }
func (g *graph) Actions(s *int, out []int) []int { return append(out, g.edges[*s]...) }
func (g *graph) Next(_ *int, a int) int          { return a }
func (g *graph) Fingerprint(s *int) uint64       { return uint64(*s) }
func (g *graph) Goals() []model.Goal[int]        { return nil }
func (g *graph) ActionString(a int) string       { return strconv.Itoa(a) }
func (g *graph) Invariants() []model.Invariant[int] {
	return []model.Invariant[int]{
		{Name: "no-bad", Doc: "no node of bad is reachable", Check: failIn(g.bad)},
		{Name: "no-worse", Doc: "no node of worse is reachable", Check: failIn(g.worse)},
	}
}

func failIn(groups map[int]string) func(*int) *model.Failure {
	return func(s *int) *model.Failure {
		if group, ok := groups[*s]; ok {
			return &model.Failure{Message: fmt.Sprintf("reached node %d", *s), Group: group}
		}
		return nil
	}
}

// point is a lattice state.
type point struct{ x, y int8 }

// lattice is the grid {0..n}², explored by the actions 'x' (x++) and 'y'
// (y++). Its corner (n, n) has no enabled action.
type lattice struct{ n int8 }

func (l lattice) Initial() point { return point{} }
func (l lattice) Actions(p *point, out []byte) []byte {
	if p.x < l.n {
		out = append(out, 'x')
	}
	if p.y < l.n {
		out = append(out, 'y')
	}
	return out
}
func (l lattice) Next(p *point, a byte) point {
	q := *p
	if a == 'x' {
		q.x++
	} else {
		q.y++
	}
	return q
}
func (l lattice) Fingerprint(p *point) uint64          { return uint64(p.x)<<8 | uint64(p.y) }
func (l lattice) Invariants() []model.Invariant[point] { return nil }
func (l lattice) ActionString(a byte) string           { return string(rune(a)) }
func (l lattice) Goals() []model.Goal[point] {
	return []model.Goal[point]{
		{Name: "origin", Doc: "the initial state", Reached: func(p *point) bool { return *p == point{} }},
		{Name: "corner", Doc: "the far corner", Reached: func(p *point) bool { return *p == point{l.n, l.n} }},
		{Name: "beyond", Doc: "outside the grid", Reached: func(p *point) bool { return p.x > l.n }},
	}
}

// terminalLattice is a lattice whose corner is a legitimate end state.
type terminalLattice struct{ lattice }

func (l terminalLattice) IsTerminal(p *point) bool { return *p == point{l.n, l.n} }

// traceString renders a trace as space-separated action strings.
func traceString[S, A any](spec model.Spec[S, A], trace []A) string {
	parts := make([]string, len(trace))
	for i, a := range trace {
		parts[i] = spec.ActionString(a)
	}
	return strings.Join(parts, " ")
}

// summary is the part of a Result that tests compare against hand counts.
type summary struct {
	states, transitions, depth int
	complete                   bool
}

func summarize[A any](r model.Result[A]) summary {
	return summary{r.States, r.Transitions, r.Depth, r.Complete}
}

// twoPaths reaches the bad node 3 by 0-1-2-3 (length 3) and by
// 0-10-11-12-13-3 (length 5), the longer path's first edge coming first.
func twoPaths() *graph {
	return &graph{
		edges: map[int][]int{0: {10, 1}, 10: {11}, 11: {12}, 12: {13}, 13: {3}, 1: {2}, 2: {3}},
		bad:   map[int]string{3: ""},
	}
}

func TestShortestCounterexample(t *testing.T) {
	g := twoPaths()
	r := model.Check(g, model.Options{})
	// Levels: {0} {10 1} {11 2} {12 3}; the search stops when it stores 3.
	if got, want := summarize(r), (summary{states: 7, transitions: 6, depth: 3}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if len(r.Violations) != 1 {
		t.Fatalf("violations = %+v, want one", r.Violations)
	}
	v := r.Violations[0]
	if v.Invariant != "no-bad" || v.Depth != 3 || traceString(g, v.Trace) != "1 2 3" || v.Message != "reached node 3" {
		t.Errorf("violation = %+v, want no-bad at depth 3 via 1 2 3", v)
	}
	states, err := model.Replay(g, v.Trace)
	if err != nil || !reflect.DeepEqual(states, []int{0, 1, 2, 3}) {
		t.Fatalf("Replay = %v, %v; want [0 1 2 3]", states, err)
	}
	failures := model.CheckState(g, &states[3])
	if len(failures) != 1 || failures[0].Invariant != "no-bad" {
		t.Errorf("CheckState = %+v, want one no-bad failure", failures)
	}
	if failures := model.CheckState(g, &states[2]); failures != nil {
		t.Errorf("CheckState(2) = %+v, want none", failures)
	}
}

func TestKeepGoingExploresEverything(t *testing.T) {
	r := model.Check(twoPaths(), model.Options{KeepGoing: true})
	// All 8 nodes; every edge but those out of the violating node 3.
	if got, want := summarize(r), (summary{states: 8, transitions: 8, depth: 4, complete: true}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if len(r.Violations) != 1 || r.Violations[0].Depth != 3 {
		t.Errorf("violations = %+v, want the depth-3 one only", r.Violations)
	}
}

func TestKeepGoingOnePerGroup(t *testing.T) {
	g := &graph{
		edges: map[int][]int{0: {1, 2, 3, 4}, 3: {5}, 4: {6, 7}},
		bad:   map[int]string{1: "a", 2: "b", 5: "a", 7: "c"},
		worse: map[int]string{6: "", 7: ""},
	}
	r := model.Check(g, model.Options{KeepGoing: true})
	if got, want := summarize(r), (summary{states: 8, transitions: 7, depth: 2, complete: true}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	var got []string
	for _, v := range r.Violations {
		got = append(got, fmt.Sprintf("%s/%s@%d:%s", v.Invariant, v.Group, v.Depth, traceString(g, v.Trace)))
	}
	want := []string{"no-bad/a@1:1", "no-bad/b@1:2", "no-worse/@2:4 6", "no-bad/c@2:4 7"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("violations = %q, want %q", got, want)
	}

	r = model.Check(g, model.Options{})
	if got, want := summarize(r), (summary{states: 2, transitions: 1, depth: 1}); got != want {
		t.Errorf("without KeepGoing: got %+v, want %+v", got, want)
	}
	if len(r.Violations) != 1 || r.Violations[0].Group != "a" {
		t.Errorf("without KeepGoing: violations = %+v, want no-bad/a only", r.Violations)
	}
}

func TestInitialStateViolation(t *testing.T) {
	g := &graph{edges: map[int][]int{0: {1}}, bad: map[int]string{0: "root"}}
	r := model.Check(g, model.Options{})
	if got, want := summarize(r), (summary{states: 1}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if len(r.Violations) != 1 || r.Violations[0].Depth != 0 || len(r.Violations[0].Trace) != 0 {
		t.Errorf("violations = %+v, want one at the initial state", r.Violations)
	}
}

func TestLatticeBounds(t *testing.T) {
	spec := terminalLattice{lattice{n: 2}} // 9 states, 12 transitions, depth 4
	tests := []struct {
		opts model.Options
		want summary
	}{
		{model.Options{}, summary{9, 12, 4, true}},
		{model.Options{MaxDepth: 5}, summary{9, 12, 4, true}},
		{model.Options{MaxDepth: 4}, summary{9, 12, 4, true}}, // the corner has no action to cut
		{model.Options{MaxDepth: 3}, summary{8, 10, 3, false}},
		{model.Options{MaxDepth: 2}, summary{6, 6, 2, false}},
		{model.Options{MaxStates: 9}, summary{9, 12, 4, true}},
		{model.Options{MaxStates: 5}, summary{5, 6, 2, false}},
		{model.Options{MaxStates: 1}, summary{1, 1, 0, false}},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 4} {
			opts := tt.opts
			opts.Workers = workers
			r := model.Check(spec, opts)
			if got := summarize(r); got != tt.want || len(r.Violations) != 0 {
				t.Errorf("%+v: got %+v with violations %+v, want %+v and none", opts, got, r.Violations, tt.want)
			}
		}
	}
}

func TestGoals(t *testing.T) {
	spec := terminalLattice{lattice{n: 2}}
	reached := func(opts model.Options) []bool {
		var out []bool
		for _, g := range model.Check(spec, opts).Goals {
			out = append(out, g.Reached)
		}
		return out
	}
	if got, want := reached(model.Options{}), []bool{true, true, false}; !reflect.DeepEqual(got, want) {
		t.Errorf("full search: reached %v, want %v", got, want)
	}
	if got, want := reached(model.Options{MaxDepth: 3}), []bool{true, false, false}; !reflect.DeepEqual(got, want) {
		t.Errorf("MaxDepth 3: reached %v, want %v", got, want)
	}
	goals := model.Check(spec, model.Options{}).Goals
	if goals[1].Name != "corner" || goals[1].Doc != "the far corner" {
		t.Errorf("goal 1 = %+v, want corner with its doc", goals[1])
	}
}

func TestDeadlock(t *testing.T) {
	spec := lattice{n: 2} // no Terminator: the corner deadlocks
	r := model.Check(spec, model.Options{})
	if got, want := summarize(r), (summary{9, 12, 4, false}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if len(r.Violations) != 1 {
		t.Fatalf("violations = %+v, want one deadlock", r.Violations)
	}
	v := r.Violations[0]
	if v.Invariant != model.DeadlockInvariant || v.Depth != 4 || traceString(spec, v.Trace) != "x x y y" {
		t.Errorf("violation = %+v, want a deadlock via x x y y", v)
	}

	r = model.Check(spec, model.Options{KeepGoing: true})
	if got, want := summarize(r), (summary{9, 12, 4, true}); got != want || len(r.Violations) != 1 {
		t.Errorf("KeepGoing: got %+v with %d violations, want %+v and one", got, len(r.Violations), want)
	}

	r = model.Check(terminalLattice{spec}, model.Options{})
	if len(r.Violations) != 0 || !r.Complete {
		t.Errorf("with Terminator: violations %+v, complete %v; want none, true", r.Violations, r.Complete)
	}
}

// TestShorterDeadlockWins: the frontier {1, 2} is expanded in order; 1 leads
// to the bad node 3 (depth 2) before the dead end 2 (depth 1) is examined,
// yet the reported violation must be the shorter deadlock.
func TestShorterDeadlockWins(t *testing.T) {
	g := &graph{edges: map[int][]int{0: {1, 2}, 1: {3}}, bad: map[int]string{3: ""}}
	r := model.Check(g, model.Options{})
	if got, want := summarize(r), (summary{4, 3, 2, false}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if len(r.Violations) != 1 || r.Violations[0].Invariant != model.DeadlockInvariant || traceString(g, r.Violations[0].Trace) != "2" {
		t.Errorf("violations = %+v, want only the deadlock at 2", r.Violations)
	}

	r = model.Check(g, model.Options{KeepGoing: true})
	var got []string
	for _, v := range r.Violations {
		got = append(got, v.Invariant+":"+traceString(g, v.Trace))
	}
	if want := []string{"deadlock:2", "no-bad:1 3"}; !reflect.DeepEqual(got, want) || !r.Complete {
		t.Errorf("KeepGoing: violations %q complete %v, want %q, true", got, r.Complete, want)
	}
}

func TestReplayRejectsDisabledAction(t *testing.T) {
	states, err := model.Replay(twoPaths(), []int{1, 3})
	if err == nil || len(states) != 2 {
		t.Errorf("Replay(1 3) = %v, %v; want 2 states and an error", states, err)
	}
}

// randomGraph has n nodes with three pseudo-random edges each, some dead
// ends and some bad nodes in three groups.
func randomGraph(n int) *graph {
	rng := rand.New(rand.NewPCG(7, 11))
	g := &graph{edges: map[int][]int{}, bad: map[int]string{}, worse: map[int]string{}}
	for v := range n {
		switch {
		case v%997 == 5:
			g.bad[v] = strconv.Itoa(v % 3)
		case v%1499 == 9:
			g.worse[v] = ""
		}
		if v%1009 == 7 {
			continue // a dead end
		}
		g.edges[v] = []int{rng.IntN(n), rng.IntN(n), rng.IntN(n)}
	}
	return g
}

func TestParallelMatchesSequential(t *testing.T) {
	g := randomGraph(40000)
	for _, opts := range []model.Options{
		{},
		{KeepGoing: true},
		{KeepGoing: true, MaxDepth: 6},
		{KeepGoing: true, MaxStates: 12345},
	} {
		opts.Workers = 1
		want := model.Check(g, opts)
		want.Elapsed, want.Usage = 0, model.Usage{}
		if opts.KeepGoing && len(want.Violations) < 3 {
			t.Errorf("%+v: only %d violations; the test graph is too tame", opts, len(want.Violations))
		}
		for _, workers := range []int{2, 3, 4} {
			opts.Workers = workers
			got := model.Check(g, opts)
			got.Elapsed, got.Usage = 0, model.Usage{}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%+v: got %+v, want %+v", opts, summarize(got), summarize(want))
			}
		}
	}
}

// TestParallelSharingChangesNothing has the workers of searches claim
// small blocks of their rounds, with random pauses before each claim, so
// that which states the first worker (which stores as it expands) and the
// others (which read alongside it and claim from the back) get varies
// from run to run, one worker taking the whole round included: the
// result is the sequential search's.
func TestParallelSharingChangesNothing(t *testing.T) {
	g := randomGraph(40000)
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(3, 5))
	defer model.ShareRoundsWith(3, func(w int) {
		mu.Lock()
		pause := rng.IntN(40)
		mu.Unlock()
		if pause < 30 {
			time.Sleep(time.Duration(pause) * time.Microsecond)
		}
	})()
	for _, opts := range []model.Options{{}, {KeepGoing: true}, {KeepGoing: true, MaxStates: 12345}, {Liveness: true, KeepGoing: true}} {
		opts.Workers = 1
		want := model.Check(g, opts)
		want.Elapsed, want.Usage = 0, model.Usage{}
		for _, workers := range []int{2, 3} {
			for range 2 {
				opts.Workers = workers
				got := model.Check(g, opts)
				got.Elapsed, got.Usage = 0, model.Usage{}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%+v, rounds shared at random: got %+v, want %+v", opts, summarize(got), summarize(want))
				}
			}
		}
	}
}

// TestOnlyInvariants: a narrowed spec checks only the named invariants and
// keeps the spec's terminal states.
func TestOnlyInvariants(t *testing.T) {
	g := twoPaths()
	all := model.Check[int, int](g, model.Options{})
	if len(all.Violations) != 1 {
		t.Fatalf("want one violation on the full spec, got %d", len(all.Violations))
	}
	// Without no-bad, node 3 is expanded; it has no successor, so the
	// search now ends in a deadlock there instead.
	none := model.Check[int, int](model.OnlyInvariants[int, int](g, nil), model.Options{})
	if len(none.Violations) != 1 || none.Violations[0].Invariant != model.DeadlockInvariant {
		t.Fatalf("narrowed to no invariant: %v, want only the deadlock at node 3", none.Violations)
	}
	term := model.OnlyInvariants[point, byte](terminalLattice{lattice{2}}, nil)
	if _, ok := term.(model.Terminator[point]); !ok {
		t.Fatal("the narrowed spec lost its Terminator")
	}
	if r := model.Check[point, byte](term, model.Options{}); len(r.Violations) != 0 {
		t.Fatalf("terminal lattice reports %v after narrowing", r.Violations)
	}
}
