package main

import "github.com/spf13/pflag"

// addPartialOrderFlag registers --por: explore one order of the ranks'
// independent steps (model.Options.PartialOrder, docs/engine.md "Rank-aware
// partial-order reduction"). It is off by default: verdicts, invariants,
// goals and the shortest safety counterexamples are the same with it, but a
// livelock's stem is a shortest path of the reduced graph, which may be
// longer, and a failing check re-derives its shortest counterexample with
// an unreduced search up to its depth.
func addPartialOrderFlag(flags *pflag.FlagSet, on *bool) {
	flags.BoolVar(on, "por", false, "rank-aware partial-order reduction: explore one order of independent ranks' steps (same verdicts and shortest safety counterexamples, 2-5x fewer states on several ranks; a livelock's stem may be longer)")
}

// partialOrderArgs appends to a reproduce command the flag that turns the
// reduction on, when it was.
func partialOrderArgs(parts []string, on bool) []string {
	if on {
		parts = append(parts, "--por")
	}
	return parts
}
