package counterexamples

import (
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// Found is what a check of one scenario under one set of fixes found: the
// input Transcripts writes files from.
type Found struct {
	Scenario *scenario.Scenario
	Fixes    spec.Fixes
	// Violations are the violations found, shortest first (one without
	// keep-going).
	Violations []FoundViolation
	// States and Depth are the search's size; Complete says it exhausted
	// the reachable space.
	States, Depth int
	Complete      bool
	// MissedGoals are the scenario goals the search never reached.
	MissedGoals []string
	// Command is the command that re-runs exactly this check.
	Command string
}

// FoundViolation is one violation and a shortest trace to it.
type FoundViolation struct {
	Invariant, Message string
	Trace              []spec.Action
	Cycle              []spec.Action // a livelock's cycle, after Trace
	// Triage is the violation's triage paragraph for the banner ("": none).
	Triage string
}

// File is one transcript to write.
type File struct {
	Name string
	Data []byte
	// Summary is one line for the command's report.
	Summary string
}

// Transcripts turns check results into transcripts: one per violation
// (its shortest trace, with a banner naming how it was found and what each
// of the scenario's checked fixes does to it) and, for each fix set under
// which a scenario shows no violation while its real code does, one that
// replays the real code's first counterexample under the fix. A fix
// transcript needs the real code's result in found, and a search of the
// fix that was complete and reached every goal: a search cut by its bounds
// or an interrupt proves nothing, so it never yields an ok transcript.
func Transcripts(found []Found) ([]File, error) {
	realCode := map[string]*Found{}
	for i := range found {
		if found[i].Fixes == 0 {
			realCode[found[i].Scenario.Name] = &found[i]
		}
	}
	var files []File
	for i := range found {
		f := &found[i]
		if len(f.Violations) > 0 {
			written, err := violationFiles(f, fixNotes(f, found))
			if err != nil {
				return nil, err
			}
			files = append(files, written...)
			continue
		}
		real := realCode[f.Scenario.Name]
		if f.Fixes == 0 || real == nil || len(real.Violations) == 0 || !f.Complete || len(f.MissedGoals) > 0 {
			continue
		}
		file, err := fixFile(f, real)
		if err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	return files, nil
}

// violationFiles writes one transcript per violation of a check.
func violationFiles(f *Found, notes []FixNote) ([]File, error) {
	sp, err := f.Scenario.Spec(f.Fixes)
	if err != nil {
		return nil, err
	}
	var files []File
	used := map[string]int{}
	for _, viol := range f.Violations {
		name := FileName(f.Scenario.Name, f.Fixes, viol.Invariant)
		if used[name]++; used[name] > 1 {
			name = strings.TrimSuffix(name, ".txt") + fmt.Sprintf("-%d.txt", used[name])
		}
		data, err := Write(Counterexample{
			Spec:      sp,
			Trace:     viol.Trace,
			Cycle:     viol.Cycle,
			Invariant: viol.Invariant,
			Message:   viol.Message,
			FoundBy:   f.Command,
			Search:    searchWords(f, len(viol.Trace)),
			FixedBy:   notes,
			Triage:    viol.Triage,
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		files = append(files, File{Name: name, Data: data, Summary: fmt.Sprintf("%s after %d steps", viol.Invariant, len(viol.Trace))})
	}
	return files, nil
}

// fixNotes says, for the real code's check, what each checked fix set of
// the scenario does to its violation.
func fixNotes(f *Found, found []Found) []FixNote {
	if f.Fixes != 0 {
		return nil
	}
	var notes []FixNote
	for _, other := range found {
		if other.Scenario.Name != f.Scenario.Name || other.Fixes == 0 {
			continue
		}
		note := FixNote{Fixes: other.Fixes, MissedGoals: other.MissedGoals, States: other.States, Complete: other.Complete}
		if len(other.Violations) > 0 {
			v := other.Violations[0]
			note.Invariant, note.Steps, note.MissedGoals = v.Invariant, len(v.Trace), nil
		}
		if note.Invariant != "" || note.Closes() && note.Complete {
			note.File = FileName(f.Scenario.Name, other.Fixes, note.Invariant)
		}
		notes = append(notes, note)
	}
	return notes
}

// fixFile writes the transcript that replays the real code's first
// counterexample under a fix that closes it.
func fixFile(f, real *Found) (File, error) {
	sp, err := f.Scenario.Spec(f.Fixes)
	if err != nil {
		return File{}, err
	}
	realSpec, err := real.Scenario.Spec(0)
	if err != nil {
		return File{}, err
	}
	realViolation := real.Violations[0]
	trace, adapted := Adapt(sp, realViolation.Trace)
	name := FileName(f.Scenario.Name, f.Fixes, "")
	data, err := Write(Counterexample{
		Spec:            sp,
		Trace:           trace,
		FoundBy:         f.Command,
		Search:          searchWords(f, 0),
		ReplayOf:        FileName(f.Scenario.Name, 0, realViolation.Invariant),
		ReplayStep:      len(realViolation.Trace),
		ReplayInvariant: realViolation.Invariant,
		ReplayCrash:     finalCrash(realSpec, realViolation.Trace),
		Adapted:         adapted,
	})
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", name, err)
	}
	summary := fmt.Sprintf("the real code's %d steps replayed, no violation", len(trace))
	if len(adapted) > 0 {
		summary = fmt.Sprintf("the real code's steps replayed (%d adapted), no violation", len(adapted))
	}
	return File{Name: name, Data: data, Summary: summary}, nil
}

// finalCrash is the raise at the end of a trace, if the engine crashed.
func finalCrash(sp *spec.Spec, trace []spec.Action) spec.Crash {
	states, err := model.Replay[spec.State, spec.Action](sp, trace)
	if err != nil {
		return spec.Crash{}
	}
	return states[len(states)-1].Crash
}

// searchWords describes a check: its size and what it covered.
func searchWords(f *Found, steps int) string {
	text := fmt.Sprintf("breadth-first, %d states", f.States)
	switch {
	case f.Complete:
		text += ", all reachable"
	case steps == 0:
		text += fmt.Sprintf(" to depth %d", f.Depth)
	}
	if steps > 0 {
		text += ": a shortest trace"
	}
	return text
}

// Variant is one scenario under one set of fixes (0: the real code).
type Variant struct {
	Scenario *scenario.Scenario
	Fixes    spec.Fixes
}

// Check runs the exhaustive checker on each variant with the scenario's
// default bounds (model.Options.MaxDepth 0 means the scenario's Depth) and
// returns what Transcripts needs; command is how kvcheck is invoked in
// the banners ("kvcheck").
func Check(variants []Variant, opts model.Options, command string) ([]Found, error) {
	var found []Found
	for _, v := range variants {
		sp, err := v.Scenario.Spec(v.Fixes)
		if err != nil {
			return nil, err
		}
		o := opts
		if o.MaxDepth == 0 {
			o.MaxDepth = v.Scenario.Depth
		}
		res := model.Check[spec.State, spec.Action](sp, o)
		f := Found{Scenario: v.Scenario, Fixes: v.Fixes, States: res.States, Depth: res.Depth, Complete: res.Complete,
			Command: checkCommand(command, v)}
		for _, viol := range res.Violations {
			f.Violations = append(f.Violations, FoundViolation{Invariant: viol.Invariant, Message: viol.Message, Trace: viol.Trace, Cycle: viol.Cycle})
		}
		for _, g := range res.Goals {
			if !g.Reached {
				f.MissedGoals = append(f.MissedGoals, g.Name)
			}
		}
		found = append(found, f)
	}
	return found, nil
}

// checkCommand is the command that re-runs the variant's check.
func checkCommand(command string, v Variant) string {
	if command == "" {
		command = "kvcheck"
	}
	parts := []string{command, "check", "--scenario", v.Scenario.Name}
	names := v.Fixes.Names()
	if len(names) == 0 {
		names = []string{"none"}
	}
	for _, n := range names {
		parts = append(parts, "--fix", n)
	}
	return strings.Join(parts, " ")
}

// DefaultVariants is every built-in scenario as the real code behaves and
// under each of its fix sets, the variants `kvcheck check` runs by default.
func DefaultVariants() []Variant {
	var out []Variant
	for _, sc := range scenario.All() {
		for _, fixes := range sc.Variants() {
			out = append(out, Variant{sc, fixes})
		}
	}
	return out
}
