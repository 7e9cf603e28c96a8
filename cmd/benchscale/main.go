// Command benchscale is `make bench-scale`: it checks a built-in scenario
// (adp-dummy-leak under its first fix by default) scaled up by ranks and
// requests, from 2 ranks × 4 requests to 3 × 8, and prints for each
// configuration the states, wall and CPU time, states per CPU second (the
// machine may be shared: CPU time is the fair clock) and the whole
// process's peak resident bytes per stored state. Each configuration runs
// in a child process of its own, so that its peak memory is its own.
//
// -symmetry off,on checks each configuration without and with symmetry
// reduction (model.Options.Symmetry) and -layout symmetric routes the
// requests so that every rank gets the same templates in the same order
// (the default layout, request i on rank i mod ranks with template
// i mod templates, gives the ranks different requests: no symmetry).
// -por off,on checks each of those without and with the rank-aware
// partial-order reduction (model.Options.PartialOrder); FACTOR is the
// states of the size's first row (both off, when it completed) over the
// row's.
//
// Then, each when asked for (make bench-scale asks for all):
//
//   - -deployment FILE checks a configuration file as it is (no scaling)
//     under its first fix, with -deployment-reductions (deployment.go);
//   - -workers-rounds N checks -workers-size (3x5) without reductions with
//     one worker and with two, alternately, N times each (workers.go);
//   - -sweep SCENARIO runs the scenario's default sweep (sweep.go);
//
// and the last lines put the measured figures next to issue 24's targets
// (targets.go), ending with
//
//	peak bytes per state: N
//
// for the largest scaled configuration that completed within the limit.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// result is what a child process reports for one configuration.
type result struct {
	Name            string // the deployment's scenario name, "" for a scaled size
	Ranks, Requests int
	Symmetric       bool // the search stored one state per orbit
	PartialOrder    bool // the search used the partial-order reduction
	States          int
	Transitions     int
	Depth           int
	Complete        bool
	Verdict         string
	Seconds         float64
	PeakRSS         int64
	Collision       float64
}

// row is a child's result with what its process used.
type row struct {
	result
	label, sym, por string
	cpu             float64 // user + system seconds
	rss             int64   // peak resident bytes
}

func (r row) perCPU() float64   { return float64(r.States) / r.cpu }
func (r row) perState() float64 { return float64(r.rss) / float64(r.States) }

