package triage

import (
	"errors"
	"fmt"
	"regexp"
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

// sweepFinding is how a sweep transcript's banner names its configuration.
var sweepFinding = regexp.MustCompile(`the smallest breaking one \((#\d+: [^)]*)\)`)

// Heading names what a transcript shows, for a triage block: its banner's
// title and, for a sweep's smallest counterexample, its configuration's
// number and size in the sweep.
func Heading(res *counterexamples.Result) string {
	if len(res.Transcript.Banner) == 0 {
		return res.File
	}
	heading := strings.TrimSpace(res.Transcript.Banner[0])
	if m := sweepFinding.FindStringSubmatch(strings.Join(strings.Fields(strings.Join(res.Transcript.Banner, " ")), " ")); m != nil {
		heading += " (sweep configuration " + m[1] + ")"
	}
	return heading
}

// File replays the transcript at path and triages the violation it shows.
func File(path string, opts Options) (*Report, error) {
	rep, _, err := FileWithHeading(path, opts)
	return rep, err
}

// FileWithHeading is File, and the transcript's Heading.
func FileWithHeading(path string, opts Options) (*Report, string, error) {
	res, err := counterexamples.ReplayFile(path)
	if err != nil {
		var inputErr *counterexamples.InputError
		if errors.As(err, &inputErr) {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("%s: %v", path, err)
	}
	f, err := FromTranscript(res)
	if err != nil {
		return nil, "", err
	}
	rep, err := Triage(f, opts)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", path, err)
	}
	return rep, Heading(res), nil
}
