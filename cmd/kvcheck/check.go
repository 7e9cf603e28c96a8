package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kvcheck/kvcheck/cmd/internal/configfile"
	"github.com/kvcheck/kvcheck/cmd/internal/triage"
	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// checkOptions are the flags of `kvcheck check`.
type checkOptions struct {
	scenarios []string
	fixes     []string
	configs   []string // --config FILE (config.go)
	depth     int
	maxStates int
	workers   int
	keepGoing bool
	liveness  bool
	symmetry  bool     // --symmetry (symmetry.go)
	por       bool     // --por (por.go)
	only      []string // --invariant
	skip      []string // --skip-invariant
	json      bool
	out       string // --out DIR: write each counterexample as a transcript (check_out.go)
	rewrite   bool   // --rewrite: let --out replace existing transcripts
	// rewriteLine is the command line typed, with --rewrite: what an --out
	// that refuses to replace files suggests.
	rewriteLine string
	runHooks                    // --expect, --cover, interrupts and --progress (runhooks.go)
	maxMemory   string          // --max-memory (memory.go)
	pressure    pressureOptions // --pressure, --cache, --no-cache, --shard (config_pressure.go)
	triage      triageHook      // --triage (triage.go)
}

// variant is one scenario checked under one set of fixes.
type variant struct {
	scenario *scenario.Scenario
	fixes    spec.Fixes
	// configPath is the --config file the scenario comes from ("" for a
	// built-in scenario).
	configPath string
	// pressure is the pressure sweep a TensorRT-LLM options file is
	// checked under (config_pressure.go); nil: check the scenario alone.
	pressure *configfile.Pressure
}

// checkReport is one line of `kvcheck check --json`.
type checkReport struct {
	Scenario    string          `json:"scenario"`
	Fixes       []string        `json:"fixes"`
	Result      string          `json:"result"`   // violation, incomplete or ok
	Verdict     string          `json:"verdict"`  // the invariant broken first, incomplete or ok
	Expected    string          `json:"expected"` // the verdict expected (verdicts.go)
	AsExpected  bool            `json:"as_expected"`
	Complete    bool            `json:"complete"`
	Invariant   string          `json:"invariant,omitempty"`
	Message     string          `json:"message,omitempty"`
	Steps       int             `json:"steps"`
	States      int             `json:"states"`
	Transitions int             `json:"transitions"`
	Depth       int             `json:"depth"`
	Seconds     float64         `json:"seconds"`
	Goals       map[string]bool `json:"goals"`
	Liveness    bool            `json:"liveness_checked"`
	Symmetric   bool            `json:"symmetry_reduced"`      // states counts orbits of interchangeable ranks
	Reduced     bool            `json:"partial_order_reduced"` // the search took one order of independent ranks' steps
	Collision   float64         `json:"collision_probability"`
	Interrupted bool            `json:"interrupted,omitempty"`
	// Unjudged says why the verdict is not judged against the expected
	// one: the expected violation is an invariant this run does not check.
	Unjudged   string            `json:"unjudged,omitempty"`
	Trace      []string          `json:"trace"`
	Cycle      []string          `json:"cycle,omitempty"` // a livelock's cycle, after the stem in Trace
	Violations []violationReport `json:"violations,omitempty"`
	Triage     *triage.Report    `json:"triage,omitempty"` // the first violation's (triage.go)
	Reproduce  string            `json:"reproduce"`
	// actions is Trace as actions, and cycle Cycle, for --out.
	actions, cycle []spec.Action
	// kept are the invariants checked (nil: all) and noLiveness says
	// livelocks were not looked for (--liveness=false), for judge.
	kept       []string
	noLiveness bool
}

// violationReport is one distinct violation of a --keep-going run.
type violationReport struct {
	Invariant string   `json:"invariant"`
	Group     string   `json:"group,omitempty"`
	Message   string   `json:"message"`
	Steps     int      `json:"steps"`
	Trace     []string `json:"trace"`
	actions   []spec.Action
	Cycle     []string `json:"cycle,omitempty"`
	cycle     []spec.Action
	Triage    *triage.Report `json:"triage,omitempty"`
}

// unreachedGoal is the invariant name reported when a check finds no
// violation but misses one of the scenario's goals: the check passed
// vacuously, which counts as a failure.
const unreachedGoal = "unreached-goal"

