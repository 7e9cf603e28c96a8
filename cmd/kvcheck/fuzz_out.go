package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kvcheck/kvcheck/counterexamples"
	"github.com/kvcheck/kvcheck/spec"
)

// writeFuzzTranscripts is the --out DIR part of `kvcheck fuzz`: each
// shrunk counterexample becomes a transcript named like check's
// (<scenario>.<fixes>.<invariant>.txt), and the same violation on the
// reduced configuration a second one (….reduced.txt). Like check --out it
// writes nothing when a file exists and --rewrite is not given.
func writeFuzzTranscripts(opts fuzzOptions, failed []fuzzReport, stdout, stderr io.Writer) int {
	type file struct {
		name string
		data []byte
	}
	var files []file
	for _, r := range failed {
		if r.Invariant == unreachedGoal {
			continue
		}
		sc, err := spec.LookupScenario(r.Scenario)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck fuzz: --out: %v\n", err)
			return exitUsage
		}
		fixes, err := spec.ParseFixes(r.Fixes)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck fuzz: --out: %v\n", err)
			return exitUsage
		}
		sp, err := sc.Spec(fixes)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck fuzz: --out: %v\n", err)
			return exitUsage
		}
		name := counterexamples.FileName(r.Scenario, fixes, r.Invariant)
		search := fmt.Sprintf("seeded random walks (seed %d, %d walks), shrunk from %d to %d steps", r.Seed, r.Walks, r.StepsBeforeShrink, r.Steps)
		data, err := fuzzTranscript(sp, r.Trace, r, search)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck fuzz: --out: %s: %v\nreproduce: %s\n", name, err, r.Reproduce)
			return exitUsage
		}
		files = append(files, file{name, data})
		if r.reduced != nil {
			r.reduced.Scenario = sc
			reducedName := strings.TrimSuffix(name, ".txt") + ".reduced.txt"
			data, err := fuzzTranscript(r.reduced, r.ReducedTrace, r, search+", then on a reduced configuration")
			if err != nil {
				fmt.Fprintf(stderr, "kvcheck fuzz: --out: %s: %v\nreproduce: %s\n", reducedName, err, r.Reproduce)
				return exitUsage
			}
			files = append(files, file{reducedName, data})
		}
	}
	var existing []string
	for _, f := range files {
		path := filepath.Join(opts.out, f.name)
		if _, err := os.Stat(path); err == nil {
			existing = append(existing, path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "kvcheck fuzz: --out: %v\n", err)
			return exitUsage
		}
	}
	if len(existing) > 0 && !opts.rewrite {
		command := commandName() + " fuzz"
		if len(failed) > 0 {
			command = failed[0].Reproduce
		}
		fmt.Fprintf(stderr, "kvcheck fuzz: --out: %d transcript(s) already exist (%s); nothing was written. Pass --rewrite to replace them\nreproduce: %s --out %s --rewrite\n",
			len(existing), strings.Join(existing, ", "), command, opts.out)
		return exitUsage
	}
	if err := os.MkdirAll(opts.out, 0o755); err != nil {
		fmt.Fprintf(stderr, "kvcheck fuzz: --out: %v\n", err)
		return exitUsage
	}
	w := stdout
	if opts.json {
		w = stderr
	}
	for _, f := range files {
		path := filepath.Join(opts.out, f.name)
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			fmt.Fprintf(stderr, "kvcheck fuzz: --out: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(w, "wrote %s\n", path)
	}
	return exitOK
}

// fuzzTranscript renders one fuzz counterexample under sp.
func fuzzTranscript(sp *spec.Spec, lines []string, r fuzzReport, search string) ([]byte, error) {
	var trace []spec.Action
	for _, line := range lines {
		a, err := sp.ParseAction(line)
		if err != nil {
			return nil, fmt.Errorf("trace line %q: %v", line, err)
		}
		trace = append(trace, a)
	}
	return counterexamples.Write(counterexamples.Counterexample{
		Spec: sp, Trace: trace, Invariant: r.Invariant, Message: r.Message,
		FoundBy: r.Reproduce, Search: search,
	})
}
