package counterexamples

import (
	"errors"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
)

// smallConfig is a valid config directive of 4 lines (line 1 to 4, the
// separator on line 5, its output on line 6).
func smallConfig(t *testing.T) string {
	t.Helper()
	sc, err := spec.LookupScenario("draft-admission")
	if err != nil {
		t.Fatal(err)
	}
	return "config scenario=draft-admission fixes=none\n" + ConfigText(&sc.Config) + "----\n"
}

// TestMalformedTranscripts: each malformed input is an *InputError at
// the right line, saying what was expected.
func TestMalformedTranscripts(t *testing.T) {
	sc, _ := spec.LookupScenario("draft-admission")
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
		{"action with input", config + "\narrive req=1\nsurprise\n----\n", configLines + 3, "unexpected input"},
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
	if res.Matches() || !strings.HasSuffix(string(res.Actual), "arrive req=1\n----\nrank 0 req 1: arrived context, incarnation 1, prompt 12\n") {
		t.Errorf("actual:\n%s", res.Actual)
	}
	again, err := Replay("x.txt", res.Actual)
	if err != nil || !again.Matches() {
		t.Errorf("the rewritten file does not replay as written: %v\n%s", err, again.Diff())
	}
}
