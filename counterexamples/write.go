package counterexamples

import (
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// Counterexample is everything a transcript is written from.
type Counterexample struct {
	// Spec is the configuration and fixes the trace runs under; its
	// Scenario, if set, names the built-in scenario and seed report.
	Spec  *spec.Spec
	Trace []spec.Action
	// Invariant and Message are the violation the search found at the end
	// of the trace ("" for a fix transcript). The `[*]` step is the first
	// step that breaks Invariant, or the last step when replaying does not
	// show it (a deadlock or livelock).
	Invariant, Message string
	// FoundBy is the command that found the trace and Search the search
	// that did, in words ("breadth-first to depth 17, 97 states: a shortest
	// trace").
	FoundBy, Search string
	// FixedBy lists the fixes checked to close the violation.
	FixedBy []FixNote
	// ReplayOf names the transcript whose actions a fix transcript replays;
	// "" for a transcript of a violation found by search. ReplayStep is the
	// 1-based step at which that transcript broke an invariant and
	// ReplayBroke what broke there ("_prepare_draft_resources raised",
	// "no-leaked-cache broke"),
	// so the fix transcript marks the same step.
	ReplayOf    string
	ReplayStep  int
	ReplayBroke string
	// Notes are extra banner lines (for example, which actions a fix
	// transcript had to adapt).
	Notes []string
}

// FixNote is one fix and what the checker says of it.
type FixNote struct {
	Fixes spec.Fixes
	// Verdict says what the check of the fix found ("no violation, 695
	// states, complete").
	Verdict string
	// File is the fix transcript, "" if none.
	File string
}

// FileName names a transcript after the scenario, the fixes ("real-code"
// for none) and the invariant it violates ("ok" for none):
// "draft-admission.real-code.no-crash-on-refusal.txt".
func FileName(scenario string, fixes spec.Fixes, invariant string) string {
	if invariant == "" {
		invariant = "ok"
	}
	return fmt.Sprintf("%s.%s.%s.txt", scenario, fixesName(fixes), invariant)
}

// fixesName is the fixes joined by "+", or "real-code".
func fixesName(fixes spec.Fixes) string {
	if names := fixes.Names(); len(names) > 0 {
		return strings.Join(names, "+")
	}
	return "real-code"
}

// fixesArg is the fixes as the config directive's argument.
func fixesArg(fixes spec.Fixes) string {
	if names := fixes.Names(); len(names) > 0 {
		return strings.Join(names, ",")
	}
	return "none"
}

// Write renders a counterexample as a transcript: the banner, the config
// directive with the configuration text (ConfigText), one directive per
// action and, for a fix transcript, an invariants directive; every output
// is filled in by replaying it, so the result replays as it is written.
func Write(ce Counterexample) ([]byte, error) {
	body := skeleton(ce)
	first, err := Replay(fileLabel(ce), []byte(body))
	if err != nil {
		return nil, fmt.Errorf("the written transcript does not replay: %w", err)
	}
	steps := first.Replayer.Steps
	marked := markedStep(ce, steps)
	var b strings.Builder
	for _, line := range banner(ce, steps, marked) {
		if line == "" {
			b.WriteString("#\n")
			continue
		}
		b.WriteString("# " + line + "\n")
	}
	b.WriteString("\n")
	b.WriteString(withMarker(body, ce, steps, marked))
	res, err := Replay(fileLabel(ce), []byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("the written transcript does not replay: %w", err)
	}
	return res.Actual, nil
}

// markedStep is the index of the step the `[*]` marks: the first that
// breaks the found invariant (or, without one, any invariant) or is not
// enabled; for a fix transcript, the step where the real code broke; -1
// for none.
func markedStep(ce Counterexample, steps []Step) int {
	for i, s := range steps {
		if !s.Enabled {
			return i
		}
		for _, v := range s.Violations {
			if ce.Invariant == "" || v.Invariant == ce.Invariant {
				return i
			}
		}
	}
	if ce.Invariant != "" && len(steps) > 0 {
		return len(steps) - 1
	}
	if ce.ReplayStep > 0 && ce.ReplayStep <= len(steps) {
		return ce.ReplayStep - 1
	}
	return -1
}

// fileLabel names an unwritten transcript in errors.
func fileLabel(ce Counterexample) string {
	return FileName(scenarioName(ce.Spec), ce.Spec.Fixes, "")
}

// scenarioName is the spec's scenario name, or "custom".
func scenarioName(sp *spec.Spec) string {
	if sp.Scenario != nil {
		return sp.Scenario.Name
	}
	return "custom"
}

// ConfigText is the configuration as the config directive's input: the
// lines of spec.FormatConfig that differ from the zero Config's, which is
// what a transcript's configuration starts from, so the text is
// self-contained and short.
func ConfigText(cfg *spec.Config) string {
	zero := map[string]bool{}
	for _, line := range strings.Split(spec.FormatConfig(&spec.Config{}), "\n") {
		zero[line] = true
	}
	var b strings.Builder
	for _, line := range strings.Split(spec.FormatConfig(cfg), "\n") {
		if line != "" && !zero[line] {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// skeleton is the transcript without banner and outputs.
func skeleton(ce Counterexample) string {
	var b strings.Builder
	b.WriteString("config")
	if ce.Spec.Scenario != nil {
		b.WriteString(" scenario=" + ce.Spec.Scenario.Name)
	}
	b.WriteString(" fixes=" + fixesArg(ce.Spec.Fixes) + "\n")
	b.WriteString(ConfigText(&ce.Spec.Config))
	b.WriteString("----\n\n")
	for _, a := range ce.Trace {
		b.WriteString(a.String() + "\n----\n\n")
	}
	if ce.ReplayOf != "" {
		b.WriteString(DirInvariants + "\n----\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// withMarker puts the `[*]` comment above the marked step's directive.
func withMarker(body string, ce Counterexample, steps []Step, marked int) string {
	if marked < 0 {
		return body
	}
	target := steps[marked].Line
	lines := strings.SplitAfter(body, "\n")
	var b strings.Builder
	for i, line := range lines {
		if i+1 == target {
			b.WriteString("# [*] " + markerText(ce, steps[marked], marked+1) + "\n")
		}
		b.WriteString(line)
	}
	return b.String()
}

// markerText says what happens at the marked step and which fix closes it.
func markerText(ce Counterexample, s Step, number int) string {
	var what string
	switch {
	case !s.Enabled:
		what = "is not enabled under this fix"
	case s.After.Crash.Happened:
		what = fmt.Sprintf("%s raises", s.After.Crash.Function)
	case len(s.Violations) > 0:
		what = "breaks " + violationNames(s.Violations)
	case ce.Invariant != "":
		what = "ends in a " + ce.Invariant + ": " + ce.Message
	default:
		return fmt.Sprintf("step %d: in the real code %s here (%s); under %s nothing breaks", number, ce.ReplayBroke, ce.ReplayOf, fixesName(ce.Spec.Fixes))
	}
	text := "step " + itoa(number) + " " + what
	if closing := closingFixes(ce.FixedBy); closing != "" {
		text += "; closed by " + closing
	}
	return text
}

// closingFixes names the fixes that close the violation.
func closingFixes(notes []FixNote) string {
	var names []string
	for _, n := range notes {
		if strings.HasPrefix(n.Verdict, "closes") {
			names = append(names, fixesName(n.Fixes))
		}
	}
	return strings.Join(names, ", ")
}

func violationNames(vs []Violation) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Invariant
	}
	return strings.Join(names, ", ")
}
