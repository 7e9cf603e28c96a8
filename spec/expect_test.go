package spec

import (
	"strings"
	"testing"
)

// TestScenarioExpectationsComplete: every built-in scenario declares one
// verdict per variant it runs, naming an invariant of the spec or ok.
func TestScenarioExpectationsComplete(t *testing.T) {
	for _, sc := range Scenarios() {
		if err := sc.checkExpectations(); err != nil {
			t.Error(err)
		}
		sp, err := sc.Spec(0)
		if err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{}
		for _, v := range Verdicts(sp) {
			known[v] = true
		}
		for label, verdict := range sc.Expect {
			if !known[verdict] {
				t.Errorf("scenario %s expects %q of %s: not an invariant", sc.Name, verdict, label)
			}
		}
	}
}

// TestScenarioPinsAgreeWithExpectations: the pinned results of the
// scenario table are the verdicts the scenarios declare.
func TestScenarioPinsAgreeWithExpectations(t *testing.T) {
	for _, pin := range loadScenarioPins(t) {
		sc, err := LookupScenario(pin.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := sc.Expected(pin.fixes(t)); !ok || got != pin.verdict() {
			t.Errorf("%s %s: declares %q (%v), pinned result %q", pin.Scenario, pin.Fixes, got, ok, pin.verdict())
		}
	}
}

// TestFixesLabelRoundTrip: a label reads back as the same fix set.
func TestFixesLabelRoundTrip(t *testing.T) {
	for _, sc := range Scenarios() {
		for _, fixes := range sc.Variants() {
			got, err := ParseFixesLabel(fixes.Label())
			if err != nil || got != fixes {
				t.Errorf("%s: %v %v", fixes.Label(), got, err)
			}
		}
	}
	if _, err := ParseFixesLabel("joint-admission+no-such"); err == nil || !strings.Contains(err.Error(), "no-such") {
		t.Errorf("unknown fix in a label: %v", err)
	}
}

// TestEveryScenarioGoalHasAName: scenario files name goals, so every goal
// a built-in scenario uses can be looked up by its name.
func TestEveryScenarioGoalHasAName(t *testing.T) {
	for _, sc := range Scenarios() {
		for _, g := range sc.Goals {
			if found, err := LookupGoal(g.Name); err != nil || found.Doc != g.Doc {
				t.Errorf("scenario %s: goal %s: %v", sc.Name, g.Name, err)
			}
		}
	}
}
