package triage

import (
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// Finding is one violation to triage: the configuration and fixes it was
// found under and a trace to it (for a livelock, the stem and the cycle).
type Finding struct {
	// Scenario is the scenario the configuration belongs to (its depth
	// bound and goals); nil for a bare configuration.
	Scenario *scenario.Scenario
	Config   spec.Config
	Fixes    spec.Fixes
	// Invariant and Message are the violation's; Group its failure group
	// ("" to derive it from the trace).
	Invariant, Message, Group string
	Trace, Cycle              []spec.Action
}

// ParseFinding builds a finding from a violation as text: the
// configuration text, the trace and cycle lines (as sweep records and
// check reports hold them).
func ParseFinding(sc *scenario.Scenario, configText string, fixes spec.Fixes, invariant, message, group string, trace, cycle []string) (Finding, error) {
	cfg, err := configtext.Parse(spec.Config{}, configText)
	if err != nil {
		return Finding{}, fmt.Errorf("the finding's configuration: %v", err)
	}
	sp, err := spec.New(cfg, fixes)
	if err != nil {
		return Finding{}, err
	}
	f := Finding{Scenario: sc, Config: cfg, Fixes: fixes, Invariant: invariant, Message: message, Group: group}
	for _, lines := range []struct {
		in  []string
		out *[]spec.Action
	}{{trace, &f.Trace}, {cycle, &f.Cycle}} {
		for _, line := range lines.in {
			a, err := sp.ParseAction(line)
			if err != nil {
				return Finding{}, fmt.Errorf("the finding's trace: %q: %v", line, err)
			}
			*lines.out = append(*lines.out, a)
		}
	}
	return f, nil
}

// Signature is what identifies a violation across configurations: the
// invariant and, for a raise, the function, pool and error (the spec's
// failure group); mechanisms are what its trace exercised.
type Signature struct {
	Invariant string `json:"invariant"`
	// Group is the failure group ("_prepare_draft_resources draft pool:
	// RuntimeError: Draft KV cache context resize failed for request {id}:
	// ..."), "" when the invariant has none.
	Group string `json:"group,omitempty"`
	// Function is the raising function, "" for an invariant that is not a
	// raise.
	Function string `json:"function,omitempty"`
	// Mechanisms are the spec branches (spec.Branch names) and raises the
	// trace exercises, in the coverage table's order.
	Mechanisms []string `json:"mechanisms"`
}

// Words is the signature in a few words: "no-crash-on-refusal in
// _prepare_draft_resources (draft pool): RuntimeError: ...".
func (s Signature) Words() string {
	if s.Function != "" {
		where, err, _ := strings.Cut(strings.TrimPrefix(s.Group, s.Function+" "), ": ")
		return fmt.Sprintf("%s in %s (%s): %s", s.Invariant, s.Function, where, err)
	}
	if s.Group != "" {
		return s.Invariant + " (" + s.Group + ")"
	}
	return s.Invariant
}

// match is what a re-check looks for: the invariant and, for a raise,
// the raising function (the error text may change with the sizes: a
// context resize at one scale is a generation resize at another); for
// another invariant with a group, the group.
func (s Signature) match() string {
	if s.Function != "" {
		return s.Function + " "
	}
	return s.Group
}

// signature replays the finding's trace (and cycle) with coverage on and
// reads its signature: the failure group of its invariant in the last
// state, unless the finding gives it, and the mechanisms exercised.
func (f *Finding) signature() (Signature, error) {
	sp, err := spec.New(f.Config, f.Fixes)
	if err != nil {
		return Signature{}, err
	}
	sp.Scenario = f.Scenario.Info()
	sp.Cover = spec.NewCoverage()
	states, err := model.Replay[spec.State, spec.Action](sp, append(append([]spec.Action(nil), f.Trace...), f.Cycle...))
	if err != nil {
		return Signature{}, fmt.Errorf("the finding's trace does not replay: %v", err)
	}
	sig := Signature{Invariant: f.Invariant, Group: f.Group}
	if sig.Group == "" && f.Invariant != model.LivelockInvariant {
		last := states[len(f.Trace)]
		for _, fail := range model.CheckState[spec.State, spec.Action](sp, &last) {
			if fail.Invariant == f.Invariant {
				sig.Group = fail.Group
				break
			}
		}
	}
	if f.Invariant == spec.InvNoCrash {
		sig.Function, _, _ = strings.Cut(sig.Group, " ")
	}
	for _, row := range sp.Cover.Rows() {
		if row.Count > 0 && row.Kind != spec.CoverAction {
			sig.Mechanisms = append(sig.Mechanisms, row.Name)
		}
	}
	return sig, nil
}