func main() {
	scenario := flag.String("scenario", "adp-dummy-leak", "built-in scenario to scale")
	fix := flag.String("fix", "", "fix to apply (default: the scenario's first fix set)")
	sizes := flag.String("sizes", "2x4,2x5,2x6,3x6,3x7,3x8", "ranks x requests, comma-separated")
	limit := flag.Duration("limit", 10*time.Minute, "time limit per configuration")
	workers := flag.Int("workers", runtime.NumCPU(), "expansion workers")
	layout := flag.String("layout", "modulo", "request layout: modulo (request i on rank i mod ranks, template i mod templates) or symmetric (every rank the same templates)")
	symmetry := flag.String("symmetry", "off", "symmetry reduction for each configuration: off, on, or off,on for both")
	por := flag.String("por", "off", "partial-order reduction for each configuration: off, on, or off,on for both")
	deployment := flag.String("deployment", "", "also check this configuration file as it is, under its first fix")
	deploymentReductions := flag.String("deployment-reductions", "on", "symmetry and partial-order reduction for the deployment: off, on, or off,on")
	workersRounds := flag.Int("workers-rounds", 0, "also check -workers-size without reductions with 1 and 2 workers, alternately, this many times each")
	workersSize := flag.String("workers-size", "3x5", "the size -workers-rounds checks")
	sweepScenario := flag.String("sweep", "", "also run this scenario's default sweep and report its CPU time per configuration")
	child := flag.String("child", "", "internal: check one RANKSxREQUESTS configuration (or, with -child-file, the file) and print its result as JSON")
	childFile := flag.String("child-file", "", "internal: the configuration file a child checks")
	childSweep := flag.String("child-sweep", "", "internal: run this scenario's default sweep and print its counts as JSON")
	flag.Parse()
	if *layout != "modulo" && *layout != "symmetric" {
		fail(fmt.Errorf("-layout %q: want modulo or symmetric", *layout))
	}
	modes, porModes := onOff("-symmetry", *symmetry), onOff("-por", *por)
	switch {
	case *childSweep != "":
		r, err := sweepOne(*childSweep)
		childOut(r, err)
		return
	case *childFile != "":
		r, err := checkFile(*childFile, modes[0], porModes[0], *workers)
		childOut(r, err)
		return
	case *child != "":
		r, err := checkOne(*scenario, *fix, *child, *layout, modes[0], porModes[0], *workers)
		childOut(r, err)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		fail(err)
	}
	fmt.Printf("%s scaled by ranks x requests (%s layout), %d worker(s), limit %s per configuration\n", *scenario, *layout, *workers, *limit)
	printHeader()
	var rows []row
	var peak float64
	for _, size := range strings.Split(*sizes, ",") {
		first := 0 // states of the size's first row, both reductions off, for FACTOR
		for _, sym := range modes {
			for _, po := range porModes {
				args := []string{"-scenario", *scenario, "-fix", *fix, "-layout", *layout, "-child", size}
				if r, ok := runChild(exe, args, size, sym, po, *workers, *limit, &first); ok {
					rows = append(rows, r)
					if r.Complete || r.Verdict != "ok" {
						peak = r.perState()
					}
				}
			}
		}
	}
	var dep []row
	if *deployment != "" {
		dep = deploymentRows(exe, *deployment, onOff("-deployment-reductions", *deploymentReductions), *workers, *limit)
	}
	var ws *workersResult
	if *workersRounds > 0 {
		ws = compareWorkers(exe, *scenario, *fix, *layout, *workersSize, *workersRounds, *limit)
	}
	var sw *sweepResult
	if *sweepScenario != "" {
		sw = runSweep(exe, *sweepScenario, *limit)
	}
	printTargets(rows, dep, ws, sw)
	fmt.Printf("peak bytes per state: %.0f\n", peak)
}

// childOut prints a child's result as JSON, or its error.
func childOut(r any, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(2)
	}
	json.NewEncoder(os.Stdout).Encode(r)
}

// onOff parses an off / on / off,on flag value.
func onOff(name, value string) []bool {
	var modes []bool
	for _, m := range strings.Split(value, ",") {
		switch m {
		case "off":
			modes = append(modes, false)
		case "on":
			modes = append(modes, true)
		default:
			fail(fmt.Errorf("%s %q: want off, on or off,on", name, value))
		}
	}
	return modes
}

