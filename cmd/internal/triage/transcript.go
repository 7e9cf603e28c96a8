package triage

import (
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/counterexamples"
	"github.com/kvcheck/kvcheck/model"
)

// FromTranscript is the finding a replayed transcript shows: its
// configuration, fixes and steps up to the first that breaks an invariant
// (the one its file name names, when several break there), or a livelock
// when it ends in a cycle. A transcript that shows no violation (a fix
// transcript) or no longer replays as written is an error that says so.
func FromTranscript(res *counterexamples.Result) (Finding, error) {
	if !res.Matches() {
		return Finding{}, fmt.Errorf("%s no longer replays as written; triage a transcript of the current spec (kvcheck replay %s shows the difference)", res.File, res.File)
	}
	r := res.Replayer
	f := Finding{Scenario: r.Scenario, Config: r.Spec.Config, Fixes: r.Spec.Fixes}
	for _, s := range r.Steps {
		if s.InCycle {
			f.Cycle = append(f.Cycle, s.Action)
		} else if f.Invariant == "" {
			f.Trace = append(f.Trace, s.Action)
		}
		if f.Invariant != "" || len(s.Violations) == 0 {
			continue
		}
		v := s.Violations[0]
		for _, other := range s.Violations {
			if strings.Contains(res.File, "."+other.Invariant+".") {
				v = other
			}
		}
		f.Invariant, f.Message = v.Invariant, v.Message
	}
	switch {
	case len(f.Cycle) > 0:
		f.Invariant, f.Message = model.LivelockInvariant, ""
	case f.Invariant == "":
		return Finding{}, fmt.Errorf("%s shows no violation (a fix transcript replays the real code's steps without one): nothing to triage", res.File)
	}
	return f, nil
}
