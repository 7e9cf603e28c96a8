package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run kvcheck as a process of its own: the test
// binary, started with KVCHECK_TEST_MAIN=1, is kvcheck.
func TestMain(m *testing.M) {
	if os.Getenv("KVCHECK_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestFuzzSIGINTKeepsItsCounterexample: SIGINT during a fuzz run, after
// the real code's violation was found and while a fix is being walked,
// stops the run cleanly: it says it was interrupted, prints the
// counterexample found with its reproduce line, writes it with --out, and
// exits 130.
func TestFuzzSIGINTKeepsItsCounterexample(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "fuzz", "--scenario", "draft-admission", "--seed", "1", "--workers", "1", "--time", "10m", "--out", dir, "--progress")
	cmd.Env = append(os.Environ(), "KVCHECK_TEST_MAIN=1")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	var out strings.Builder
	lines := bufio.NewScanner(pipe)
	for lines.Scan() {
		out.WriteString(lines.Text() + "\n")
		if strings.HasPrefix(lines.Text(), "draft-admission (real code): no-crash-on-refusal after ") {
			break
		}
	}
	// The fix variant is being walked now (its share is minutes long).
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	for lines.Scan() {
		out.WriteString(lines.Text() + "\n")
	}
	cmd.Wait()
	text := out.String()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("exit %d\n%s%s", code, text, errOut.String())
	}
	for _, want := range []string{
		"kvcheck fuzz: interrupted by SIGINT after 2 of 4 variants",
		"draft-admission (joint-admission): expected ok; interrupted by SIGINT after ",
		"rank 0 draft pool request 3: _prepare_draft_resources raised RuntimeError",
		"reproduce: go run ./cmd/kvcheck fuzz --scenario draft-admission --fix none --seed 1 --workers 1 --time 10m0s",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	written := filepath.Join(dir, "draft-admission.real-code.no-crash-on-refusal.txt")
	if !strings.Contains(text, "wrote "+written) {
		t.Errorf("output does not name %s", written)
	}
	if code, _, errOut := runKvcheck("replay", written); code != exitOK {
		t.Errorf("%s does not replay: exit %d %s", written, code, errOut)
	}
}

// TestFuzzTimeIsTheWholeRun: --time bounds the whole run, not each
// variant: four variants share one second.
func TestFuzzTimeIsTheWholeRun(t *testing.T) {
	code, out, errOut := runKvcheck("fuzz", "--scenario", "draft-admission", "--seed", "1", "--workers", "1", "--time", "1s", "--json")
	if code != exitIncomplete {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	total := 0.0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r fuzzReport
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		total += r.Seconds
		if r.Result == verdictIncomplete && !strings.Contains(r.Message, "of the run's --time 1s") {
			t.Errorf("message %q does not name the run's budget", r.Message)
		}
	}
	// A round (about 1<<15 steps) may run past the budget; four variants
	// of a 1s budget each would take 4s.
	if total > 2 {
		t.Errorf("the variants walked %.2fs in all under --time 1s", total)
	}
}