// defaultMaxStates bounds a check when --max-states is not given.
const defaultMaxStates = 5_000_000

func runCheck(args []string, stdout, stderr io.Writer) int {
	var opts checkOptions
	flags := newFlagSet("check", stderr)
	flags.StringArrayVar(&opts.scenarios, "scenario", nil, "built-in scenario to check (repeatable; default: all)")
	flags.StringArrayVar(&opts.fixes, "fix", nil, "fix variant to apply (repeatable; 'none' = the real code alone; default: the real code and each of the scenario's fixes)")
	flags.StringArrayVar(&opts.configs, "config", nil, "check the configuration in FILE: kvcheck's configuration text, or TensorRT-LLM LLM API options (YAML) with a kvcheck: section (repeatable)")
	flags.IntVar(&opts.depth, "depth", 0, "maximum search depth, at least 1 (default: the scenario's)")
	flags.IntVar(&opts.maxStates, "max-states", defaultMaxStates, "maximum number of distinct states (0: no bound but --max-memory)")
	flags.IntVar(&opts.workers, "workers", defaultWorkers(), "parallel expansion workers (results do not depend on it)")
	flags.BoolVar(&opts.keepGoing, "keep-going", false, "collect one shortest violation per invariant and raising function instead of stopping at the first")
	flags.BoolVar(&opts.liveness, "liveness", true, "also report a livelock: a reachable state from which no run ends with every request finished (runs when the search is complete; --liveness=false to skip)")
	addSymmetryFlag(flags, &opts.symmetry)
	addPartialOrderFlag(flags, &opts.por)
	flags.StringArrayVar(&opts.only, "invariant", nil, "check only this invariant (repeatable; default: all), e.g. to follow a known leak to the crash it causes")
	flags.StringArrayVar(&opts.skip, "skip-invariant", nil, "check every invariant but this one (repeatable), e.g. to look past a known crash for a livelock; a variant whose expected violation is left out is reported, not judged")
	flags.BoolVar(&opts.json, "json", false, "print one JSON object per checked variant")
	flags.StringVar(&opts.out, "out", "", "write each counterexample (and each fix replaying it) as a transcript in this directory and print its path")
	flags.BoolVar(&opts.rewrite, "rewrite", false, "with --out, replace transcripts that already exist")
	flags.BoolVar(&opts.gate.anyViolation, "any-violation", false, "exit 1 on any violation, whatever is expected (the plain model checker's exit)")
	flags.StringVar(&opts.expect, "expect", "", "file of SCENARIO FIXES VERDICT lines overriding the verdicts the scenarios expect")
	flags.BoolVar(&opts.quiet, "quiet", false, "print only the outcome: one line when every verdict is as expected, else the verdicts that differ or are incomplete, each with its trace and reproduce line (no table, no --config mapping)")
	flags.BoolVar(&opts.showProgress, "progress", false, "print a progress line on stderr every second (shown anyway when stderr is a terminal)")
	cover := flags.Bool("cover", false, "also print which spec mechanisms (actions, branches of the real code, raises) the run exercised, and those it never reached")
	addPressureFlags(flags, &opts.pressure)
	opts.triage.addFlags(flags, false) // its re-checks share the pressure sweeps' --cache
	flags.StringVar(&opts.maxMemory, "max-memory", defaultMemoryShare, "memory budget (e.g. 8GiB, or a share of the machine's memory); past it the queue moves to disk, and a search that still does not fit ends incomplete (exit 3)")
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "kvcheck check: unexpected argument %s (scenarios are given with --scenario, files with --config)\n%s", quote(flags.Arg(0)), usageLine("check"))
		return exitUsage
	}
	opts.triage.cacheDir, opts.triage.noCache = opts.pressure.cacheDir, opts.pressure.noCache
	if err := opts.triage.validate(); err != nil {
		fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
		return exitUsage
	}
	if err := validateBounds(flags, opts.depth, opts.maxStates); err != nil {
		fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
		return exitUsage
	}
	if _, err := narrowInvariants(specInvariantNames(), opts.only, opts.skip); err != nil {
		fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
		return exitUsage
	}
	if _, err := parseMemory(opts.maxMemory); err != nil {
		fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
		return exitUsage
	}
	if err := validateRunFlags(opts.workers, opts.out, opts.rewrite); err != nil {
		fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
		return exitUsage
	}
	derivation := stdout
	if opts.json || opts.pressure.shard != "" {
		derivation = stderr
	}
	variants, err := selection{opts.scenarios, opts.fixes, opts.configs, "check", opts.quiet, opts.pressure.on}.variants(derivation)
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
		return exitUsage
	}
	opts.rewriteLine = rewriteCommand(append([]string{"check"}, args...))
	if opts.out != "" {
		if err := preflightOut(opts.out, opts.rewrite, outPrefixes(variants), opts.rewriteLine); err != nil {
			fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
			return exitUsage
		}
	}
	if err := opts.start(*cover, stderr); err != nil {
		fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
		return exitUsage
	}
	defer opts.interrupt.release()
	pr, err := newPressureRun(opts, derivation)
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
		return exitUsage
	}
	defer pr.close()
	if opts.pressure.shard != "" {
		return pr.shardOnly(variants, stdout, stderr)
	}
	defer opts.triage.close()
	reports := make([]checkReport, 0, len(variants))
	for i, v := range variants {
		if opts.interrupt.stopped() {
			break
		}
		opts.progress.begin("kvcheck check " + variantLabel(v))
		var r checkReport
		if v.pressure != nil {
			r, variants[i], err = pr.check(v)
		} else {
			r, err = checkVariant(v, opts)
		}
		opts.progress.end()
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
			return exitUsage
		}
		opts.gate.judge(v, &r)
		// A pressure sweep's finding is at the configuration it broke
		// (variants[i].scenario), not at the file's own sizes.
		opts.triage.check(variants[i], &r, stderr)
		if opts.json {
			line, _ := json.Marshal(r)
			fmt.Fprintln(stdout, string(line))
		}
		reports = append(reports, r)
	}
	if opts.interrupt.stopped() {
		w := stdout
		if opts.json {
			w = stderr
		}
		fmt.Fprintf(w, "kvcheck check: interrupted by %s after %d of %d variants; what was found so far follows\n", opts.interrupt.signalName(), len(reports), len(variants))
	}
	if opts.json {
		opts.gate.printGate(stderr, "kvcheck check", reports)
	} else if opts.quiet {
		opts.gate.printGate(stdout, "kvcheck check", reports)
		printViolations(stdout, notAsExpected(reports))
	} else {
		opts.gate.printGate(stdout, "kvcheck check", reports)
		printTable(stdout, reports)
		printViolations(stdout, reports)
	}
	if opts.coverage != nil {
		opts.coverage.print(stdout, opts.json, commandName()+" check "+strings.Join(args, " "))
	}
	if opts.out != "" {
		if code := writeTranscripts(opts.out, opts.rewrite, variants[:len(reports)], reports, opts, stdout, stderr); code != exitOK {
			return code
		}
	}
	if opts.interrupt.stopped() {
		return exitInterrupted
	}
	return opts.gate.gateStatus(reports)
}

