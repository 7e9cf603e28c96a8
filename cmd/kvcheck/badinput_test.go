package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// badInput is one bad input or fault the command line is tried with: a
// row of docs/bad-input.md, which TestBadInputTable writes.
type badInput struct {
	// what is the case in a few words, args the command line after
	// "kvcheck".
	what string
	args []string
	// files are written in the work directory first (path → content).
	files map[string]string
	// stdin is piped to the command (with --config -), pipe the command
	// the table shows it coming from; stdout "full" is /dev/full, "short"
	// a file that takes 1,024 bytes and then reports a full disk.
	stdin, pipe, stdout string
	// interrupt, when set, runs the command as a process of its own and
	// sends it SIGINT once a line of its stderr contains interrupt.
	interrupt string
	// fileLimit, when set, runs the command with RLIMIT_FSIZE at the
	// size it returns (computed in the work directory): a full disk.
	fileLimit func(t *testing.T) uint64
	// code is the exit status wanted; want is a text the output must
	// hold, and the first line holding it is the row's message.
	code int
	want string
	// check asserts more of the outcome (files left, lines printed).
	check func(t *testing.T, out, errOut string)
}

// badInputDoc is the head of docs/bad-input.md.
const badInputDoc = `# Bad input and faults

What kvcheck does with bad input and faults: the command, the exit status (0 every verdict as
expected, 1 a verdict differs, 2 bad usage or input, or an output that cannot be written, 3
incomplete, 130 interrupted) and what it says, the first line of its output that shows it (durations
and counts that vary between runs are written N).

This file is generated: ` + "`TestBadInputTable`" + ` (cmd/kvcheck/badinput_test.go) runs every case, asserts
its exit status and what it must say or leave behind, and compares its output with this table. A new
case goes into the test's list; then ` + "`KVCHECK_REWRITE=1 go test ./cmd/kvcheck -run TestBadInputTable`" + `
rewrites the table. The cases run in an empty directory holding the files each names.

| case | command | exit | what kvcheck says |
|---|---|---|---|
`

// scenarioBig is draft-admission's scenario file with a configuration
// whose fixed variants take many seconds to exhaust: the real code's
// crash comes at once, then a fix is being searched when a test
// interrupts it.
const scenarioBig = `kvcheck:
  name: big
  depth: 200
  goals: [all-requests-finished]
  variants:
    - {fixes: real-code, expect: no-crash-on-refusal}
    - {fixes: joint-admission, expect: ok}
  config: |
    tokens_per_block=4 max_draft_len=1 kv_reserve_draft_tokens=1 max_batch_size=4 max_num_tokens=8
    enable_chunked_prefill=true chunk_unit_size=4 target_blocks=12 draft_blocks=12 target_index_slots=5 draft_index_slots=5
    max_util_for_resume=100 enable_recompute_pause=true enable_block_reuse=true draft_pool=unpaired early_finish=true ranks=1
    request prompt=12 new=6 family=0 shared=8
    request prompt=12 new=6 family=0 shared=8
    request prompt=12 new=6 family=1 shared=4
    request prompt=8 new=6 family=1 shared=4
    request prompt=8 new=6 family=0 shared=8
`

