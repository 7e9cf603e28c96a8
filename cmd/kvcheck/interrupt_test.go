package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run kvcheck as a process of its own: the test
// binary, started with KVCHECK_TEST_MAIN=1, is kvcheck; with
// KVCHECK_TEST_FSIZE=N too, it runs with its files limited to N bytes (a
// full disk, RLIMIT_FSIZE).
func TestMain(m *testing.M) {
	if os.Getenv("KVCHECK_TEST_MAIN") == "1" {
		if n, err := strconv.ParseUint(os.Getenv("KVCHECK_TEST_FSIZE"), 10, 64); err == nil {
			signal.Ignore(syscall.SIGXFSZ)
			limit := syscall.Rlimit{Cur: n, Max: n}
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
				os.Exit(99)
			}
		}
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// The tests' triage re-checks (and sweeps without --cache) share a
	// results cache of their own, never the user's (os.UserCacheDir reads
	// XDG_CACHE_HOME on Linux).
	dir, err := os.MkdirTemp("", "kvcheck-test-cache-")
	if err == nil {
		os.Setenv("XDG_CACHE_HOME", dir)
	}
	code := m.Run()
	if err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
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
// variant: four variants share one second, and each one the budget cut
// says so of the run's budget. (How long the walks took is not asserted:
// wall-clock bounds fail on a loaded machine; `make bench-*` measures.)
func TestFuzzTimeIsTheWholeRun(t *testing.T) {
	code, out, errOut := runKvcheck("fuzz", "--scenario", "draft-admission", "--seed", "1", "--workers", "1", "--time", "1s", "--json")
	if code != exitIncomplete {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	incomplete := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r fuzzReport
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Result != verdictIncomplete {
			continue
		}
		incomplete++
		if !strings.Contains(r.Message, "of the run's --time 1s") {
			t.Errorf("message %q does not name the run's budget", r.Message)
		}
	}
	if incomplete == 0 {
		t.Errorf("no variant was cut by the run's budget\n%s", out)
	}
}

// TestCheckSIGINTSaysIncomplete: SIGINT during a long exhaustive check
// (its progress line on stderr says it is running) ends it with exit 130,
// the variant reported incomplete and interrupted, never ok.
func TestCheckSIGINTSaysIncomplete(t *testing.T) {
	config := filepath.Join(t.TempDir(), "big.txt")
	os.WriteFile(config, []byte(`tokens_per_block=4 max_draft_len=1 kv_reserve_draft_tokens=1 max_batch_size=4 max_num_tokens=8
enable_chunked_prefill=true chunk_unit_size=4 target_blocks=12 draft_blocks=12 target_index_slots=5 draft_index_slots=5
max_util_for_resume=100 enable_recompute_pause=true enable_block_reuse=true draft_pool=unpaired early_finish=true ranks=1
request prompt=12 new=6 family=0 shared=8
request prompt=12 new=6 family=0 shared=8
request prompt=12 new=6 family=1 shared=4
request prompt=8 new=6 family=1 shared=4
request prompt=8 new=6 family=0 shared=8
`), 0o644)
	cmd := exec.Command(os.Args[0], "check", "--config", config, "--fix", "joint-admission", "--workers", "1", "--progress")
	cmd.Env = append(os.Environ(), "KVCHECK_TEST_MAIN=1")
	var out bytes.Buffer
	cmd.Stdout = &out
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	lines := bufio.NewScanner(pipe)
	var progress string
	for lines.Scan() {
		if strings.Contains(lines.Text(), " states/s, depth ") {
			progress = lines.Text()
			break
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	for lines.Scan() {
	}
	cmd.Wait()
	text := out.String()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || progress == "" ||
		!strings.Contains(text, "kvcheck check: interrupted by SIGINT after 1 of 1 variants") ||
		!strings.Contains(text, "big (joint-admission): expected ok; interrupted by SIGINT after ") ||
		!strings.Contains(text, " incomplete ") {
		t.Fatalf("exit %d, progress %q\n%s", code, progress, text)
	}
}
