// Command benchscale is `make bench-scale`: it checks a built-in scenario
// (adp-dummy-leak under its first fix by default) scaled up by ranks and
// requests, from 2 ranks × 4 requests to 3 × 8, and prints for each
// configuration the states, wall and CPU time, states per CPU second (the
// machine may be shared: CPU time is the fair clock) and the whole
// process's peak resident bytes per stored state. Each configuration runs
// in a child process of its own, so that its peak memory is its own. The
// last line is
//
//	peak bytes per state: N
//
// for the largest configuration that completed within the time limit.
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
)

// result is what a child process reports for one configuration.
type result struct {
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

func main() {
	scenario := flag.String("scenario", "adp-dummy-leak", "built-in scenario to scale")
	fix := flag.String("fix", "", "fix to apply (default: the scenario's first fix set)")
	sizes := flag.String("sizes", "2x4,2x5,2x6,3x6,3x7,3x8", "ranks x requests, comma-separated")
	limit := flag.Duration("limit", 10*time.Minute, "time limit per configuration")
	workers := flag.Int("workers", runtime.NumCPU(), "expansion workers")
	layout := flag.String("layout", "modulo", "request layout: modulo (request i on rank i mod ranks, template i mod templates) or symmetric (every rank the same templates)")
	symmetry := flag.String("symmetry", "off", "symmetry reduction for each configuration: off, on, or off,on for both")
	por := flag.String("por", "off", "partial-order reduction for each configuration: off, on, or off,on for both")
	child := flag.String("child", "", "internal: check one RANKSxREQUESTS configuration and print its result as JSON")
	flag.Parse()
	if *layout != "modulo" && *layout != "symmetric" {
		fail(fmt.Errorf("-layout %q: want modulo or symmetric", *layout))
	}
	modes, porModes := onOff("-symmetry", *symmetry), onOff("-por", *por)
	if *child != "" {
		r, err := checkOne(*scenario, *fix, *child, *layout, modes[0], porModes[0], *workers)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-scale:", err)
			os.Exit(2)
		}
		json.NewEncoder(os.Stdout).Encode(r)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		fail(err)
	}
	fmt.Printf("%s scaled by ranks x requests (%s layout), %d worker(s), limit %s per configuration\n", *scenario, *layout, *workers, *limit)
	fmt.Printf("%-8s %-4s %-4s %12s %14s %6s %9s %9s %12s %12s %12s %7s  %s\n", "SIZE", "SYM", "POR", "STATES", "TRANSITIONS", "DEPTH", "WALL S", "CPU S", "STATES/CPU-S", "PEAK RSS MB", "BYTES/STATE", "FACTOR", "VERDICT")
	var peak float64
	for _, size := range strings.Split(*sizes, ",") {
		first := 0 // states of the size's first row, both reductions off, for FACTOR
		for _, sym := range modes {
			for _, po := range porModes {
				if pb, ok := runChild(exe, *scenario, *fix, *layout, size, sym, po, *workers, *limit, &first); ok {
					peak = pb
				}
			}
		}
	}
	fmt.Printf("peak bytes per state: %.0f\n", peak)
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

// runChild checks one configuration in a child process and prints its row;
// it returns the peak bytes per state and whether the row counts for the
// last line (a complete search, or one that found a violation).
func runChild(exe, scenario, fix, layout, size string, sym, po bool, workers int, limit time.Duration, first *int) (float64, bool) {
	mode, poMode := word(sym), word(po)
	cmd := exec.Command(exe, "-scenario", scenario, "-fix", fix, "-layout", layout, "-symmetry", mode, "-por", poMode, "-workers", strconv.Itoa(workers), "-child", size)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	if err != nil {
		fmt.Printf("%-8s %-4s %-4s did not complete within %s (%v) %s\n", size, mode, poMode, limit, err, strings.TrimSpace(errOut.String()))
		return 0, false
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		fail(fmt.Errorf("%s: %v: %s", size, err, out.String()))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	rss := ru.Maxrss * 1024
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	perState := float64(rss) / float64(r.States)
	if sym && !r.Symmetric {
		mode = "none" // the configuration has no symmetry
	}
	if po && !r.PartialOrder {
		poMode = "none" // the spec offers no reduction for it
	}
	factor := "-"
	switch {
	case !sym && !po && r.Complete:
		*first = r.States
	case *first > 0 && r.Complete:
		factor = fmt.Sprintf("%.2f", float64(*first)/float64(r.States))
	}
	fmt.Printf("%-8s %-4s %-4s %12d %14d %6d %9.1f %9.1f %12.0f %12.1f %12.1f %7s  %s\n", size, mode, poMode, r.States, r.Transitions, r.Depth, r.Seconds,
		cpu, float64(r.States)/cpu, float64(rss)/1e6, perState, factor, r.Verdict)
	return perState, r.Complete || r.Verdict != "ok"
}

// checkOne checks one scaled configuration.
func checkOne(name, fix, size, layout string, symmetry, por bool, workers int) (result, error) {
	ranks, requests, err := parseSize(size)
	if err != nil {
		return result{}, err
	}
	sc, err := spec.LookupScenario(name)
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
	start := time.Now()
	res := model.Check[spec.State, spec.Action](sp, model.Options{Workers: workers, MaxDepth: sc.Depth, MaxMemory: model.MachineMemory() / 4 * 3, Symmetry: symmetry,
		PartialOrder: por})
	r := result{Ranks: ranks, Requests: requests, Symmetric: res.Symmetric, PartialOrder: res.PartialOrder, States: res.States, Transitions: res.Transitions, Depth: res.Depth,
		Complete: res.Complete, Verdict: "ok", Seconds: time.Since(start).Seconds(), Collision: res.CollisionProbability}
	if len(res.Violations) > 0 {
		r.Verdict = res.Violations[0].Invariant
	} else if !res.Complete {
		r.Verdict = "incomplete"
	}
	return r, nil
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