// badInputs are the cases, grouped as issue 22 lists them.
func badInputs(t *testing.T) []badInput {
	deployment, err := os.ReadFile("../../docs/examples/seed000-deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seedTranscriptText, err := os.ReadFile(seedTranscript)
	if err != nil {
		t.Fatal(err)
	}
	var scenarioFile bytes.Buffer
	run([]string{"show-config", "draft-admission"}, &scenarioFile, io.Discard)
	noOK := func(dir string) func(t *testing.T, out, errOut string) {
		return func(t *testing.T, out, errOut string) {
			oks, _ := filepath.Glob(filepath.Join(dir, "*.ok.txt"))
			if len(oks) > 0 {
				t.Errorf("an incomplete search wrote %v", oks)
			}
			if strings.Contains(out, "no violation)") {
				t.Errorf("the output calls an incomplete search a pass:\n%s", out)
			}
		}
	}
	unchanged := func(path, content string) func(t *testing.T, out, errOut string) {
		return func(t *testing.T, out, errOut string) {
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Errorf("%s was overwritten: %q", path, got)
			}
		}
	}
	lines := func(n int) func(t *testing.T, out, errOut string) {
		return func(t *testing.T, out, errOut string) {
			if got := strings.Count(out, "\n"); got != n {
				t.Errorf("%d lines, want %d:\n%s", got, n, out)
			}
		}
	}
	emptyDir := func(dir string) func(t *testing.T, out, errOut string) {
		return func(t *testing.T, out, errOut string) {
			entries, _ := os.ReadDir(dir)
			if len(entries) > 0 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("%s holds %v; want nothing left behind", dir, names)
			}
		}
	}
	smallSweep := []string{"--range", "target_blocks=7..8", "--range", "draft_blocks=8", "--range", "version=v1.3.0rc25", "--range", "requests=3",
		"--range", "prompt_pages=3", "--range", "shared_pages=2", "--no-cache"}
	return []badInput{
		// Unfinished searches written as passes.
		{what: "a search cut by --max-states, with --out", args: []string{"check", "--scenario", "draft-admission", "--max-states", "300", "--out", "out"},
			code: exitIncomplete, want: "variants are incomplete", check: func(t *testing.T, out, errOut string) {
				noOK("out")(t, out, errOut)
				banner, _ := os.ReadFile("out/draft-admission.real-code.no-crash-on-refusal.txt")
				if !bytes.Contains(banner, []byte("nothing is proved")) || bytes.Contains(banner, []byte("closes it")) {
					t.Errorf("the real code's banner says a cut search closes it:\n%s", banner)
				}
			}},
		{what: "a --config file's search cut by --max-states, with --out", args: []string{"check", "--config", "seed000-deployment.yaml", "--max-states", "200", "--out", "out"},
			files: map[string]string{"seed000-deployment.yaml": string(deployment)}, code: exitIncomplete, want: "variants are incomplete", check: noOK("out")},
		{what: "Ctrl-C while a fix is searched, with --out", args: []string{"check", "--config", "big.yaml", "--workers", "1", "--out", "out", "--progress"},
			files: map[string]string{"big.yaml": scenarioBig}, interrupt: "kvcheck check big (joint-admission): ",
			code: exitInterrupted, want: "interrupted by SIGINT after", check: noOK("out")},
		{what: "a sweep whose seed configuration's search is cut by --max-states",
			args: append([]string{"sweep", "--scenario", "draft-admission", "--fix", "joint-admission", "--max-states", "300"}, smallSweep...),
			code: exitOK, want: "incomplete (no violation in 300 states", check: func(t *testing.T, out, errOut string) {
				if strings.Contains(out, "ok (") {
					t.Errorf("the sweep says ok of a cut search:\n%s", out)
				}
			}},
		{what: "a sweep whose configurations' searches are cut by --max-states",
			args: append([]string{"sweep", "--scenario", "draft-admission", "--fix", "joint-admission", "--max-states", "50"}, smallSweep...),
			code: exitIncomplete, want: "searches were cut by --depth or --max-states", check: func(t *testing.T, out, errOut string) {
				if strings.Contains(out, " ok ") || strings.Contains(out, "ok (") || !strings.Contains(out, " incomplete ") {
					t.Errorf("the sweep says ok of cut searches:\n%s", out)
				}
			}},
		// Configurations TensorRT-LLM does not run (issue 19).
		{what: "recompute pause with a KV cache transceiver (PR #15252's gate)", args: []string{"check", "--config", "disagg.txt"},
			files: map[string]string{"disagg.txt": "tokens_per_block=4 max_batch_size=2 max_num_tokens=8 target_blocks=4 target_index_slots=2 ranks=2 loop=overlap\n" +
				"enable_attention_dp=true kv_cache_transceiver=true enable_recompute_pause=true\nrequest prompt=4 new=2 receiving_kv=true\n"},
			code: exitUsage, want: "enable_recompute_pause=true with kv_cache_transceiver=true is not a configuration TensorRT-LLM runs", check: func(t *testing.T, out, errOut string) {
				if !strings.Contains(errOut, "PR #15252") {
					t.Errorf("the refusal does not name PR #15252:\n%s", errOut)
				}
			}},
		{what: "a context-only request given more than its first token", args: []string{"check", "--config", "ctx.txt"},
			files: map[string]string{"ctx.txt": "tokens_per_block=4 max_batch_size=2 max_num_tokens=8 target_blocks=4 target_index_slots=2 ranks=1 loop=overlap\n" +
				"kv_cache_transceiver=true enable_recompute_pause=false\nrequest prompt=4 new=3 sending_kv=true\n"},
			code: exitUsage, want: "request 1: sending_kv=true with new=3: a context-only request produces only its first token"},
		// Unbounded --workers.
		{what: "--workers far past the cap", args: []string{"check", "--workers", "100000"}, code: exitUsage, want: "--workers 100000: at most"},
		{what: "fuzz --workers past the cap", args: []string{"fuzz", "--workers", "257"}, code: exitUsage, want: "--workers 257: at most"},
		{what: "sweep --workers past the cap", args: []string{"sweep", "--workers", "100000"}, code: exitUsage, want: "--workers 100000: at most"},
		// Write errors on stdout.
		{what: "list onto a full device", args: []string{"list"}, stdout: "full", code: exitUsage, want: "writing the standard output failed"},
		{what: "show-config onto a full device", args: []string{"show-config", "draft-admission"}, stdout: "full", code: exitUsage, want: "writing the standard output failed"},
		{what: "check onto a full device", args: []string{"check", "--scenario", "draft-admission", "--fix", "none"}, stdout: "full", code: exitUsage, want: "writing the standard output failed"},
		{what: "check --json onto a disk that fills after 1 KiB", args: []string{"check", "--scenario", "draft-admission", "--json"}, stdout: "short",
			code: exitUsage, want: "writing the standard output failed after 1024 bytes"},
		{what: "version onto a full device", args: []string{"version"}, stdout: "full", code: exitUsage, want: "writing the standard output failed"},
		// A user's file.
		{what: "--rewrite onto a hand-written file with a transcript's name", args: []string{"check", "--scenario", "draft-admission", "--out", "out", "--rewrite"},
			files: map[string]string{"out/draft-admission.joint-admission.ok.txt": "my notes\n"}, code: exitUsage, want: "was not written by kvcheck",
			check: unchanged("out/draft-admission.joint-admission.ok.txt", "my notes\n")},
		// Existing --out files.
		{what: "--out holding a transcript of the run, found before the search", args: []string{"check", "--config", "seed000-deployment.yaml", "--max-states", "100000", "--out", "out"},
			files: map[string]string{"seed000-deployment.yaml": string(deployment), "out/seed000-deployment.real-code.no-crash-on-refusal.txt": string(seedTranscriptText)},
			code:  exitUsage, want: "nothing was searched", check: func(t *testing.T, out, errOut string) {
				if strings.Contains(out, "SCENARIO") {
					t.Errorf("searched before refusing:\n%s%s", out, errOut)
				}
				if !strings.Contains(errOut, "reproduce: go run ./cmd/kvcheck check --config seed000-deployment.yaml --max-states 100000 --out out --rewrite\n") {
					t.Errorf("the suggested command is not the whole command line:\n%s", errOut)
				}
			}},
		// Sweep interrupted; a full disk.
		// The ranges make the sweep take about ten seconds here: the default
		// one ends before the first progress line's SIGINT arrives.
		{what: "Ctrl-C during a sweep", args: []string{"sweep", "--scenario", "draft-admission", "--fix", "joint-admission", "--cache", "cache", "--progress",
			"--range", "target_blocks=4..16", "--range", "draft_blocks=4..16", "--range", "prompt_pages=1..4"},
			interrupt: "configurations/s", code: exitInterrupted, want: "interrupted by SIGINT", check: func(t *testing.T, out, errOut string) {
				if !strings.Contains(out, "stored in the cache cache/") || !strings.Contains(out, "configurations checked now") {
					t.Errorf("does not say what was checked and kept:\n%s", out)
				}
			}},
		{what: "--out on a disk that fills at the third transcript", args: []string{"check", "--scenario", "host-recompute-fallback", "--scenario", "draft-admission", "--out", "out"},
			fileLimit: thirdTranscriptLimit, code: exitUsage, want: "none of the", check: emptyDir("out")},
		// Verdict profiles (sweep_profile.go).
		{what: "an --expect-profile line whose counts were edited by hand", args: []string{"sweep", "--scenario", "adp-dummy-leak", "--no-cache", "--expect-profile", "profiles.txt"},
			files: map[string]string{"profiles.txt": "# pinned\nadp-dummy-leak real-code digest=000000000000 configurations=3 ok=1 incomplete=0 states=40 livelock=2\n"},
			code:  exitUsage, want: "profiles.txt:2: adp-dummy-leak real-code: digest=000000000000 does not match the counts on the line"},
		{what: "an --expect-profile line without its counts", args: []string{"sweep", "--scenario", "adp-dummy-leak", "--no-cache", "--expect-profile", "profiles.txt"},
			files: map[string]string{"profiles.txt": "adp-dummy-leak real-code\n"},
			code:  exitUsage, want: "profiles.txt:1: expected SCENARIO VARIANT digest=HEX"},
		{what: "--write-profile onto an existing file", args: []string{"sweep", "--scenario", "adp-dummy-leak", "--no-cache", "--write-profile", "profiles.txt"},
			files: map[string]string{"profiles.txt": "kept\n"},
			code:  exitUsage, want: "--write-profile: profiles.txt exists; pass --rewrite"},
		// Budgets and bounds.
		{what: "--range values whose product is huge", args: []string{"sweep", "--scenario", "draft-admission", "--range", "target_blocks=1..4096", "--range", "draft_blocks=1..4096", "--no-cache"},
			code: exitUsage, want: "narrow them"},
		{what: "a request mix of billions of sequences", args: []string{"sweep", "--scenario", "draft-admission", "--range", "requests=1..8", "--range", "prompt_pages=1..3", "--range", "new_tokens=1..3", "--no-cache"},
			code: exitUsage, want: "narrow them"},
		{what: "--time shorter than the enumeration of a large space", args: []string{"sweep", "--scenario", "draft-admission", "--fix", "none", "--range", "target_blocks=1..2500",
			"--range", "draft_blocks=1..2500", "--range", "requests=1", "--range", "prompt_pages=1", "--range", "shared_pages=0", "--time", "1s", "--no-cache"},
			code: exitIncomplete, want: "while enumerating the space"},
		{what: "--max-states 0 (no bound on the states, as --help says)", args: []string{"check", "--scenario", "draft-admission", "--fix", "joint-admission", "--max-states", "0"},
			code: exitOK, want: "every verdict is as expected", check: func(t *testing.T, out, errOut string) {
				for _, command := range []string{"check", "sweep"} {
					if _, help, _ := runKvcheck(command, "--help"); !strings.Contains(help, "(0: no bound") {
						t.Errorf("kvcheck %s --help does not say what --max-states 0 means:\n%s", command, help)
					}
				}
			}},
		{what: "--depth 0", args: []string{"check", "--depth", "0"}, code: exitUsage, want: "--depth must be at least 1"},
		{what: "sweep --depth 0", args: []string{"sweep", "--depth", "0"}, code: exitUsage, want: "--depth must be at least 1"},
		// Narrowing.
		{what: "--invariant past the expected violation", args: []string{"check", "--scenario", "adp-dummy-leak", "--invariant", "no-crash-on-refusal"},
			code: exitOK, want: "not judged"},
		{what: "--skip-invariant the expected violation", args: []string{"check", "--scenario", "adp-dummy-leak", "--skip-invariant", "no-leaked-cache", "--skip-invariant", "mirror-within-target-lifetime"},
			code: exitOK, want: "not judged"},
		{what: "--skip-invariant of no invariant", args: []string{"check", "--skip-invariant", "nope"}, code: exitUsage, want: "unknown invariant"},
		{what: "the text report's transitions", args: []string{"check", "--scenario", "draft-admission", "--fix", "joint-admission"}, code: exitOK, want: "TRANSITIONS",
			check: func(t *testing.T, out, errOut string) {
				_, js, _ := runKvcheck("check", "--scenario", "draft-admission", "--fix", "joint-admission", "--json")
				var r checkReport
				json.Unmarshal([]byte(js), &r)
				if r.Transitions == 0 || !regexp.MustCompile(fmt.Sprintf(`\s%d\s+%d\s`, r.States, r.Transitions)).MatchString(out) {
					t.Errorf("the table lacks %d states and %d transitions:\n%s", r.States, r.Transitions, out)
				}
			}},
		// Smaller things.
		{what: "sweep --progress", args: append([]string{"sweep", "--scenario", "draft-admission", "--fix", "joint-admission", "--progress"}, smallSweep...),
			code: exitOK, want: "configurations/s"},
		{what: "--version", args: []string{"--version"}, code: exitOK, want: "kvcheck github.com/kvcheck/kvcheck"},
		{what: "--config - from a pipe", args: []string{"check", "--config", "-", "--fix", "none"}, stdin: scenarioFile.String(), pipe: "kvcheck show-config draft-admission", code: exitOK, want: "kvcheck: stdin (kvcheck scenario file)"},
		{what: "--config - from an empty pipe", args: []string{"check", "--config", "-"}, pipe: "true", code: exitUsage, want: "stdin: empty"},
		{what: "--config - twice", args: []string{"check", "--config", "-", "--config", "-"}, pipe: "echo x", stdin: "x", code: exitUsage, want: "given 2 times"},
		{what: "--quiet when every verdict is as expected", args: []string{"check", "--quiet", "--scenario", "draft-admission"}, code: exitOK, want: "every verdict", check: lines(1)},
		{what: "fuzz --quiet", args: []string{"fuzz", "--quiet", "--scenario", "draft-admission", "--fix", "none", "--seed", "1", "--workers", "1", "--time", "0", "--walks", "20000"},
			code: exitOK, want: "every verdict", check: lines(1)},
		{what: "a pool too small for the requests, set by a kvcheck key", args: []string{"check", "--config", "small-pool.yaml"},
			files: map[string]string{"small-pool.yaml": "# my deployment\nmax_batch_size: 8\nkvcheck:\n  tokens_per_block: 4\n  target_pages: 2\n  requests:\n    - {prompt_pages: 3, new_tokens: 4}\n"},
			code:  exitUsage, want: "small-pool.yaml:5:"},
		{what: "a scenario file's config: line with a bad value", args: []string{"check", "--config", "bad-scenario.yaml"},
			files: map[string]string{"bad-scenario.yaml": "kvcheck:\n  name: bad\n  config: |\n    tokens_per_block=4 max_batch_size=1 max_num_tokens=8 target_index_slots=2 max_util_for_resume=100 ranks=1\n    target_blocks=1\n    request prompt=4 new=1\n"},
			code:  exitUsage, want: "bad-scenario.yaml:5:"},
		{what: "a kvcheck: section without requests", args: []string{"check", "--config", "no-requests.yaml"},
			files: map[string]string{"no-requests.yaml": "max_batch_size: 8\nkvcheck:\n  tokens_per_block: 4\n"}, code: exitUsage, want: "no-requests.yaml:2:"},
		{what: "requests: []", args: []string{"check", "--config", "empty-requests.yaml"},
			files: map[string]string{"empty-requests.yaml": "max_batch_size: 8\nkvcheck:\n  requests: []\n"}, code: exitUsage, want: "got an empty list"},
		{what: "kvcheck triage --docs with a second Markdown file given without its own --docs", args: []string{"triage", "--docs", "a.md", "b.md"},
			files: map[string]string{"a.md": "# a\n", "b.md": "# b\n"}, code: exitUsage, want: "with --docs, name each Markdown file with its own --docs",
			check: unchanged("b.md", "# b\n")},
		{what: "a usage error ends with the command that reproduces it", args: []string{"check", "--depth", "x"}, code: exitUsage, want: "reproduce: "},
		{what: "the --config mapping, in file order", args: []string{"check", "--config", "seed000-deployment.yaml", "--fix", "none"},
			files: map[string]string{"seed000-deployment.yaml": string(deployment)}, code: exitOK, want: "scaled down as follows",
			check: func(t *testing.T, out, errOut string) {
				last := 0
				for _, m := range regexp.MustCompile(`(?m)^  line (\d+): `).FindAllStringSubmatch(out, -1) {
					n, _ := strconv.Atoi(m[1])
					if n < last {
						t.Errorf("line %d printed after line %d:\n%s", n, last, out)
					}
					last = n
				}
			}},
		{what: "fuzz walks that stopped finding new states", args: []string{"fuzz", "--scenario", "draft-admission", "--fix", "joint-admission", "--seed", "1", "--workers", "1", "--time", "0", "--walks", "50000"},
			code: exitIncomplete, want: "small enough to exhaust"},
		{what: "an unquoted # in a scenario's doc:", args: []string{"check", "--config", "hash.yaml"},
			files: map[string]string{"hash.yaml": "kvcheck:\n  name: hash\n  doc: pools of 4 # pages\n  config: |\n    tokens_per_block=4 max_batch_size=1 max_num_tokens=8 target_blocks=2 target_index_slots=2 max_util_for_resume=100 ranks=1\n    request prompt=4 new=1\n"},
			code:  exitOK, want: "unquoted"},
	}
}

