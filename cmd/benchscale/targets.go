package main

import "fmt"

// Issue 24's targets, as bench-scale measures them.
const (
	targetSize          = "3x5"     // the scaled size the throughput target is for
	targetStatesPerCPU  = 1_000_000 // states per CPU second, no reduction
	targetDeploymentCPU = 600.0     // CPU seconds to check the deployment with the reductions
	targetBytesPerState = 100.0     // peak resident bytes per state of that check
	targetWorkers       = 1.7       // two workers over one, states per wall second
	targetSweepCPU      = 0.5       // ms of CPU per sweep configuration
)

// printTargets prints each measured figure next to its target.
func printTargets(rows, dep []row, ws *workersResult, sw *sweepResult) {
	fmt.Println("\ntargets (issue 24) and what this run measured:")
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	found := false
	for _, r := range rows {
		if r.label == targetSize && r.sym == "off" && r.por == "off" {
			found = true
			fmt.Printf("  spec throughput, %s without reductions, the table's run: target >= %d states per CPU second; measured %.0f (%d states, %d transitions): %s\n",
				targetSize, targetStatesPerCPU, r.perCPU(), r.States, r.Transitions, met(r.perCPU() >= targetStatesPerCPU))
		}
	}
	if ws != nil && ws.size == targetSize {
		// One worker spends no CPU on the parallel rounds: the spec's and
		// the engine's own cost per state.
		found = true
		fmt.Printf("  spec throughput, %s without reductions, one worker (median of %d runs): target >= %d states per CPU second; measured %.0f: %s\n",
			targetSize, len(ws.oneCPU), targetStatesPerCPU, median(ws.oneCPU), met(median(ws.oneCPU) >= targetStatesPerCPU))
	}
	if !found {
		fmt.Printf("  spec throughput: not measured (BENCH_SIZES has no %s with both reductions off)\n", targetSize)
	}
	found = false
	for _, r := range dep {
		if r.sym == "off" && r.por == "off" {
			continue
		}
		found = true
		fmt.Printf("  deployment %s with the reductions (symmetry %s, partial order %s): target complete in < %.0f CPU seconds at <= %.0f bytes per state; measured %s after %.1f CPU seconds (%d states), %.1f bytes per state: %s\n",
			r.Name, r.sym, r.por, targetDeploymentCPU, targetBytesPerState, completeness(r), r.cpu, r.States, r.perState(),
			met(r.Complete && r.cpu < targetDeploymentCPU && r.perState() <= targetBytesPerState))
	}
	if !found {
		fmt.Println("  deployment: not measured (no -deployment, or it did not complete)")
	}
	if ws != nil {
		fmt.Printf("  two workers over one on %s, states per wall second (medians of %d alternated runs, and the median of each round's ratio): target >= %.1fx; measured %.2fx and %.2fx: %s (met when both are; a wall-clock ratio needs two otherwise idle cores; in CPU per state two workers spend %.2fx one's)\n",
			ws.size, len(ws.oneWall), targetWorkers, ws.ratio(), ws.pairRatio(), met(ws.ratio() >= targetWorkers && ws.pairRatio() >= targetWorkers), median(ws.oneCPU)/median(ws.twoCPU))
	} else {
		fmt.Println("  two workers: not measured (-workers-rounds 0)")
	}
	if sw != nil {
		fmt.Printf("  a configuration of %s's default sweep: target <= %.1f ms of CPU; measured %.3f ms (%.4f ms of it system time): %s\n",
			sw.Scenario, targetSweepCPU, sw.cpuPerConfig(), sw.sysPerConfig(), met(sw.cpuPerConfig() <= targetSweepCPU))
	} else {
		fmt.Println("  sweep: not measured (no -sweep)")
	}
}

// completeness says how a check ended.
func completeness(r row) string {
	switch {
	case r.Complete && r.Verdict == "ok":
		return "complete, ok"
	case r.Complete:
		return "complete, " + r.Verdict
	}
	return r.Verdict
}
