package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/cmd/internal/triage"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/spf13/pflag"
)

// triageHook is the triage every command that reports a violation runs on
// it (check, sweep, merge, fuzz): the --triage flags, the results cache the
// re-checks go through, and the reports.
type triageHook struct {
	on        bool
	maxStates int
	cacheDir  string
	noCache   bool
	cache     *sweep.Cache
	opened    bool
	shared    bool // the cache is another's (share)
}

// addFlags registers --triage and its budget; withCache also registers
// --cache and --no-cache (sweep has its own, which the hook shares).
func (t *triageHook) addFlags(flags *pflag.FlagSet, withCache bool) {
	flags.BoolVar(&t.on, "triage", true, "triage each violation: re-check it at larger pages and pools and with each knob changed, and match it against the known violations (docs/triage.md; --triage=false to skip)")
	flags.IntVar(&t.maxStates, "triage-max-states", triage.DefaultMaxStates, "states each triage re-check may explore")
	if withCache {
		flags.StringVar(&t.cacheDir, "cache", defaultCacheDir(), "results cache directory the triage re-checks go through (shared with kvcheck sweep)")
		flags.BoolVar(&t.noCache, "no-cache", false, "neither read nor write the results cache")
	}
}

// validate rejects a budget that is not positive.
func (t *triageHook) validate() error {
	if t.maxStates < 1 {
		return fmt.Errorf("--triage-max-states must be at least 1, got %d", t.maxStates)
	}
	return nil
}

// open opens the cache once; without one the re-checks run uncached.
func (t *triageHook) open() {
	if t.opened || !t.on {
		return
	}
	t.opened = true
	if t.noCache || t.cacheDir == "" {
		return
	}
	if c, err := sweep.OpenCache(t.cacheDir); err == nil {
		t.cache = c
	}
}

// close writes out what the re-checks stored.
func (t *triageHook) close() {
	if t.cache != nil && !t.shared {
		t.cache.Close()
		t.cache = nil
	}
}

// options are the triage's options.
func (t *triageHook) options() triage.Options {
	return triage.Options{MaxStates: t.maxStates, Workers: runtime.NumCPU(), Cache: t.cache}
}

// finding triages one violation; a triage that cannot run says why on
// stderr and gives nil (the violation itself is still reported).
func (t *triageHook) finding(f triage.Finding, stderr io.Writer) *triage.Report {
	if !t.on {
		return nil
	}
	t.open()
	rep, err := triage.Triage(f, t.options())
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck: triage of %s (%s): %v\n", f.Invariant, f.Message, err)
		return nil
	}
	return rep
}

// check triages the violations of one check report.
func (t *triageHook) check(v variant, r *checkReport, stderr io.Writer) {
	if !t.on || r.Result != "violation" || r.Invariant == unreachedGoal {
		return
	}
	if len(r.Violations) == 0 {
		r.Triage = t.finding(triage.Finding{Scenario: v.scenario, Config: v.scenario.Config, Fixes: v.fixes,
			Invariant: r.Invariant, Message: r.Message, Trace: r.actions, Cycle: r.cycle}, stderr)
		return
	}
	for i := range r.Violations {
		viol := &r.Violations[i]
		viol.Triage = t.finding(triage.Finding{Scenario: v.scenario, Config: v.scenario.Config, Fixes: v.fixes,
			Invariant: viol.Invariant, Message: viol.Message, Group: viol.Group, Trace: viol.actions, Cycle: viol.cycle}, stderr)
	}
	r.Triage = r.Violations[0].Triage
}

// printTriage prints a report's labels, one line each, indented.
func printTriage(w io.Writer, rep *triage.Report, indent string) {
	if rep == nil {
		return
	}
	for _, line := range rep.Lines() {
		fmt.Fprintf(w, "%s%s\n", indent, line)
	}
}

// bannerTriage is a report's banner paragraph, "" for none.
func bannerTriage(rep *triage.Report) string {
	if rep == nil {
		return ""
	}
	return rep.Banner()
}

