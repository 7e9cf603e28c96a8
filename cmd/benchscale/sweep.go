package main

import (
	"fmt"
	"runtime"
	"time"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/space"
)

// sweepCounts is what a sweep child reports.
type sweepCounts struct {
	Scenario, Fixes string
	Configs         int
	States          int
	Violating       int
	Seconds         float64
}

// sweepResult is a sweep child's counts with its CPU time.
type sweepResult struct {
	sweepCounts
	cpu, sys float64 // seconds
}

func (s *sweepResult) cpuPerConfig() float64 { return s.cpu * 1e3 / float64(s.Configs) }
func (s *sweepResult) sysPerConfig() float64 { return s.sys * 1e3 / float64(s.Configs) }

// sweepOne runs the default sweep of the scenario name under its first fix
// as BenchmarkDefaultSweep does (cmd/internal/sweep): every configuration
// (keep-going), liveness on, at most 200,000 states each, on every core.
func sweepOne(name string) (sweepCounts, error) {
	sc, err := scenario.Lookup(name)
	if err != nil {
		return sweepCounts{}, err
	}
	cs, err := space.NewConfigSpace(sc.Config, space.DefaultRanges(sc.Name), nil)
	if err != nil {
		return sweepCounts{}, err
	}
	configs, _, err := cs.Enumerate()
	if err != nil {
		return sweepCounts{}, err
	}
	var fixes spec.Fixes
	if vs := sc.Variants(); len(vs) > 1 {
		fixes = vs[1]
	}
	out := sweepCounts{Scenario: name, Fixes: fixes.Label(), Configs: len(configs)}
	start := time.Now()
	sweep.Run(sweep.Variant{Scenario: sc, Fixes: fixes}, configs,
		sweep.Options{Search: sweep.Search{MaxStates: 200_000, Liveness: true}, Workers: runtime.NumCPU(), KeepGoing: true},
		func(r sweep.Record) {
			out.States += r.States
			if r.Result == sweep.ResultViolation {
				out.Violating++
			}
		})
	out.Seconds = time.Since(start).Seconds()
	return out, nil
}

// runSweep runs sweepOne in a child process and prints what it cost.
func runSweep(exe, name string, limit time.Duration) *sweepResult {
	var s sweepResult
	u, err := child(exe, []string{"-child-sweep", name}, limit, &s.sweepCounts)
	if err != nil {
		fmt.Printf("\nsweep of %s: did not complete within %s (%v)\n", name, limit, err)
		return nil
	}
	s.cpu, s.sys = u.cpu, u.sys
	fmt.Printf("\ndefault sweep of %s (%s, keep-going, liveness, 200,000 states at most each, %d workers): %d configurations, %.0f states each on average, %d violating; %.1f s wall, %.2f s CPU (%.2f s system): %.3f ms of CPU a configuration (%.4f ms system)\n",
		name, s.Fixes, runtime.NumCPU(), s.Configs, float64(s.States)/float64(s.Configs), s.Violating, s.Seconds, s.cpu, s.sys, s.cpuPerConfig(), s.sysPerConfig())
	return &s
}
