package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/kvcheck/kvcheck/cmd/internal/triage"
	"github.com/kvcheck/kvcheck/counterexamples"
	"github.com/kvcheck/kvcheck/spec"
)

// writeFuzzTranscripts is the --out DIR part of `kvcheck fuzz`: each
// shrunk counterexample becomes a transcript named like check's
// (<scenario>.<fixes>.<invariant>.txt), and the same violation on the
// reduced configuration a second one (….reduced.txt). Like check --out it
// writes nothing when a file exists and --rewrite is not given.
func writeFuzzTranscripts(opts fuzzOptions, failed []fuzzReport, stdout, stderr io.Writer) int {
	var files []namedFile
	for _, r := range failed {
		if r.Invariant == unreachedGoal {
			continue
		}
		sc, fixes := r.variant.scenario, r.variant.fixes
		sp, err := sc.Spec(fixes)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck fuzz: --out: %v\n", err)
			return exitUsage
		}
		name := counterexamples.FileName(r.Scenario, fixes, r.Invariant)
		search := fmt.Sprintf("seeded random walks (seed %d, %d walks), shrunk from %d to %d steps", r.Seed, r.Walks, r.StepsBeforeShrink, r.Steps)
		triaged := r.Triage
		if r.reduced != nil {
			triaged = nil // the triage is of the reduced configuration's
		}
		data, err := fuzzTranscript(sp, r.actions, r, search, triaged)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck fuzz: --out: %s: %v\nreproduce: %s\n", name, err, r.Reproduce)
			return exitUsage
		}
		files = append(files, namedFile{name: name, data: data})
		if r.reduced != nil {
			r.reduced.Scenario = sc.Info()
			reducedName := strings.TrimSuffix(name, ".txt") + ".reduced.txt"
			data, err := fuzzTranscript(r.reduced, r.reducedActions, r, search+", then on a reduced configuration", r.Triage)
			if err != nil {
				fmt.Fprintf(stderr, "kvcheck fuzz: --out: %s: %v\nreproduce: %s\n", reducedName, err, r.Reproduce)
				return exitUsage
			}
			files = append(files, namedFile{name: reducedName, data: data})
		}
	}
	w := stdout
	if opts.json {
		w = stderr
	}
	listed := w
	if opts.quiet {
		listed = io.Discard
	}
	written, code := writeNewFiles(opts.out, opts.rewrite, files, "kvcheck fuzz", opts.rewriteLine, listed, stderr)
	if opts.quiet && len(written) > 0 {
		fmt.Fprintf(w, "kvcheck fuzz: wrote %d transcript(s) in %s\n", len(written), opts.out)
	}
	return code
}

// fuzzTranscript renders one fuzz counterexample under sp.
func fuzzTranscript(sp *spec.Spec, trace []spec.Action, r fuzzReport, search string, triaged *triage.Report) ([]byte, error) {
	return counterexamples.Write(counterexamples.Counterexample{
		Spec: sp, Trace: trace, Invariant: r.Invariant, Message: r.Message,
		FoundBy: r.Reproduce, Search: search, Triage: bannerTriage(triaged),
	})
}
