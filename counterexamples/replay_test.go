package counterexamples

import (
	"errors"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// smallConfig is a valid config directive: the directive line, the
// configuration text (tokens_per_block on line 2) and the separator.
func smallConfig(t *testing.T) string {
	t.Helper()
	sc, err := scenario.Lookup("draft-admission")
	if err != nil {
		t.Fatal(err)
	}
	return "config scenario=draft-admission fixes=none\n" + ConfigText(&sc.Config) + "----\n"
}

// TestMalformedTranscripts: each malformed input is an *InputError at
// the right line, saying what was expected.
func TestMalformedTranscripts(t *testing.T) {
	sc, _ := scenario.Lookup("draft-admission")
	config := smallConfig(t)
	configLines := strings.Count(config, "\n")
	const tokensLine = 2 // tokens_per_block is the first line of the configuration text
	for _, tc := range []struct {
		name, text string
		line       int
		want       string
	}{
		{"empty", "", 1, "no directive"},
		{"only comments", "# a banner\n", 1, "no directive"},
		{"stray separator", "----\n", 1, "---- without a directive"},
		{"first is an action", "arrive req=1\n----\n", 1, "expected `config scenario=NAME fixes=LIST` first"},
		{"unparsable line", "config fixes=(none\n----\n", 1, "cannot parse directive"},
		{"missing fixes", "config scenario=draft-admission\ntokens_per_block=4\n----\n", 1, "missing fixes="},
		{"unknown config argument", "config fixes=none colour=red\ntokens_per_block=4\n----\n", 1, `unknown argument "colour"`},
		{"unknown scenario", "config scenario=nope fixes=none\ntokens_per_block=4\n----\n", 1, "valid scenarios"},
		{"unknown fix", "config fixes=wishful\ntokens_per_block=4\n----\n", 1, "valid fixes"},
		{"no config text", "config fixes=none\n----\n", 1, "no configuration text"},
		{"bad config key", "config fixes=none\n\ntokens_per_blok=4\n----\n", 3, `unknown setting "tokens_per_blok"`},
		{"bad config value", "config fixes=none\n" + strings.Replace(ConfigText(&sc.Config), "tokens_per_block=4", "tokens_per_block=four", 1) + "----\n", tokensLine, "expected an integer"},
		{"second config", config + "\n" + config, configLines + 2, "a second config directive"},
		{"unknown directive", config + "\nfrobnicate rank=0\n----\n", configLines + 2, `unknown action "frobnicate"`},
		{"rank out of range", config + "\nschedule rank=3\n----\n", configLines + 2, "rank 3"},
		{"bad argument", config + "\nschedule rank=0 colour=red\n----\n", configLines + 2, `unexpected argument "colour"`},
		{"unknown action among the action lines", config + "\narrive req=1\nsurprise\n----\n", configLines + 3, `unknown action "surprise"`},
		{"bad argument among the action lines", config + "\narrive req=1\nschedule rank=0 colour=red\n----\n", configLines + 3, `unexpected argument "colour"`},
		{"blank line among the action lines", config + "\narrive req=1\narrive req=2\n\narrive req=3\n----\n", configLines + 4, "blank line among the action lines"},
		{"comment among the action lines", config + "\narrive req=1\n# note\narrive req=2\n----\n", configLines + 3, "comment among the action lines"},
		{"state with argument", config + "\nstate all\n----\n", configLines + 2, "takes no arguments"},
		{"unclosed double separator", config + "\nstate\n----\n----\nrank 0\n", configLines + 4, "never closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Replay("bad.txt", []byte(tc.text))
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want an *InputError", err, err)
			}
			if ie.File != "bad.txt" || ie.Line != tc.line || !strings.Contains(ie.Msg, tc.want) {
				t.Errorf("got %q, want bad.txt:%d: ...%s...", err, tc.line, tc.want)
			}
		})
	}
}

// TestNotEnabledIsPinnedOutput: an action that is not enabled is not an
// input error but output, naming what is enabled, and leaves the state.
func TestNotEnabledIsPinnedOutput(t *testing.T) {
	text := smallConfig(t) + "\nschedule rank=0\n----\n\narrive req=1\n----\n"
	res, err := Replay("x.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Outputs[1]; got != "not enabled; enabled here: arrive req=1\n" {
		t.Errorf("output %q", got)
	}
	steps := res.Replayer.Steps
	if steps[0].Enabled || !steps[1].Enabled || steps[0].After != steps[0].Before {
		t.Errorf("steps %+v", steps)
	}
	if res.Matches() {
		t.Error("a transcript with empty expected outputs matches")
	}
}

// TestMissingSeparatorIsADifference: a directive without `----` at the
// end is filled in by the rewrite, the way datadriven's -rewrite does.
func TestMissingSeparatorIsADifference(t *testing.T) {
	text := smallConfig(t) + "\narrive req=1\n"
	res, err := Replay("x.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if res.Matches() || !strings.HasSuffix(string(res.Actual), "arrive req=1\n----\nreq 1: arrived context, prompt 12\n") {
		t.Errorf("actual:\n%s", res.Actual)
	}
	again, err := Replay("x.txt", res.Actual)
	if err != nil || !again.Matches() {
		t.Errorf("the rewritten file does not replay as written: %v\n%s", err, again.Diff())
	}
}

