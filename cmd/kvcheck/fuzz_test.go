package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// fuzzJSON runs kvcheck fuzz with --json and decodes its one report.
func fuzzJSON(t *testing.T, args ...string) (int, fuzzReport) {
	t.Helper()
	code, out, errOut := runKvcheck(append([]string{"fuzz", "--json"}, args...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Fatalf("%v: %d JSON lines, want 1; stderr %s\n%s", args, len(lines), errOut, out)
	}
	var r fuzzReport
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
		t.Fatal(err)
	}
	return code, r
}

// TestFuzzFindsEachCrash: for every scenario whose real code `kvcheck check`
// finds a violation in, `kvcheck fuzz --seed 1` finds the same violation and
// shrinks it to the length `kvcheck check --keep-going` gives for it.
func TestFuzzFindsEachCrash(t *testing.T) {
	for _, sc := range scenario.All() {
		_, out, _ := runKvcheck("check", "--scenario", sc.Name, "--fix", "none", "--keep-going", "--json", "--triage=false")
		var check checkReport
		if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &check); err != nil {
			t.Fatal(err)
		}
		if check.Result != "violation" {
			continue
		}
		code, r := fuzzJSON(t, "--scenario", sc.Name, "--fix", "none", "--seed", "1", "--workers", "1", "--time", "20s", "--any-violation", "--triage=false")
		if code != exitViolation || r.Result != "violation" {
			t.Errorf("%s: exit %d, result %s; the checker finds %s", sc.Name, code, r.Result, check.Message)
			continue
		}
		steps := -1
		for _, v := range check.Violations {
			if v.Invariant == r.Invariant && v.Group == r.Group {
				steps = v.Steps
			}
		}
		if r.Steps != steps || len(r.Trace) != r.Steps || !r.Shortest || r.StepsBeforeShrink < r.Steps {
			t.Errorf("%s: %s (%s) shrunk from %d to %d steps (shortest %v); kvcheck check's shortest: %d",
				sc.Name, r.Invariant, r.Group, r.StepsBeforeShrink, r.Steps, r.Shortest, steps)
		}
		if r.Seed != 1 || r.Walks < 1 || !strings.Contains(r.Reproduce, "fuzz --scenario "+sc.Name+" --fix none --seed 1 --workers 1 --time 20s") {
			t.Errorf("%s: seed %d walks %d reproduce %q", sc.Name, r.Seed, r.Walks, r.Reproduce)
		}
	}
}

// TestFuzzFixRunsClean: with a fix that closes the scenario the run uses its
// whole budget, finds nothing and says what it covered; reaching the budget
// is incomplete (exit 3), never ok.
func TestFuzzFixRunsClean(t *testing.T) {
	code, r := fuzzJSON(t, "--scenario", "draft-admission", "--fix", "joint-admission", "--seed", "1", "--time", "0", "--walks", "3000", "--swarm")
	if code != exitIncomplete || r.Result != "incomplete" || r.Verdict != "incomplete" || r.Expected != "ok" || r.Walks != 3000 || r.States == 0 || r.Transitions < r.Walks {
		t.Fatalf("exit %d report %+v", code, r)
	}
	for name, reached := range r.Goals {
		if !reached {
			t.Errorf("goal %s not reached", name)
		}
	}
	code, out, _ := runKvcheck("fuzz", "--scenario", "draft-admission", "--fix", "joint-admission", "--seed", "1", "--time", "0", "--walks", "3000")
	if code != exitIncomplete || !strings.Contains(out, "seed 1") || !strings.Contains(out, "incomplete, no violation within the budget: 3000 walks") ||
		!strings.Contains(out, "1 of 1 variants are incomplete") || strings.Contains(out, ": ok") || !strings.Contains(out, "distinct states") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

// TestFuzzIsReproducible: the same seed, workers and walk budget print the
// same report twice but for the time taken.
func TestFuzzIsReproducible(t *testing.T) {
	args := []string{"--scenario", "draft-admission", "--seed", "5", "--workers", "2", "--time", "0", "--walks", "500"}
	_, a := fuzzJSON(t, append(args, "--fix", "none")...)
	_, b := fuzzJSON(t, append(args, "--fix", "none")...)
	a.Seconds, b.Seconds, a.ShrinkSeconds, b.ShrinkSeconds = 0, 0, 0, 0
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("two runs differ:\n%s\n%s", ja, jb)
	}
}

// TestFuzzTextEndsWithReproduce: the text report prints the seed first and
// ends with the command that reproduces the violation.
func TestFuzzTextEndsWithReproduce(t *testing.T) {
	code, out, _ := runKvcheck("fuzz", "--scenario", "draft-admission", "--fix", "none", "--seed", "3", "--time", "10s")
	if code != exitOK || !strings.Contains(out, "every verdict is as expected") || !strings.HasPrefix(out, "kvcheck fuzz: seed 3,") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := "reproduce: go run ./cmd/kvcheck fuzz --scenario draft-admission --fix none --seed 3 --workers "
	if last := strings.TrimSpace(lines[len(lines)-1]); !strings.HasPrefix(last, want) || !strings.HasSuffix(last, "--time 10s") {
		t.Errorf("last line %q, want the reproduce command", last)
	}
}

// TestFuzzBadUsage: bad flags and names exit 2 with a clear error.
func TestFuzzBadUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"fuzz", "--scenario", "nope"}, "valid scenarios: "},
		{[]string{"fuzz", "--fix", "nope"}, "valid fixes: "},
		{[]string{"fuzz", "--workers", "0"}, "--workers must be at least 1"},
		{[]string{"fuzz", "--time", "-1s"}, "must not be negative"},
		{[]string{"fuzz", "--walks", "-1"}, "must not be negative"},
		{[]string{"fuzz", "--time", "0"}, "needs a --walks budget"},
		{[]string{"fuzz", "--seed", "x"}, "invalid argument"},
		{[]string{"fuzz", "stray"}, "unexpected argument"},
	}
	for _, tt := range tests {
		code, _, errOut := runKvcheck(tt.args...)
		if code != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestFuzzOut: `kvcheck fuzz --out DIR` writes the shrunk counterexample
// (and its reduced configuration) as transcripts that replay, and refuses
// to overwrite them without --rewrite.
func TestFuzzOut(t *testing.T) {
	dir := t.TempDir()
	args := []string{"fuzz", "--scenario", "adp-dummy-leak", "--fix", "none", "--seed", "1", "--workers", "1", "--time", "0", "--walks", "200", "--out", dir}
	code, out, errOut := runKvcheck(args...)
	if code != exitOK {
		t.Fatalf("exit %d; stderr %s", code, errOut)
	}
	main := filepath.Join(dir, "adp-dummy-leak.real-code.no-leaked-cache.txt")
	if !strings.Contains(out, "wrote "+main) {
		t.Fatalf("output does not name %s:\n%s", main, out)
	}
	if code, _, errOut := runKvcheck("replay", main); code != exitOK {
		t.Fatalf("the written transcript does not replay: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runKvcheck(args...); code != exitUsage || !strings.Contains(errOut, "--rewrite") {
		t.Fatalf("second run: exit %d, stderr %q; want 2 naming --rewrite", code, errOut)
	}
	if code, _, _ := runKvcheck(append(args, "--rewrite", "--any-violation")...); code != exitViolation {
		t.Fatalf("--rewrite --any-violation: exit %d, want 1 (the violation)", code)
	}
}
