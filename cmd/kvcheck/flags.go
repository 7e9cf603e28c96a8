package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/pflag"
)

// maxWorkers bounds --workers: each worker of a check keeps a list per
// worker (memory that grows with the square of their number: 10,000
// workers took 2.4 GB on a 687-state check, 100,000 were killed out of
// memory), and past the machine's cores more workers only cost. A value
// above it is an error, not a clamp, so the reproduce lines stay true.
const maxWorkers = 256

// defaultWorkers is the --workers default: one per core, at most
// maxWorkers.
func defaultWorkers() int { return min(runtime.NumCPU(), maxWorkers) }

// validateBounds checks --depth and --max-states of check and sweep: a
// depth given is at least 1 (--depth 0 would read as "no bound" but the
// scenario's depth is what bounds a search without --depth, so it is an
// error rather than a silent default), and --max-states is not negative
// (0 is documented: no bound on the states, only --max-memory).
func validateBounds(flags *pflag.FlagSet, depth, maxStates int) error {
	if depth < 0 || flags.Changed("depth") && depth == 0 {
		return fmt.Errorf("--depth must be at least 1, got %d; leave --depth out to search to the scenario's own depth", depth)
	}
	if maxStates < 0 {
		return fmt.Errorf("--max-states must not be negative, got %d; 0 means no bound on the states (only --max-memory)", maxStates)
	}
	return nil
}

// validateRunFlags checks the flags check, fuzz and sweep share, the same
// way for all: between 1 and maxWorkers workers, --rewrite only with
// --out, and an --out directory that can be written, checked before the
// search rather than after it.
func validateRunFlags(workers int, out string, rewrite bool) error {
	if workers < 1 {
		return fmt.Errorf("--workers must be at least 1, got %d", workers)
	}
	if workers > maxWorkers {
		return fmt.Errorf("--workers %d: at most %d (each worker's memory grows with the number of workers)", workers, maxWorkers)
	}
	if rewrite && out == "" {
		return fmt.Errorf("--rewrite replaces transcripts that --out DIR writes; give --out DIR with it")
	}
	if out != "" {
		if err := checkWritableDir(out); err != nil {
			return fmt.Errorf("--out %s: %v", quote(out), err)
		}
	}
	return nil
}
