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
	child := flag.String("child", "", "internal: check one RANKSxREQUESTS configuration and print its result as JSON")
	flag.Parse()
	if *child != "" {
		r, err := checkOne(*scenario, *fix, *child, *workers)
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
	fmt.Printf("%s scaled by ranks x requests, %d worker(s), limit %s per configuration\n", *scenario, *workers, *limit)
	fmt.Printf("%-8s %12s %14s %6s %9s %9s %12s %12s %12s  %s\n", "SIZE", "STATES", "TRANSITIONS", "DEPTH", "WALL S", "CPU S", "STATES/CPU-S", "PEAK RSS MB", "BYTES/STATE", "VERDICT")
	var peak float64
	for _, size := range strings.Split(*sizes, ",") {
		cmd := exec.Command(exe, "-scenario", *scenario, "-fix", *fix, "-workers", strconv.Itoa(*workers), "-child", size)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Start(); err != nil {
			fail(err)
		}
		timer := time.AfterFunc(*limit, func() { cmd.Process.Kill() })
		err := cmd.Wait()
		timer.Stop()
		if err != nil {
			fmt.Printf("%-8s did not complete within %s (%v) %s\n", size, *limit, err, strings.TrimSpace(errOut.String()))
			continue
		}
		var r result
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			fail(fmt.Errorf("%s: %v: %s", size, err, out.String()))
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		rss := ru.Maxrss * 1024
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		perState := float64(rss) / float64(r.States)
		fmt.Printf("%-8s %12d %14d %6d %9.1f %9.1f %12.0f %12.1f %12.1f  %s\n", size, r.States, r.Transitions, r.Depth, r.Seconds,
			cpu, float64(r.States)/cpu, float64(rss)/1e6, perState, r.Verdict)
		if r.Complete || r.Verdict != "ok" {
			peak = perState
		}
	}
	fmt.Printf("peak bytes per state: %.0f\n", peak)
}

// checkOne checks one scaled configuration.
func checkOne(name, fix, size string, workers int) (result, error) {
	ranks, requests, err := parseSize(size)
	if err != nil {
		return result{}, err
	}
	sc, err := spec.LookupScenario(name)
	if err != nil {
		return result{}, err
	}
	cfg := Scaled(sc.Config, ranks, requests)
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
	res := model.Check[spec.State, spec.Action](sp, model.Options{Workers: workers, MaxDepth: sc.Depth, MaxMemory: model.MachineMemory() / 4 * 3})
	r := result{Ranks: ranks, Requests: requests, States: res.States, Transitions: res.Transitions, Depth: res.Depth,
		Complete: res.Complete, Verdict: "ok", Seconds: time.Since(start).Seconds(), Collision: res.CollisionProbability}
	if len(res.Violations) > 0 {
		r.Verdict = res.Violations[0].Invariant
	} else if !res.Complete {
		r.Verdict = "incomplete"
	}
	return r, nil
}

// Scaled returns cfg with the given number of ranks and requests: request
// i follows template i mod len(cfg.Requests) and is routed to rank
// i mod ranks.
func Scaled(cfg spec.Config, ranks, requests int) spec.Config {
	base := cfg.Requests
	cfg.Ranks = uint8(ranks)
	cfg.Requests = make([]spec.RequestTemplate, requests)
	for i := range cfg.Requests {
		t := base[i%len(base)]
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
