package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
)

// profileLineOf is a valid profile-file line of label with counts (their
// digest computed).
func profileLineOf(label string, counts map[string]int) string {
	return fmt.Sprintf("%s digest=%s %s", label, sweep.ProfileDigest(counts), sweep.ProfileText(counts))
}

// TestSweepProfileWriteExpect: --write-profile writes the small sweep's
// profile (refusing an existing file without --rewrite), --expect-profile
// of it exits 0; a file whose counts differ exits 1 naming the variant, the
// counts that differ and the command that reproduces it; a file that
// lacks the variant exits 1 too.
func TestSweepProfileWriteExpect(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.txt")
	args := sweepArgs("--fix", "free-unpaired-mirror", "--no-cache", "--triage=false", "--workers", "2")
	code, out, errOut := runKvcheck(append(args, "--write-profile", file)...)
	if code != exitOK || !strings.Contains(out, "wrote 1 verdict profile(s) to "+file) {
		t.Fatalf("--write-profile: exit %d:\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := readProfileFile(file)
	if err != nil {
		t.Fatalf("the written file does not parse: %v\n%s", err, data)
	}
	e, ok := pf.entries["adp-dummy-leak free-unpaired-mirror"]
	if !ok || e.counts["configurations"] != 288 || e.counts["ok"] == 288 {
		t.Fatalf("written profile %+v:\n%s", e, data)
	}
	if code, _, errOut := runKvcheck(append(args, "--write-profile", file)...); code != exitUsage || !strings.Contains(errOut, "exists; pass --rewrite") {
		t.Fatalf("--write-profile onto an existing file: exit %d: %s", code, errOut)
	}
	code, out, errOut = runKvcheck(append(args, "--expect-profile", file)...)
	if code != exitOK || !strings.Contains(out, "every verdict profile is as "+file+" pins: 1 variant(s)") ||
		!strings.Contains(out, "  profile: 288 configurations (") {
		t.Fatalf("--expect-profile of the written file: exit %d:\n%s%s", code, out, errOut)
	}

	// One configuration more holds, one livelock fewer.
	changed := map[string]int{}
	for k, v := range e.counts {
		changed[k] = v
	}
	changed["ok"]++
	changed["livelock"]--
	differing := filepath.Join(dir, "differing.txt")
	os.WriteFile(differing, []byte("# a profile pinned before a change\n"+profileLineOf("adp-dummy-leak free-unpaired-mirror", changed)+"\n"), 0o644)
	code, out, errOut = runKvcheck(append(args, "--expect-profile", differing)...)
	want := []string{
		"1 of 1 variants' verdict profiles differ from " + differing,
		"adp-dummy-leak free-unpaired-mirror (" + differing + ":2): digest expected " + sweep.ProfileDigest(changed) + ", got " + e.digest,
		fmt.Sprintf("livelock: expected %d, got %d; ok: expected %d, got %d", changed["livelock"], e.counts["livelock"], changed["ok"], e.counts["ok"]),
		"reproduce: go run ./cmd/kvcheck sweep --scenario adp-dummy-leak --fix free-unpaired-mirror --range ",
		" --keep-going --expect-profile " + differing,
	}
	for _, w := range want {
		if code != exitViolation || !strings.Contains(out, w) {
			t.Fatalf("a differing profile: exit %d, want %d and %q:\n%s%s", code, exitViolation, w, out, errOut)
		}
	}
	if last := lastLine(out); !strings.HasPrefix(last, "  reproduce: ") {
		t.Errorf("the report does not end with the command that reproduces it: %q", last)
	}

	other := filepath.Join(dir, "other.txt")
	os.WriteFile(other, []byte(profileLineOf("adp-dummy-leak real-code", e.counts)+"\n"), 0o644)
	code, out, _ = runKvcheck(append(args, "--expect-profile", other)...)
	if code != exitViolation || !strings.Contains(out, "adp-dummy-leak free-unpaired-mirror: not in "+other+" (a variant missing from the file is not passed)") {
		t.Fatalf("a variant missing from the file: exit %d:\n%s", code, out)
	}
}

func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestSweepProfileBadFile: a malformed --expect-profile file is exit 2
// before anything is swept, naming the file and line and what was
// expected.
func TestSweepProfileBadFile(t *testing.T) {
	dir := t.TempDir()
	good := map[string]int{"configurations": 3, "ok": 1, "incomplete": 0, "states": 40, "livelock": 2}
	for _, tc := range []struct{ text, want string }{
		{"draft-admission\n", ":1: expected SCENARIO VARIANT digest=HEX configurations=N ok=N incomplete=N"},
		{"# c\n\ndraft-admission real-code digest=xyz configurations=1 ok=1 incomplete=0\n", ":3: digest: expected 12 lowercase hex digits"},
		{"draft-admission real-code configurations=1 ok=1 incomplete=0\n", ":1: draft-admission real-code: digest=... missing"},
		{"draft-admission real-code digest=000000000000 configurations=1 ok=x incomplete=0\n", `:1: ok: expected a count (an integer 0 or more), got "x"`},
		{"draft-admission real-code digest=000000000000 configurations=1 ok=1 incomplete=0 bogus=3\n", `:1: unknown count "bogus"; expected configurations, ok, incomplete, states, an invariant (no-crash-on-refusal,`},
		{"draft-admission real-code digest=000000000000 configurations=1 ok=1 ok=1\n", ":1: ok given twice"},
		{"draft-admission real-code digest=000000000000 configurations=1 ok=1 incomplete=0 states=9 livelock=1\n", ":1: draft-admission real-code: ok, incomplete and the invariants' counts add up to 2, not configurations=1"},
		{"draft-admission real-code digest=000000000000 configurations=3 ok=1 incomplete=0 states=40 livelock=2\n", ":1: draft-admission real-code: digest=000000000000 does not match the counts on the line (their digest is " + sweep.ProfileDigest(good) + ")"},
		{profileLineOf("a real-code", good) + "\n" + profileLineOf("a real-code", good) + "\n", ":2: a real-code already given on line 1"},
		{"x y digest=000000000000 configurations=2 ok=0 incomplete=0 states=9 no-crash-on-refusal=2 no-crash-on-refusal/resize=1\n", ":1: x y: the raising functions' counts add up to 1, not no-crash-on-refusal=2"},
		{"draft-admission real-code digest=000000000000 configurations=1 ok=1 incomplete=0\n", ":1: draft-admission real-code: states=... missing"},
	} {
		file := filepath.Join(dir, "bad.txt")
		os.WriteFile(file, []byte(tc.text), 0o644)
		code, out, errOut := runKvcheck("sweep", "--scenario", "adp-dummy-leak", "--no-cache", "--expect-profile", file)
		if code != exitUsage || !strings.Contains(errOut, file+tc.want) || !strings.Contains(errOut, "reproduce: ") || out != "" {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.text, code, errOut, exitUsage, file+tc.want)
		}
	}
	if code, _, errOut := runKvcheck("sweep", "--expect-profile", filepath.Join(dir, "none.txt"), "--write-profile", "x"); code != exitUsage || !strings.Contains(errOut, "give one") {
		t.Errorf("both flags: exit %d: %s", code, errOut)
	}
}
