package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSymmetryFlag: a configuration whose two ranks hold alike
// requests is checked with symmetry by default, in fewer states, with the
// same verdict and counterexample length as with --symmetry=false, whose
// reproduce line keeps the flag; a built-in scenario has no symmetry and
// says so.
func TestCheckSymmetryFlag(t *testing.T) {
	code, text, errOut := runKvcheck("show-config", "overlap-two-ranks")
	if code != exitOK {
		t.Fatalf("show-config: exit %d %s", code, errOut)
	}
	old := "    request prompt=4 new=4\n    request prompt=4 new=4\n    request prompt=4 new=4 rank=1\n"
	if !strings.Contains(text, old) {
		t.Fatalf("overlap-two-ranks's requests changed; update this test:\n%s", text)
	}
	text = strings.Replace(text, old, "    request prompt=4 new=4\n    request prompt=4 new=4 rank=1\n    request prompt=4 new=3\n    request prompt=4 new=3 rank=1\n", 1)
	path := filepath.Join(t.TempDir(), "two-alike-ranks.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := func(args ...string) []checkReport {
		t.Helper()
		code, out, errOut := runKvcheck(append([]string{"check", "--config", path, "--fix", "none", "--json", "--triage=false"}, args...)...)
		if code != exitOK {
			t.Fatalf("check %v: exit %d\n%s%s", args, code, out, errOut)
		}
		var rs []checkReport
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r checkReport
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			rs = append(rs, r)
		}
		return rs
	}
	on, off := reports(), reports("--symmetry=false")
	if len(on) != 1 || len(off) != 1 {
		t.Fatalf("%d and %d reports, want 1 each", len(on), len(off))
	}
	for i := range on {
		a, b := on[i], off[i]
		if !a.Symmetric || b.Symmetric || a.States >= b.States || a.Verdict != b.Verdict || a.Steps != b.Steps {
			t.Errorf("%v: with symmetry %v %d states %s in %d steps; without %v %d states %s in %d steps",
				a.Fixes, a.Symmetric, a.States, a.Verdict, a.Steps, b.Symmetric, b.States, b.Verdict, b.Steps)
		}
		if strings.Contains(a.Reproduce, "--symmetry") || !strings.HasSuffix(b.Reproduce, "--symmetry=false") {
			t.Errorf("reproduce lines %q and %q", a.Reproduce, b.Reproduce)
		}
	}
	if on[0].Verdict != "no-crash-on-refusal" {
		t.Errorf("the real code's verdict is %s, want no-crash-on-refusal", on[0].Verdict)
	}
	code, out, _ := runKvcheck("check", "--scenario", "overlap-two-ranks", "--fix", "none", "--json")
	var r checkReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); code != exitOK || err != nil || r.Symmetric {
		t.Errorf("overlap-two-ranks: exit %d, %v, symmetry_reduced %v (its ranks hold different requests)", code, err, r.Symmetric)
	}
}
