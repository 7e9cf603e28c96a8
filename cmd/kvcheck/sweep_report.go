package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/counterexamples"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// reportSweep prints the reports of a sweep or a merge (a table and each
// variant's finding, or one JSON object per variant), writes the smallest
// counterexamples as transcripts with --out, and returns the exit status:
// 1 when a variant breaks, else 3 when one is incomplete, else 0.
func reportSweep(results []sweepResult, asJSON bool, out string, rewrite bool, rewriteLine, who string, tri *triageHook, stdout, stderr io.Writer) int {
	status := exitOK
	incomplete := false
	for _, r := range results {
		if r.report.Result == sweep.ResultViolation || len(r.vacuous) > 0 {
			status = exitViolation
		}
		if r.report.Result == sweep.ResultIncomplete || r.report.Configurations < r.report.Needed || len(r.report.MissingShards) > 0 {
			incomplete = true
		}
	}
	if status == exitOK && incomplete {
		status = exitIncomplete
	}
	triaged := tri.sweep(results, stderr)
	if triaged == nil {
		triaged = make([]*sweepTriage, len(results))
	}
	if asJSON {
		for i, r := range results {
			jsonLine(stdout, triaged[i].json(r.report))
			if len(r.vacuous) > 0 {
				fmt.Fprintf(stderr, "%s: %s (%s): vacuous: no configuration reached the pressure goal(s) %s\n", who, r.report.Scenario, sweep.FixesLabel(r.report.Fixes), strings.Join(r.vacuous, ", "))
			}
		}
	} else {
		printSweepTable(stdout, results)
		for i, r := range results {
			printSweepDetails(stdout, r.report, triaged[i].lines(r.report))
			if len(r.vacuous) > 0 {
				fmt.Fprintf(stdout, "  vacuous: no configuration reached the pressure goal(s) %s, so this ok says nothing about what the code does there (exit 1); send more requests or longer ones (kvcheck.requests)\n", strings.Join(r.vacuous, ", "))
			}
		}
	}
	if out != "" {
		if code := writeSweepTranscripts(out, rewrite, results, triaged, rewriteLine, who, asJSON, stdout, stderr); code != exitOK {
			return code
		}
	}
	return status
}

// printSweepTable prints one row per variant.
func printSweepTable(w io.Writer, results []sweepResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tFIXES\tRESULT\tCHECKED\tCOMPLETE\tSMALLEST\tSEED")
	for _, res := range results {
		r := res.report
		smallest := "-"
		if s := r.Smallest; s != nil {
			smallest = fmt.Sprintf("#%d: %dr %dp %drk, %s in %d", s.Index, s.Requests, s.Pages, s.Ranks, s.Invariant, s.Steps)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", r.Scenario, fixesTitle(r.Fixes), r.Result, r.Configurations, r.Needed,
			yesNo(r.Complete), smallest, r.Seed)
	}
	tw.Flush()
}

func fixesTitle(fixes []string) string {
	if len(fixes) == 0 {
		return "(real code)"
	}
	return strings.Join(fixes, "+")
}