// runTriage is `kvcheck triage FILE...`: triage the violation of each
// transcript and print its labels (or, with --json, one object per file).
func runTriage(args []string, stdout, stderr io.Writer) int {
	var hook triageHook
	flags := newFlagSet("triage", stderr)
	asJSON := flags.Bool("json", false, "print one JSON object per transcript: file and triage")
	markdown := flags.Bool("markdown", false, "print each transcript's labels as the Markdown block the README and docs/ hold")
	docs := flags.StringArray("docs", nil, "rewrite the triage blocks of this Markdown file (<!-- kvcheck triage FILE --> ... <!-- /kvcheck triage -->) with the labels of the transcripts they name (repeatable)")
	checkDocs := flags.Bool("check-docs", false, "with --docs, write nothing: exit 1 when a block differs from what the tool gives")
	hook.addFlags(flags, true)
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	hook.on = true
	if err := hook.validate(); err != nil {
		fmt.Fprintf(stderr, "kvcheck triage: %v\n", err)
		return exitUsage
	}
	if len(*docs) > 0 {
		if flags.NArg() > 0 {
			// --docs takes one file: `--docs a.md b.md` would rewrite a.md
			// and silently leave b.md as it was.
			fmt.Fprintf(stderr, "kvcheck triage: with --docs, name each Markdown file with its own --docs, and no transcript: got %s\nreproduce: %s triage %s\n",
				strings.Join(flags.Args(), " "), commandName(), strings.Join(args, " "))
			return exitUsage
		}
		return runTriageDocs(*docs, *checkDocs, &hook, stdout, stderr)
	}
	if flags.NArg() == 0 {
		fmt.Fprintf(stderr, "kvcheck triage: expected at least one transcript FILE (or --docs FILE.md)\n%s", usageLine("triage"))
		return exitUsage
	}
	hook.open()
	defer hook.close()
	status := exitOK
	for _, path := range flags.Args() {
		start := time.Now()
		rep, heading, err := triage.FileWithHeading(path, hook.options())
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck triage: %v\nreproduce: %s triage %s\n", err, commandName(), path)
			status = exitUsage
			continue
		}
		switch {
		case *asJSON:
			data, _ := json.Marshal(struct {
				File   string         `json:"file"`
				Triage *triage.Report `json:"triage"`
			}{path, rep})
			fmt.Fprintln(stdout, string(data))
		case *markdown:
			fmt.Fprintln(stdout, rep.Markdown(path, "README.md", heading))
		default:
			fmt.Fprintf(stdout, "%s: %s\n", path, rep.Signature.Words())
			printTriage(stdout, rep, "  ")
			fmt.Fprintf(stdout, "  triaged in %.1fs: %s\n", time.Since(start).Seconds(), rep.Cost())
		}
	}
	return status
}

func init() {
	commandHelp["triage"] = struct{ synopsis, about, example string }{
		"kvcheck triage [--json | --markdown] FILE... | kvcheck triage --docs FILE.md... [--check-docs]",
		"Triage the violation a transcript shows: re-check it at tokens_per_block ×2, ×4, ×8 and with larger pools\n(robust or fragile), with each knob changed (needs, indifferent to), and match it against every built-in\nscenario's and historical bug's violation (same as, new); flag a capacity edge. See docs/triage.md.",
		"kvcheck triage counterexamples/testdata/adp-dummy-leak.real-code.no-leaked-cache.txt",
	}
}

// share makes the hook use a cache another part of the command owns
// (kvcheck sweep's): close leaves it open.
func (t *triageHook) share(c *sweep.Cache) {
	t.opened, t.cache, t.shared = true, c, true
}

// sweepTriage is the triage of one sweep variant's findings.
type sweepTriage struct {
	findings []*triage.Report // per finding of the report (nil: not triaged)
	summary  triage.Summary
}

