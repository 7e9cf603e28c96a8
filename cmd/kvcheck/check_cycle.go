package main

import (
	"fmt"
	"io"

	"github.com/kvcheck/kvcheck/spec"
)

// cycleLines renders a livelock's cycle as transcript lines; nil for
// other violations, so the JSON leaves "cycle" out.
func cycleLines(cycle []spec.Action) []string {
	if cycle == nil {
		return nil
	}
	return traceLines(cycle)
}

// printCycle prints a livelock's cycle after its stem: the steps that lead
// from the stem's last state back to it, forever.
func printCycle(w io.Writer, v violationReport) {
	if len(v.Cycle) == 0 {
		return
	}
	fmt.Fprintf(w, "  then this cycle (%d steps) returns to the state after step %d, forever:\n", len(v.Cycle), v.Steps)
	for j, line := range v.Cycle {
		fmt.Fprintf(w, "  %4s  %s\n", fmt.Sprintf("~%d", j+1), line)
	}
}
