package spec_test

import (
	"flag"
	"sort"
	"sync"
	"testing"

	"github.com/kvcheck/kvcheck/model"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

var updateCoverage = flag.Bool("update-coverage", false, "rewrite the coverage lines of "+scenarioPinsFile+" from the built-in scenarios")

// coverageByScenario caches scenarioCoverage: two tests read it.
var coverageByScenario sync.Map

// scenarioCoverage runs every variant of sc the way `kvcheck check` does
// (its depth, every fix set) with a coverage sink and returns the names of
// the mechanisms reached, as "kind name".
func scenarioCoverage(t *testing.T, sc *scenario.Scenario) []string {
	t.Helper()
	if got, ok := coverageByScenario.Load(sc.Name); ok {
		return got.([]string)
	}
	cov := spec.NewCoverage()
	for _, fixes := range sc.Variants() {
		sp, err := sc.Spec(fixes)
		if err != nil {
			t.Fatal(err)
		}
		sp.Cover = cov
		model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: sc.Depth, MaxStates: sc.MaxStates, Workers: 1})
	}
	var out []string
	for _, r := range cov.Rows() {
		if r.Count > 0 {
			out = append(out, r.Key())
		}
	}
	coverageByScenario.Store(sc.Name, out)
	return out
}

// TestCoverageNotLost fails when a mechanism some built-in scenario used
// to reach is no longer reached (or a scenario reaches a new one, so the
// pin stays exact). The pins are the coverage lines of scenarioPinsFile,
// one per scenario.
func TestCoverageNotLost(t *testing.T) {
	var got []string
	byScenario := map[string][]string{}
	for _, sc := range scenario.All() {
		byScenario[sc.Name] = scenarioCoverage(t, sc)
		for _, m := range byScenario[sc.Name] {
			got = append(got, sc.Name+" "+m)
		}
	}
	sort.Strings(got)
	if *updateCoverage {
		writeScenarioPins(t, loadScenarioPins(t), byScenario)
		return
	}
	var want []string
	for name, cov := range loadCoveragePins(t) {
		for _, m := range cov {
			want = append(want, name+" "+m)
		}
	}
	have := map[string]bool{}
	for _, g := range got {
		have[g] = true
	}
	pinned := map[string]bool{}
	for _, w := range want {
		pinned[w] = true
		if !have[w] {
			t.Errorf("scenario no longer reaches: %s", w)
		}
	}
	for _, g := range got {
		if !pinned[g] {
			t.Errorf("scenario newly reaches (pin it if meant): %s", g)
		}
	}
	if t.Failed() {
		t.Log("reproduce: go test ./spec -run TestCoverageNotLost -update-coverage (after checking the change is meant)")
	}
}

// TestEveryMechanismReachedOrExcused: the built-in scenarios together
// reach every registered mechanism, except those named in
// their declaration (newBranch, errorRegistry, defineRaise) with the
// reason; an exception that is reached after
// all is stale and fails too.
func TestEveryMechanismReachedOrExcused(t *testing.T) {
	reached := map[string]bool{}
	for _, sc := range scenario.All() {
		for _, m := range scenarioCoverage(t, sc) {
			reached[m] = true
		}
	}
	for _, r := range spec.NewCoverage().Rows() {
		key := r.Key()
		reason := spec.CoverageException(r.Kind, r.Name)
		switch {
		case !reached[key] && reason == "":
			t.Errorf("%s (%s) is reached by no built-in scenario and has no stated exception (state it where it is declared: newBranch's third argument, a raise's unreached text)", key, r.Models)
		case reached[key] && reason != "":
			t.Errorf("%s is reached now; drop its exception %q", key, reason)
		}
	}
	if t.Failed() {
		t.Log("reproduce: go run ./cmd/kvcheck check --cover")
	}
}

// TestCoverageOffCountsNothing: a spec without a sink counts nothing and
// explores exactly what a spec with one does (the sink never feeds back).
func TestCoverageOffCountsNothing(t *testing.T) {
	sc := scenario.All()[0]
	sp, err := sc.Spec(sc.Variants()[1])
	if err != nil {
		t.Fatal(err)
	}
	plain := model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: sc.Depth, Workers: 1})
	sp.Cover = spec.NewCoverage()
	counted := model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: sc.Depth, Workers: 2})
	if plain.States != counted.States || plain.Transitions != counted.Transitions {
		t.Fatalf("with coverage %d states %d transitions, without %d %d", counted.States, counted.Transitions, plain.States, plain.Transitions)
	}
	var actions uint64
	for _, r := range sp.Cover.Rows() {
		if r.Kind == spec.CoverAction {
			actions += r.Count
		}
	}
	if actions != uint64(counted.Transitions) {
		t.Fatalf("actions counted %d, transitions %d", actions, counted.Transitions)
	}
}

// TestBranchesSayWhatTheyModel: every branch and raise names the real code
// it models (its exception, when it has one, is declared with it, so it
// names a registered mechanism by construction).
func TestBranchesSayWhatTheyModel(t *testing.T) {
	for _, b := range spec.Branches() {
		if b.Models() == "" {
			t.Errorf("branch %s: no models text", b.Name())
		}
	}
	for _, r := range spec.NewCoverage().Rows() {
		if r.Kind == spec.CoverRaise && (r.Name == "" || r.Models == "") {
			t.Errorf("raise %q: no name or text", r.Name)
		}
	}
}
