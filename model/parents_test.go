package model_test

import (
	"reflect"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// TestTraceThroughWideActionIndex: a counterexample whose two steps are
// each its state's 300th enabled action (past what a parent link's byte
// holds) comes out exactly, sequentially and with workers.
func TestTraceThroughWideActionIndex(t *testing.T) {
	g := endGraph{graph: &graph{edges: map[int][]int{}, bad: map[int]string{1300: ""}}, ends: map[int]bool{}}
	for n := 1; n <= 300; n++ {
		g.edges[0] = append(g.edges[0], n)
		g.edges[300] = append(g.edges[300], 1000+n)
		g.ends[n], g.ends[1000+n] = true, true
	}
	r := checkBoth(t, g, model.Options{})
	if got, want := violationStrings(g, r.Violations), []string{"no-bad@2:300 1300"}; !reflect.DeepEqual(got, want) {
		t.Errorf("violations %q, want %q", got, want)
	}
}
