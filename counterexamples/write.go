package counterexamples

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kvcheck/kvcheck/spec"

	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/space"
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
	// 1-based step at which that transcript broke ReplayInvariant, and
	// ReplayCrash the raise there if the engine crashed, so the fix
	// transcript marks the same step and says what broke.
	ReplayOf        string
	ReplayStep      int
	ReplayInvariant string
	ReplayCrash     spec.Crash
	// Adapted lists the actions a fix transcript had to adapt (Adapt).
	Adapted []Adaptation
	// Cycle is, for a livelock, the actions that lead from the state
	// Trace ends in back to it; written as a cycle directive (cycle.go).
	Cycle []spec.Action
	// Triage is the violation's triage paragraph (kvcheck triage, starting
	// with TriagePrefix), "" for none; the banner ends with it.
	Triage string
}

// FixNote is one fix set and what its check found against the real
// code's violation: the violation that remains (Invariant after Steps
// steps), or none, and then whether every scenario goal was reached.
type FixNote struct {
	Fixes spec.Fixes
	// Invariant is the violation the fix set still shows, "" for none, and
	// Steps the length of its shortest trace.
	Invariant string
	Steps     int
	// MissedGoals are the scenario goals the check never reached.
	MissedGoals []string
	// States is the number of states the check explored, and Complete
	// whether they are every reachable one.
	States   int
	Complete bool
	// File is the fix set's transcript, "" if none.
	File string
}

// Closes reports whether the fix set closes the violation: no violation,
// every goal reached.
func (n FixNote) Closes() bool { return n.Invariant == "" && len(n.MissedGoals) == 0 }

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
func fixesName(fixes spec.Fixes) string { return fixesWords(fixes, "real-code") }

// fixesWords is the fixes joined by "+", or realCode for none.
func fixesWords(fixes spec.Fixes, realCode string) string {
	if names := fixes.Names(); len(names) > 0 {
		return strings.Join(names, "+")
	}
	return realCode
}

// fixesArg is the fixes as the config directive's argument.
func fixesArg(fixes spec.Fixes) string {
	if names := fixes.Names(); len(names) > 0 {
		return strings.Join(names, ",")
	}
	return "none"
}

// MaxLines is the length a written transcript keeps to when it can: it
// groups actions into fewer directives until it fits (see Write).
const MaxLines = 100

// Write renders a counterexample as a transcript: the banner, the config
// directive with the configuration text (ConfigText), the actions in
// directives and, for a fix transcript, an invariants directive; every
// output is filled in by replaying it, so the result replays as it is
// written. Each directive is one action when the transcript then fits in
// MaxLines lines; otherwise one iteration of a rank (its actions up to the
// one that ends it: update, update-resources or handle); otherwise one
// round (up to the end of an iteration of the last rank); otherwise two,
// three, ... rounds: the first of these that fits, or the last. The step
// the `[*]` marks always ends its directive.
func Write(ce Counterexample) ([]byte, error) {
	first, err := Replay(fileLabel(ce), []byte(skeleton(ce, groupSteps(ce.Spec, ce.Trace, 0, -1), -1)))
	if err != nil {
		return nil, fmt.Errorf("the written transcript does not replay: %w", err)
	}
	steps := first.Replayer.Steps
	marked := markedStep(ce, steps)
	var out []byte
	prev := -1
	for level := 0; level <= len(ce.Trace)+2; level++ {
		groups := groupSteps(ce.Spec, ce.Trace, level, marked)
		if len(groups) == prev {
			continue
		}
		prev = len(groups)
		var b strings.Builder
		for _, line := range banner(ce, steps, marked) {
			b.WriteString("# " + line + "\n")
		}
		b.WriteString("\n")
		b.WriteString(skeleton(ce, groups, marked))
		res, err := Replay(fileLabel(ce), []byte(b.String()))
		if err != nil {
			return nil, fmt.Errorf("the written transcript does not replay: %w", err)
		}
		out = res.Actual
		if strings.Count(string(out), "\n") <= MaxLines || len(groups) <= 1 {
			break
		}
	}
	return out, nil
}

