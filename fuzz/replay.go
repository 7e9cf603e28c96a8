package fuzz

import (
	"fmt"

	"github.com/kvcheck/kvcheck/model"
)

// FirstViolation replays trace from the initial state, checking every
// invariant after each step, and returns the first violation, its Trace the
// prefix of trace that reaches it. The end state of a trace that has no
// enabled action and is not terminal is a deadlock. An action that is not
// enabled where it is applied (compared by ActionString) is an error; a
// trace that breaks nothing returns nil, nil.
func FirstViolation[S, A any](sp model.Spec[S, A], trace []A) (*Violation[A], error) {
	invariants := sp.Invariants()
	s := sp.Initial()
	if v := violationIn(invariants, &s, trace[:0]); v != nil {
		return v, nil
	}
	var enabled []A
	for i, a := range trace {
		enabled = sp.Actions(&s, enabled[:0])
		k := indexOf(sp, enabled, sp.ActionString(a))
		if k < 0 {
			return nil, fmt.Errorf("step %d: action %q is not enabled", i+1, sp.ActionString(a))
		}
		s = sp.Next(&s, enabled[k])
		if v := violationIn(invariants, &s, trace[:i+1]); v != nil {
			return v, nil
		}
	}
	if deadlocked(sp, &s) {
		return &Violation[A]{
			Key:     Key{Invariant: model.DeadlockInvariant},
			Message: "no action is enabled and the state is not terminal",
			Trace:   append([]A(nil), trace...),
		}, nil
	}
	return nil, nil
}

// violationIn returns the first invariant failure in s as a violation
// reached by trace (copied), or nil.
func violationIn[S, A any](invariants []model.Invariant[S], s *S, trace []A) *Violation[A] {
	for _, inv := range invariants {
		if f := inv.Check(s); f != nil {
			return &Violation[A]{
				Key:     Key{Invariant: inv.Name, Group: f.Group},
				Message: f.Message,
				Trace:   append([]A(nil), trace...),
			}
		}
	}
	return nil
}

// deadlocked reports whether s has no enabled action and is not terminal.
func deadlocked[S, A any](sp model.Spec[S, A], s *S) bool {
	if len(sp.Actions(s, nil)) > 0 {
		return false
	}
	t, ok := any(sp).(model.Terminator[S])
	return !ok || !t.IsTerminal(s)
}

// indexOf returns the index of the enabled action whose transcript line is
// line, or -1.
func indexOf[S, A any](sp model.Spec[S, A], enabled []A, line string) int {
	for j := range enabled {
		if sp.ActionString(enabled[j]) == line {
			return j
		}
	}
	return -1
}

// ParseTrace parses transcript lines with parse (for the KV-cache spec,
// spec.Spec.ParseAction); the error names the line.
func ParseTrace[A any](lines []string, parse func(string) (A, error)) ([]A, error) {
	trace := make([]A, 0, len(lines))
	for i, line := range lines {
		a, err := parse(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		trace = append(trace, a)
	}
	return trace, nil
}
