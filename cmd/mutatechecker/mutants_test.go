package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseMutants reads single-line and multi-line snippets verbatim.
func TestParseMutants(t *testing.T) {
	text := "# comment\n\n== one\nfile: spec/a.go\nmechanism: rounding\nold: \treturn a/b\nnew: \treturn a/b + 1\n\n" +
		"== two\nfile: spec/b.go\nmechanism: close\nold: x := 1\n> y := 2\nnew: |\n> x := 2\n> y := 2\nequivalent: same pages\n"
	ms, err := ParseMutants("m.txt", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("%d mutants, want 2", len(ms))
	}
	if m := ms[0]; m.ID != "one" || m.Old != "\treturn a/b" || m.New != "\treturn a/b + 1" || m.Line != 3 || m.Equivalent != "" {
		t.Errorf("first: %+v", m)
	}
	if m := ms[1]; m.Old != "x := 1\ny := 2" || m.New != "x := 2\ny := 2" || m.Equivalent != "same pages" || m.Line != 9 {
		t.Errorf("second: %+v", m)
	}
}

// TestParseMutantsBadEntry: each malformed entry is refused naming the
// file and the line of the fault.
func TestParseMutantsBadEntry(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"file: spec/a.go\n", "m.txt:1: \"file: spec/a.go\" before any entry"},
		{"== a\nfile: spec/a.go\nmechanism: x\nold: a\n", "m.txt:1: mutant a has no new:"},
		{"== a\nfile: spec/a.go\nold: a\nnew: b\n", "m.txt:1: mutant a has no mechanism:"},
		{"== a\nfile: spec/a.go\nmechanism: x\nold: a\nnew: b\n== a\n", "m.txt:6: mutant a already declared at line 1"},
		{"== a\nfile: spec/a.go\nmechanism: x\ncolour: red\n", "m.txt:4: unknown key \"colour\""},
		{"== a\nfile: spec/a.go\nmechanism: x\nthis line has no key\n", "m.txt:4: \"this line has no key\"; expected KEY: VALUE"},
		{"== A b\n", "m.txt:1: mutant id \"A b\""},
		{"== a\nfile: spec/a.go\nmechanism: x\nold: a\nnew: a\n", "m.txt:1: mutant a: old and new are the same"},
	} {
		_, err := ParseMutants("m.txt", strings.NewReader(tc.text))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q...", tc.text, err, tc.want)
		}
	}
}

// TestApplyRefusesStale: a snippet that does not occur, or occurs twice,
// is refused naming the entry's file and line; one that occurs once is
// replaced.
func TestApplyRefusesStale(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "spec"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "spec", "a.go")
	os.WriteFile(path, []byte("a := 1\nb := 1\nb := 1\n"), 0o644)
	stale := Mutant{ID: "gone", File: "spec/a.go", Old: "c := 1", New: "c := 2", Source: "m.txt", Line: 7}
	if err := stale.Apply(dir); err == nil || !strings.HasPrefix(err.Error(), "m.txt:7: mutant gone is stale") {
		t.Errorf("stale: %v", err)
	}
	twice := Mutant{ID: "twice", File: "spec/a.go", Old: "b := 1", New: "b := 2", Source: "m.txt", Line: 9}
	if err := twice.Apply(dir); err == nil || !strings.Contains(err.Error(), "occurs 2 times") {
		t.Errorf("twice: %v", err)
	}
	once := Mutant{ID: "once", File: "spec/a.go", Old: "a := 1", New: "a := 2", Source: "m.txt", Line: 1}
	if err := once.Apply(dir); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "a := 2\nb := 1\nb := 1\n" {
		t.Errorf("applied: %q", data)
	}
}

// TestProjectMutantsApply: every entry of the project's list parses and
// applies to today's spec exactly once (a stale entry fails here first).
func TestProjectMutantsApply(t *testing.T) {
	f, err := os.Open("mutants.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := ParseMutants("cmd/mutatechecker/mutants.txt", f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 30 {
		t.Errorf("%d mutants; the list holds at least 30", len(ms))
	}
	for i := range ms {
		if err := checkApplies("../..", &ms[i]); err != nil {
			t.Error(err)
		}
	}
}

// TestNormalizeDropsTimingOnly: two runs that differ only in timing
// fields compare equal; a changed verdict does not.
func TestNormalizeDropsTimingOnly(t *testing.T) {
	a := normalizeJSONLines([]byte(`{"scenario":"x","seconds":0.1,"states":41,"nested":{"elapsed_seconds":3,"n":1}}`+"\n"), "/tmp/r")
	b := normalizeJSONLines([]byte(`{"nested":{"n":1,"elapsed_seconds":9},"states":41,"scenario":"x","seconds":7.5}`+"\n"), "/tmp/r")
	if differs(a, b) {
		t.Errorf("timing-only difference kept: %v vs %v", a, b)
	}
	c := normalizeJSONLines([]byte(`{"scenario":"x","seconds":0.1,"states":42,"nested":{"n":1}}`+"\n"), "/tmp/r")
	if !differs(a, c) {
		t.Errorf("a changed state count compares equal: %v", c)
	}
}

// TestJudge: a mutant is killed by the answers that differ, and an
// equivalent one is reported as such.
func TestJudge(t *testing.T) {
	base := &Answers{Check: []string{"a", "exit 0"}, Sweep: []string{"s"}, Lin: map[string]string{"c": "exit 0: ok"}}
	same := &Answers{Check: []string{"a", "exit 0"}, Sweep: []string{"s"}, Lin: map[string]string{"c": "exit 0: ok"}}
	linOnly := &Answers{Check: []string{"a", "exit 0"}, Sweep: []string{"s"}, Lin: map[string]string{"c": "exit 1: not"}}
	opt := Options{SweepArgs: [][]string{{"sweep"}}}
	if r := judge(&Mutant{}, same, base, nil, opt); r.Killed() || r.Verdict() != "survived" {
		t.Errorf("same answers: %+v", r)
	}
	if r := judge(&Mutant{}, linOnly, base, nil, opt); !r.Lin || r.Check || r.Sweep || r.Verdict() != "killed" {
		t.Errorf("lin differs: %+v", r)
	}
	if r := judge(&Mutant{Equivalent: "why"}, same, base, nil, opt); r.Verdict() != "equivalent" {
		t.Errorf("equivalent: %+v", r)
	}
}

// TestProfileSweepFromPinnedFile: the first sweep of answer (b) is the one
// the pinned profiles were written by, with --json and without writing.
func TestProfileSweepFromPinnedFile(t *testing.T) {
	got, err := profileSweep("../..")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "sweep --scenario ") || !strings.Contains(got, " --profile ") || !strings.HasSuffix(got, " --json --workers 1") ||
		strings.Contains(got, "--write-profile") || strings.Contains(got, "--rewrite") {
		t.Errorf("profile sweep %q", got)
	}
	if _, err := profileSweep(t.TempDir()); err == nil {
		t.Error("a repository without the pinned file gives a sweep")
	}
}
