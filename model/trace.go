package model

import (
	"fmt"
	"slices"
)

// Replay applies trace to spec from Initial and returns the states along it:
// states[0] is Initial and states[i] follows trace[i-1]. Each action must be
// enabled (compared by ActionString) where it is applied; otherwise Replay
// returns the states reached so far and an error.
func Replay[S, A any](spec Spec[S, A], trace []A) ([]S, error) {
	states := make([]S, 1, len(trace)+1)
	states[0] = spec.Initial()
	var enabled []A
	for i, a := range trace {
		cur := &states[len(states)-1]
		want := spec.ActionString(a)
		enabled = spec.Actions(cur, enabled[:0])
		k := -1
		for j, e := range enabled {
			if spec.ActionString(e) == want {
				k = j
				break
			}
		}
		if k < 0 {
			return states, fmt.Errorf("replay step %d: action %q is not enabled", i+1, want)
		}
		states = append(states, spec.Next(cur, enabled[k]))
	}
	return states, nil
}

// traceTo walks parent links back from the stored state fp to the initial
// state and returns the actions that lead to it.
func (s *search[S, A]) traceTo(fp uint64) []A {
	trace := make([]A, 0, s.depth) // no trace is longer than the search is deep
	for fp != s.initFP {
		v := s.visited.Get(fp)
		trace = append(trace, v.action)
		fp = v.parent
	}
	slices.Reverse(trace)
	return trace
}
