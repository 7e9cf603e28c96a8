package spec

import (
	"fmt"

	"github.com/kvcheck/kvcheck/model"
)

// Spec is the executable spec of one scenario under a set of fixes: a
// model.Spec[State, Action] the checker and the fuzzer explore.
type Spec struct {
	Config Config
	Fixes  Fixes
	// Scenario is the built-in scenario the spec was made from, if any; it
	// contributes goals.
	Scenario *Scenario
}

var _ model.Spec[State, Action] = (*Spec)(nil)
var _ model.Terminator[State] = (*Spec)(nil)

// New returns the spec of cfg with fixes applied, or the configuration's
// validation error.
func New(cfg Config, fixes Fixes) (*Spec, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Spec{Config: cfg, Fixes: fixes}, nil
}

// Initial is the engine after start-up: every pool empty, no request.
func (sp *Spec) Initial() State {
	var s State
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		for p := Target; p < numPools; p++ {
			s.Ranks[r].Pools[p].Free = sp.Config.poolBlocks(p)
		}
	}
	return s
}

// Actions appends the enabled actions in a fixed order: the next arrival,
// then each rank's next executor phase.
func (sp *Spec) Actions(s *State, out []Action) []Action {
	if s.Crash.Happened {
		return out
	}
	if int(s.Arrived) < len(sp.Config.Requests) {
		t := sp.Config.template(s.Arrived + 1)
		if s.Ranks[t.Rank].Phase == PhaseIdle {
			out = append(out, Action{Kind: ActArrive, ID: s.Arrived + 1})
		}
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		rank := &s.Ranks[r]
		switch rank.Phase {
		case PhaseIdle:
			if sp.hasActiveRequests(rank) {
				out = append(out, Action{Kind: ActSchedule, Rank: r})
			}
		case PhaseScheduled:
			out = append(out, Action{Kind: ActPrepareResources, Rank: r})
		case PhasePrepared:
			out = sp.forwardChoices(rank, r, out)
		case PhaseForwarded:
			out = append(out, Action{Kind: ActUpdate, Rank: r})
		}
	}
	return out
}

// hasActiveRequests reports whether the rank has a request the scheduler
// could look at.
func (sp *Spec) hasActiveRequests(rank *Rank) bool {
	for id := range rank.Requests {
		switch rank.Requests[id].State {
		case ContextInit, GenerationInProgress, GenerationComplete:
			return true
		}
	}
	return false
}

// forwardChoices enumerates the environment's choices for one forward:
// accepted draft tokens 0..max_draft_len for each generation entry and, with
// EarlyFinish, whether it ends at EOS.
func (sp *Spec) forwardChoices(rank *Rank, r uint8, out []Action) []Action {
	var gens [MaxBatch]uint8
	n := 0
	for i := 0; i < int(rank.Batch.Count); i++ {
		if e := rank.Batch.Entries[i]; e.Kind == GenerationStep {
			gens[n] = e.ID
			n++
		}
	}
	base := Action{Kind: ActForward, Rank: r}
	for i := 0; i < n; i++ {
		base.Requests |= 1 << gens[i]
	}
	options := int(sp.Config.MaxDraftLen) + 1
	if sp.Config.EarlyFinish {
		options *= 2
	}
	total := 1
	for i := 0; i < n; i++ {
		total *= options
	}
	for c := 0; c < total; c++ {
		a := base
		rest := c
		for i := 0; i < n; i++ {
			choice := rest % options
			rest /= options
			a.Accepted[gens[i]] = uint8(choice % (int(sp.Config.MaxDraftLen) + 1))
			if choice > int(sp.Config.MaxDraftLen) {
				a.EOS |= 1 << gens[i]
			}
		}
		out = append(out, a)
	}
	return out
}

// Next applies action a to a copy of s.
func (sp *Spec) Next(s *State, a Action) State {
	next := *s
	switch a.Kind {
	case ActArrive:
		sp.arrive(&next)
	case ActSchedule:
		sp.schedule(&next, a.Rank)
	case ActPrepareResources:
		sp.prepareResources(&next, a.Rank)
	case ActForward:
		sp.forward(&next, &a)
	case ActUpdate:
		sp.update(&next, a.Rank)
	}
	return next
}

// Fingerprint hashes the state bytes of the configured ranks.
func (sp *Spec) Fingerprint(s *State) uint64 { return fingerprint(s, int(sp.Config.Ranks)) }

// ActionString renders an action as its transcript line.
func (sp *Spec) ActionString(a Action) string { return a.String() }

// IsTerminal says a state with no enabled action is a legitimate end: the
// engine crashed (an invariant reports it) or every request finished.
func (sp *Spec) IsTerminal(s *State) bool {
	if s.Crash.Happened {
		return true
	}
	return sp.allFinished(s)
}

// allFinished reports whether every request arrived and finished on every
// rank it was routed to.
func (sp *Spec) allFinished(s *State) bool {
	if int(s.Arrived) < len(sp.Config.Requests) {
		return false
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		for id := 1; id <= len(sp.Config.Requests); id++ {
			if sp.Config.Requests[id-1].Rank != r {
				continue
			}
			if s.Ranks[r].Requests[id].State != Finished {
				return false
			}
		}
	}
	return true
}

// ParseAction parses a transcript line and checks it fits this spec's
// configuration.
func (sp *Spec) ParseAction(line string) (Action, error) {
	a, err := ParseAction(line)
	if err != nil {
		return a, err
	}
	if a.Kind != ActArrive && a.Rank >= sp.Config.Ranks {
		return a, fmt.Errorf("%s: rank %d, but the scenario has %d rank(s)", a.Kind, a.Rank, sp.Config.Ranks)
	}
	if a.Kind == ActArrive && int(a.ID) > len(sp.Config.Requests) {
		return a, fmt.Errorf("arrive: request %d, but the scenario has %d request(s)", a.ID, len(sp.Config.Requests))
	}
	return a, nil
}
