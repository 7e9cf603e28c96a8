package counterexamples

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"

	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/pmezard/go-difflib/difflib"
)

// Directive names besides the spec's actions (the grammar is at
// Replayer.Exec).
const (
	DirConfig     = "config"
	DirState      = "state"
	DirInvariants = "invariants"
)

// Violation is an invariant that does not hold after a step.
type Violation struct {
	Invariant string
	Message   string
}

// Step is one action directive as replayed.
type Step struct {
	// Line is the directive's line in the transcript.
	Line int
	// Text is the action line as written.
	Text   string
	Action spec.Action
	// Enabled is false when the action was not enabled in the state it was
	// replayed in; the state did not change.
	Enabled bool
	// Before and After are the states around the step.
	Before, After spec.State
	Changes       []Change
	Violations    []Violation
	// End says why nothing is enabled after the step, "" if something is.
	End string
	// Comments are the transcript's comment lines right above the
	// directive, on the directive's last step, and Marked says they hold
	// the Marker.
	Comments []string
	Marked   bool
	// InCycle says the step is one of a livelock's cycle (cycle.go).
	InCycle bool
	// notEnabled is the output of a step that was not enabled.
	notEnabled string
}

// Replayer executes a transcript's directives one after another: the
// config directive builds the spec, each action directive must be enabled
// in the current state (compared by its transcript line, as model.Replay
// does) and moves the state on. It is strict and deterministic: the same
// directives give the same output.
type Replayer struct {
	File string
	// Spec is the spec the config directive built (nil before it).
	Spec *spec.Spec
	// Scenario is the built-in scenario the config names, if any.
	Scenario *scenario.Scenario
	State    spec.State
	Steps    []Step
	// livelockAfter is the step after which a cycle directive showed a
	// livelock (cycle.go); 0 if none did.
	livelockAfter int
}

// Exec runs one directive and returns its output, or an *InputError when
// the directive is malformed or out of place. The grammar, one directive
// per case (`#` lines above a directive are comments; a comment starting
// with Marker marks the step the banner's `[*]` line is about):
//
//	config scenario=draft-admission fixes=none
//	tokens_per_block=4 max_draft_len=1 draft_blocks=8 draft_pool=unpaired ...
//	request prompt=12 new=4 family=0 shared=8
//	----
//	pool pages: target 8, draft 8
//
// config comes first and once: `config [scenario=NAME] fixes=a,b|none`,
// with the configuration text as its input (ConfigText: configtext.Parse's
// key=value settings and request lines, applied to the zero
// configuration, so the file is self-contained; the scenario names only
// the goals, report and story). Output: each rank's pool sizes in pages.
//
//	state
//	----
//	arrived 1
//	rank 0: scheduled, batch [ctx 1 chunk 8]
//	rank 0 target cache 1: active, incarnation 1, capacity 8
//	...
//
// state dumps the whole state (spec.Spec.Dump, in the step outputs'
// words); no arguments, no input.
//
//	invariants
//	----
//	no-crash-on-refusal: holds
//	...
//
// invariants checks every invariant where the replay stands: `holds` or
// `violated: MESSAGE` each; it ends every fix transcript.
//
//	schedule rank=0
//	prepare-resources rank=0
//	----
//	batch [gen 1, gen 2, ctx 3 chunk 4 last]
//	req 3: position 0 → 8; target created active, capacity 12, ...
//	pages in use: target 5 → 7/8, draft 7 → 8/8
//	crashed: rank 0 draft pool request 3: _prepare_draft_resources raised ...
//	violation no-crash-on-refusal: as above
//
// Any other directive is a spec action in its own words (spec.Action.String,
// read back by spec.Spec.ParseAction), its input lines more actions, each
// a step of its own. Output (summarize): what the steps changed together,
// each changed field with every value it took; the pages in use; the
// crash; each invariant broken (`after step N (ACTION): ...` for a step
// before the last); `not enabled; enabled here: ...` for an action not
// enabled where it stands (the state stays); why nothing is enabled
// after the last step, if so.
func (r *Replayer) Exec(d *Directive) (string, error) {
	switch d.Cmd {
	case DirConfig:
		return r.execConfig(d)
	case DirCycle:
		return r.execCycle(d)
	case DirState, DirInvariants:
		if err := r.noArgsNoInput(d); err != nil {
			return "", err
		}
		if d.Cmd == DirState {
			return r.Spec.Dump(&r.State), nil
		}
		return r.invariants(), nil
	}
	return r.execAction(d)
}

