package model

// InvariantFailure is one invariant that does not hold in a state.
type InvariantFailure struct {
	Invariant string // the invariant's Name
	Failure
}

// CheckState runs every invariant of spec on s, in order, and returns the
// ones that fail (nil when all hold).
func CheckState[S, A any](spec Spec[S, A], s *S) []InvariantFailure {
	return checkInvariants(spec.Invariants(), s, true)
}

// checkInvariants runs invs on s in order and returns the failures; unless
// all is set it stops at the first.
func checkInvariants[S any](invs []Invariant[S], s *S, all bool) []InvariantFailure {
	var failures []InvariantFailure
	for _, inv := range invs {
		if f := inv.Check(s); f != nil {
			failures = append(failures, InvariantFailure{Invariant: inv.Name, Failure: *f})
			if !all {
				break
			}
		}
	}
	return failures
}
