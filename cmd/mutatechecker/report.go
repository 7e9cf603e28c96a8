package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Result is what the checker's answers did on one mutant: which of them
// differ from the baseline, and the first line that differs in each.
type Result struct {
	Check, Sweep, Lin bool
	// SweepRun is false when the sweeps were skipped (-stop-at-first).
	SweepRun bool
	// GoTest is set (with -gotest) when go test ./spec fails on the mutant.
	GoTest, GoTestRun bool
	Where             string
	Equivalent        string
	Err               error
	Took              time.Duration
}

// Killed reports whether any answer of the checker changed.
func (r *Result) Killed() bool { return r.Check || r.Sweep || r.Lin }

// Verdict is the result in one word.
func (r *Result) Verdict() string {
	switch {
	case r.Err != nil:
		return "error"
	case r.Equivalent != "" && r.Killed():
		return "killed(eq?)"
	case r.Equivalent != "":
		return "equivalent"
	case r.Killed():
		return "killed"
	}
	return "survived"
}

// judge compares a mutant's answers with the baseline.
func judge(m *Mutant, a, base *Answers, err error, opt Options) Result {
	r := Result{Equivalent: m.Equivalent, Err: err}
	if err != nil {
		return r
	}
	r.Check = differs(a.Check, base.Check)
	if r.Check {
		r.Where = "check: " + firstDifference(a.Check, base.Check)
	}
	for k, v := range a.Lin {
		if base.Lin[k] != v {
			r.Lin = true
			if r.Where == "" {
				r.Where = "lin: " + k + ": " + shorten(v, 120)
			}
		}
	}
	r.SweepRun = len(a.Sweep) > 0 || len(opt.SweepArgs) == 0
	if len(a.Sweep) > 0 {
		r.Sweep = differs(a.Sweep, base.Sweep)
		if r.Sweep && r.Where == "" {
			r.Where = "sweep: " + firstDifference(a.Sweep, base.Sweep)
		}
	}
	if opt.GoTest {
		r.GoTestRun = true
		r.GoTest = a.GoTest != base.GoTest
	}
	return r
}

// report prints the table, the score and the survivors by mechanism.
func report(w io.Writer, mutants []Mutant, results []Result, opt Options, took time.Duration) {
	mark := func(b, run bool) string {
		switch {
		case !run:
			return "not run"
		case b:
			return "killed"
		}
		return "-"
	}
	fmt.Fprintln(w, "| mutant | mechanism | check | sweep | lin | go test ./spec | verdict |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
	killed, counted, testKilled := 0, 0, 0
	var survivors, equivalent, errors []string
	for i, m := range mutants {
		r := &results[i]
		if r.Err != nil {
			fmt.Fprintf(w, "| `%s` | %s | | | | | error: %s |\n", m.ID, m.Mechanism, strings.ReplaceAll(shorten(r.Err.Error(), 200), "\n", " "))
			errors = append(errors, m.ID)
			continue
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s |\n", m.ID, m.Mechanism, mark(r.Check, true), mark(r.Sweep, r.SweepRun),
			mark(r.Lin, true), mark(r.GoTest, r.GoTestRun), r.Verdict())
		if r.Equivalent != "" {
			equivalent = append(equivalent, fmt.Sprintf("%s: %s", m.ID, r.Equivalent))
			continue
		}
		counted++
		if r.Killed() {
			killed++
		} else {
			survivors = append(survivors, fmt.Sprintf("%s (%s)", m.ID, m.Mechanism))
		}
		if r.GoTest {
			testKilled++
		}
	}
	fmt.Fprintln(w)
	if counted > 0 {
		fmt.Fprintf(w, "score: %d of %d non-equivalent mutants killed (%.0f%%)", killed, counted, 100*float64(killed)/float64(counted))
		if opt.GoTest {
			fmt.Fprintf(w, "; go test ./spec kills %d of %d", testKilled, counted)
		}
		fmt.Fprintf(w, "; %d equivalent; run time %s\n", len(equivalent), took.Round(time.Second))
	}
	sort.Strings(survivors)
	for _, s := range survivors {
		fmt.Fprintf(w, "survived: %s\n", s)
	}
	for _, s := range equivalent {
		fmt.Fprintf(w, "equivalent: %s\n", s)
	}
	for i, r := range results {
		if r.Killed() && r.Where != "" {
			fmt.Fprintf(w, "killed %s first at %s\n", mutants[i].ID, r.Where)
		}
	}
	for _, e := range errors {
		fmt.Fprintf(w, "error: %s\n", e)
	}
}