// sweep triages the findings of each sweep result (up to
// triage.MaxSweepFindings each, smallest first); nil when triage is off.
func (t *triageHook) sweep(results []sweepResult, stderr io.Writer) []*sweepTriage {
	if t == nil || !t.on {
		return nil
	}
	out := make([]*sweepTriage, len(results))
	for i, res := range results {
		st := &sweepTriage{findings: make([]*triage.Report, len(res.report.Findings))}
		var names []string
		for k, s := range res.report.Findings {
			names = append(names, fmt.Sprintf("#%d (%s)", s.Index, s.Size()))
			if k >= triage.MaxSweepFindings {
				continue
			}
			f, err := triage.ParseFinding(res.variant.Scenario, s.Config, res.variant.Fixes, s.Invariant, s.Message, s.Group, s.Trace, s.Cycle)
			if err != nil {
				fmt.Fprintf(stderr, "kvcheck: triage of #%d: %v\n", s.Index, err)
				continue
			}
			st.findings[k] = t.finding(f, stderr)
		}
		st.summary = triage.Summarize(res.report.Fixes, names, st.findings)
		out[i] = st
	}
	return out
}

// sweepJSON is one variant's object of `kvcheck sweep --json` with the
// triage: each finding (and the smallest) carries its `triage` object,
// and `triage` summarizes them.
type sweepJSON struct {
	sweep.Report
	Smallest *triagedSmallest  `json:"smallest,omitempty"`
	Findings []triagedSmallest `json:"findings,omitempty"`
	Triage   *triage.Summary   `json:"triage,omitempty"`
}

// triagedSmallest is a sweep finding with its triage.
type triagedSmallest struct {
	sweep.Smallest
	Triage *triage.Report `json:"triage,omitempty"`
}

// json is the variant's JSON object, with its triage when st is set.
func (st *sweepTriage) json(rep sweep.Report) any {
	if st == nil {
		return rep
	}
	out := sweepJSON{Report: rep, Triage: &st.summary}
	for k, s := range rep.Findings {
		out.Findings = append(out.Findings, triagedSmallest{s, st.findings[k]})
	}
	if len(out.Findings) > 0 {
		out.Smallest = &out.Findings[0]
	}
	return out
}

// lines are what the text report prints of the triage before the
// reproduce line: the smallest finding's labels, each other finding's
// story, the counts and the verdict.
func (st *sweepTriage) lines(rep sweep.Report) []string {
	if st == nil || len(rep.Findings) == 0 {
		return nil
	}
	var out []string
	if first := st.findings[0]; first != nil {
		out = append(out, first.Lines()...)
	}
	for k, s := range rep.Findings[1:] {
		if r := st.findings[k+1]; r != nil {
			out = append(out, fmt.Sprintf("also #%d (%s): %s", s.Index, s.Size(), r.Story))
		} else {
			out = append(out, fmt.Sprintf("also #%d (%s): %s after %d steps (not triaged)", s.Index, s.Size(), s.Invariant, s.Steps))
		}
	}
	return append(out, "triage summary: "+st.summary.Words(), "verdict: "+st.summary.Verdict)
}

// smallestBanner is the smallest finding's banner paragraph, "" for none.
func (st *sweepTriage) smallestBanner() string {
	if st == nil || len(st.findings) == 0 {
		return ""
	}
	return bannerTriage(st.findings[0])
}

// fuzz triages a fuzz report's violation: on the reduced configuration
// the shrinker reached when there is one (smaller, so the re-checks are
// more likely to be complete), else on the scenario's.
func (t *triageHook) fuzz(r *fuzzReport, stderr io.Writer) {
	if !t.on || r.Result != "violation" || r.Invariant == unreachedGoal {
		return
	}
	v := r.variant
	f := triage.Finding{Scenario: v.scenario, Config: v.scenario.Config, Fixes: v.fixes, Invariant: r.Invariant, Message: r.Message,
		Group: r.Group, Trace: r.actions, Cycle: r.cycle}
	if r.reduced != nil && len(r.Cycle) == 0 {
		f.Config, f.Trace = r.reduced.Config, r.reducedActions
	}
	r.Triage = t.finding(f, stderr)
}

// fuzzSweep triages the smallest find of a fuzz --sweep variant.
func (t *triageHook) fuzzSweep(v variant, s *fuzzSweepFind, stderr io.Writer) {
	if !t.on {
		return
	}
	cfg, err := configtext.Parse(spec.Config{}, s.Config)
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck: triage of draw %d: %v\n", s.Draw, err)
		return
	}
	s.Triage = t.finding(triage.Finding{Scenario: v.scenario, Config: cfg, Fixes: v.fixes, Invariant: s.Invariant, Message: s.Message, Trace: s.actions}, stderr)
}