// checkVariant runs the exhaustive checker on one variant.
func checkVariant(v variant, opts checkOptions) (checkReport, error) {
	sp, err := v.scenario.Checking(opts.only).Spec(v.fixes)
	if err != nil {
		return checkReport{}, err
	}
	depth := opts.depth
	if depth == 0 {
		depth = v.scenario.Depth
	}
	sp.Cover = opts.coverage.sink()
	defer opts.coverage.add(v.scenario.Name, sp.Cover)
	if len(v.scenario.Reaches) > 0 && sp.Cover == nil {
		sp.Cover = spec.NewCoverage() // for the scenario's reaches: alone
	}
	var checked model.Spec[spec.State, spec.Action] = sp
	var all []string
	for _, inv := range sp.Invariants() {
		all = append(all, inv.Name)
	}
	kept, err := narrowInvariants(all, opts.only, opts.skip)
	if err != nil {
		return checkReport{}, err
	}
	if kept != nil {
		checked = model.OnlyInvariants(checked, kept)
	}
	maxMemory, _ := parseMemory(opts.maxMemory) // checked in runCheck
	res := model.Check(checked, model.Options{
		MaxDepth:  depth,
		MaxStates: opts.maxStates,
		Workers:   opts.workers,
		Stop:      opts.interrupt.stopped,
		Progress: func(p model.Progress) {
			opts.progress.update(func(elapsed time.Duration) string {
				line := fmt.Sprintf("%d states, %d states/s, depth %d, %.1fs", p.States, perSecond(p.States, elapsed), p.Depth, elapsed.Seconds())
				if p.Rederive != "" {
					line += " (searching again without --por: " + p.Rederive + ")"
				}
				return line
			})
		},
		KeepGoing:    opts.keepGoing,
		Liveness:     opts.liveness,
		Symmetry:     opts.symmetry,
		MaxMemory:    maxMemory,
		PartialOrder: opts.por,
	})
	r := checkReport{
		Scenario:    v.scenario.Name,
		Fixes:       v.fixes.Names(),
		Result:      "ok",
		Complete:    res.Complete,
		States:      res.States,
		Transitions: res.Transitions,
		Depth:       res.Depth,
		Seconds:     res.Elapsed.Seconds(),
		Goals:       map[string]bool{},
		Liveness:    res.LivenessChecked,
		Symmetric:   res.Symmetric,
		Reduced:     res.PartialOrder,
		Collision:   res.CollisionProbability,
		Trace:       []string{},
		Reproduce:   reproduceCommand(v, opts),
		kept:        kept,
		noLiveness:  !opts.liveness,
	}
	for _, g := range res.Goals {
		r.Goals[g.Name] = g.Reached
	}
	for _, viol := range res.Violations {
		r.Violations = append(r.Violations, violationReport{
			Invariant: viol.Invariant, Group: viol.Group, Message: viol.Message,
			Steps: len(viol.Trace), Trace: traceLines(viol.Trace), actions: viol.Trace, Cycle: cycleLines(viol.Cycle), cycle: viol.Cycle,
		})
	}
	if !opts.keepGoing {
		r.Violations = nil
	}
	if len(res.Violations) > 0 {
		first := res.Violations[0]
		r.Result = "violation"
		r.Invariant = first.Invariant
		r.Message = first.Message
		r.Steps = len(first.Trace)
		r.Trace, r.actions = traceLines(first.Trace), first.Trace
		r.Cycle, r.cycle = cycleLines(first.Cycle), first.Cycle
		return r, nil
	}
	if res.Interrupted {
		r.Result, r.Interrupted = verdictIncomplete, true
		r.Message = fmt.Sprintf("interrupted by %s after %d states, at depth %d; no violation so far", opts.interrupt.signalName(), res.States, res.Depth)
		return r, nil
	}
	if !res.Complete {
		r.Result = verdictIncomplete
		budget := fmt.Sprintf("--depth %d", depth)
		if opts.maxStates > 0 && res.States >= opts.maxStates {
			budget = fmt.Sprintf("--max-states %d", opts.maxStates)
		}
		r.Message = fmt.Sprintf("no violation in %d states, but the search stopped at its %s budget", res.States, budget)
		if reason := incompleteReason(res, maxMemory); reason != "" {
			r.Message = fmt.Sprintf("no violation in %d states, but the search stopped: %s", res.States, reason)
		}
		return r, nil
	}
	for _, g := range res.Goals {
		if !g.Reached {
			r.Result = "violation"
			r.Invariant = unreachedGoal
			r.Message = fmt.Sprintf("goal %s (%s) was never reached in %d states", g.Name, g.Doc, res.States)
			return r, nil
		}
	}
	for _, key := range v.scenario.Reaches {
		if n, _ := sp.Cover.Count(key); n == 0 {
			models, _ := spec.MechanismModels(key)
			r.Result = "violation"
			r.Invariant = unreachedGoal
			r.Message = fmt.Sprintf("mechanism %s (%s), which the scenario reaches:, was never exercised in %d states", key, models, res.States)
			return r, nil
		}
	}
	return r, nil
}

