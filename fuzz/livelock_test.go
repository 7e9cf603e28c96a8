package fuzz

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// trapSpec is a small graph: node 0 starts, ends are terminal; a step
// from k to k+1 below 20 is progress.
type trapSpec struct {
	edges map[int][]int
	ends  map[int]bool
	// The trap's steps refuse work; with sideRefuses the side loops' too.
	sideRefuses bool
}

func (g *trapSpec) Initial() int                       { return 0 }
func (g *trapSpec) Actions(s *int, out []int) []int    { return append(out, g.edges[*s]...) }
func (g *trapSpec) Next(_ *int, a int) int             { return a }
func (g *trapSpec) Fingerprint(s *int) uint64          { return uint64(*s) }
func (g *trapSpec) Invariants() []model.Invariant[int] { return nil }
func (g *trapSpec) Goals() []model.Goal[int]           { return nil }
func (g *trapSpec) ActionString(a int) string          { return strconv.Itoa(a) }
func (g *trapSpec) IsTerminal(s *int) bool             { return g.ends[*s] }
func (g *trapSpec) Progress(from *int, _ int, to *int) bool {
	return *to == *from+1 && *to < 20
}
func (g *trapSpec) Refused(from *int, _ int, _ *int) bool {
	return *from >= 30 || g.sideRefuses && *from >= 20
}

// ladder: 0 -> 1 -> ... -> 9 -> end 10, each rung with a side loop
// (k <-> 20+k) that can come back; rung 6 also leads into the trap
// 30 -> 31 -> 32 -> 30, which never finishes.
func ladder() *trapSpec {
	g := &trapSpec{edges: map[int][]int{}, ends: map[int]bool{10: true}}
	for k := 0; k < 10; k++ {
		g.edges[k] = []int{k + 1, 20 + k}
		g.edges[20+k] = []int{k}
	}
	g.edges[6] = append(g.edges[6], 30)
	g.edges[30], g.edges[31], g.edges[32] = []int{31}, []int{32}, []int{30}
	return g
}

func TestFuzzFindsLivelock(t *testing.T) {
	g := ladder()
	res := Run[int, int](g, Options{Seed: 1, Walks: 200})
	v := res.Violation
	if v == nil || v.Invariant != model.LivelockInvariant {
		t.Fatalf("violation %+v, want a livelock", v)
	}
	states, err := model.Replay[int, int](g, append(v.Trace, v.Cycle...))
	if err != nil {
		t.Fatal(err)
	}
	if end := states[len(v.Trace)]; len(v.Cycle) == 0 || states[len(states)-1] != end || end < 30 {
		t.Errorf("lasso %v ~ %v does not return into the trap", v.Trace, v.Cycle)
	}
	shrunk, err := Shrink[int, int](g, v.Trace, v.Key, ShrinkOptions[int, int]{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 3, 4, 5, 6, 30}; !reflect.DeepEqual(shrunk.Trace, want) || !reflect.DeepEqual(shrunk.Cycle, []int{31, 32, 30}) || !shrunk.Optimal {
		t.Errorf("shrunk %v ~ %v (optimal %v), want %v ~ [31 32 30], optimal", shrunk.Trace, shrunk.Cycle, shrunk.Optimal, want)
	}

	// Without the trap every side loop can come back: the walks return to
	// states without progress, refusing work (candidates), but none is
	// confirmed.
	g.edges[6] = g.edges[6][:2]
	g.sideRefuses = true
	res = Run[int, int](g, Options{Seed: 1, Walks: 200, Workers: 1})
	if res.Violation != nil {
		t.Errorf("no trap: violation %+v", res.Violation)
	}
}
