package model

// OnlyInvariants returns spec with its invariants narrowed to the named
// ones, so a search can look past a violation it already knows (for
// example, follow a leak to the crash it causes). Goals, actions and
// terminal states are the spec's own.
func OnlyInvariants[S any, A any](spec Spec[S, A], names []string) Spec[S, A] {
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	return &narrowedSpec[S, A]{Spec: spec, keep: keep}
}

// narrowedSpec is the Spec OnlyInvariants returns.
type narrowedSpec[S any, A any] struct {
	Spec[S, A]
	keep map[string]bool
}

// Invariants returns the kept invariants, in the spec's order.
func (n *narrowedSpec[S, A]) Invariants() []Invariant[S] {
	var out []Invariant[S]
	for _, inv := range n.Spec.Invariants() {
		if n.keep[inv.Name] {
			out = append(out, inv)
		}
	}
	return out
}

// IsTerminal forwards to the spec's Terminator, if it has one.
func (n *narrowedSpec[S, A]) IsTerminal(s *S) bool {
	if t, ok := n.Spec.(Terminator[S]); ok {
		return t.IsTerminal(s)
	}
	return false
}
