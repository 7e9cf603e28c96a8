package model

import "fmt"

// Symmetric is implemented by specs whose states fall into orbits of
// interchangeable states (symmetry reduction, as in SPIN's and TLC's
// symmetry sets): states of one orbit satisfy the same invariants and goals
// and their successors are again each other's images. With
// Options.Symmetry the search stores one state per orbit, its canonical
// representative, so each orbit is stored once.
//
// Canonicalize must map every state of an orbit to the same state of that
// orbit, and the orbits must be those of a group of permutations g with
// Actions(g·s) = g·Actions(s), Next(g·s, g·a) = g·Next(s, a), and every
// invariant, goal and IsTerminal judging g·s as s (the KV-cache spec tests
// this over sampled reachable states, spec/symmetry_test.go).
type Symmetric[S any] interface {
	// HasSymmetry reports whether any state has an image other than
	// itself; when it does not, the search skips Canonicalize.
	HasSymmetry() bool
	// Canonicalize rewrites *s into the representative of its orbit.
	Canonicalize(s *S)
}

// symmetryOf returns the spec's symmetry when opts asks for it and the
// spec has one, else nil.
func symmetryOf[S, A any](spec Spec[S, A], opts Options) Symmetric[S] {
	if !opts.Symmetry {
		return nil
	}
	if sym, ok := unwrap(spec).(Symmetric[S]); ok && sym.HasSymmetry() {
		return sym
	}
	return nil
}

// canonicalize rewrites st into its orbit's representative when the search
// reduces by symmetry.
func (s *search[S, A]) canonicalize(st *S) {
	if s.sym != nil {
		s.sym.Canonicalize(st)
	}
}

// canonicalFingerprint is the fingerprint the search stores st's orbit
// under.
func (s *search[S, A]) canonicalFingerprint(st *S) uint64 {
	if s.sym == nil {
		return s.fingerprint(st)
	}
	c := *st
	s.sym.Canonicalize(&c)
	return s.fingerprint(&c)
}

// concreteTraceTo returns the actions of a concrete run from the initial
// state to a state of the orbit of the stored state idx, and the state it
// ends in. The parent links record action positions among the enabled
// actions of the canonical parent, which are not the concrete state's, so
// the canonical path is re-executed alongside: at each step the concrete
// run takes its first enabled action whose successor has the canonical
// form of the next canonical state on the path. One exists because the
// concrete state is an image of the canonical one.
func (s *search[S, A]) concreteTraceTo(idx uint32) ([]A, S) {
	path := s.links.path(idx)
	trace := make([]A, 0, len(path))
	canon := s.spec.Initial()
	s.sym.Canonicalize(&canon)
	st := s.spec.Initial()
	var enabled, mine []A
	for step, k := range path {
		enabled = s.spec.Actions(&canon, enabled[:0])
		canon = s.spec.Next(&canon, enabled[k])
		s.sym.Canonicalize(&canon)
		want := s.fingerprint(&canon)
		mine = s.spec.Actions(&st, mine[:0])
		found := false
		for _, a := range mine {
			next := s.spec.Next(&st, a)
			if s.canonicalFingerprint(&next) == want {
				trace = append(trace, a)
				st, found = next, true
				break
			}
		}
		if !found {
			panic(fmt.Sprintf("model: symmetry reduction: no action of the concrete state at step %d leads to the orbit of the stored path's next state (%s from the canonical state): the spec's Canonicalize is not a symmetry",
				step+1, s.spec.ActionString(enabled[k])))
		}
	}
	return trace, st
}

// concreteFailure returns the message of invariant name in the concrete
// state st, where a symmetric image of the stored state broke it, or
// message when st satisfies it (it must not) or the invariant is a
// deadlock.
func (s *search[S, A]) concreteFailure(name, message string, st *S) string {
	for _, inv := range s.invariants {
		if inv.Name == name {
			if f := inv.Check(st); f != nil {
				return f.Message
			}
		}
	}
	return message
}

// violationTrace returns the trace to the stored state idx that breaks f,
// and f's message; under symmetry reduction the trace is concrete and the
// message is the one its end state gives (it names that state's ranks and
// requests, not the canonical state's).
func (s *search[S, A]) violationTrace(f InvariantFailure, idx uint32) ([]A, string) {
	if s.sym == nil {
		return s.traceTo(idx), f.Message
	}
	trace, st := s.concreteTraceTo(idx)
	return trace, s.concreteFailure(f.Invariant, f.Message, &st)
}
