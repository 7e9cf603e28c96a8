package spec

// This file holds what the counterexample transcripts need to read and
// word the spec's values without parsing text the spec rendered.

// ActionKindNamed returns the action kind whose transcript name
// (ActionKind.String) is name.
func ActionKindNamed(name string) (ActionKind, bool) {
	for k := ActArrive; k < numActionKinds; k++ {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}
