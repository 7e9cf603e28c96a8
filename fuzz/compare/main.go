// Command compare measures, side by side in one run, how the ways kvcheck
// explores a spec find each seed scenario's crash: exhaustive search
// (model.Check), kvcheck fuzz (novelty walks, plain and swarm), rapid's
// state machine and go test -fuzz, with the time to the crash and the
// length of the trace found and shrunk; then the coverage and throughput
// of the walks on the benchmark pool model. It prints Markdown tables.
//
//	go run ./fuzz/compare      (or: make compare)
//
// go test -fuzz runs as a compiled test binary in fuzz/ with
// KVCHECK_FUZZ_SCENARIO set (fuzz.FuzzRealCode); the crash file it writes
// under fuzz/testdata/fuzz/FuzzRealCode/ is read, then removed.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kvcheck/kvcheck/fuzz"
	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/model/poolbench"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

var (
	seed     = flag.Uint64("seed", 1, "seed of kvcheck fuzz and rapid")
	budget   = flag.Duration("budget", 60*time.Second, "time budget of each randomized method per scenario")
	skipGo   = flag.Bool("skip-go-fuzz", false, "leave out go test -fuzz (it compiles and runs a test binary)")
	coverage = flag.Bool("coverage", true, "also measure coverage and throughput on the pool model")
)

// row is one method's result on one scenario.
type row struct {
	scenario, method string
	found            bool
	seconds          float64
	steps, shrunk    int
	note             string
}

func main() {
	testing.Init() // rapid reads the testing flags
	flag.Parse()
	var rows []row
	for _, compare := range targets() {
		rows = append(rows, compare()...)
	}
	printCrashTable(rows)
	if *coverage {
		printCoverage()
	}
}

// targets returns one comparison per built-in scenario's real code (those
// the checker finds no violation in give no row), then the pool model's
// seeded bug.
func targets() []func() []row {
	var out []func() []row
	for _, sc := range scenario.All() {
		sp, err := sc.Spec(0)
		if err != nil {
			fail(err)
		}
		out = append(out, func() []row { return compareSpec(sc.Name, sp, sc.Depth, fuzz.KVShrinkOptions()) })
	}
	pool, err := poolbench.New(poolbench.Config{Blocks: 7, Requests: 2, MaxK: 2, MaxH: 3, Bug: true})
	if err != nil {
		fail(err)
	}
	out = append(out, func() []row {
		return compareSpec("poolbench-bug", pool, 0, fuzz.ShrinkOptions[poolbench.State, poolbench.Action]{})
	})
	return out
}

// compareSpec runs every method on one spec. A spec the checker finds no
// violation in gives no row.
func compareSpec[S, A any, P model.Spec[S, A]](name string, sp P, depth int, shrinkOpts fuzz.ShrinkOptions[S, A]) []row {
	start := time.Now()
	check := model.Check[S, A](sp, model.Options{MaxDepth: depth, MaxStates: 5_000_000, Workers: runtime.NumCPU()})
	if len(check.Violations) == 0 {
		fmt.Fprintf(os.Stderr, "%s: the checker finds no violation; left out\n", name)
		return nil
	}
	first := check.Violations[0]
	rows := []row{{scenario: name, method: "exhaustive (kvcheck check)", found: true, seconds: time.Since(start).Seconds(),
		steps: len(first.Trace), shrunk: len(first.Trace), note: fmt.Sprintf("%d states", check.States)}}
	shrink := func(v *fuzz.Violation[A]) (int, string) {
		s, err := fuzz.Shrink(model.Spec[S, A](sp), v.Trace, v.Key, shrinkOpts)
		if err != nil {
			fail(err)
		}
		note := ""
		if s.Reduced != nil {
			note = fmt.Sprintf("; %d steps on the smallest configuration", len(s.Reduced.Trace))
		}
		return len(s.Trace), note
	}
	for _, swarm := range []bool{false, true} {
		method := "kvcheck fuzz"
		if swarm {
			method += " --swarm"
		}
		res := fuzz.Run(sp, fuzz.Options{Seed: *seed, Workers: runtime.NumCPU(), Swarm: swarm, Duration: *budget})
		r := row{scenario: name, method: method, seconds: res.Elapsed.Seconds(), note: fmt.Sprintf("%d walks", res.Walks)}
		if v := res.Violation; v != nil {
			r.found, r.steps = true, len(v.Trace)
			var note string
			r.shrunk, note = shrink(v)
			r.note += note
		}
		rows = append(rows, r)
	}
	out := fuzz.RunRapid(model.Spec[S, A](sp), *seed, 0)
	r := row{scenario: name, method: "rapid (100 checks)", note: "steps found: after rapid's own shrinking"}
	if out.Violation != nil {
		r.found, r.seconds, r.steps = true, out.FirstFailure.Seconds(), len(out.Violation.Trace)
		r.shrunk, _ = shrink(out.Violation)
	} else {
		r.seconds = out.Elapsed.Seconds()
	}
	rows = append(rows, r)
	if !*skipGo {
		rows = append(rows, goFuzz(name, sp, shrink))
	}
	return rows
}

var (
	testBinary string
	failingRE  = regexp.MustCompile(`Failing input written to (testdata/fuzz/FuzzRealCode/\S+)`)
	execsRE    = regexp.MustCompile(`execs: (\d+) \((\d+)/sec\)`)
)

