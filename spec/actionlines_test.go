package spec

import (
	"strings"
	"testing"
)

func fixSet(fixes []Fix) Fixes { return FixSetOf(fixes...) }

// TestActionLinesRoundTrip: every action enabled anywhere in a scenario's
// reachable space prints as a line that parses back to the same action, so
// transcripts stay valid inputs.
func TestActionLinesRoundTrip(t *testing.T) {
	sc, _ := lookupTestScenario("draft-admission")
	sp, _ := sc.Spec(fixSet([]Fix{FixJointAdmission}))
	seen := map[string]bool{}
	var frontier = []State{sp.Initial()}
	visited := map[uint64]bool{}
	for len(frontier) > 0 {
		s := frontier[0]
		frontier = frontier[1:]
		if visited[sp.Fingerprint(&s)] {
			continue
		}
		visited[sp.Fingerprint(&s)] = true
		for _, a := range sp.Actions(&s, nil) {
			line := a.String()
			back, err := sp.ParseAction(line)
			if err != nil {
				t.Fatalf("%q does not parse: %v", line, err)
			}
			if back != a {
				t.Fatalf("%q parsed to %+v, want %+v", line, back, a)
			}
			seen[strings.Fields(line)[0]] = true
			frontier = append(frontier, sp.Next(&s, a))
		}
	}
	for _, kind := range []string{"arrive", "schedule", "prepare-resources", "forward", "update"} {
		if !seen[kind] {
			t.Errorf("no %s action was enabled anywhere", kind)
		}
	}
}

// TestParseActionErrors: malformed lines get errors that say what was
// expected.
func TestParseActionErrors(t *testing.T) {
	sp, _ := draftAdmission.Spec(0)
	for line, want := range map[string]string{
		"":                          "empty action line",
		"launch rank=0":             "unknown action \"launch\"",
		"schedule":                  "missing rank=N",
		"schedule rank=x":           "expected an integer",
		"schedule rank=1":           "the scenario has 1 rank(s)",
		"arrive req=9":              "expected an integer 1..8",
		"arrive req=4":              "the scenario has 3 request(s)",
		"forward rank=0 accept=1":   "expected id:accepted pairs",
		"forward rank=0 accept=1:9": "expected an integer 0..3",
		"update rank=0 rank=0":      "given twice",
		"update rank=0 bogus=1":     "unexpected argument \"bogus\"",
		"update rank":               "not key=value",
	} {
		_, err := sp.ParseAction(line)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAction(%q) = %v; want an error containing %q", line, err, want)
		}
	}
}

// TestParseActionKinds: the arguments no built-in scenario's round trip
// reaches (a KV receipt, update-resources, early finishes) parse into
// their fields, and a bad value is refused.
func TestParseActionKinds(t *testing.T) {
	sp, _ := draftAdmission.Spec(0)
	for line, want := range map[string]Action{
		"kv-received req=2 rank=0":               {Kind: ActReceiveKV, ID: 2},
		"update-resources rank=0 batch=none":     {Kind: ActUpdateResources, Fate: fateNone},
		"update-resources rank=0 batch=previous": {Kind: ActUpdateResources, Fate: fateProcessed},
		"update-resources rank=0 batch=deferred": {Kind: ActUpdateResources, Fate: fateDeferred},
		"forward rank=0 eos=1,8":                 {Kind: ActForward, EOS: 1<<1 | 1<<8},
	} {
		if got, err := sp.ParseAction(line); err != nil || got != want {
			t.Errorf("ParseAction(%q) = %+v, %v; want %+v", line, got, err, want)
		}
	}
	for line, want := range map[string]string{
		"kv-received rank=0":                  "missing req=N",
		"update-resources rank=0 batch=later": "batch=later: expected previous, deferred or none",
		"update-resources rank=0":             "missing batch=",
		"forward rank=0 eos=1,9":              "eos=1,9: expected an integer 0..8",
	} {
		if _, err := sp.ParseAction(line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAction(%q) = %v; want an error containing %q", line, err, want)
		}
	}
}
