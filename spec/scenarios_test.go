package spec

import (
	"strings"
	"testing"
)

func fixSet(fixes []Fix) Fixes { return FixSetOf(fixes...) }

func TestScenarioPins(t *testing.T) {
	pins := loadScenarioPins(t)
	pinned := map[string]bool{}
	for _, pin := range pins {
		pinned[pin.key()] = true
	}
	for _, sc := range Scenarios() {
		for _, fixes := range sc.Variants() {
			if key := sc.Name + "/" + fixes.Label(); !pinned[key] && !*updatePins {
				t.Errorf("scenario %s under fixes %s has no pin in %s: every variant `kvcheck check` runs is pinned (%s)", sc.Name, fixes.Label(), scenarioPinsFile, updatePinsHint)
			}
		}
	}
	var measured []scenarioPin
	for _, pin := range pins {
		t.Run(pin.key(), func(t *testing.T) {
			got := measureScenarioPin(t, pin.Scenario, pin.fixes(t))
			measured = append(measured, got)
			if *updatePins {
				return
			}
			if got.States != pin.States || got.Transitions != pin.Transitions || got.Complete != pin.Complete {
				t.Errorf("states %d transitions %d complete %v; pinned %d %d %v (%s)",
					got.States, got.Transitions, got.Complete, pin.States, pin.Transitions, pin.Complete, updatePinsHint)
			}
			if got.Invariant != pin.Invariant || got.Message != pin.Message || got.Steps != pin.Steps {
				t.Fatalf("violation %q %q in %d steps; pinned %q %q in %d (%s)", got.Invariant, got.Message, got.Steps, pin.Invariant, pin.Message, pin.Steps, updatePinsHint)
			}
		})
	}
	if *updatePins {
		writeScenarioPins(t, measured, loadCoveragePins(t))
	}
}

// TestEveryScenarioHasItsFixes: `kvcheck check` runs every scenario whose
// real code breaks an invariant with fixes (a coverage scenario the real
// code passes needs none), every declared fix is checked by some scenario,
// and a scenario that puts a historical bug back also checks the fix that
// removes it.
func TestEveryScenarioHasItsFixes(t *testing.T) {
	for _, sc := range Scenarios() {
		if real, _ := sc.Expected(0); len(sc.FixSets) == 0 && real != VerdictOK {
			t.Errorf("scenario %s breaks %s in the real code but has no fix set", sc.Name, real)
		}
		if err := sc.Config.Validate(); err != nil {
			t.Errorf("scenario %s: %v", sc.Name, err)
		}
	}
	checked := map[Fix]bool{}
	for _, sc := range Scenarios() {
		for _, set := range sc.FixSets {
			for _, f := range set {
				checked[f] = true
			}
		}
		for _, p := range AllPreFixes() {
			if !sc.Config.PreFixes.Has(p) {
				continue
			}
			reverted := false
			for _, fixes := range sc.Variants() {
				for _, f := range fixes.List() {
					reverted = reverted || f.Reverts().Has(p)
				}
			}
			if !reverted {
				t.Errorf("scenario %s sets pre-fix switch %s but checks no fix that reverts it", sc.Name, p)
			}
		}
	}
	for _, f := range AllFixes() {
		if !checked[f] {
			t.Errorf("fix %s is checked by no scenario's FixSets", f)
		}
	}
	if _, err := LookupScenario("no-such"); err == nil || !strings.Contains(err.Error(), "draft-admission") {
		t.Fatalf("unknown scenario error %v does not list the valid names", err)
	}
}

// TestActionLinesRoundTrip: every action enabled anywhere in a scenario's
// reachable space prints as a line that parses back to the same action, so
// transcripts stay valid inputs.
func TestActionLinesRoundTrip(t *testing.T) {
	sc, _ := LookupScenario("draft-admission")
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