// thirdTranscriptLimit is a file size limit that the first two transcripts
// of the full-disk case fit under and the third does not, measured by a
// run without a limit.
func thirdTranscriptLimit(t *testing.T) uint64 {
	code, out, errOut := runKvcheck("check", "--scenario", "host-recompute-fallback", "--scenario", "draft-admission", "--out", "sizes")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var sizes []int64
	for _, m := range regexp.MustCompile(`(?m)^wrote (\S+) `).FindAllStringSubmatch(out, -1) {
		info, err := os.Stat(m[1])
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, info.Size())
	}
	os.RemoveAll("sizes")
	if len(sizes) < 3 || max(sizes[0], sizes[1]) >= sizes[2] {
		t.Fatalf("transcript sizes %v: the third is not the largest so far; choose other scenarios", sizes)
	}
	return uint64(max(sizes[0], sizes[1]) + 1)
}

// TestBadInputTable runs every bad input and fault, asserts its exit
// status and what it says and leaves, and keeps docs/bad-input.md, the
// table of them, current (KVCHECK_REWRITE=1 rewrites it).
func TestBadInputTable(t *testing.T) {
	golden, err := filepath.Abs("../../docs/bad-input.md")
	if err != nil {
		t.Fatal(err)
	}
	cases := badInputs(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { progressDelay = d }(progressDelay)
	progressDelay = 0
	var table strings.Builder
	table.WriteString(badInputDoc)
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			t.Chdir(t.TempDir())
			for path, content := range c.files {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errOut := runBadInput(t, c, exe)
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s%s", code, c.code, out, errOut)
			}
			message := ""
			for _, line := range strings.Split(errOut+out, "\n") {
				if strings.Contains(line, c.want) {
					message = line
					break
				}
			}
			if message == "" {
				t.Errorf("the output does not say %q:\n%s%s", c.want, out, errOut)
			}
			if c.check != nil {
				c.check(t, out, errOut)
			}
			fmt.Fprintf(&table, "| %s | `%s` | %d | %s |\n", cell(c.what), cell(badInputCommand(c)), code, cell(normalize(message)))
		})
	}
	if t.Failed() {
		return
	}
	if os.Getenv("KVCHECK_REWRITE") == "1" {
		if err := os.WriteFile(golden, []byte(table.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != table.String() {
		t.Errorf("docs/bad-input.md is not the table of these cases; if the change is meant, run KVCHECK_REWRITE=1 go test ./cmd/kvcheck -run TestBadInputTable and review the diff\n%s",
			firstDifference(string(want), table.String()))
	}
}

// runBadInput runs one case: in this process, or as a process of its own
// when it is to be interrupted.
func runBadInput(t *testing.T, c badInput, exe string) (int, string, string) {
	if c.interrupt != "" {
		return runProcess(t, exe, c.args, c.interrupt, nil)
	}
	if c.fileLimit != nil {
		return runProcess(t, exe, c.args, "", []string{fmt.Sprintf("KVCHECK_TEST_FSIZE=%d", c.fileLimit(t))})
	}
	if c.stdin != "" || slices.Contains(c.args, "-") {
		defer func(r io.Reader) { stdin = r }(stdin)
		stdin = strings.NewReader(c.stdin)
		stdinConfig.read, stdinConfig.file, stdinConfig.err = false, nil, nil
		defer func() { stdinConfig.read, stdinConfig.file, stdinConfig.err = false, nil, nil }()
	}
	var errOut bytes.Buffer
	switch c.stdout {
	case "full":
		f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skip(err)
		}
		defer f.Close()
		return run(c.args, f, &errOut), "", errOut.String()
	case "short":
		var out shortWriter
		return run(c.args, &out, &errOut), out.String(), errOut.String()
	}
	var out bytes.Buffer
	code := run(c.args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// shortWriter takes 1,024 bytes, then fails as a full disk does.
type shortWriter struct{ bytes.Buffer }

func (w *shortWriter) Write(p []byte) (int, error) {
	room := 1024 - w.Len()
	if len(p) <= room {
		return w.Buffer.Write(p)
	}
	w.Buffer.Write(p[:room])
	return room, syscall.ENOSPC
}

// runProcess runs kvcheck (this test binary) with args in the work
// directory, the environment added to, and, when interrupt is not "",
// sends it SIGINT once a line of its stderr contains interrupt.
func runProcess(t *testing.T, exe string, args []string, interrupt string, env []string) (int, string, string) {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), "KVCHECK_TEST_MAIN=1"), env...)
	var out, errOut bytes.Buffer
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
	for lines.Scan() {
		errOut.WriteString(lines.Text() + "\n")
		if interrupt != "" && strings.Contains(lines.Text(), interrupt) {
			cmd.Process.Signal(syscall.SIGINT)
			break
		}
	}
	for lines.Scan() {
		errOut.WriteString(lines.Text() + "\n")
	}
	cmd.Wait()
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// badInputCommand is the case's command line as a user types it.
func badInputCommand(c badInput) string {
	var parts []string
	for _, a := range c.args {
		parts = append(parts, shellQuote(a))
	}
	text := "kvcheck " + strings.Join(parts, " ")
	if c.pipe != "" {
		text = c.pipe + " | " + text
	}
	switch c.stdout {
	case "full":
		text += " > /dev/full"
	case "short":
		text += " > file-on-a-full-disk"
	}
	if c.interrupt != "" {
		text += " (then Ctrl-C)"
	}
	if c.fileLimit != nil {
		text = "(ulimit -f SMALL; " + text + ")"
	}
	return text
}

// normalize writes N for what varies between runs: durations, rates,
// counts of a run cut by time or a signal, temporary file names; and
// "kvcheck" for how the test binary names itself.
func normalize(s string) string {
	s = strings.ReplaceAll(s, "go run ./cmd/kvcheck", "kvcheck")
	for _, r := range []struct{ re, with string }{
		{`\d+(\.\d+)?s\b`, "Ns"},
		{`\d+ configurations/s`, "N configurations/s"},
		{`\d+ of (\d+) configurations,`, "N of $1 configurations,"},
		{`\(\d+ combinations so far\)`, "(N combinations so far)"},
		{`: \d+ configurations checked now, \d+ reused`, ": N configurations checked now, N reused"},
		{`after \d+ states, at depth \d+`, "after N states, at depth N"},
		{`kvcheck-\d+`, "kvcheck-N"},
		{`cache cache/[0-9a-f]+`, "cache cache/HASH"},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.with)
	}
	return s
}

// cell escapes a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "|", `\|`) }

// firstDifference shows the first line where two texts differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  file: %s\n  test: %s", i+1, a, b)
		}
	}
	return ""
}