func (r *Replayer) errorf(line int, format string, args ...any) error {
	return &InputError{File: r.File, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// noArgsNoInput checks a directive that takes neither arguments nor input
// and comes after the config directive.
func (r *Replayer) noArgsNoInput(d *Directive) error {
	if r.Spec == nil {
		return r.errorf(d.Line, "%s before the config directive; expected `config scenario=NAME fixes=LIST` first", d.Cmd)
	}
	if len(d.Args) > 0 {
		return r.errorf(d.Line, "%s: unexpected argument %q; %s takes no arguments", d.Cmd, d.Args[0].String(), d.Cmd)
	}
	if d.Input != "" {
		return r.errorf(d.InputLine, "%s: unexpected input %q; expected ---- right after the directive line", d.Cmd, firstLine(d.Input))
	}
	return nil
}

// execConfig builds the spec from `config [scenario=NAME] fixes=LIST` and
// the configuration text, and outputs the initial pools. The text is
// applied to the zero Config, never to the scenario's, so a transcript
// means the same whatever the scenario later becomes; the scenario only
// names the goals, the report and the story.
func (r *Replayer) execConfig(d *Directive) (string, error) {
	if r.Spec != nil {
		return "", r.errorf(d.Line, "a second config directive; expected one config directive per transcript, at its top")
	}
	var scenarioName string
	var fixNames []string
	seenFixes := false
	for _, a := range d.Args {
		if len(a.Vals) == 0 || a.Vals[0] == "" && len(a.Vals) == 1 {
			return "", r.errorf(d.Line, "config: argument %q has no value; expected scenario=NAME or fixes=NAME,...|none", a.Key)
		}
		switch a.Key {
		case "scenario":
			if len(a.Vals) != 1 {
				return "", r.errorf(d.Line, "config: scenario takes one name, got %d", len(a.Vals))
			}
			scenarioName = a.Vals[0]
		case "fixes":
			seenFixes = true
			for _, v := range a.Vals {
				for _, n := range strings.Split(v, ",") {
					if n = strings.TrimSpace(n); n != "" && n != "none" {
						fixNames = append(fixNames, n)
					}
				}
			}
		default:
			return "", r.errorf(d.Line, "config: unknown argument %q; expected scenario=NAME and fixes=NAME,...|none", a.Key)
		}
	}
	if !seenFixes {
		return "", r.errorf(d.Line, "config: missing fixes=NAME,...|none (say fixes=none for the real code)")
	}
	fixes, err := spec.ParseFixes(fixNames)
	if err != nil {
		return "", r.errorf(d.Line, "config: %v", err)
	}
	if scenarioName != "" {
		sc, err := scenario.Lookup(scenarioName)
		if err != nil {
			return "", r.errorf(d.Line, "config: %v", err)
		}
		r.Scenario = sc
	}
	if d.Input == "" {
		return "", r.errorf(d.Line, "config: no configuration text; expected the key=value and request lines of configtext.Format below the directive")
	}
	cfg, err := configtext.Parse(spec.Config{}, d.Input)
	if err != nil {
		var ce *configtext.Error
		if errors.As(err, &ce) {
			return "", r.errorf(d.InputLine+ce.Line-1, "config: %s", ce.Msg)
		}
		return "", r.errorf(d.Line, "config: %v", err)
	}
	sp, err := spec.New(cfg, fixes)
	if err != nil {
		return "", r.errorf(d.Line, "config: %v", err)
	}
	sp.Scenario = r.Scenario.Info()
	r.Spec = sp
	r.State = sp.Initial()
	return initialPools(sp, &r.State), nil
}

// initialPools is the config directive's output: the size in pages of
// every pool (the state directive dumps everything).
func initialPools(sp *spec.Spec, s *spec.State) string {
	var ranks []string
	for r := 0; r < int(sp.Config.Ranks); r++ {
		var pools []string
		for p := range s.Ranks[r].Pools {
			kind := spec.PoolKind(p)
			if sp.Config.HasPool(uint8(r), kind) {
				pools = append(pools, fmt.Sprintf("%s %d", kind, sp.Config.PoolBlocks(uint8(r), kind)))
			}
		}
		text := strings.Join(pools, ", ")
		if sp.Config.Ranks > 1 {
			text = fmt.Sprintf("rank %d %s", r, text)
		}
		ranks = append(ranks, text)
	}
	return "pool pages: " + strings.Join(ranks, "; ")
}

// execAction applies a directive's action lines, the directive line and
// then each input line, and outputs what they changed together
// (summarize), what each broke and, when nothing is enabled afterwards,
// why.
func (r *Replayer) execAction(d *Directive) (string, error) {
	if r.Spec == nil {
		if _, err := spec.ParseAction(d.Text); err != nil {
			return "", r.errorf(d.Line, "%v; or one of the directives %s, %s, %s", err, DirConfig, DirState, DirInvariants)
		}
		return "", r.errorf(d.Line, "%s before the config directive; expected `config scenario=NAME fixes=LIST` first", d.Cmd)
	}
	type actionLine struct {
		text string
		line int
	}
	lines := []actionLine{{d.Text, d.Line}}
	if d.Input != "" {
		for k, text := range strings.Split(d.Input, "\n") {
			text = strings.TrimSpace(text)
			line := d.InputLine + k
			switch {
			case text == "":
				return "", r.errorf(line, "%s: blank line among the action lines; expected an action line or ----", d.Cmd)
			case strings.HasPrefix(text, "#"):
				return "", r.errorf(line, "%s: comment among the action lines; expected an action line or ---- (put comments above the directive)", d.Cmd)
			}
			lines = append(lines, actionLine{text, line})
		}
	}
	actions := make([]spec.Action, len(lines))
	for i, l := range lines {
		a, err := r.Spec.ParseAction(l.text)
		if err != nil {
			if _, known := spec.ActionKindNamed(strings.Fields(l.text)[0]); !known {
				if i == 0 {
					return "", r.errorf(l.line, "%v; or one of the directives %s, %s, %s", err, DirConfig, DirState, DirInvariants)
				}
				return "", r.errorf(l.line, "%v (the lines between a directive line and ---- are more actions)", err)
			}
			return "", r.errorf(l.line, "%v", err)
		}
		actions[i] = a
	}
	first := len(r.Steps)
	for i, l := range lines {
		r.step(actions[i], l.text, l.line)
	}
	steps := r.Steps[first:]
	steps[len(steps)-1].Comments, steps[len(steps)-1].Marked = d.Comments, d.Marked
	var out []string
	for _, l := range summarize(r.Spec, steps, first+1) {
		out = append(out, l.String(int(r.Spec.Config.Ranks)))
	}
	if len(out) == 0 {
		return "no change", nil
	}
	return strings.Join(out, "\n"), nil
}

// step applies one action, if enabled where the replay stands, and records
// it with its changes, the invariants it broke and, when nothing is
// enabled afterwards, why.
func (r *Replayer) step(a spec.Action, text string, line int) {
	step := Step{Line: line, Text: text, Action: a, Before: r.State, After: r.State}
	enabled := r.Spec.Actions(&r.State, nil)
	want := a.String()
	k := -1
	for i, e := range enabled {
		if e.String() == want {
			k = i
			break
		}
	}
	if k < 0 {
		step.notEnabled = notEnabled(enabled)
		r.Steps = append(r.Steps, step)
		return
	}
	step.Enabled = true
	step.After = r.Spec.Next(&r.State, enabled[k])
	r.State = step.After
	step.Changes = Changes(r.Spec, &step.Before, &step.After)
	for _, inv := range r.Spec.Invariants() {
		if f := inv.Check(&r.State); f != nil {
			step.Violations = append(step.Violations, Violation{inv.Name, f.Message})
		}
	}
	if len(r.Spec.Actions(&r.State, nil)) == 0 && !r.State.Crash.Happened {
		if r.Spec.IsTerminal(&r.State) {
			step.End = "every request finished; nothing more is enabled"
		} else {
			step.End = "deadlock: nothing is enabled, yet not every request finished"
		}
	}
	r.Steps = append(r.Steps, step)
}

// notEnabled is the output of an action that is not enabled: the state
// stays, and the output lists what is enabled instead.
func notEnabled(enabled []spec.Action) string {
	if len(enabled) == 0 {
		return "not enabled: nothing is enabled here"
	}
	names := make([]string, len(enabled))
	for i, e := range enabled {
		names[i] = e.String()
	}
	return "not enabled; enabled here: " + strings.Join(names, ", ")
}

// invariants outputs each invariant of the spec the current state
// violates, or that every one holds. Holding invariants are not listed one
// by one, so a new invariant does not rewrite every transcript that ends
// with this directive (`kvcheck list` names them all).
func (r *Replayer) invariants() string {
	var b strings.Builder
	for _, inv := range r.Spec.Invariants() {
		if f := inv.Check(&r.State); f != nil {
			fmt.Fprintf(&b, "%s: violated: %s\n", inv.Name, f.Message)
		}
	}
	if b.Len() == 0 {
		return "every invariant holds\n"
	}
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Result is one replayed transcript.
type Result struct {
	File       string
	Transcript *Transcript
	// Expected is the file as read; Actual is the file with every expected
	// output replaced by the output of this replay.
	Expected, Actual []byte
	// Outputs are the actual outputs, one per directive.
	Outputs  []string
	Replayer *Replayer
	// LostVerdict says why the transcript no longer shows what its banner
	// claims (cut before its `[*]` step, a livelock's cycle gone), or "".
	LostVerdict string
	// Triage, when set, is the triage paragraph Explain shows instead of
	// the banner's (BannerTriage), e.g. one computed for a transcript
	// written without it.
	Triage string
}

// Matches reports whether every expected output matched and the
// transcript still shows what its banner claims.
func (res *Result) Matches() bool {
	return string(res.Expected) == string(res.Actual) && res.LostVerdict == ""
}

// Diff is a unified diff from the file as written (---) to the file with
// the actual outputs (+++), "" when they match.
func (res *Result) Diff() string {
	if res.Matches() {
		return ""
	}
	diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(res.Expected)),
		B:        difflib.SplitLines(string(res.Actual)),
		FromFile: res.File + " (expected)",
		ToFile:   res.File + " (actual)",
		Context:  3,
	})
	if res.LostVerdict != "" {
		diff = res.File + ": " + res.LostVerdict + "\n" + diff
	}
	return diff
}

