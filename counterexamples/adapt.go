package counterexamples

import (
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// Adaptation is one change Adapt made to a trace: step Step takes Took
// where the real code took Real, which is not enabled under the fix; or,
// with Ended, the trace ends before step Step, whose real action has no
// stand-in (Enabled lists what is enabled there instead).
type Adaptation struct {
	Step       int
	Real, Took spec.Action
	Ended      bool
	Enabled    []spec.Action
}

// String says the adaptation in banner words.
func (a Adaptation) String() string {
	if a.Ended {
		enabled := make([]string, len(a.Enabled))
		for i, e := range a.Enabled {
			enabled[i] = e.String()
		}
		if len(enabled) == 0 {
			enabled = []string{"nothing"}
		}
		return fmt.Sprintf("Under the fix the trace ends after step %d: step %d of the real code, %q, is not enabled (enabled: %s).",
			a.Step-1, a.Step, a.Real.String(), strings.Join(enabled, ", "))
	}
	return fmt.Sprintf("Step %d is %q where the real code took %q, which is not enabled under the fix.", a.Step, a.Took.String(), a.Real.String())
}

// Adapt prepares a trace found on one spec (the real code) for replay on
// another (a fix): each action is kept when it is enabled; otherwise the
// enabled action of the same kind on the same rank closest to it stands in
// (the one that agrees on the most per-request choices, such as accepted
// draft tokens); the trace ends before the first action with no stand-in.
// It returns the trace and every substitution and end.
func Adapt(sp *spec.Spec, trace []spec.Action) ([]spec.Action, []Adaptation) {
	s := sp.Initial()
	var out []spec.Action
	var notes []Adaptation
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
			return out, append(notes, Adaptation{Step: i + 1, Real: a, Ended: true, Enabled: enabled})
		}
		if !found {
			notes = append(notes, Adaptation{Step: i + 1, Real: a, Took: chosen})
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
