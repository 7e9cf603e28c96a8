package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kvcheck/kvcheck/counterexamples"
	"github.com/kvcheck/kvcheck/spec"
)

// writeTranscripts is the --out DIR part of `kvcheck check`: it writes each
// counterexample of the checked variants as a transcript in dir (named
// after the scenario, the fixes and the invariant), plus, for each fix
// that closes a real-code counterexample of the same run, a transcript
// replaying that counterexample under the fix, and prints every path. It
// writes nothing when a file exists and rewrite is false. It returns an
// exit status (exitOK when it wrote, or had nothing to write).
func writeTranscripts(dir string, rewrite bool, variants []variant, reports []checkReport, opts checkOptions, stdout, stderr io.Writer) int {
	files, err := counterexamples.Transcripts(foundFromReports(variants, reports))
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck check: --out: %v\n", err)
		return exitUsage
	}
	named := make([]namedFile, len(files))
	for i, f := range files {
		named[i] = namedFile{name: f.Name, data: f.Data, summary: f.Summary}
	}
	w := stdout
	if opts.json {
		w = stderr
	}
	listed := w
	if opts.quiet {
		listed = io.Discard
	}
	written, code := writeNewFiles(dir, rewrite, named, "kvcheck check", opts.rewriteLine, listed, stderr)
	if code != exitOK {
		return code
	}
	if opts.quiet && len(written) > 0 {
		fmt.Fprintf(w, "kvcheck check: wrote %d transcript(s) in %s\n", len(written), dir)
	}
	if rewrite {
		reportStale(w, dir, variants, written)
	}
	return exitOK
}

// reportStale names transcripts in dir of the checked scenarios that this
// run did not write: a renamed invariant or a fix that now closes a
// violation leaves the old file behind, and only the user may delete it.
func reportStale(w io.Writer, dir string, variants []variant, written map[string]bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var stale []string
	for _, e := range entries {
		name := e.Name()
		if written[name] || !strings.HasSuffix(name, ".txt") {
			continue
		}
		for _, v := range variants {
			prefix := v.scenario.Name + "." + fixesLabel(v.fixes) + "."
			if strings.HasPrefix(name, prefix) {
				stale = append(stale, filepath.Join(dir, name))
				break
			}
		}
	}
	sort.Strings(stale)
	for _, path := range stale {
		fmt.Fprintf(w, "not rewritten: %s (this run found nothing under its name; delete it if it is stale)\n", path)
	}
}

// fixesLabel is the fixes part of a transcript name.
func fixesLabel(fixes spec.Fixes) string {
	if names := fixes.Names(); len(names) > 0 {
		return strings.Join(names, "+")
	}
	return "real-code"
}

// foundFromReports turns the check reports back into check results.
func foundFromReports(variants []variant, reports []checkReport) []counterexamples.Found {
	var found []counterexamples.Found
	for i, r := range reports {
		v := variants[i]
		f := counterexamples.Found{Scenario: v.scenario, Fixes: v.fixes, States: r.States, Depth: r.Depth,
			Complete: r.Complete, Command: r.Reproduce}
		for name, reached := range r.Goals {
			if !reached {
				f.MissedGoals = append(f.MissedGoals, name)
			}
		}
		sort.Strings(f.MissedGoals)
		violations := r.Violations
		if len(violations) == 0 && r.Result == "violation" && r.Invariant != unreachedGoal {
			violations = []violationReport{{Invariant: r.Invariant, Message: r.Message, actions: r.actions, cycle: r.cycle, Triage: r.Triage}}
		}
		for _, viol := range violations {
			f.Violations = append(f.Violations, counterexamples.FoundViolation{Invariant: viol.Invariant, Message: viol.Message, Trace: viol.actions, Cycle: viol.cycle,
				Triage: bannerTriage(viol.Triage)})
		}
		found = append(found, f)
	}
	return found
}

// outPrefixes are the beginnings of the names of every transcript check
// or fuzz --out may write for variants.
func outPrefixes(variants []variant) []string {
	var out []string
	for _, v := range variants {
		out = append(out, outPrefix(v.scenario.Name, fixesLabel(v.fixes), ""))
	}
	return out
}
