package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckGateHealthyTree: `kvcheck check` with no flag checks every
// scenario and variant, finds every verdict as expected and exits 0.
func TestCheckGateHealthyTree(t *testing.T) {
	code, out, errOut := runKvcheck("check")
	if code != exitOK || !strings.HasPrefix(out, "kvcheck check: every verdict is as expected: ") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

// TestCheckGateFlippedExpectation: an --expect file that flips one
// verdict makes the check exit 1, and the first lines of its output say
// which variant differs, how, and how to reproduce it.
func TestCheckGateFlippedExpectation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "expect.txt")
	os.WriteFile(path, []byte("# the fix is expected to fail\ndraft-admission joint-admission no-crash-on-refusal\n"), 0o644)
	code, out, _ := runKvcheck("check", "--scenario", "draft-admission", "--expect", path)
	lines := strings.Split(out, "\n")
	if code != exitViolation || len(lines) < 3 ||
		lines[0] != "kvcheck check: 1 of 4 verdicts differ from what is expected:" ||
		!strings.HasPrefix(lines[1], "  draft-admission (joint-admission): expected no-crash-on-refusal, got ok") ||
		strings.TrimSpace(lines[2]) != "reproduce: go run ./cmd/kvcheck check --scenario draft-admission --fix joint-admission" {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// The same flip of the real code's verdict: a violation where ok was
	// expected is "a new violation".
	os.WriteFile(path, []byte("draft-admission real-code ok\n"), 0o644)
	code, out, _ = runKvcheck("check", "--scenario", "draft-admission", "--expect", path)
	if code != exitViolation || !strings.Contains(out, "expected ok, got no-crash-on-refusal (a new violation)") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// TestCheckBudgetIsNotOK: a search cut by --max-states before any
// violation is reported as incomplete, naming the budget, with exit 3,
// in the text, the table and the JSON.
func TestCheckBudgetIsNotOK(t *testing.T) {
	code, out, _ := runKvcheck("check", "--scenario", "adp-dummy-leak", "--fix", "free-unpaired-mirror", "--max-states", "100")
	if code != exitIncomplete || !strings.Contains(out, "1 of 1 variants are incomplete") ||
		!strings.Contains(out, "stopped at its --max-states 100 budget") || !strings.Contains(out, " incomplete ") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, out, _ = runKvcheck("check", "--scenario", "adp-dummy-leak", "--fix", "free-unpaired-mirror", "--depth", "5", "--json")
	if code != exitIncomplete || !strings.Contains(out, `"result":"incomplete"`) || !strings.Contains(out, "--depth 5 budget") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// A budget is not a difference: with --any-violation it stays 3.
	if code, _, _ := runKvcheck("check", "--scenario", "adp-dummy-leak", "--fix", "free-unpaired-mirror", "--depth", "5", "--any-violation"); code != exitIncomplete {
		t.Fatalf("--any-violation: exit %d", code)
	}
}

// TestExpectFileErrors: a malformed --expect file names file, line and
// what was expected, and exits 2.
func TestExpectFileErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ text, want string }{
		{"draft-admission joint-admission\n", ":1: expected SCENARIO FIXES VERDICT"},
		{"\n# c\nno-such real-code ok\n", ":3: unknown scenario \"no-such\"; valid scenarios: "},
		{"draft-admission mirror-reuse+nope ok\n", "unknown fix"},
		{"draft-admission free-unpaired-mirror ok\n", "has no variant \"free-unpaired-mirror\"; its variants: real-code, joint-admission"},
		{"draft-admission real-code nope\n", "unknown verdict \"nope\"; expected one of: ok, "},
	}
	for i, tt := range tests {
		path := filepath.Join(dir, "e"+string(rune('a'+i)))
		os.WriteFile(path, []byte(tt.text), 0o644)
		code, _, errOut := runKvcheck("check", "--expect", path)
		if code != exitUsage || !strings.Contains(errOut, path) || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d stderr %q; want %q", tt.text, code, errOut, tt.want)
		}
	}
	// Only a bounded prefix of a long input is quoted.
	path := filepath.Join(dir, "long")
	os.WriteFile(path, []byte("draft-admission real-code "+strings.Repeat("x", 5000)+"\n"), 0o644)
	if code, _, errOut := runKvcheck("check", "--expect", path); code != exitUsage || len(errOut) > 800 || !strings.Contains(errOut, `xxx"...`) {
		t.Errorf("long verdict: exit %d, %d bytes of error: %s", code, len(errOut), errOut)
	}
	if code, _, errOut := runKvcheck("check", "--expect", "/dev/zero"); code != exitUsage || !strings.Contains(errOut, "not a regular file") {
		t.Errorf("/dev/zero: exit %d %s", code, errOut)
	}
}