// word is a reduction switch as the table prints it.
func word(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// printHeader prints the table's column names.
func printHeader() {
	fmt.Printf("%-20s %-4s %-4s %12s %14s %6s %9s %9s %12s %12s %12s %7s  %s\n", "SIZE", "SYM", "POR", "STATES", "TRANSITIONS", "DEPTH", "WALL S", "CPU S", "STATES/CPU-S", "PEAK RSS MB", "BYTES/STATE", "FACTOR", "VERDICT")
}

// runChild checks one configuration in a child process (args say which,
// label names it in the table) and prints its row; it reports false when
// the child did not complete.
func runChild(exe string, args []string, label string, sym, po bool, workers int, limit time.Duration, first *int) (row, bool) {
	mode, poMode := word(sym), word(po)
	args = append(args, "-symmetry", mode, "-por", poMode, "-workers", strconv.Itoa(workers))
	var r result
	u, err := child(exe, args, limit, &r)
	cpu, rss := u.cpu, u.rss
	if err != nil {
		fmt.Printf("%-20s %-4s %-4s did not complete within %s (%v)\n", label, mode, poMode, limit, err)
		return row{}, false
	}
	if sym && !r.Symmetric {
		mode = "none" // the configuration has no symmetry
	}
	if po && !r.PartialOrder {
		poMode = "none" // the spec offers no reduction for it
	}
	out := row{result: r, label: label, sym: mode, por: poMode, cpu: cpu, rss: rss}
	factor := "-"
	switch {
	case first == nil:
	case !sym && !po && r.Complete:
		*first = r.States
	case *first > 0 && r.Complete:
		factor = fmt.Sprintf("%.2f", float64(*first)/float64(r.States))
	}
	fmt.Printf("%-20s %-4s %-4s %12d %14d %6d %9.1f %9.1f %12.0f %12.1f %12.1f %7s  %s\n", label, mode, poMode, r.States, r.Transitions, r.Depth, r.Seconds,
		cpu, out.perCPU(), float64(rss)/1e6, out.perState(), factor, r.Verdict)
	return out, true
}

// usage is what a child process used.
type usage struct {
	cpu, sys float64 // CPU seconds, user and system, and system alone
	rss      int64   // peak resident bytes
}

// child runs this program with args, within limit, decodes its JSON result
// into out, and returns what the process used.
func child(exe string, args []string, limit time.Duration, out any) (usage, error) {
	cmd := exec.Command(exe, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	if err != nil {
		return usage{}, fmt.Errorf("%v %s", err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		fail(fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, stdout.String()))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	sys := time.Duration(ru.Stime.Nano()).Seconds()
	return usage{cpu: time.Duration(ru.Utime.Nano()).Seconds() + sys, sys: sys, rss: ru.Maxrss * 1024}, nil
}

// checkOne checks one scaled configuration.
func checkOne(name, fix, size, layout string, symmetry, por bool, workers int) (result, error) {
	ranks, requests, err := parseSize(size)
	if err != nil {
		return result{}, err
	}
	sc, err := scenario.Lookup(name)
	if err != nil {
		return result{}, err
	}
	cfg := Scaled(sc.Config, ranks, requests, layout == "symmetric")
	var fixes spec.Fixes
	if fix != "" {
		if fixes, err = spec.ParseFixes([]string{fix}); err != nil {
			return result{}, err
		}
	} else if vs := sc.Variants(); len(vs) > 1 {
		fixes = vs[1]
	}
	sp, err := spec.New(cfg, fixes)
	if err != nil {
		return result{}, fmt.Errorf("%s: %v", size, err)
	}
	r := check(sp, sc.Depth, symmetry, por, workers)
	r.Ranks, r.Requests = ranks, requests
	return r, nil
}

// check runs one search of sp and summarises it.
func check(sp *spec.Spec, depth int, symmetry, por bool, workers int) result {
	start := time.Now()
	res := model.Check[spec.State, spec.Action](sp, model.Options{Workers: workers, MaxDepth: depth, MaxMemory: model.MachineMemory() / 4 * 3, Symmetry: symmetry,
		PartialOrder: por})
	r := result{Ranks: int(sp.Config.Ranks), Requests: len(sp.Config.Requests), Symmetric: res.Symmetric, PartialOrder: res.PartialOrder, States: res.States,
		Transitions: res.Transitions, Depth: res.Depth, Complete: res.Complete, Verdict: "ok", Seconds: time.Since(start).Seconds(), Collision: res.CollisionProbability}
	if len(res.Violations) > 0 {
		r.Verdict = res.Violations[0].Invariant
	} else if !res.Complete {
		r.Verdict = "incomplete"
	}
	return r
}

// Scaled returns cfg with the given number of ranks and requests: request
// i is routed to rank i mod ranks and follows template i mod
// len(cfg.Requests), or with symmetric template (i / ranks) mod
// len(cfg.Requests), so that every rank gets the same templates in the
// same order.
func Scaled(cfg spec.Config, ranks, requests int, symmetric bool) spec.Config {
	base := cfg.Requests
	cfg.Ranks = uint8(ranks)
	cfg.Requests = make([]spec.RequestTemplate, requests)
	for i := range cfg.Requests {
		t := base[i%len(base)]
		if symmetric {
			t = base[i/ranks%len(base)]
		}
		t.Rank = uint8(i % ranks)
		cfg.Requests[i] = t
	}
	return cfg
}

func parseSize(s string) (ranks, requests int, err error) {
	r, q, ok := strings.Cut(s, "x")
	if ranks, err = strconv.Atoi(r); ok && err == nil {
		requests, err = strconv.Atoi(q)
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("size %q: want RANKSxREQUESTS, e.g. 3x8", s)
	}
	return ranks, requests, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench-scale:", err)
	fmt.Fprintln(os.Stderr, "reproduce: make bench-scale")
	os.Exit(1)
}