// goFuzz runs go test -fuzz on FuzzRealCode for name and decodes the crash
// file it writes.
func goFuzz[S, A any, P model.Spec[S, A]](name string, sp P, shrink func(*fuzz.Violation[A]) (int, string)) row {
	dir := packageDir()
	if testBinary == "" {
		testBinary = filepath.Join(os.TempDir(), "kvcheck-fuzz-compare.test")
		build := exec.Command("go", "test", "-c", "-o", testBinary, ".")
		build.Dir, build.Stderr = dir, os.Stderr
		if err := build.Run(); err != nil {
			fail(fmt.Errorf("building the fuzz test binary: %v", err))
		}
	}
	cache, err := os.MkdirTemp("", "kvcheck-fuzz-cache")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(cache)
	cmd := exec.Command(testBinary, "-test.run", "^$", "-test.fuzz", "^FuzzRealCode$",
		"-test.fuzztime", budget.String(), "-test.fuzzcachedir", cache)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KVCHECK_FUZZ_SCENARIO="+name)
	start := time.Now()
	output, _ := cmd.CombinedOutput()
	r := row{scenario: name, method: "go test -fuzz", seconds: time.Since(start).Seconds()}
	scanner := bufio.NewScanner(strings.NewReader(string(output)))
	var file string
	for scanner.Scan() {
		if m := execsRE.FindStringSubmatch(scanner.Text()); m != nil && m[1] != "0" {
			r.note = fmt.Sprintf("%s execs, %s/s", m[1], m[2])
		}
		if m := failingRE.FindStringSubmatch(scanner.Text()); m != nil {
			file = filepath.Join(dir, m[1])
		}
	}
	if file == "" {
		r.note += "; no crash"
		return r
	}
	data, err := readCorpusFile(file)
	os.Remove(file)
	os.Remove(filepath.Dir(file))
	if err != nil {
		fail(err)
	}
	trace, v := fuzz.Decode(sp, data)
	if v == nil {
		fail(fmt.Errorf("%s: the crash file decodes to %d steps without a violation", name, len(trace)))
	}
	r.found, r.steps = true, len(v.Trace)
	r.shrunk, _ = shrink(v)
	if r.note != "" {
		r.note += "; "
	}
	r.note += fmt.Sprintf("%d-byte input; steps shrunk: kvcheck's shrinker (go test -fuzz does not shrink)", len(data))
	return r
}

// packageDir is the directory of package fuzz.
func packageDir() string {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "github.com/kvcheck/kvcheck/fuzz").Output()
	if err != nil {
		fail(fmt.Errorf("go list: %v", err))
	}
	return strings.TrimSpace(string(out))
}

// readCorpusFile reads a go test fuzz v1 file holding one []byte value.
func readCorpusFile(path string) ([]byte, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("%s: want a go test fuzz v1 file with one value", path)
	}
	quoted := strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")")
	data, err := strconv.Unquote(quoted)
	return []byte(data), err
}

func printCrashTable(rows []row) {
	fmt.Printf("Time to the crash and trace length, seed %d, %d cores, budget %s per randomized method\n\n", *seed, runtime.NumCPU(), *budget)
	fmt.Println("| scenario | method | found | time to crash | steps found | steps shrunk | notes |")
	fmt.Println("|---|---|---|---:|---:|---:|---|")
	for _, r := range rows {
		found, steps, shrunk := "no", "-", "-"
		if r.found {
			found, steps, shrunk = "yes", fmt.Sprint(r.steps), fmt.Sprint(r.shrunk)
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s |\n", r.scenario, r.method, found, seconds(r.seconds), steps, shrunk, r.note)
	}
}

func seconds(s float64) string {
	if s < 0.1 {
		return fmt.Sprintf("%.1f ms", s*1000)
	}
	return fmt.Sprintf("%.2f s", s)
}

// printCoverage measures the walks on the pool model: time to 90% of its
// states, and steps per second on one worker.
func printCoverage() {
	pool, err := poolbench.New(poolbench.DefaultConfig)
	if err != nil {
		fail(err)
	}
	check := model.Check(pool, model.Options{Workers: runtime.NumCPU()})
	target := check.States * 9 / 10
	fmt.Printf("\nPool model (%d states, exhaustive search %.2f s on %d cores): time to 90%% of the states\n\n", check.States, check.Elapsed.Seconds(), runtime.NumCPU())
	fmt.Println("| walks | workers | time to 90% | steps |")
	fmt.Println("|---|---:|---:|---:|")
	for _, mode := range []fuzz.Mode{fuzz.ModeNovelty, fuzz.ModePlain} {
		for _, workers := range []int{1, runtime.NumCPU()} {
			runtime.GC()
			res := fuzz.Run(pool, fuzz.Options{Seed: *seed, Mode: mode, Workers: workers, StopAtStates: target, Duration: *budget})
			reached := seconds(res.Elapsed.Seconds())
			if res.States < target {
				reached = fmt.Sprintf("not in %s (%d%%)", *budget, res.States*100/check.States)
			}
			fmt.Printf("| %s | %d | %s | %d |\n", mode, workers, reached, res.Steps)
		}
	}
	fmt.Println("\nPool model: random steps per second, one worker")
	fmt.Println()
	fmt.Println("| walks | steps/s |")
	fmt.Println("|---|---:|")
	for _, mode := range []fuzz.Mode{fuzz.ModeBare, fuzz.ModePlain, fuzz.ModeNovelty} {
		runtime.GC()
		res := fuzz.Run(pool, fuzz.Options{Seed: *seed, Mode: mode, MaxSteps: 20_000_000})
		fmt.Printf("| %s | %.1f M |\n", mode, float64(res.Steps)/res.Elapsed.Seconds()/1e6)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "compare: %v\nreproduce: go run ./fuzz/compare\n", err)
	os.Exit(2)
}