// TestActionLinesOfADirective: the lines below a directive line, up to
// `----`, are more actions; they run in order as steps of their own (with
// their own lines), and the output tells what they changed together, each
// changed field with every value it took.
func TestActionLinesOfADirective(t *testing.T) {
	config := smallConfig(t)
	configLines := strings.Count(config, "\n")
	actions := []string{"arrive req=1", "schedule rank=0", "prepare-resources rank=0", "forward rank=0", "update rank=0",
		"schedule rank=0", "prepare-resources rank=0", "forward rank=0", "update rank=0"}
	grouped := config + "\n# two iterations\n" + strings.Join(actions, "\n") + "\n----\n"
	res, err := Replay("g.txt", []byte(grouped))
	if err != nil {
		t.Fatal(err)
	}
	steps := res.Replayer.Steps
	if len(steps) != len(actions) {
		t.Fatalf("%d steps, want %d", len(steps), len(actions))
	}
	for i, s := range steps {
		if !s.Enabled || s.Text != actions[i] || s.Line != configLines+3+i {
			t.Errorf("step %d: %q line %d enabled %v, want %q on line %d", i+1, s.Text, s.Line, s.Enabled, actions[i], configLines+3+i)
		}
	}
	if got := steps[len(steps)-1].Comments; len(got) != 1 || got[0] != "two iterations" {
		t.Errorf("comments %q: the directive's comments belong to its last step", got)
	}
	want := "batch [ctx 1 chunk 8], [ctx 1 chunk 4 last]\n" +
		"req 1: arrived context → generation, prompt 12, position 0 → 8 → 12, tokens 0 → 13, draft tokens 0 → 1; " +
		"target created active, capacity 8 → 12, history 0 → 8 → 12, committed 0 → 8 → 12, shared blocks 0 → 2, flags none → stop-committing; " +
		"draft created active, capacity 8 → 12, flags stop-committing\n" +
		"pages in use: target 0 → 2 → 3/8 (family 0 tree blocks 0 → 2), draft 0 → 2 → 3/8\n"
	if got := res.Outputs[1]; got != want {
		t.Errorf("output\n%s\nwant\n%s", got, want)
	}

	// One directive per action reaches the same state, and its outputs
	// hold the same values one step at a time.
	single := config
	for _, a := range actions {
		single += "\n" + a + "\n----\n"
	}
	res1, err := Replay("s.txt", []byte(single))
	if err != nil {
		t.Fatal(err)
	}
	if res1.Replayer.State != res.Replayer.State {
		t.Error("grouped and single directives end in different states")
	}
	all := strings.Join(res1.Outputs, "")
	for _, line := range []string{"req 1: target created active, capacity 8\n", "req 1: target history 0 → 8, committed 0 → 8, shared blocks 0 → 2\n", "req 1: target capacity 8 → 12\n",
		"pages in use: target 0 → 2/8\n", "pages in use: draft 2 → 3/8\n"} {
		if !strings.Contains(all, line) {
			t.Errorf("one directive per action: no line %q in\n%s", line, all)
		}
	}
	if strings.Contains(all, "batch [ctx 1 chunk 8] → []") || strings.Contains(all, "\nbatch [ctx 1 chunk 8]\nreq 1: target history") {
		t.Errorf("an update shows the batch it clears:\n%s", all)
	}
}

// TestNotEnabledAmongActionLines: an action of a directive that is not
// enabled is named with its step number and leaves the state; the
// directive's other actions still run.
func TestNotEnabledAmongActionLines(t *testing.T) {
	text := smallConfig(t) + "\nschedule rank=0\narrive req=1\n----\n"
	res, err := Replay("x.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := "req 1: arrived context, prompt 12\nstep 1 (schedule rank=0): not enabled; enabled here: arrive req=1\n"
	if got := res.Outputs[1]; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	if steps := res.Replayer.Steps; steps[0].Enabled || !steps[1].Enabled {
		t.Errorf("steps %+v", steps)
	}
}

// TestStateShowsWhatOutputsLeaveOut: py_ctx_pre_resize_cap, left out of
// action outputs, is in the state directive's output.
func TestStateShowsWhatOutputsLeaveOut(t *testing.T) {
	text := smallConfig(t) + "\narrive req=1\nschedule rank=0\n----\n\nstate\n----\n"
	res, err := Replay("x.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Outputs[1], "py_ctx_pre_resize_cap") {
		t.Errorf("action output shows py_ctx_pre_resize_cap:\n%s", res.Outputs[1])
	}
	if !strings.Contains(res.Outputs[2], "\nrank 0 req 1: context, incarnation 1, prompt 12, py_ctx_pre_resize_cap 0\n") {
		t.Errorf("state output:\n%s", res.Outputs[2])
	}
}
