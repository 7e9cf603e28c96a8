package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The markers of a triage block in a Markdown file: the block between
// them holds the labels `kvcheck triage` gives the transcript the start
// marker names (a path from the repository's root), so every finding the
// README and docs/ describe carries labels the tool produced, and
// `kvcheck triage --docs` (make triage-docs) regenerates them.
var triageStart = regexp.MustCompile(`^<!-- kvcheck triage (\S+) -->$`)

const triageEnd = "<!-- /kvcheck triage -->"

// regenerateTriageDocs is the one command that regenerates every triage
// block (the Makefile's triage-docs target runs it after regenerating the
// transcripts).
const regenerateTriageDocs = "make triage-docs"

// runTriageDocs rewrites (or, with check, compares) the triage blocks of
// the given Markdown files.
func runTriageDocs(docs []string, check bool, hook *triageHook, stdout, stderr io.Writer) int {
	hook.open()
	defer hook.close()
	stale, err := updateTriageDocs(".", docs, !check, hook)
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

// updateTriageDocs computes every triage block of the Markdown files docs
// (paths, and the transcript paths their markers name, relative to root)
// and returns the blocks that differ ("FILE:LINE"); write rewrites the
// files that hold one.
func updateTriageDocs(root string, docs []string, write bool, hook *triageHook) ([]string, error) {
	var stale []string
	for _, doc := range docs {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(data), "\n")
		var out []string
		changed := false
		for i := 0; i < len(lines); i++ {
			out = append(out, lines[i])
			m := triageStart.FindStringSubmatch(strings.TrimSpace(lines[i]))
			if m == nil {
				continue
			}
			end := i + 1
			for end < len(lines) && strings.TrimSpace(lines[end]) != triageEnd {
				if triageStart.MatchString(strings.TrimSpace(lines[end])) {
					break
				}
				end++
			}
			if end == len(lines) || strings.TrimSpace(lines[end]) != triageEnd {
				return nil, fmt.Errorf("%s:%d: a triage block without its end marker %s", doc, i+1, triageEnd)
			}
			rep, err := triageFile(filepath.Join(root, m[1]), hook)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", doc, i+1, err)
			}
			link, _ := filepath.Rel(filepath.Dir(doc), "docs/triage.md")
			block := strings.ReplaceAll(triageMarkdown(m[1], rep), "(docs/triage.md)", "("+filepath.ToSlash(link)+")")
			if strings.Join(lines[i+1:end], "\n") != block {
				stale = append(stale, fmt.Sprintf("%s:%d", doc, i+1))
				changed = true
			}
			out = append(out, strings.Split(block, "\n")...)
			out = append(out, lines[end])
			i = end
		}
		if changed && write {
			if err := writeFileAtomic(filepath.Join(root, doc), []byte(strings.Join(out, "\n")), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return stale, nil
}