// printSweepDetails prints a variant's finding and, for a violation, the
// smallest configuration, its trace and the command that re-runs the sweep.
func printSweepDetails(w io.Writer, r sweep.Report, triageLines []string) {
	fmt.Fprintf(w, "\n%s (%s): %s\n", r.Scenario, sweep.FixesLabel(r.Fixes), r.Finding)
	if r.Configurations < r.Needed {
		fmt.Fprintf(w, "  incomplete: %d of %d checked", r.Configurations, r.Needed)
		if len(r.MissingShards) > 0 {
			fmt.Fprintf(w, " (missing shards %s)", strings.Join(r.MissingShards, ", "))
		} else {
			fmt.Fprint(w, " (the --time budget ran out or the sweep was interrupted; a rerun continues from the cache)")
		}
		fmt.Fprintln(w)
	}
	if r.Exhaustive < r.Configurations {
		fmt.Fprintf(w, "  %d of %d searches were cut by --depth or --max-states\n", r.Configurations-r.Exhaustive, r.Configurations)
	}
	var unreached []string
	for _, g := range goalNames(r.Scenario) {
		if r.Goals[g] == 0 {
			unreached = append(unreached, g)
		}
	}
	if len(unreached) > 0 && r.Result != sweep.ResultViolation && r.Configurations > 0 {
		fmt.Fprintf(w, "  no configuration reaches goal %s: the ranges may miss the scenario's point\n", strings.Join(unreached, ", "))
	}
	if s := r.Smallest; s != nil {
		fmt.Fprintf(w, "  %s\n  smallest configuration:\n", s.Message)
		for _, line := range strings.Split(strings.TrimSpace(counterexamples.ConfigText(mustConfig(s.Config))), "\n") {
			fmt.Fprintf(w, "    %s\n", line)
		}
		fmt.Fprintf(w, "  shortest trace (%d steps):\n", s.Steps)
		for j, line := range s.Trace {
			fmt.Fprintf(w, "  %4d  %s\n", j+1, line)
		}
		printCycle(w, violationReport{Steps: s.Steps, Cycle: s.Cycle})
	}
	for _, line := range triageLines {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if r.Profile != nil {
		fmt.Fprintf(w, "  profile: %s\n", r.Profile.Words())
	}
	fmt.Fprintf(w, "  reproduce: %s\n", r.Reproduce)
}

// goalNames are the goals of the scenario named name.
func goalNames(name string) []string {
	sc, err := scenario.Lookup(name)
	if err != nil {
		return nil
	}
	var out []string
	for _, g := range sc.Goals {
		out = append(out, g.Name)
	}
	return out
}

// mustConfig parses a configuration text a sweep wrote.
func mustConfig(text string) *spec.Config {
	cfg, err := configtext.Parse(spec.Config{}, text)
	if err != nil {
		return &spec.Config{}
	}
	return &cfg
}

// writeSweepTranscripts writes each variant's smallest counterexample as a
// transcript named <scenario>.<fixes>.sweep.<invariant>.txt.
func writeSweepTranscripts(dir string, rewrite bool, results []sweepResult, triaged []*sweepTriage, rewriteLine, who string, asJSON bool, stdout, stderr io.Writer) int {
	var files []namedFile
	for i, res := range results {
		s := res.report.Smallest
		if s == nil {
			continue
		}
		cfg, err := configtext.Parse(spec.Config{}, s.Config)
		if err != nil {
			fmt.Fprintf(stderr, "%s: --out: configuration #%d: %v\nreproduce: %s\n", who, s.Index, err, res.report.Reproduce)
			return exitUsage
		}
		sp, err := spec.New(cfg, res.variant.Fixes)
		if err != nil {
			fmt.Fprintf(stderr, "%s: --out: %v\nreproduce: %s\n", who, err, res.report.Reproduce)
			return exitUsage
		}
		sp.Scenario = res.variant.Scenario.Info()
		var trace, cycle []spec.Action
		for i, line := range append(append([]string(nil), s.Trace...), s.Cycle...) {
			a, err := sp.ParseAction(line)
			if err != nil {
				fmt.Fprintf(stderr, "%s: --out: trace line %q: %v\nreproduce: %s\n", who, line, err, res.report.Reproduce)
				return exitUsage
			}
			if i < len(s.Trace) {
				trace = append(trace, a)
			} else {
				cycle = append(cycle, a)
			}
		}
		name := strings.TrimSuffix(counterexamples.FileName(res.report.Scenario, res.variant.Fixes, ""), "ok.txt") + "sweep." + s.Invariant + ".txt"
		data, err := counterexamples.Write(counterexamples.Counterexample{
			Spec: sp, Trace: trace, Cycle: cycle, Invariant: s.Invariant, Message: s.Message, FoundBy: res.report.Reproduce,
			Search: fmt.Sprintf("a sweep of %d configurations; the smallest breaking one (#%d: %s), breadth-first: a shortest trace",
				res.report.Configurations, s.Index, s.Size()),
			Triage: triaged[i].smallestBanner(),
		})
		if err != nil {
			fmt.Fprintf(stderr, "%s: --out: %s: %v\nreproduce: %s\n", who, name, err, res.report.Reproduce)
			return exitUsage
		}
		files = append(files, namedFile{name: name, data: data, summary: fmt.Sprintf("%s after %d steps", s.Invariant, s.Steps)})
	}
	w := stdout
	if asJSON {
		w = stderr
	}
	_, code := writeNewFiles(dir, rewrite, files, who, rewriteLine, w, stderr)
	return code
}
