package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/kvcheck/kvcheck/cmd/internal/triage"
)

// regenerateTriageDocs is the one command that regenerates the
// transcripts and every triage block of the README and docs/ (the
// Makefile's triage-docs target).
const regenerateTriageDocs = "make triage-docs"

// runTriageDocs rewrites (or, with check, compares) the triage blocks of
// the given Markdown files (triage.UpdateDocs), from the repository's root.
func runTriageDocs(docs []string, check bool, hook *triageHook, stdout, stderr io.Writer) int {
	hook.open()
	defer hook.close()
	stale, err := triage.UpdateDocs(".", docs, !check, func(path string) (*triage.Report, string, error) { return triage.FileWithHeading(path, hook.options()) })
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck triage: %v\nreproduce: %s\n", err, regenerateTriageDocs)
		return exitUsage
	}
	switch {
	case check && len(stale) > 0:
		fmt.Fprintf(stdout, "kvcheck triage: %d triage block(s) differ from what the tool gives: %s\nreproduce: %s\n", len(stale), strings.Join(stale, ", "), regenerateTriageDocs)
		return exitViolation
	case check:
		fmt.Fprintln(stdout, "kvcheck triage: every triage block is what the tool gives")
	case len(stale) > 0:
		fmt.Fprintf(stdout, "kvcheck triage: rewrote %d triage block(s): %s\n", len(stale), strings.Join(stale, ", "))
	default:
		fmt.Fprintln(stdout, "kvcheck triage: every triage block was already what the tool gives")
	}
	return exitOK
}
