package main

import "github.com/spf13/pflag"

// addPartialOrderFlag registers --por: explore one order of the ranks'
// independent steps (model.Options.PartialOrder, docs/engine.md "Rank-aware
// partial-order reduction"). Verdicts, invariants, goals, counterexamples
// and livelock lassos are the same with it (a failing check re-derives its
// counterexample with an unreduced search up to its depth, a livelock with
// the whole unreduced search); it is off by default because that makes a
// failing check cost more, while a passing one costs 2-5x less.
func addPartialOrderFlag(flags *pflag.FlagSet, on *bool) {
	flags.BoolVar(on, "por", false, "rank-aware partial-order reduction: explore one order of independent ranks' steps (same verdicts and counterexamples; a passing check stores 2-5x fewer states on several ranks, a failing one re-derives its counterexample without it)")
}

// partialOrderArgs appends to a reproduce command the flag that turns the
// reduction on, when it was.
func partialOrderArgs(parts []string, on bool) []string {
	if on {
		parts = append(parts, "--por")
	}
	return parts
}
