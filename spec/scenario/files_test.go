package scenario

import (
	"slices"
	"strings"
	"testing"
)

// TestScenarioFilesAreListed: every file in scenarios/ is a built-in
// scenario, once (those scenarioOrder leaves out after it), and every name
// of scenarioOrder has its file, so no file is silently left out.
func TestScenarioFilesAreListed(t *testing.T) {
	files := scenarioFileNames()
	names := scenarioNames()
	if got, want := slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(files)); !slices.Equal(got, want) {
		t.Fatalf("scenarios %v, files %v: a name of scenarioOrder (spec/scenario/files.go) has no file", got, want)
	}
	if len(All()) != len(files) {
		t.Fatalf("%d built-in scenarios, %d files", len(All()), len(files))
	}
	for _, name := range names {
		if data, ok := Source(name); !ok || len(data) == 0 {
			t.Errorf("no source for %s", name)
		}
	}
	if _, ok := Source("no-such"); ok {
		t.Error("a source for no-such")
	}
}

// TestScenarioFileErrors: a malformed scenario file is an error naming
// the file, the line and the expected form.
func TestScenarioFileErrors(t *testing.T) {
	good, _ := Source("draft-admission")
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
		if _, err := ParseFile("f.yaml", []byte(tt.text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v; want %q", tt.text, err, tt.want)
		}
	}
	if _, err := ParseFile("f.yaml", good); err != nil {
		t.Error(err)
	}
}
