package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Answers are the checker's observable answers on one copy of the
// repository, normalized so that two runs of the same spec compare equal:
// each kvcheck check --json and sweep --json line is a variant's whole
// JSON object without its timing fields; each lin answer is the exit
// status and the report without its duration.
type Answers struct {
	Check []string
	Sweep []string
	Lin   map[string]string
	// GoTest is "ok" or the failing output's first lines, when -gotest.
	GoTest string
}

// Options say which answers to compute and how.
type Options struct {
	// SweepArgs are the arguments of each sweep run (each one a kvcheck
	// command line after "kvcheck").
	SweepArgs [][]string
	// GoTest also runs go test ./spec.
	GoTest bool
	// Timeout bounds each command; a command past it is an answer of its
	// own ("timed out"), which differs from any baseline that finished.
	Timeout time.Duration
	// SkipSweepWhenKilled leaves the sweeps out when check or lin already
	// differ from the baseline (the mutant is killed either way).
	SkipSweepWhenKilled bool
}

// timingKey matches the JSON fields that measure time, not behaviour.
var timingKey = regexp.MustCompile(`(?i)(seconds|elapsed|duration|timing|_ms$|_ns$|^time$)`)

// durationText matches a duration printed in text answers, e.g. (0.01s).
var durationText = regexp.MustCompile(`\(?[0-9]+(\.[0-9]+)?(s|ms|µs)\)?`)

// stripTiming removes every timing field of a decoded JSON value.
func stripTiming(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if timingKey.MatchString(k) {
				delete(x, k)
				continue
			}
			x[k] = stripTiming(e)
		}
	case []any:
		for i := range x {
			x[i] = stripTiming(x[i])
		}
	}
	return v
}

// normalizeJSONLines turns JSON-lines output into one canonical line per
// object (keys sorted, timing removed, the copy's path replaced), keeping
// non-JSON lines verbatim.
func normalizeJSONLines(out []byte, root string) []string {
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(strings.ReplaceAll(line, root, "$REPO"))
		if line == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			lines = append(lines, line)
			continue
		}
		b, _ := json.Marshal(stripTiming(v))
		lines = append(lines, string(b))
	}
	return lines
}

// run runs name args in dir with a timeout and returns its combined
// stdout, stderr and exit status (-1 when it could not start or timed
// out, the output then saying which).
func run(dir string, timeout time.Duration, name string, args ...string) (stdout, stderr []byte, code int) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		return o.Bytes(), []byte("timed out after " + timeout.String()), -1
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return o.Bytes(), e.Bytes(), ee.ExitCode()
	}
	if err != nil {
		return o.Bytes(), []byte(err.Error()), -1
	}
	return o.Bytes(), e.Bytes(), 0
}

// BuildError is a copy whose kvcheck does not build: the mutant is not a
// valid program, and the entry must be fixed.
type BuildError struct{ Output string }

func (e *BuildError) Error() string { return "kvcheck does not build:\n" + e.Output }

// Compute builds kvcheck in the copy at root and computes its answers;
// base, when not nil, is the baseline, used to skip the sweeps of a mutant
// check or lin already kill (Options.SkipSweepWhenKilled).
func Compute(root string, opt Options, base *Answers) (*Answers, error) {
	if _, errOut, code := run(root, opt.Timeout, "go", "build", "-o", "kvcheck", "./cmd/kvcheck"); code != 0 {
		return nil, &BuildError{string(errOut)}
	}
	a := &Answers{Lin: map[string]string{}}
	out, errOut, code := run(root, opt.Timeout, "./kvcheck", "check", "--json")
	a.Check = append(normalizeJSONLines(out, root), fmt.Sprintf("exit %d", code))
	if code < 0 {
		a.Check = append(a.Check, string(errOut))
	}
	cases, err := filepath.Glob(filepath.Join(root, "counterexamples", "conformance", "*.jsonl"))
	if err != nil {
		return nil, err
	}
	more, _ := filepath.Glob(filepath.Join(root, "counterexamples", "conformance", "*", "*.jsonl"))
	cases = append(cases, more...)
	sort.Strings(cases)
	for _, path := range cases {
		rel, _ := filepath.Rel(root, path)
		out, errOut, code := run(root, opt.Timeout, "./kvcheck", "lin", rel)
		text := durationText.ReplaceAllString(string(out)+string(errOut), "")
		a.Lin[rel] = fmt.Sprintf("exit %d: %s", code, strings.TrimSpace(text))
	}
	if !(opt.SkipSweepWhenKilled && base != nil && (differs(a.Check, base.Check) || !sameMap(a.Lin, base.Lin))) {
		for _, args := range opt.SweepArgs {
			if opt.SkipSweepWhenKilled && base != nil && len(a.Sweep) > 0 &&
				(len(base.Sweep) < len(a.Sweep) || differs(a.Sweep, base.Sweep[:len(a.Sweep)])) {
				break // an earlier (cheaper) sweep already differs
			}
			out, errOut, code := run(root, opt.Timeout, "./kvcheck", args...)
			a.Sweep = append(a.Sweep, "$ kvcheck "+strings.Join(args, " "))
			a.Sweep = append(a.Sweep, normalizeJSONLines(out, root)...)
			a.Sweep = append(a.Sweep, fmt.Sprintf("exit %d", code))
			if code < 0 {
				a.Sweep = append(a.Sweep, string(errOut))
			}
		}
	}
	if opt.GoTest {
		out, errOut, code := run(root, opt.Timeout, "go", "test", "-count=1", "./spec/")
		a.GoTest = "ok"
		if code != 0 {
			text := strings.Split(strings.TrimSpace(string(out)+string(errOut)), "\n")
			a.GoTest = "FAIL: " + strings.Join(text[:min(len(text), 5)], " | ")
		}
	}
	return a, nil
}

func differs(a, b []string) bool {
	if len(a) != len(b) {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return true
		}
	}
	return false
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// firstDifference names the first line of got that differs from want, for
// the report (shortened).
func firstDifference(got, want []string) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return shorten(g, 160)
		}
	}
	return ""
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// copyRepo copies the files git tracks in repo (and the worktree's
// uncommitted edits of them) into a fresh directory under tmp.
func copyRepo(repo, tmp string) (string, error) {
	out, errOut, code := run(repo, time.Minute, "git", "ls-files", "-z")
	if code != 0 {
		return "", fmt.Errorf("git ls-files in %s: %s", repo, errOut)
	}
	dir, err := os.MkdirTemp(tmp, "mutant-")
	if err != nil {
		return "", err
	}
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel == "" {
			continue
		}
		src := filepath.Join(repo, rel)
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the worktree, or a symlink
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return "", err
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			return "", err
		}
	}
	return dir, nil
}
