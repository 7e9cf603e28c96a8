package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckPartialOrder: --por reports the reduction in the JSON line,
// stores fewer states on two attention-DP ranks, keeps the verdict and the
// shortest counterexample, and puts --por in the reproduce line.
func TestCheckPartialOrder(t *testing.T) {
	report := func(fix string, args ...string) checkReport {
		t.Helper()
		code, out, errOut := runKvcheck(append([]string{"check", "--scenario", "adp-dummy-leak", "--fix", fix, "--json", "--workers", "1"}, args...)...)
		if code != exitOK {
			t.Fatalf("%s %v: exit %d; stderr %s", fix, args, code, errOut)
		}
		var r checkReport
		if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain, reduced := report("free-unpaired-mirror"), report("free-unpaired-mirror", "--por")
	if plain.Reduced || !reduced.Reduced || reduced.Verdict != "ok" || !reduced.Complete || reduced.States*3 > plain.States*2 {
		t.Errorf("without --por: reduced %v, %d states; with it: reduced %v, %s, complete %v, %d states (want at most two thirds)",
			plain.Reduced, plain.States, reduced.Reduced, reduced.Verdict, reduced.Complete, reduced.States)
	}
	if !strings.HasSuffix(reduced.Reproduce, " --por") {
		t.Errorf("reproduce line %q does not end in --por", reduced.Reproduce)
	}
	plain, reduced = report("none"), report("none", "--por")
	if plain.Verdict != reduced.Verdict || plain.Steps != reduced.Steps || strings.Join(plain.Trace, "\n") != strings.Join(reduced.Trace, "\n") {
		t.Errorf("without --por %s in %d steps, with it %s in %d steps", plain.Verdict, plain.Steps, reduced.Verdict, reduced.Steps)
	}
}

// TestCheckPartialOrderEveryScenario: with --por every built-in scenario
// variant gives the verdict it expects, including the mechanisms its
// reaches: list wants exercised (coverage counts the steps the reduced
// search takes, which are fewer).
func TestCheckPartialOrderEveryScenario(t *testing.T) {
	code, out, errOut := runKvcheck("check", "--por", "--workers", "1")
	if code != exitOK || !strings.Contains(out+errOut, "every verdict is as expected") {
		t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, exitOK, out, errOut)
	}
}
