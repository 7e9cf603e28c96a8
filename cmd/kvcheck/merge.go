package main

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// runMerge is `kvcheck merge FILE...`: it folds the JSON-lines results of
// the shards of a sweep (kvcheck sweep --shard i/n) into the report one
// run of the whole sweep prints.
func runMerge(args []string, stdout, stderr io.Writer) int {
	var asJSON, rewrite bool
	var out string
	flags := newFlagSet("merge", stderr)
	flags.BoolVar(&asJSON, "json", false, "print one JSON object per variant")
	flags.StringVar(&out, "out", "", "write each variant's smallest counterexample as a transcript in this directory")
	flags.BoolVar(&rewrite, "rewrite", false, "with --out, replace transcripts that already exist")
	var tri triageHook
	tri.addFlags(flags, true)
	defer tri.close()
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	if err := tri.validate(); err != nil {
		fmt.Fprintf(stderr, "kvcheck merge: %v\n", err)
		return exitUsage
	}
	if flags.NArg() == 0 {
		fmt.Fprintln(stderr, "kvcheck merge: expected the shards' result files (kvcheck sweep --shard i/n > FILE)")
		return exitUsage
	}
	if err := validateRunFlags(1, out, rewrite); err != nil {
		fmt.Fprintf(stderr, "kvcheck merge: %v\n", err)
		return exitUsage
	}
	type group struct {
		parts []sweep.Part
	}
	var order []string
	groups := map[string]*group{}
	for _, name := range flags.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck merge: %v\n", err)
			return exitUsage
		}
		parts, err := sweep.ReadParts(name, f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck merge: %v\n", err)
			return exitUsage
		}
		if len(parts) == 0 {
			fmt.Fprintf(stderr, "kvcheck merge: %s: no sweep results; expected the output of kvcheck sweep --shard i/n\n", name)
			return exitUsage
		}
		for _, p := range parts {
			key := p.Header.Scenario + "\x00" + p.Header.ConfigFile + "\x00" + fmt.Sprint(p.Header.Fixes)
			g, ok := groups[key]
			if !ok {
				g = &group{}
				groups[key] = g
				order = append(order, key)
			}
			g.parts = append(g.parts, p)
		}
	}
	var results []sweepResult
	for _, key := range order {
		parts := groups[key].parts
		if engine := sweep.EngineHash()[:24]; parts[0].Header.Engine != engine {
			fmt.Fprintf(stderr, "kvcheck merge: warning: %s's shards were checked by a kvcheck whose spec or engine differs from this one's (%s, not %s); the seed verdicts and closing fixes are this build's\n",
				parts[0].Header.Scenario, parts[0].Header.Engine, engine)
		}
		rep, err := foldAndAnnotate(parts, nil)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck merge: %v\n", err)
			return exitUsage
		}
		sc, file, err := sweepSource(parts[0].Header)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck merge: %v\n", err)
			return exitUsage
		}
		fixes, _ := spec.ParseFixes(rep.Fixes)
		results = append(results, sweepResult{rep, sweep.Variant{Scenario: sc, Fixes: fixes}, parts[0].Header, pressureGoalsMissing(rep, file)})
	}
	// The same order as one run: the scenario's variants in check's order.
	slices.SortStableFunc(results, func(a, b sweepResult) int { return variantRank(a) - variantRank(b) })
	rewriteLine := rewriteCommand(append([]string{"merge"}, args...))
	if out != "" {
		var prefixes []string
		for _, r := range results {
			prefixes = append(prefixes, outPrefix(r.header.Scenario, fixesLabel(r.variant.Fixes), "sweep."))
		}
		if err := preflightOut(out, rewrite, prefixes, rewriteLine); err != nil {
			fmt.Fprintf(stderr, "kvcheck merge: %v\n", err)
			return exitUsage
		}
	}
	return reportSweep(results, asJSON, out, rewrite, rewriteLine, "kvcheck merge", &tri, stdout, stderr)
}

// variantRank orders merged variants as selectVariants does: scenarios in
// built-in order, then the real code and the scenario's fix sets in order.
func variantRank(r sweepResult) int {
	for i, sc := range scenario.All() {
		if sc != r.variant.Scenario {
			continue
		}
		for j, f := range sc.Variants() {
			if f == r.variant.Fixes {
				return i*64 + j
			}
		}
		return i*64 + 63
	}
	return 1 << 20
}
