package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// narrowInvariants is the invariants a check keeps under --invariant
// (only these) and --skip-invariant (all but these), of all, the spec's
// invariants in order: nil when neither narrows anything. An unknown name,
// or a narrowing that leaves nothing to check, is an error.
func narrowInvariants(all, only, skip []string) ([]string, error) {
	for _, list := range [][]string{only, skip} {
		for _, n := range list {
			if !slices.Contains(all, n) {
				return nil, fmt.Errorf("unknown invariant %s; valid invariants: %s", quote(n), strings.Join(all, ", "))
			}
		}
	}
	if len(only) == 0 && len(skip) == 0 {
		return nil, nil
	}
	var kept []string
	for _, n := range all {
		if (len(only) == 0 || slices.Contains(only, n)) && !slices.Contains(skip, n) {
			kept = append(kept, n)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("--invariant and --skip-invariant leave no invariant to check")
	}
	return kept, nil
}

// specInvariantNames are the names of every invariant of the spec, in
// order (the same for every scenario).
func specInvariantNames() []string {
	sp, err := scenario.All()[0].Spec(0)
	if err != nil {
		return nil
	}
	// Every invariant, not the first scenario's: a scenario leaves out
	// those it reports elsewhere (Scenario.CheckedElsewhere).
	sp.Scenario = nil
	var names []string
	for _, inv := range sp.Invariants() {
		names = append(names, inv.Name)
	}
	return names
}

// uncheckedReason says why expected, a variant's expected verdict, cannot
// be found by a check that keeps only the invariants kept (nil: all) and
// looks for livelocks only with liveness: "" when it can. A variant whose
// expected violation is left out is reported but not judged, so that
// narrowing a check to look past a known violation does not turn its
// expected verdict into a difference.
func uncheckedReason(expected string, kept []string, liveness bool) string {
	switch expected {
	case spec.VerdictOK, model.DeadlockInvariant:
		return ""
	case model.LivelockInvariant:
		if !liveness {
			return "livelocks are not looked for (--liveness=false)"
		}
		return ""
	}
	if kept != nil && !slices.Contains(kept, expected) {
		return expected + " is not checked (--invariant, --skip-invariant)"
	}
	return ""
}