// Replay parses a transcript and executes every directive. A malformed
// transcript is an *InputError; differing outputs are not an error (see
// Result.Matches and Result.Diff).
func Replay(file string, data []byte) (*Result, error) {
	t, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	if len(t.Directives) == 0 {
		return nil, &InputError{file, 1, "no directive; expected a config directive followed by action lines"}
	}
	if t.Directives[0].Cmd != DirConfig {
		return nil, &InputError{file, t.Directives[0].Line, fmt.Sprintf("the first directive is %q; expected `config scenario=NAME fixes=LIST` first", t.Directives[0].Cmd)}
	}
	r := &Replayer{File: file}
	outputs := make([]string, len(t.Directives))
	for i := range t.Directives {
		out, err := r.Exec(&t.Directives[i])
		if err != nil {
			return nil, err
		}
		outputs[i] = normalizeOutput(out)
	}
	expected := []byte(strings.ReplaceAll(string(data), "\r\n", "\n"))
	if len(expected) > 0 && expected[len(expected)-1] != '\n' {
		expected = append(expected, '\n')
	}
	return &Result{File: file, Transcript: t, Expected: expected, Actual: t.Rewrite(outputs), Outputs: outputs, Replayer: r,
		LostVerdict: lostVerdict(t, r)}, nil
}

// ReplayFile reads and replays the transcript at path.
func ReplayFile(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Replay(path, data)
}
