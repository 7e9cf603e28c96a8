package main

import (
	"os"
	"strings"
	"testing"
)

// pinnedProfileFile holds the verdict profiles of pinnedProfileSweep.
const pinnedProfileFile = "testdata/sweep-profiles.txt"

// pinnedProfileSweep is the sweep TestPinnedSweepProfiles pins: the whole
// default sweeps of the scenarios whose spaces are small (every variant of
// each; about 15 s of CPU, measured in docs/sweep.md); the large seed sweeps are pinned in
// testdata/sweep-profiles-all.txt, which `make sweep-profiles` checks
// (docs/sweep.md#verdict-profiles).
var pinnedProfileSweep = []string{"sweep",
	"--scenario", "eviction-ladder", "--scenario", "host-tier-eviction", "--scenario", "paired-draft-reuse",
	"--scenario", "overlap-two-ranks", "--scenario", "adp-veto-generation", "--scenario", "unchunked-prefill",
	"--scenario", "preempt-for-pages", "--scenario", "disagg-gen-retry", "--scenario", "generation-token-budget",
	"--scenario", "host-recompute-fallback", "--scenario", "pp-eviction-ladder", "--scenario", "overlap-eviction-ladder",
	"--scenario", "pp-adp-veto-growth", "--scenario", "adp-empty-batch-veto", "--scenario", "prefix-aware-skip",
	"--scenario", "adp-veto-growth", "--scenario", "adp-dummy-none",
	"--profile", "--no-cache", "--triage=false"}

// TestPinnedSweepProfiles: the verdict profiles of pinnedProfileSweep are
// those pinnedProfileFile pins. Any change of the spec's behaviour on a
// configuration of those spaces changes a digest and fails here. Re-pin,
// after reading what changed and why, with
// `KVCHECK_REWRITE=1 go test ./cmd/kvcheck -run '^TestPinnedSweepProfiles$'`
// (or `make pin-profiles`, which re-pins the full file too).
func TestPinnedSweepProfiles(t *testing.T) {
	if os.Getenv("KVCHECK_REWRITE") == "1" {
		code, out, errOut := runKvcheck(append(pinnedProfileSweep, "--write-profile", pinnedProfileFile, "--rewrite")...)
		if code != exitOK {
			t.Fatalf("re-pinning: exit %d:\n%s%s", code, lastLines(out, 5), errOut)
		}
		return
	}
	code, out, errOut := runKvcheck(append(pinnedProfileSweep, "--expect-profile", pinnedProfileFile)...)
	if code != exitOK {
		t.Fatalf("exit %d, the verdict profiles differ from %s:\n%s%s\nre-pin (after reading why): KVCHECK_REWRITE=1 go test ./cmd/kvcheck -run '^TestPinnedSweepProfiles$'",
			code, pinnedProfileFile, profileReport(out), errOut)
	}
}

// profileReport is the --expect-profile part of a sweep's output (its
// last lines when there is none).
func profileReport(out string) string {
	if i := strings.LastIndex(out, "kvcheck sweep: "); i >= 0 && strings.Contains(out[i:], "verdict profile") {
		return out[i:]
	}
	return lastLines(out, 20)
}

func lastLines(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}

// allProfilesFile holds the verdict profiles of every default sweep.
const allProfilesFile = "testdata/sweep-profiles-all.txt"

// TestPinnedSweepProfilesAll: every default sweep's verdict profile is the
// one allProfilesFile pins. It takes about 7 minutes of CPU, too long for
// make test, so it runs only with KVCHECK_SWEEP_ALL=1 (`make
// sweep-profiles`); TestPinnedSweepProfiles checks the small sweeps in
// every run.
func TestPinnedSweepProfilesAll(t *testing.T) {
	if os.Getenv("KVCHECK_SWEEP_ALL") != "1" {
		t.Skip("every default sweep: about 7 minutes of CPU; KVCHECK_SWEEP_ALL=1 (make sweep-profiles) runs it")
	}
	code, out, errOut := runKvcheck("sweep", "--no-cache", "--triage=false", "--expect-profile", allProfilesFile)
	if code != exitOK {
		t.Fatalf("exit %d, the verdict profiles differ from %s:\n%s%s\nre-pin (after reading why): make pin-profiles",
			code, allProfilesFile, profileReport(out), errOut)
	}
}
