package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckCover: --cover prints the coverage table after the check table,
// with the scenario that reached each mechanism, and lists what the run
// never reached with the reason; the verdict is the check's.
func TestCheckCover(t *testing.T) {
	code, out, errOut := runKvcheck("check", "--scenario", "adp-dummy-leak", "--fix", "free-unpaired-mirror", "--cover")
	if code != exitOK {
		t.Fatalf("exit %d; stderr %s", code, errOut)
	}
	for _, want := range []string{
		"coverage: ",
		"branch  can-queue-veto ",
		"adp-dummy-leak",
		"never reached (",
		"raise resize-not-active: unreachable by construction",
		"reproduce: go run ./cmd/kvcheck check --scenario adp-dummy-leak --fix free-unpaired-mirror --cover",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 3 && f[0] == "branch" && f[1] == "pp-handle-executed-batch" && (f[2] != "0" || f[3] != "-") {
			t.Errorf("the pipeline's branch was counted on an overlap scenario: %q", line)
		}
		if len(f) > 3 && f[0] == "branch" && f[1] == "can-queue-veto" && (f[2] == "0" || f[3] != "adp-dummy-leak") {
			t.Errorf("the veto row does not count the scenario: %q", line)
		}
	}
}

// TestCheckCoverJSON: with --json the coverage is one more JSON object
// whose rows carry the counts.
func TestCheckCoverJSON(t *testing.T) {
	code, out, errOut := runKvcheck("check", "--scenario", "draft-admission", "--fix", "joint-admission", "--cover", "--json")
	if code != exitOK {
		t.Fatalf("exit %d; stderr %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var cov struct {
		Coverage []coverRow `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &cov); err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, r := range cov.Coverage {
		counts[r.Kind+" "+r.Name] = r.Count
	}
	if counts["branch joint-admission-context"] == 0 || counts["action arrive"] == 0 {
		t.Errorf("joint-admission's own branch or arrivals not counted: %v", counts)
	}
	if counts["branch defer-draft-mirror"] != 0 || counts["action handle"] != 0 {
		t.Errorf("a mechanism the variant cannot reach was counted: %v", counts)
	}
}

// TestFuzzCover: fuzz --cover reports what the walks exercised.
func TestFuzzCover(t *testing.T) {
	code, out, errOut := runKvcheck("fuzz", "--scenario", "draft-admission", "--fix", "joint-admission", "--walks", "20", "--seed", "1", "--workers", "1", "--cover")
	// A walk budget without a violation is incomplete (exit 3), never ok.
	if code != exitIncomplete {
		t.Fatalf("exit %d; stderr %s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "coverage: ") || !strings.Contains(out, "branch  joint-admission-context") {
		t.Fatalf("no coverage table:\n%s", out)
	}
}

// TestSweepCover: sweep --cover counts what the configurations of the
// neighbourhood exercised, bypassing the results cache.
func TestSweepCover(t *testing.T) {
	code, out, errOut := runKvcheck("sweep", "--scenario", "eviction-ladder", "--range", "target_blocks=4..5", "--workers", "1", "--cache", t.TempDir(), "--cover")
	if code != exitOK {
		t.Fatalf("exit %d; stderr %s\n%s", code, errOut, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[0] == "branch" && f[1] == "recompute-pause-for-generation" {
			if f[2] == "0" || f[3] != "eviction-ladder" {
				t.Fatalf("the sweep's recompute pause is not counted: %q", line)
			}
			return
		}
	}
	t.Fatalf("no coverage row for recompute-pause-for-generation:\n%s", out)
}
