package triage

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The markers of a triage block in a Markdown file. The lines between
// them hold the labels kvcheck triage gives the transcript the start
// marker names (a path from the repository's root), so every finding the
// README and docs/ describe carries labels the tool produced; UpdateDocs
// (kvcheck triage --docs, make triage-docs) regenerates them and a test
// keeps them in step.
// A start marker ending in "short" asks for the one-line form
// (ShortMarkdown), which the README uses.
var docStart = regexp.MustCompile(`^<!-- kvcheck triage (\S+)( short)? -->$`)

// DocEnd ends a triage block.
const DocEnd = "<!-- /kvcheck triage -->"

// Markdown is a report as a block of the Markdown file doc (a path from
// the repository's root, for the link to docs/triage.md): a quote of the
// transcript's heading (what it shows, Heading), then one paragraph with
// each label, without the cost (which varies).
func (r *Report) Markdown(transcript, doc, heading string) string {
	link, _ := filepath.Rel(filepath.Dir(doc), "docs/triage.md")
	parts := []string{"**" + r.Label + "**"}
	if r.Condition != "" {
		parts = append(parts, r.Condition)
	}
	edge := "no"
	if r.CapacityEdge {
		edge = "yes, " + r.CapacityNote
	}
	return fmt.Sprintf("> %s\n>\n> Triage of `%s` (`kvcheck triage`, [labels](%s)): %s. **Scale**: %s. **Needs**: %s. **Closed by**: %s. **Indifferent to**: %s. **Attribution**: %s. **Capacity edge**: %s.",
		mdEscape(heading), transcript, filepath.ToSlash(link), strings.Join(parts, ", "), shortRows(r.Scale), listOr(r.Needs, "nothing of the knobs tried"),
		listOr(r.ClosedBy, "no fix tried"), listOr(r.IndifferentTo, "none of the knobs tried"), strings.Join(r.SameAs, "; "), edge)
}

// ShortMarkdown is the one-line form of Markdown: the label and what it
// needs in real terms, the attribution, the capacity edge, and where the
// rest is (`kvcheck triage FILE`).
func (r *Report) ShortMarkdown(transcript, doc, heading string) string {
	link, _ := filepath.Rel(filepath.Dir(doc), "docs/triage.md")
	parts := []string{"**" + r.Label + "**"}
	if r.Condition != "" {
		parts = append(parts, r.Condition)
	}
	parts = append(parts, r.SameAs...)
	if r.CapacityEdge {
		parts = append(parts, "capacity edge: "+r.CapacityNote)
	}
	return fmt.Sprintf("> %s. Triage ([labels](%s); `kvcheck triage %s` gives the rest): %s.", mdEscape(heading), filepath.ToSlash(link), transcript, strings.Join(parts, "; "))
}

// mdEscape keeps a transcript's title from being read as Markdown: the
// underscores of function names, and the angle brackets and pipes.
func mdEscape(s string) string {
	return strings.NewReplacer("_", "\\_", "*", "\\*", "<", "&lt;", "|", "\\|").Replace(s)
}

// UpdateDocs computes every triage block of the Markdown files docs
// (paths, and the transcript paths their markers name, relative to root)
// with triage, and returns the blocks that differ from what the files hold
// ("FILE:LINE"); write rewrites the files that hold one. Errors name the
// file and line.
func UpdateDocs(root string, docs []string, write bool, triage func(path string) (*Report, string, error)) ([]string, error) {
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
			m := docStart.FindStringSubmatch(strings.TrimSpace(lines[i]))
			if m == nil {
				continue
			}
			end := i + 1
			for end < len(lines) && strings.TrimSpace(lines[end]) != DocEnd && !docStart.MatchString(strings.TrimSpace(lines[end])) {
				end++
			}
			if end == len(lines) || strings.TrimSpace(lines[end]) != DocEnd {
				return nil, fmt.Errorf("%s:%d: a triage block without its end marker %s", doc, i+1, DocEnd)
			}
			rep, heading, err := triage(filepath.Join(root, m[1]))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", doc, i+1, err)
			}
			block := rep.Markdown(m[1], doc, heading)
			if m[2] != "" {
				block = rep.ShortMarkdown(m[1], doc, heading)
			}
			if strings.Join(lines[i+1:end], "\n") != block {
				stale = append(stale, fmt.Sprintf("%s:%d", doc, i+1))
				changed = true
			}
			out = append(out, strings.Split(block, "\n")...)
			out = append(out, lines[end])
			i = end
		}
		if changed && write {
			if err := os.WriteFile(filepath.Join(root, doc), []byte(strings.Join(out, "\n")), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return stale, nil
}

// DocTranscripts lists the transcripts the triage blocks of docs name.
func DocTranscripts(root string, docs []string) ([]string, error) {
	var out []string
	for _, doc := range docs {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if m := docStart.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out, nil
}
