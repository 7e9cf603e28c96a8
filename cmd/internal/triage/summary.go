package triage

import (
	"fmt"
	"sort"
	"strings"
)

// MaxSweepFindings is how many of a sweep variant's distinct findings
// (smallest first) are triaged; the others are counted as not triaged.
const MaxSweepFindings = 8

// Summary is what the triage of a sweep variant's findings says: how many
// are robust, fragile, undetermined, known and new, the order they matter
// in, and the verdict that follows for the fix.
type Summary struct {
	Findings     int `json:"findings"`
	Triaged      int `json:"triaged"`
	Robust       int `json:"robust"`
	Fragile      int `json:"fragile"`
	Undetermined int `json:"undetermined"`
	Known        int `json:"known"`
	New          int `json:"new"`
	// RobustNew counts the findings that are robust and match no known
	// violation: only these say the variant fails.
	RobustNew int `json:"robust_new"`
	// Order lists the triaged findings' indices, the smallest robust new
	// one first: robust new, robust known, undetermined, then fragile, each
	// in the sweep's order (smallest first).
	Order []int `json:"order"`
	// Verdict says in one sentence what the findings mean for the variant.
	Verdict string `json:"verdict"`
}

// rank orders a finding by what it says about the variant.
func rank(r *Report) int {
	switch {
	case r.Label == Robust && !r.Known:
		return 0
	case r.Label == Robust:
		return 1
	case r.Label == Undetermined:
		return 2
	}
	return 3
}

// Summarize counts the labels of a sweep variant's findings (reps[i] is
// the triage of the finding named names[i], nil when it was not triaged)
// and says what they mean: a variant fails only on a robust new finding;
// one that breaks only on fragile or known findings is said to, and is not
// called a failure.
func Summarize(fixes []string, names []string, reps []*Report) Summary {
	s := Summary{Findings: len(names), Order: []int{}}
	for i, r := range reps {
		if r == nil {
			continue
		}
		s.Triaged++
		s.Order = append(s.Order, i)
		switch r.Label {
		case Robust:
			s.Robust++
		case Fragile:
			s.Fragile++
		default:
			s.Undetermined++
		}
		if r.Known {
			s.Known++
		} else {
			s.New++
			if r.Label == Robust {
				s.RobustNew++
			}
		}
	}
	sort.SliceStable(s.Order, func(a, b int) bool { return rank(reps[s.Order[a]]) < rank(reps[s.Order[b]]) })
	if s.Triaged == 0 {
		return s
	}
	who := "the fix"
	if len(fixes) == 0 {
		who = "the real code"
	} else if len(fixes) > 1 {
		who = "the fixes"
	}
	first := s.Order[0]
	var listed []string
	for _, i := range s.Order {
		listed = append(listed, fmt.Sprintf("%s: %s", names[i], reps[i].Label+known(reps[i])))
	}
	switch {
	case s.RobustNew > 0 && len(fixes) > 0:
		s.Verdict = fmt.Sprintf("%s fails: %s is a robust new finding (%s)", who, names[first], reps[first].Story)
	case s.RobustNew > 0:
		s.Verdict = fmt.Sprintf("%s breaks: %s is a robust new finding (%s)", who, names[first], reps[first].Story)
	case s.Undetermined > 0 && s.Fragile+s.Known < s.Triaged:
		s.Verdict = fmt.Sprintf("%s breaks on findings the triage could not settle (a scale re-check was cut): %s", who, strings.Join(listed, "; "))
	default:
		s.Verdict = fmt.Sprintf("%s breaks only on fragile or known findings, not a robust new failure: %s", who, strings.Join(listed, "; "))
	}
	if s.Triaged < s.Findings {
		s.Verdict += fmt.Sprintf(" (%d more findings not triaged)", s.Findings-s.Triaged)
	}
	return s
}

func known(r *Report) string {
	if r.Known && len(r.SameAs) > 0 {
		return ", " + r.SameAs[0]
	}
	return ", new"
}

// Words is the summary's counts in one line.
func (s Summary) Words() string {
	text := fmt.Sprintf("%s: %d robust (%d of them new), %d fragile, %d undetermined; %d known, %d new",
		plural(s.Findings, "finding"), s.Robust, s.RobustNew, s.Fragile, s.Undetermined, s.Known, s.New)
	if s.Triaged < s.Findings {
		text += fmt.Sprintf("; %d triaged", s.Triaged)
	}
	return text
}
