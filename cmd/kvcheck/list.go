package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kvcheck/kvcheck/spec"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// runList is `kvcheck list`: the scenarios, invariants, fixes and pre-fix
// switches, one line each.
func runList(args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("list", stderr)
	markdown := flags.Bool("markdown", false, "print the scenario table of the README (Markdown) instead")
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "kvcheck list: unexpected argument %s\n%s", quote(flags.Arg(0)), usageLine("list"))
		return exitUsage
	}
	if *markdown {
		printScenarioTable(stdout)
		return exitOK
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SCENARIOS\t")
	for _, sc := range scenario.All() {
		fmt.Fprintf(w, "  %s\t%s (%s)\n", sc.Name, sc.Doc, sc.Report)
		fmt.Fprintf(w, "  \t  expected: %s\n", expectedVerdicts(sc))
	}
	fmt.Fprintln(w, "INVARIANTS\t")
	sp, err := scenario.All()[0].Spec(0)
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck list: %v\n", err)
		return exitUsage
	}
	for _, inv := range sp.Invariants() {
		fmt.Fprintf(w, "  %s\t%s\n", inv.Name, inv.Doc)
	}
	fmt.Fprintln(w, "GOALS\t")
	for _, name := range spec.GoalNames() {
		g, _ := spec.LookupGoal(name)
		fmt.Fprintf(w, "  %s\t%s\n", g.Name, g.Doc)
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

// expectedVerdicts is "real-code → INVARIANT, FIX → ok, ..." for a
// scenario's variants.
func expectedVerdicts(sc *scenario.Scenario) string {
	var parts []string
	for _, fixes := range sc.Variants() {
		verdict, ok := sc.Expected(fixes)
		if !ok {
			verdict = "(not declared)"
		}
		parts = append(parts, fixes.Label()+" → "+verdict)
	}
	return strings.Join(parts, ", ")
}

// printScenarioTable prints the README's scenario table: each scenario,
// what it reproduces, where it comes from, and the verdict expected of
// each variant.
func printScenarioTable(w io.Writer) {
	fmt.Fprintln(w, "| scenario | what it reproduces | from | expected verdicts |")
	fmt.Fprintln(w, "|---|---|---|---|")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, sc := range scenario.All() {
		var verdicts []string
		for _, fixes := range sc.Variants() {
			verdict, _ := sc.Expected(fixes)
			verdicts = append(verdicts, fmt.Sprintf("`%s` → `%s`", fixes.Label(), verdict))
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", sc.Name, cell(sc.Doc), cell(sc.Report), strings.Join(verdicts, "<br>"))
	}
}
