package model

// From returns spec started at init instead of its initial state, for a
// bounded search from a state a random walk reached (the fuzzer confirms a
// livelock candidate this way). Its end states, progress and livelock
// stories are the spec's own.
func From[S any, A any](spec Spec[S, A], init S) Spec[S, A] {
	return &fromSpec[S, A]{Spec: spec, init: init}
}

// fromSpec is the Spec From returns.
type fromSpec[S any, A any] struct {
	Spec[S, A]
	init S
}

// Initial returns the state the search starts from.
func (f *fromSpec[S, A]) Initial() S { return f.init }

// IsTerminal forwards to the spec's Terminator, if it has one.
func (f *fromSpec[S, A]) IsTerminal(s *S) bool {
	if t, ok := f.Spec.(Terminator[S]); ok {
		return t.IsTerminal(s)
	}
	return false
}
