package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	written, code := writeNewFiles(dir, rewrite, named, "kvcheck check", outCommand(opts, dir, true), w, stderr)
	if code != exitOK {
		return code
	}
	if rewrite {
		reportStale(w, dir, variants, written)
	}
	return exitOK
}

// namedFile is a transcript to write: its file name, its bytes and an
// optional summary printed after its path.
type namedFile struct {
	name, summary string
	data          []byte
}

// writeNewFiles writes files into dir and prints each path on w. When a
// file exists and rewrite is false it writes nothing, says so on stderr
// (ending with the command that would rewrite them) and returns exitUsage:
// nothing a user wrote is overwritten without being asked.
func writeNewFiles(dir string, rewrite bool, files []namedFile, who, rewriteCommand string, w, stderr io.Writer) (map[string]bool, int) {
	var existing []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if _, err := os.Stat(path); err == nil {
			existing = append(existing, path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "%s: --out: %v\n", who, err)
			return nil, exitUsage
		}
	}
	if len(existing) > 0 && !rewrite {
		shown := existing
		if len(shown) > 3 {
			shown = append(shown[:3:3], "...")
		}
		fmt.Fprintf(stderr, "%s: --out: %d transcript(s) already exist (%s); nothing was written. Pass --rewrite to replace them, then review the diff\nreproduce: %s\n",
			who, len(existing), strings.Join(shown, ", "), rewriteCommand)
		return nil, exitUsage
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "%s: --out: %v\n", who, err)
		return nil, exitUsage
	}
	written := map[string]bool{}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := writeFileAtomic(path, f.data, 0o644); err != nil {
			fmt.Fprintf(stderr, "%s: --out: %v\nreproduce: %s\n", who, err, rewriteCommand)
			return nil, exitUsage
		}
		written[f.name] = true
		if f.summary != "" {
			fmt.Fprintf(w, "wrote %s (%s)\n", path, f.summary)
		} else {
			fmt.Fprintf(w, "wrote %s\n", path)
		}
	}
	return written, exitOK
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
		if len(violations) == 0 && r.Result != "ok" && r.Invariant != unreachedGoal {
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

// outCommand is the check command with --out (and --rewrite).
func outCommand(opts checkOptions, dir string, rewrite bool) string {
	parts := []string{commandName(), "check"}
	for _, s := range opts.scenarios {
		parts = append(parts, "--scenario", s)
	}
	for _, f := range opts.fixes {
		parts = append(parts, "--fix", f)
	}
	if opts.depth != 0 {
		parts = append(parts, "--depth", fmt.Sprint(opts.depth))
	}
	if opts.keepGoing {
		parts = append(parts, "--keep-going")
	}
	parts = append(parts, "--out", dir)
	if rewrite {
		parts = append(parts, "--rewrite")
	}
	return strings.Join(parts, " ")
}
