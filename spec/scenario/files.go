package scenario

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// scenarioFS holds the built-in scenario files, one per scenario: its
// configuration as kvcheck's configuration text, its goals and the
// verdict expected of each of its fix sets (ParseFile reads them;
// docs/configuration.md describes the format). `kvcheck show-config NAME`
// prints one.
//
//go:embed scenarios/*.yaml
var scenarioFS embed.FS

// scenarioOrder is the order `kvcheck check` runs the scenario files in;
// a file not named here runs after these, in file-name order, so a new
// scenario is only its file (scenarioNames).
var scenarioOrder = []string{
	"draft-admission", "draft-admission-resume", "draft-view-lag",
	"adp-dummy-leak",
	"pp-history-capacity", "pp-forward-over-suspended", "pp-stage-divergence",
	// Historical TensorRT-LLM bugs, each put back with its pre-fix switch
	// (pre_fix) and checked against the fix that took it out.
	"adp-veto-growth", "pp-adp-veto-growth", "adp-dummy-none", "adp-draft-dummy-slot", "adp-empty-batch-veto",
	// Coverage scenarios: small configurations that reach the mechanisms
	// the others leave alone (docs/soundness.md).
	"eviction-ladder", "host-tier-eviction", "paired-draft-reuse", "overlap-two-ranks", "adp-veto-generation",
	"unchunked-prefill", "preempt-for-pages", "disagg-gen-retry", "generation-token-budget", "host-recompute-fallback",
	"pp-eviction-ladder", "overlap-eviction-ladder", "prefix-aware-skip",
}

// scenarioNames is every embedded scenario file's name: those of
// scenarioOrder in its order, then the others in file-name order.
func scenarioNames() []string {
	names := slices.Clone(scenarioOrder)
	for _, name := range scenarioFileNames() {
		if !slices.Contains(scenarioOrder, name) {
			names = append(names, name)
		}
	}
	return names
}

// scenarioFiles reads the scenario files in scenarioNames' order. A file
// that does not read is a bug of this package, caught by every test run.
func scenarioFiles() []*Scenario {
	var out []*Scenario
	for _, name := range scenarioNames() {
		file := path.Join("scenarios", name+".yaml")
		data, err := scenarioFS.ReadFile(file)
		if err != nil {
			panic(fmt.Sprintf("scenario: built-in scenario %s: %v", name, err))
		}
		sc, err := ParseFile("spec/scenario/"+file, data)
		if err != nil {
			panic(fmt.Sprintf("scenario: built-in scenario %v", err))
		}
		if sc.Name != name {
			panic(fmt.Sprintf("scenario: spec/scenario/%s names its scenario %s", file, sc.Name))
		}
		out = append(out, sc)
	}
	return out
}

// Source returns the text of the built-in scenario file of the
// scenario named name; ok is false for a scenario that has none.
func Source(name string) (data []byte, ok bool) {
	if !slices.Contains(scenarioFileNames(), name) {
		return nil, false
	}
	data, err := scenarioFS.ReadFile(path.Join("scenarios", name+".yaml"))
	return data, err == nil
}

// scenarioFileNames lists the embedded files' scenario names.
func scenarioFileNames() []string {
	var names []string
	entries, _ := fs.ReadDir(scenarioFS, "scenarios")
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return names
}