func traceLines(trace []spec.Action) []string {
	out := make([]string, len(trace))
	for i, a := range trace {
		out[i] = a.String()
	}
	return out
}

// variantCommand starts the command line of subcommand that selects
// exactly variant v: its scenario and its fixes ("--fix none" for the real
// code).
func variantCommand(subcommand string, v variant) []string {
	parts := []string{commandName(), subcommand, "--scenario", v.scenario.Name}
	if v.configPath != "" {
		parts = []string{commandName(), subcommand, "--config", v.configPath}
	}
	names := v.fixes.Names()
	if len(names) == 0 {
		names = []string{"none"}
	}
	for _, n := range names {
		parts = append(parts, "--fix", n)
	}
	return parts
}

// reproduceCommand is the one command that re-runs exactly this variant.
func reproduceCommand(v variant, opts checkOptions) string {
	parts := variantCommand("check", v)
	if opts.depth != 0 {
		parts = append(parts, "--depth", fmt.Sprint(opts.depth))
	}
	if opts.maxStates != defaultMaxStates {
		parts = append(parts, "--max-states", fmt.Sprint(opts.maxStates))
	}
	if opts.keepGoing {
		parts = append(parts, "--keep-going")
	}
	if !opts.liveness {
		parts = append(parts, "--liveness=false")
	}
	parts = symmetryArgs(parts, opts.symmetry)
	parts = partialOrderArgs(parts, opts.por)
	if opts.maxMemory != defaultMemoryShare {
		parts = append(parts, "--max-memory", opts.maxMemory)
	}
	for _, n := range opts.only {
		parts = append(parts, "--invariant", n)
	}
	for _, n := range opts.skip {
		parts = append(parts, "--skip-invariant", n)
	}
	return strings.Join(parts, " ")
}

