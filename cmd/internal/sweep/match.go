package sweep

import (
	"strings"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
)

// Match names the one violation a search looks for: an invariant and the
// start of its failure group (for a raise, "FUNCTION " or "FUNCTION POOL
// pool: ERROR"; "" for any group). Other violations neither stop the
// search nor count: a state that breaks another invariant is expanded like
// any other (a crash of another kind has no successors anyway), so the
// answer is whether this violation is reachable at all, not whether it is
// the first one found. A livelock is looked for with every invariant kept
// and the search going on past the others (model.Options.KeepGoing), since
// what a run can still reach decides what is doomed.
type Match struct {
	Invariant string `json:"invariant"`
	Group     string `json:"group,omitempty"`
}

// counts reports whether a violation is the one m looks for.
func (m *Match) counts(invariant, group string) bool {
	return invariant == m.Invariant && strings.HasPrefix(group, m.Group)
}

// narrow returns the spec and options the search for m runs with.
func (m *Match) narrow(sp model.Spec[spec.State, spec.Action], opts *model.Options) model.Spec[spec.State, spec.Action] {
	if m.Invariant == model.LivelockInvariant {
		opts.KeepGoing, opts.Liveness = true, true
		return sp
	}
	return &matchedSpec{Spec: sp, match: m}
}

// pick keeps the violation m looks for, if the search found it.
func (m *Match) pick(found []model.Violation[spec.Action]) []model.Violation[spec.Action] {
	for _, v := range found {
		if m.counts(v.Invariant, v.Group) {
			return []model.Violation[spec.Action]{v}
		}
	}
	return nil
}

// matchedSpec is a spec whose only invariant is the matched one, failing
// only with a matching group.
type matchedSpec struct {
	model.Spec[spec.State, spec.Action]
	match *Match
}

// Invariants returns the matched invariant, its check narrowed to the
// matched group.
func (m *matchedSpec) Invariants() []model.Invariant[spec.State] {
	var out []model.Invariant[spec.State]
	for _, inv := range m.Spec.Invariants() {
		if inv.Name != m.match.Invariant {
			continue
		}
		check := inv.Check
		inv.Check = func(s *spec.State) *model.Failure {
			if f := check(s); f != nil && m.match.counts(inv.Name, f.Group) {
				return f
			}
			return nil
		}
		out = append(out, inv)
	}
	return out
}

// IsTerminal forwards to the spec's Terminator.
func (m *matchedSpec) IsTerminal(s *spec.State) bool {
	if t, ok := m.Spec.(model.Terminator[spec.State]); ok {
		return t.IsTerminal(s)
	}
	return false
}
