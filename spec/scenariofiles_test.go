package spec

import (
	"slices"
	"strings"
	"testing"
)

// The built-in scenarios under the names their Go definitions had, for
// the tests that start from one.
var (
	draftAdmission       = *mustScenario("draft-admission")
	draftAdmissionResume = *mustScenario("draft-admission-resume")
	draftViewLag         = *mustScenario("draft-view-lag")
	adpDummyLeak         = *mustScenario("adp-dummy-leak")
	ppHistoryCapacity    = *mustScenario("pp-history-capacity")
	ppStageDivergence    = *mustScenario("pp-stage-divergence")
)

func mustScenario(name string) *Scenario {
	sc, err := LookupScenario(name)
	if err != nil {
		panic(err)
	}
	return sc
}

// TestScenarioFilesAreListed: every file in scenarios/ is a built-in
// scenario, once (those scenarioOrder leaves out after it), and every name
// of scenarioOrder has its file, so no file is silently left out.
func TestScenarioFilesAreListed(t *testing.T) {
	files := scenarioFileNames()
	names := scenarioNames()
	if got, want := slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(files)); !slices.Equal(got, want) {
		t.Fatalf("scenarios %v, files %v: a name of scenarioOrder (spec/scenariofiles.go) has no file", got, want)
	}
	if len(Scenarios()) != len(files) {
		t.Fatalf("%d built-in scenarios, %d files", len(Scenarios()), len(files))
	}
	for _, name := range names {
		if data, ok := ScenarioSource(name); !ok || len(data) == 0 {
			t.Errorf("no source for %s", name)
		}
	}
	if _, ok := ScenarioSource("no-such"); ok {
		t.Error("a source for no-such")
	}
}

// TestScenarioFileErrors: a malformed scenario file is an error naming
// the file, the line and the expected form.
func TestScenarioFileErrors(t *testing.T) {
	good, _ := ScenarioSource("draft-admission")
	tests := []struct{ text, want string }{
		{"kvcheck:\n  name: x\n  goals: [nope]\n  config: |\n    ranks=1\n", "f.yaml:3: goals: unknown goal \"nope\""},
		{"kvcheck:\n  name: x\n  depth: deep\n", "f.yaml:3: depth: expected an integer 1..1048576"},
		{"kvcheck:\n  name: x\n  max_states: 2147483648\n", "f.yaml:3: max_states: expected an integer 0..2147483647"},
		{"kvcheck:\n  name: x\n", "f.yaml:1: kvcheck: expected config:"},
		{"kvcheck:\n  name: x\n  color: red\n", "f.yaml:3: kvcheck: unknown key \"color\""},
		{"other: 1\n", "f.yaml:1: expected only a kvcheck: section"},
		{"kvcheck:\n  config: |\n    ranks=1\n    max_batch_size=lots\n", "f.yaml:4: max_batch_size: expected an integer"},
		{"", "f.yaml: empty"},
	}
	for _, tt := range tests {
		if _, err := ParseScenarioFile("f.yaml", []byte(tt.text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v; want %q", tt.text, err, tt.want)
		}
	}
	if _, err := ParseScenarioFile("f.yaml", good); err != nil {
		t.Error(err)
	}
}
