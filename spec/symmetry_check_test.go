package spec

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// shortestByInvariant is the shortest violation depth of each invariant a
// keep-going check reports.
func shortestByInvariant(res model.Result[Action]) map[string]int {
	out := map[string]int{}
	for _, v := range res.Violations {
		if d, ok := out[v.Invariant]; !ok || v.Depth < d {
			out[v.Invariant] = v.Depth
		}
	}
	return out
}

// symmetryAgreement checks sp with and without symmetry reduction and
// returns how they disagree, or "": the same completeness, the same
// violated invariants with the same shortest depths, the same goals
// reached; the reduced run stores no more states, and each of its traces
// replays on the spec and ends in a state that breaks its invariant (or
// deadlocks, or starts its livelock's cycle).
func symmetryAgreement(sp *Spec, opts model.Options) (msg string, full, reduced int) {
	opts.KeepGoing = true
	plain := model.Check[State, Action](sp, opts)
	opts.Symmetry = true
	if opts.MaxStates > 0 && plain.States >= opts.MaxStates {
		return "", plain.States, 0 // cut by the bound: nothing to compare
	}
	sym := model.Check[State, Action](sp, opts)
	if plain.Complete != sym.Complete {
		return fmt.Sprintf("complete %v without symmetry, %v with", plain.Complete, sym.Complete), plain.States, sym.States
	}
	if a, b := shortestByInvariant(plain), shortestByInvariant(sym); !maps.Equal(a, b) {
		return fmt.Sprintf("shortest violations %v without symmetry, %v with", a, b), plain.States, sym.States
	}
	if !slices.Equal(plain.Goals, sym.Goals) {
		return fmt.Sprintf("goals %v without symmetry, %v with", plain.Goals, sym.Goals), plain.States, sym.States
	}
	if sym.States > plain.States || sym.Symmetric != (sp.symmetry != nil) {
		return fmt.Sprintf("%d states without symmetry, %d with (reduced: %v)", plain.States, sym.States, sym.Symmetric), plain.States, sym.States
	}
	for _, v := range sym.Violations {
		states, err := model.Replay[State, Action](sp, v.Trace)
		if err != nil {
			return fmt.Sprintf("%s: the reduced run's trace does not replay: %v", v.Invariant, err), plain.States, sym.States
		}
		end := &states[len(states)-1]
		switch v.Invariant {
		case model.DeadlockInvariant:
			if len(sp.Actions(end, nil)) != 0 || sp.IsTerminal(end) {
				return "the reduced run's deadlock trace ends in a state that is not a deadlock", plain.States, sym.States
			}
		case model.LivelockInvariant:
			cyc, err := model.Replay[State, Action](model.From[State, Action](sp, *end), v.Cycle)
			if err != nil || sp.Fingerprint(&cyc[len(cyc)-1]) != sp.Fingerprint(end) {
				return fmt.Sprintf("the reduced run's livelock cycle does not return to its start (%v)", err), plain.States, sym.States
			}
		default:
			broken := false
			for _, inv := range sp.Invariants() {
				if inv.Name == v.Invariant {
					f := inv.Check(end)
					broken = f != nil && f.Message == v.Message
				}
			}
			if !broken {
				return fmt.Sprintf("the reduced run's %s trace ends in a state that does not break it with message %q", v.Invariant, v.Message), plain.States, sym.States
			}
		}
	}
	return "", plain.States, sym.States
}

// TestSymmetryAgrees checks with and without symmetry reduction, on every
// built-in scenario variant (the multi-rank ones outside the pipeline made
// symmetric, since their own request layouts have no symmetry) and on
// random configurations whose ranks hold alike requests, that the
// verdicts, the violated invariants, their shortest counterexample lengths
// and the goals agree, and that the reduced run's counterexamples replay.
func TestSymmetryAgrees(t *testing.T) {
	opts := model.Options{MaxDepth: 200, MaxStates: 20000, Workers: 2, Liveness: true}
	full, reduced, compared := 0, 0, 0
	check := func(name string, sp *Spec) {
		t.Helper()
		msg, f, r := symmetryAgreement(sp, opts)
		if f >= opts.MaxStates {
			return // too large to compare complete searches within the test's time
		}
		compared++
		if msg != "" {
			t.Fatalf("%s (fixes %v): %s\n%s\nreproduce: go test ./spec/ -run TestSymmetryAgrees", name, sp.Fixes.Names(), msg, formatConfigText(&sp.Config))
		}
		t.Logf("%s %v: %d states, %d with symmetry", name, sp.Fixes.Names(), f, r)
		full += f
		reduced += r
	}
	for _, sc := range testScenarios() {
		for _, fixes := range sc.Variants() {
			sp, err := sc.Spec(fixes)
			if err != nil {
				t.Fatal(err)
			}
			if sp.symmetry != nil {
				check(sc.Name, sp)
			}
		}
	}
	random := 8
	if testing.Short() {
		random = 2
	}
	for i, sp := range symmetryConfigs(t, random) {
		check(fmt.Sprintf("configuration %d", i), sp)
	}
	if compared < 15 || reduced >= full {
		t.Fatalf("%d configurations compared; symmetry stored %d states against %d", compared, reduced, full)
	}
}

// TestSymmetryPinnedCounts pins the states of two symmetric versions of
// built-in scenarios (each of three ranks holds one copy of the scenario's
// last request) without and with symmetry reduction, so that a change of
// the spec or of the group shows.
func TestSymmetryPinnedCounts(t *testing.T) {
	for _, c := range []struct {
		scenario        string
		fixes           Fixes
		plain, symmetry int
	}{
		{"adp-veto-generation", 0, 31852, 8154},
		{"adp-empty-batch-veto", FixSetOf(FixBlockingSendPoll), 12032, 8951},
	} {
		sc, err := lookupTestScenario(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := New(symmetric(sc.Config, 3, []int{len(sc.Config.Requests) - 1}, true), c.fixes)
		if err != nil {
			t.Fatal(err)
		}
		sp.Scenario = sc.Info()
		for _, on := range []bool{false, true} {
			want := c.plain
			if on {
				want = c.symmetry
			}
			if res := model.Check[State, Action](sp, model.Options{MaxDepth: sc.Depth, Workers: 1, Symmetry: on}); res.States != want || !res.Complete {
				t.Errorf("%s %v symmetric on 3 ranks, symmetry %v: %d states (complete %v), want %d\nreproduce: go test ./spec/ -run TestSymmetryPinnedCounts", c.scenario, c.fixes.Names(), on, res.States, res.Complete, want)
			}
		}
	}
}
