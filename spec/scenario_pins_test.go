package spec_test

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// scenarioPinsFile pins the exhaustive result of every built-in scenario
// and fix set, one JSON object a line: distinct states, transitions,
// completeness and the shortest counterexample; after a scenario's
// variants, one line with the mechanisms its variants reach together
// (coverage, TestCoverageNotLost), so a new scenario's pins are lines of
// this one file. A silent change of the model shows here first; rewrite
// it (go test ./spec -run TestScenarioPins -update-pins, go test ./spec
// -run TestCoverageNotLost -update-coverage) only for a change you meant
// and can explain, and read the diff. `kvcheck check --scenario NAME`
// prints the states and transitions a pin holds.
const scenarioPinsFile = "testdata/scenario-pins.jsonl"

var updatePins = flag.Bool("update-pins", false, "rewrite "+scenarioPinsFile+" from the built-in scenarios")

const updatePinsHint = "after checking the change is meant: go test ./spec -run TestScenarioPins -update-pins"

// scenarioPin is one line of scenarioPinsFile.
type scenarioPin struct {
	Scenario    string `json:"scenario"`
	Fixes       string `json:"fixes"`
	States      int    `json:"states"`
	Transitions int    `json:"transitions"`
	Complete    bool   `json:"complete"`
	Invariant   string `json:"invariant,omitempty"`
	Steps       int    `json:"steps,omitempty"`
	Message     string `json:"message,omitempty"`
	// Coverage, on a scenario's coverage line (no Fixes), lists the
	// mechanisms ("kind name") its variants reach.
	Coverage []string `json:"coverage,omitempty"`
}

func (p scenarioPin) key() string { return p.Scenario + "/" + p.Fixes }

func (p scenarioPin) fixes(t *testing.T) spec.Fixes {
	t.Helper()
	f, err := spec.ParseFixesLabel(p.Fixes)
	if err != nil {
		t.Fatalf("%s: %v", scenarioPinsFile, err)
	}
	return f
}

// verdict is the pin's expected verdict: its invariant, or ok.
func (p scenarioPin) verdict() string {
	if p.Invariant == "" {
		return spec.VerdictOK
	}
	return p.Invariant
}

// loadScenarioPins returns the variants' pins of scenarioPinsFile.
func loadScenarioPins(t *testing.T) []scenarioPin {
	t.Helper()
	var pins []scenarioPin
	for _, p := range readPinsFile(t) {
		if p.Coverage == nil {
			pins = append(pins, p)
		}
	}
	return pins
}

// loadCoveragePins returns the coverage lines of scenarioPinsFile by
// scenario.
func loadCoveragePins(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, p := range readPinsFile(t) {
		if p.Coverage != nil {
			out[p.Scenario] = p.Coverage
		}
	}
	return out
}

// readPinsFile reads every line of scenarioPinsFile.
func readPinsFile(t *testing.T) []scenarioPin {
	t.Helper()
	f, err := os.Open(scenarioPinsFile)
	if os.IsNotExist(err) && (*updatePins || *updateCoverage) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pins []scenarioPin
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var p scenarioPin
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s:%d: %v", scenarioPinsFile, line, err)
		}
		pins = append(pins, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pins
}

// writeScenarioPins rewrites scenarioPinsFile in the order of the built-in
// scenarios and their variants, measuring any variant not measured yet;
// each scenario's variants are followed by its line of coverage (from
// coverage, nil for none).
func writeScenarioPins(t *testing.T, measured []scenarioPin, coverage map[string][]string) {
	t.Helper()
	byKey := map[string]scenarioPin{}
	for _, p := range measured {
		byKey[p.key()] = p
	}
	var b strings.Builder
	write := func(p scenarioPin) {
		line, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	for _, sc := range scenario.All() {
		for _, fixes := range sc.Variants() {
			p, ok := byKey[sc.Name+"/"+fixes.Label()]
			if !ok {
				p = measureScenarioPin(t, sc.Name, fixes)
			}
			write(p)
		}
		if cov, ok := coverage[sc.Name]; ok {
			write(scenarioPin{Scenario: sc.Name, Coverage: cov})
		}
	}
	if err := os.WriteFile(scenarioPinsFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// measureScenarioPin checks a scenario variant as `kvcheck check` does
// (its depth, one worker, liveness on) and returns what the pin records;
// it fails the test when the counterexample does not replay to the same
// violation, or a passing variant misses a goal.
func measureScenarioPin(t *testing.T, name string, fixes spec.Fixes) scenarioPin {
	t.Helper()
	sc, err := scenario.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sc.Spec(fixes)
	if err != nil {
		t.Fatal(err)
	}
	res := model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: sc.Depth, Workers: 1, Liveness: true})
	pin := scenarioPin{Scenario: name, Fixes: fixes.Label(), States: res.States, Transitions: res.Transitions, Complete: res.Complete}
	if len(res.Violations) == 0 {
		for _, g := range res.Goals {
			if !g.Reached {
				t.Errorf("%s: goal %s not reached", pin.key(), g.Name)
			}
		}
		return pin
	}
	v := res.Violations[0]
	pin.Invariant, pin.Message, pin.Steps = v.Invariant, v.Message, len(v.Trace)
	if v.Invariant == model.LivelockInvariant {
		spec.CheckLivelockReplays(t, sp, v)
		return pin
	}
	states, err := model.Replay[spec.State, spec.Action](sp, v.Trace)
	if err != nil {
		t.Fatalf("%s: the counterexample does not replay: %v", pin.key(), err)
	}
	last := states[len(states)-1]
	failures := model.CheckState[spec.State, spec.Action](sp, &last)
	if len(failures) == 0 || failures[0].Invariant != v.Invariant || failures[0].Message != v.Message {
		t.Fatalf("%s: replayed state fails %v, want %s: %q", pin.key(), failures, v.Invariant, v.Message)
	}
	return pin
}

func TestScenarioPins(t *testing.T) {
	pins := loadScenarioPins(t)
	pinned := map[string]bool{}
	for _, pin := range pins {
		pinned[pin.key()] = true
	}
	for _, sc := range scenario.All() {
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

// TestScenarioPinsAgreeWithExpectations: the pinned results of the
// scenario table are the verdicts the scenarios declare.
func TestScenarioPinsAgreeWithExpectations(t *testing.T) {
	for _, pin := range loadScenarioPins(t) {
		sc, err := scenario.Lookup(pin.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := sc.Expected(pin.fixes(t)); !ok || got != pin.verdict() {
			t.Errorf("%s %s: declares %q (%v), pinned result %q", pin.Scenario, pin.Fixes, got, ok, pin.verdict())
		}
	}
}
