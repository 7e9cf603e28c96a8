package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestEveryInvariantIsNarrowable: --invariant and --skip-invariant accept
// every invariant of the spec, those a scenario reports elsewhere
// (Scenario.CheckedElsewhere) included: the list is not the first
// scenario's.
func TestEveryInvariantIsNarrowable(t *testing.T) {
	names := specInvariantNames()
	for _, want := range []string{spec.InvNoCrash, spec.InvForwardOverActive, spec.InvInFlightCachesActive, spec.InvRanksAgree} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not in the invariants --invariant accepts: %v", want, names)
		}
	}
	for _, sc := range scenario.All() {
		for name := range sc.CheckedElsewhere {
			if !slices.Contains(names, name) {
				t.Errorf("scenario %s reports %s elsewhere, but --invariant does not accept it", sc.Name, name)
			}
		}
	}
}

// TestNamedInvariantCheckedEverywhere: an invariant a scenario reports
// elsewhere is checked when the user names it. pp-history-capacity leaves
// forward-over-active-caches to pp-forward-over-suspended; asked for by
// name, it finds PR #19120's clamp does not keep stage 1 from forwarding
// over a suspended cache. Unnamed, it stays left out (the clamp is ok).
func TestNamedInvariantCheckedEverywhere(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--invariant", spec.InvForwardOverActive}, spec.InvForwardOverActive},
		{nil, "ok"},
	} {
		args := append([]string{"check", "--scenario", "pp-history-capacity", "--fix", "clamp-capacity", "--triage=false", "--json"}, tc.args...)
		_, out, errOut := runKvcheck(args...)
		var r checkReport
		if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, errOut)
		}
		if got := r.Invariant; r.Result == "ok" && tc.want == "ok" || got == tc.want {
			continue
		}
		t.Errorf("%v: %s %s, want %s", args, r.Result, r.Invariant, tc.want)
	}
}
