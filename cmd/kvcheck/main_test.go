package main

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

func runKvcheck(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestCheckJSONViolation: the real code's draft-admission crash comes out
// as one JSON line with the contract's keys, the real error text and a
// shortest trace; the violation is the one the scenario expects, so the
// exit status is 0, and 1 under --any-violation.
func TestCheckJSONViolation(t *testing.T) {
	if code, _, errOut := runKvcheck("check", "--scenario", "draft-admission", "--fix", "none", "--any-violation"); code != exitViolation {
		t.Fatalf("--any-violation: exit %d, want %d; stderr %s", code, exitViolation, errOut)
	}
	code, out, errOut := runKvcheck("check", "--scenario", "draft-admission", "--fix", "none", "--json")
	if code != exitOK || !strings.Contains(errOut, "every verdict is as expected") {
		t.Fatalf("exit %d, want %d; stderr %s", code, exitOK, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d JSON lines, want 1:\n%s", len(lines), out)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"scenario", "fixes", "result", "verdict", "expected", "as_expected", "complete", "invariant", "message", "steps", "states", "transitions", "depth", "seconds", "goals", "trace"} {
		if _, ok := raw[key]; !ok {
			t.Errorf("key %q missing", key)
		}
	}
	var r checkReport
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
		t.Fatal(err)
	}
	if r.Result != "violation" || r.Invariant != "no-crash-on-refusal" || r.Verdict != r.Invariant || r.Expected != r.Invariant || !r.AsExpected ||
		!strings.Contains(r.Message, "Draft KV cache context resize failed for request 3: could not resize to 12 tokens") {
		t.Fatalf("report %+v", r)
	}
	if r.Steps != 13 || len(r.Trace) != 13 || r.Trace[0] != "arrive req=1" || r.Trace[12] != "prepare-resources rank=0" {
		t.Fatalf("trace %v (%d steps)", r.Trace, r.Steps)
	}
	if len(r.Fixes) != 0 {
		t.Fatalf("fixes %v, want none", r.Fixes)
	}
}

// TestCheckJSONFixed: a fix closes it with a complete search and its goals
// met.
func TestCheckJSONFixed(t *testing.T) {
	for _, fix := range []string{"joint-admission", "defer-draft-mirror"} {
		code, out, errOut := runKvcheck("check", "--scenario", "draft-admission", "--fix", fix, "--json")
		if code != exitOK {
			t.Fatalf("%s: exit %d; stderr %s; out %s", fix, code, errOut, out)
		}
		var r checkReport
		if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil {
			t.Fatal(err)
		}
		if r.Result != "ok" || !r.Complete || len(r.Fixes) != 1 || r.Fixes[0] != fix {
			t.Fatalf("%s: report %+v", fix, r)
		}
		for name, reached := range r.Goals {
			if !reached {
				t.Errorf("%s: goal %s not reached", fix, name)
			}
		}
	}
}

// TestCheckDefaultRunsFixes: without --fix a scenario runs as the real code
// and with each of its fix sets, and the table ends each failure with the
// command that reproduces it.
func TestCheckDefaultRunsFixes(t *testing.T) {
	code, out, _ := runKvcheck("check", "--scenario", "draft-admission")
	if code != exitOK {
		t.Fatalf("exit %d, want 0", code)
	}
	for _, want := range []string{"(real code)", "joint-admission", "defer-draft-mirror", "mirror-reuse",
		"reproduce: go run ./cmd/kvcheck check --scenario draft-admission --fix none"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	last := strings.TrimSpace(out)
	if lines := strings.Split(last, "\n"); !strings.HasPrefix(strings.TrimSpace(lines[len(lines)-1]), "reproduce: ") {
		t.Errorf("output does not end with the reproduce command:\n%s", out)
	}
}

// TestCheckBadUsage: unknown names and bad flags exit 2 with an error that
// lists what is valid.
func TestCheckBadUsage(t *testing.T) {
	var scenarios, fixes []string
	for _, sc := range scenario.All() {
		scenarios = append(scenarios, sc.Name)
	}
	for _, f := range spec.AllFixes() {
		fixes = append(fixes, f.String())
	}
	sort.Strings(scenarios)
	sort.Strings(fixes)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"check", "--scenario", "nope"}, "valid scenarios: " + strings.Join(scenarios, ", ")},
		{[]string{"check", "--fix", "nope"}, "valid fixes: " + strings.Join(fixes, ", ")},
		{[]string{"check", "--scenario", "draft-admission", "--invariant", "nope"}, "valid invariants: no-crash-on-refusal,"},
		{[]string{"check", "--depth", "x"}, "invalid argument"},
		{[]string{"check", "--depth", "-1"}, "--depth must be at least 1, got -1"},
		{[]string{"check", "--depth", "0"}, "--depth must be at least 1, got 0; leave --depth out"},
		{[]string{"check", "--max-states", "-1"}, "--max-states must not be negative"},
		{[]string{"check", "stray"}, "unexpected argument"},
		{[]string{"frobnicate"}, "unknown command"},
		{nil, "Usage ("},
	}
	for _, tt := range tests {
		code, _, errOut := runKvcheck(tt.args...)
		if code != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestList names every scenario with the report it reproduces, every
// invariant and every fix, as the registries declare them.
func TestList(t *testing.T) {
	code, out, _ := runKvcheck("list")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var want []string
	for _, sc := range scenario.All() {
		want = append(want, sc.Name, sc.Report)
	}
	sp, _ := scenario.All()[0].Spec(0)
	for _, inv := range sp.Invariants() {
		want = append(want, inv.Name)
	}
	for _, f := range spec.AllFixes() {
		want = append(want, f.String(), f.Source())
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("list lacks %q", w)
		}
	}
}
