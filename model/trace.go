package model

import "fmt"

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

// traceTo returns the actions that lead from the initial state to the
// stored state idx, rebuilt by re-executing from the initial state the
// action positions parentLinks recorded (as TLC rebuilds its traces).
func (s *search[S, A]) traceTo(idx uint32) []A {
	if s.sym != nil {
		trace, _ := s.concreteTraceTo(idx)
		return trace
	}
	path := s.links.path(idx)
	trace := make([]A, 0, len(path))
	st := s.spec.Initial()
	var enabled []A
	for _, k := range path {
		enabled = s.spec.Actions(&st, enabled[:0])
		trace = append(trace, enabled[k])
		st = s.spec.Next(&st, enabled[k])
	}
	return trace
}
