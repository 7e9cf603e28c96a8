package counterexamples

import (
	"fmt"

	"github.com/kvcheck/kvcheck/spec"
)

// Adapt prepares a trace found on one spec (the real code) for replay on
// another (a fix): each action is kept when it is enabled; otherwise the
// enabled action of the same kind on the same rank closest to it stands in
// (the one that agrees on the most per-request choices, such as accepted
// draft tokens); the trace ends before the first action with no stand-in.
// The notes say, in banner words, every substitution and where and why the
// trace ended.
func Adapt(sp *spec.Spec, trace []spec.Action) ([]spec.Action, []string) {
	s := sp.Initial()
	var out []spec.Action
	var notes []string
	for i, a := range trace {
		enabled := sp.Actions(&s, nil)
		chosen, found := spec.Action{}, false
		best := -1
		for _, e := range enabled {
			if e.String() == a.String() {
				chosen, found = e, true
				break
			}
			if e.Kind != a.Kind || e.Rank != a.Rank {
				continue
			}
			if score := agreement(a, e); score > best {
				chosen, best = e, score
			}
		}
		if !found && best < 0 {
			notes = append(notes, fmt.Sprintf("Under the fix the trace ends after step %d: step %d of the real code, %q, is not enabled (enabled: %s).",
				i, i+1, a.String(), actionList(enabled)))
			return out, notes
		}
		if !found {
			notes = append(notes, fmt.Sprintf("Step %d is %q where the real code took %q, which is not enabled under the fix.",
				i+1, chosen.String(), a.String()))
		}
		out = append(out, chosen)
		s = sp.Next(&s, chosen)
	}
	return out, notes
}

// agreement counts the request IDs on which two actions make the same
// choice (listed or not, accepted tokens, early finish).
func agreement(a, b spec.Action) int {
	n := 0
	for id := 0; id < spec.MaxIDs; id++ {
		bit := uint16(1) << id
		if a.Requests&bit == b.Requests&bit && a.EOS&bit == b.EOS&bit && a.Accepted[id] == b.Accepted[id] {
			n++
		}
	}
	return n
}

// actionList joins action lines, "nothing" for none.
func actionList(actions []spec.Action) string {
	if len(actions) == 0 {
		return "nothing"
	}
	text := ""
	for i, a := range actions {
		if i > 0 {
			text += ", "
		}
		text += a.String()
	}
	return text
}