// commandName is how the user invoked kvcheck: "go run ./cmd/kvcheck" when
// it runs from go run's build cache, the path typed when it was one
// ("./kvcheck"), else "kvcheck".
func commandName() string {
	exe, err := os.Executable()
	if err != nil || strings.Contains(exe, "go-build") || strings.HasSuffix(filepath.Base(exe), ".test") {
		return "go run ./cmd/kvcheck"
	}
	if typed := os.Args[0]; strings.Contains(typed, "/") && !strings.ContainsAny(typed, " \t'\"") {
		return typed
	}
	return "kvcheck"
}

// notAsExpected are the reports whose verdict is not the one expected.
func notAsExpected(reports []checkReport) []checkReport {
	var out []checkReport
	for _, r := range reports {
		if !r.AsExpected {
			out = append(out, r)
		}
	}
	return out
}

// printTable prints one row per checked variant.
func printTable(w io.Writer, reports []checkReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tFIXES\tRESULT\tINVARIANT\tEXPECTED\tSTEPS\tSTATES\tTRANSITIONS\tDEPTH\tCOMPLETE\tGOALS\tSECONDS")
	for _, r := range reports {
		fixes := strings.Join(r.Fixes, "+")
		if fixes == "" {
			fixes = "(real code)"
		}
		reached := 0
		for _, ok := range r.Goals {
			if ok {
				reached++
			}
		}
		steps, invariant := "-", "-"
		if r.Result == "violation" {
			invariant = r.Invariant
			if r.Invariant != unreachedGoal {
				steps = fmt.Sprint(r.Steps)
			}
		}
		expected := "as expected"
		switch {
		case r.Unjudged != "":
			expected = "not judged"
		case !r.AsExpected:
			expected = "expected " + r.Expected
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%d/%d\t%.2f\n", r.Scenario, fixes, r.Result, invariant, expected, steps,
			r.States, r.Transitions, r.Depth, yesNo(r.Complete), reached, len(r.Goals), r.Seconds)
	}
	tw.Flush()
}

// printViolations prints each violation with its trace and the command
// that reproduces it.
func printViolations(w io.Writer, reports []checkReport) {
	for _, r := range reports {
		if r.Result != "violation" {
			continue
		}
		fixes := strings.Join(r.Fixes, "+")
		if fixes == "" {
			fixes = "real code"
		}
		fmt.Fprintf(w, "\n%s (%s): %s\n  %s\n", r.Scenario, fixes, r.Invariant, r.Message)
		violations := r.Violations
		if len(violations) == 0 && r.Invariant != unreachedGoal {
			violations = []violationReport{{Invariant: r.Invariant, Message: r.Message, Steps: r.Steps, Trace: r.Trace, Cycle: r.Cycle, Triage: r.Triage}}
		}
		for i, v := range violations {
			if len(r.Violations) > 0 {
				fmt.Fprintf(w, "  [%d] %s: %s\n", i+1, v.Invariant, v.Message)
			}
			fmt.Fprintf(w, "  shortest trace (%d steps):\n", v.Steps)
			for j, line := range v.Trace {
				fmt.Fprintf(w, "  %4d  %s\n", j+1, line)
			}
			printCycle(w, v)
			printTriage(w, v.Triage, "  ")
		}
		fmt.Fprintf(w, "  reproduce: %s\n", r.Reproduce)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
