package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/spf13/pflag"
)

// runList is `kvcheck list`: the scenarios, invariants, fixes and pre-fix
// switches, one line each.
func runList(args []string, stdout, stderr io.Writer) int {
	flags := pflag.NewFlagSet("list", pflag.ContinueOnError)
	flags.SetOutput(stderr)
	if err := flags.Parse(args); err != nil {
		return exitUsage
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "kvcheck list: unexpected argument %q\n", flags.Arg(0))
		return exitUsage
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SCENARIOS\t")
	for _, sc := range spec.Scenarios() {
		fmt.Fprintf(w, "  %s\t%s (%s)\n", sc.Name, sc.Doc, sc.Report)
	}
	fmt.Fprintln(w, "INVARIANTS\t")
	sp, err := spec.Scenarios()[0].Spec(0)
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck list: %v\n", err)
		return exitUsage
	}
	for _, inv := range sp.Invariants() {
		fmt.Fprintf(w, "  %s\t%s\n", inv.Name, inv.Doc)
	}
	fmt.Fprintln(w, "FIXES\t")
	for _, f := range spec.AllFixes() {
		fmt.Fprintf(w, "  %s\t%s\n", f, f.Doc())
	}
	fmt.Fprintln(w, "PRE-FIX SWITCHES (configuration key pre_fix)\t")
	for _, p := range spec.AllPreFixes() {
		fmt.Fprintf(w, "  %s\t%s\n", p, p.Doc())
	}
	w.Flush()
	return exitOK
}