// groupSteps splits a trace into the directives of a transcript, as lists
// of step indices, at one of Write's levels: 0 one action each; 1 one
// iteration of a rank (up to an action that ends one); 2 one round (up to
// the end of an iteration of the last rank); 3 and up, level-1 rounds
// each, counted back from the end so the last directive, the one that
// breaks, has its full share. The marked step (if >= 0) ends its
// directive.
func groupSteps(sp *spec.Spec, trace []spec.Action, level, marked int) [][]int {
	var groups [][]int
	var cur []int
	for i, a := range trace {
		cur = append(cur, i)
		end := level == 0 || i == marked
		if !end && endsIteration(a) {
			end = level == 1 || int(a.Rank) == int(sp.Config.Ranks)-1
		}
		if end {
			groups = append(groups, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	if level < 3 {
		return groups
	}
	k := level - 1
	var merged [][]int
	for end := len(groups); end > 0; {
		start := end - 1
		for start > 0 && end-start < k && !slices.Contains(groups[start-1], marked) {
			start--
		}
		merged = append(merged, slices.Concat(groups[start:end]...))
		end = start
	}
	slices.Reverse(merged)
	return merged
}

// endsIteration reports whether an action ends a rank's executor-loop
// iteration.
func endsIteration(a spec.Action) bool {
	switch a.Kind {
	case spec.ActUpdate, spec.ActUpdateResources, spec.ActHandle:
		return true
	}
	return false
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
		return min(len(steps), len(ce.Trace)) - 1 // a livelock's: the stem's last, before the cycle
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

// configLineWidth is where the config directive's settings wrap.
const configLineWidth = 128

// ConfigText is the configuration as the config directive's input: the
// settings that differ from the zero Config's, which is what a
// transcript's configuration starts from (so the text is self-contained
// and short), several to a line, then one request line per request.
func ConfigText(cfg *spec.Config) string {
	var b strings.Builder
	line := ""
	for _, setting := range space.ChangedSettings(&spec.Config{}, cfg) {
		if line != "" && len(line)+1+len(setting.String()) > configLineWidth {
			b.WriteString(line + "\n")
			line = ""
		}
		line = strings.TrimPrefix(line+" "+setting.String(), " ")
	}
	if line != "" {
		b.WriteString(line + "\n")
	}
	for _, r := range space.RequestLines(cfg) {
		b.WriteString(r + "\n")
	}
	return b.String()
}

// skeleton is the transcript without banner and outputs: the config
// directive, then one directive per group of actions (its first action on
// the directive line, the others as its input lines), the `# [*]` marker
// above the group of the marked step (the banner says what happens
// there), and for a fix transcript an invariants directive.
func skeleton(ce Counterexample, groups [][]int, marked int) string {
	var b strings.Builder
	b.WriteString("config")
	// Only a built-in scenario is named: replay looks it up by name, and
	// the configuration below is the whole of a --config file's.
	if sc := ce.Spec.Scenario; sc != nil {
		if builtin, err := scenario.Lookup(sc.Name); err == nil && builtin.Info() == sc {
			b.WriteString(" scenario=" + sc.Name)
		}
	}
	b.WriteString(" fixes=" + fixesArg(ce.Spec.Fixes) + "\n")
	b.WriteString(ConfigText(&ce.Spec.Config))
	b.WriteString("----\n\n")
	for _, g := range groups {
		if slices.Contains(g, marked) {
			fmt.Fprintf(&b, "# %s step %d\n", Marker, marked+1)
		}
		for _, i := range g {
			b.WriteString(ce.Trace[i].String() + "\n")
		}
		b.WriteString("----\n\n")
	}
	if ce.ReplayOf != "" {
		b.WriteString(DirInvariants + "\n----\n")
	}
	writeCycle(&b, ce.Cycle, len(ce.Trace))
	return strings.TrimSuffix(b.String(), "\n")
}

// stepOutcome says in a few words what the marked step s does: is not
// enabled, raises, breaks invariants, or ends the run in ce's violation (a
// deadlock or livelock); for a fix transcript, that nothing breaks where
// the real code broke.
func stepOutcome(ce Counterexample, s Step) string {
	switch {
	case !s.Enabled:
		return "is not enabled"
	case s.After.Crash.Happened:
		return s.After.Crash.Function.String() + " raises"
	case len(s.Violations) > 0:
		names := make([]string, len(s.Violations))
		for i, v := range s.Violations {
			names[i] = v.Invariant
		}
		return "breaks " + strings.Join(names, ", ")
	case ce.Invariant != "":
		return "ends in a " + ce.Invariant + ": " + ce.Message
	}
	broke := ce.ReplayInvariant + " broke"
	if ce.ReplayCrash.Happened {
		broke = ce.ReplayCrash.Function.String() + " raised"
	}
	return "in the real code " + broke + " here; now nothing breaks"
}
