// Command poolcheck runs kvcheck's exhaustive checker on the pool
// benchmark model (package poolbench) and prints one line of figures for
// make bench-spin: states, transitions, wall and CPU seconds, states per
// CPU second and the process's peak resident memory per state.
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/model/poolbench"
)

func main() {
	cfg := poolbench.DefaultConfig
	flag.IntVar(&cfg.Blocks, "blocks", cfg.Blocks, "blocks in the pool (NBLK)")
	flag.IntVar(&cfg.Requests, "requests", cfg.Requests, "request slots per rank (NREQ)")
	flag.IntVar(&cfg.MaxK, "maxk", cfg.MaxK, "larger initial allocation (MAXK)")
	flag.IntVar(&cfg.MaxH, "maxh", cfg.MaxH, "largest size after growing (MAXH)")
	workers := flag.Int("workers", 1, "expansion workers")
	flag.Parse()
	p, err := poolbench.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cpu0 := cpuTime()
	start := time.Now()
	r := model.Check(p, model.Options{Workers: *workers})
	wall := time.Since(start)
	cpu := cpuTime() - cpu0
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	rss := ru.Maxrss * 1024
	fmt.Printf("states=%d transitions=%d wall=%.3f cpu=%.3f states/cpu-s=%.0f peak-rss=%d bytes/state=%.1f complete=%v\n",
		r.States, r.Transitions, wall.Seconds(), cpu.Seconds(), float64(r.States)/cpu.Seconds(),
		rss, float64(rss)/float64(r.States), r.Complete)
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
