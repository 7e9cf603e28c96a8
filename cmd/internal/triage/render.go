package triage

import (
	"fmt"
	"strings"
)

// Lines renders the report as the text reports print it, one line per
// label: the label and story, the scales, what it needs, what it is
// indifferent to, what it is the same as, the capacity edge.
func (r *Report) Lines() []string {
	lines := []string{
		"triage: " + r.Story,
		"scale: " + rowsWords(r.Scale),
		"needs: " + listOr(r.Needs, "nothing of the knobs tried"),
		"closed by: " + listOr(r.ClosedBy, "no fix tried"),
		"indifferent to: " + listOr(r.IndifferentTo, "none of the knobs tried"),
	}
	if len(r.Undetermined) > 0 {
		lines = append(lines, "undetermined: "+strings.Join(r.Undetermined, "; "))
	}
	lines = append(lines, "attribution: "+strings.Join(r.SameAs, "; "))
	edge := "no"
	if r.CapacityEdge {
		edge = "yes: " + r.CapacityNote
	}
	return append(lines, "capacity edge: "+edge)
}

// Cost is the triage's cost in words.
func (r *Report) Cost() string {
	return fmt.Sprintf("%d re-checks (%d from the cache), %d states, %.1fs", r.Checks, r.Cached, r.States, r.Seconds)
}

// Banner is the report as a transcript banner says it, in one paragraph
// (the title already names the violation): the label and what it needs in
// real terms, the scales in short, what it needs and how many knobs it is
// indifferent to, what it is the same as and its capacity edge. The fixes
// that close it are left to the banner's fix lines.
func (r *Report) Banner() string {
	parts := []string{r.Label}
	if r.Condition != "" {
		parts = append(parts, r.Condition)
	}
	text := fmt.Sprintf("Triage (kvcheck triage; docs/triage.md): %s. Scale: %s. Needs: %s; indifferent to %s.", strings.Join(parts, ", "), shortRows(r.Scale),
		listOr(r.Needs, "nothing of the knobs tried"), plural(len(r.IndifferentTo), "other knob"))
	text += " " + upper(strings.Join(r.SameAs, "; ")) + "."
	if r.CapacityEdge {
		text += " Capacity edge: " + r.CapacityNote + "."
	}
	return text
}

// shortRows lists the scale verdicts tersely: "×2 same, ×4 gone, +1 page
// same".
func shortRows(rows []Row) string {
	var out []string
	for _, row := range rows[1:] {
		change, _, _ := strings.Cut(row.Change, " (")
		if row.Knob == "max_draft_len" {
			change = "max_draft_len+1"
		}
		out = append(out, change+" "+row.Verdict)
	}
	return strings.Join(out, ", ")
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// rowsWords lists the scale re-checks: "tokens_per_block 4 same (17
// steps), ×2 (8) gone, ...; pools +1 page same, ...".
func rowsWords(rows []Row) string {
	var out []string
	for _, row := range rows {
		text := row.Knob + " " + row.Change + " " + row.Verdict
		if row.Verdict == Same {
			text += fmt.Sprintf(" (%d steps)", row.Steps)
		}
		if row.Note != "" {
			text += " (" + row.Note + ")"
		}
		out = append(out, text)
	}
	return strings.Join(out, ", ")
}

func listOr(items []string, none string) string {
	if len(items) == 0 {
		return none
	}
	return strings.Join(items, "; ")
}
