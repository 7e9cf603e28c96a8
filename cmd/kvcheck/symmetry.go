package main

import "github.com/spf13/pflag"

// addSymmetryFlag registers --symmetry, which check and sweep share: store
// one state per orbit of the spec's rank symmetry (model.Options.Symmetry,
// docs/engine.md "Symmetry reduction"). It is on by default because it
// keeps verdicts, invariants, goals and shortest counterexample lengths
// and the counterexamples stay concrete; --symmetry=false checks every
// state, e.g. to compare state counts.
func addSymmetryFlag(flags *pflag.FlagSet, on *bool) {
	flags.BoolVar(on, "symmetry", true, "store one state per orbit of interchangeable ranks (same verdicts and shortest counterexamples, fewer states; --symmetry=false to store every state)")
}

// symmetryArgs appends to a reproduce command the flag that keeps
// symmetry off, when it was.
func symmetryArgs(parts []string, on bool) []string {
	if !on {
		parts = append(parts, "--symmetry=false")
	}
	return parts
}
