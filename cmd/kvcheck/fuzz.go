package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kvcheck/kvcheck/fuzz"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/space"
)

// fuzzOptions are the flags of `kvcheck fuzz`.
type fuzzOptions struct {
	scenarios []string
	fixes     []string
	configs   []string // --config FILE (config.go)
	seed      uint64
	duration  time.Duration
	walks     int
	workers   int
	swarm     bool
	json      bool
	out       string // --out DIR: write each shrunk counterexample as a transcript (fuzz_out.go)
	rewrite   bool   // --rewrite: let --out replace existing transcripts
	// rewriteLine is the command line typed, with --rewrite (check.go).
	rewriteLine string
	runHooks    // --expect, --cover, interrupts and --progress (runhooks.go)
	// share is the current variant's share of the --time budget.
	share  time.Duration
	triage triageHook // --triage (triage.go)
}

// fuzzReport is one line of `kvcheck fuzz --json`: the keys of `kvcheck
// check --json` (steps and trace are the shrunk trace's, states the
// distinct states reached, transitions the steps walked, depth the longest
// path walked, seconds the search time) plus the run's own.
type fuzzReport struct {
	checkReport
	// Group is the violation's Failure.Group (the raising function and
	// error text for a crash).
	Group             string  `json:"group,omitempty"`
	Seed              uint64  `json:"seed"`
	Walks             int     `json:"walks"`
	StepsBeforeShrink int     `json:"steps_before_shrink"`
	ShrinkSeconds     float64 `json:"shrink_seconds"`
	// Shortest says a bounded exhaustive search proved the shrunk trace
	// shortest for this violation on the scenario.
	Shortest bool `json:"shortest"`
	// ReducedConfig, ReducedSteps and ReducedTrace are the same violation on
	// the smallest configuration the shrinker reached: the settings that
	// changed, then the trace.
	ReducedConfig []string `json:"reduced_config,omitempty"`
	ReducedSteps  []string `json:"reduced_steps,omitempty"`
	ReducedTrace  []string `json:"reduced_trace,omitempty"`
	// reduced is the spec of the reduced configuration and reducedActions
	// ReducedTrace as actions, for --out.
	reduced        *spec.Spec
	reducedActions []spec.Action
	// variant is the variant fuzzed, for --out.
	variant variant
}

// defaultFuzzTime is the time budget of the run when --time is not given.
const defaultFuzzTime = 30 * time.Second

func runFuzz(args []string, stdout, stderr io.Writer) int {
	var opts fuzzOptions
	flags := newFlagSet("fuzz", stderr)
	flags.StringArrayVar(&opts.scenarios, "scenario", nil, "built-in scenario to fuzz (repeatable; default: all)")
	flags.StringArrayVar(&opts.fixes, "fix", nil, "fix variant to apply (repeatable; 'none' = the real code alone; default: the real code and each of the scenario's fixes)")
	flags.StringArrayVar(&opts.configs, "config", nil, "fuzz the configuration in FILE: kvcheck's configuration text, or TensorRT-LLM LLM API options (YAML) with a kvcheck: section (repeatable)")
	flags.Uint64Var(&opts.seed, "seed", 0, "seed of every random choice (default: a new one, printed)")
	flags.DurationVar(&opts.duration, "time", defaultFuzzTime, "time budget of the whole run, shared out between the variants: each gets an equal part of what is left (0: none, then --walks bounds each variant)")
	flags.IntVar(&opts.walks, "walks", 0, "walk budget per variant (0: none)")
	flags.IntVar(&opts.workers, "workers", defaultWorkers(), "walking goroutines (a run is reproducible for a given --seed and --workers)")
	flags.BoolVar(&opts.swarm, "swarm", false, "swarm mode: each walk weights the classes of action its own way, switching some off")
	flags.BoolVar(&opts.json, "json", false, "print one JSON object per fuzzed variant")
	flags.StringVar(&opts.out, "out", "", "write each shrunk counterexample (and its reduced configuration) as a transcript in this directory and print its path")
	flags.BoolVar(&opts.rewrite, "rewrite", false, "with --out, replace transcripts that already exist")
	flags.BoolVar(&opts.gate.anyViolation, "any-violation", false, "exit 1 on any violation, whatever is expected")
	flags.StringVar(&opts.expect, "expect", "", "file of SCENARIO FIXES VERDICT lines overriding the verdicts the scenarios expect")
	flags.BoolVar(&opts.quiet, "quiet", false, "print only the outcome: one line when every verdict is as expected, else the verdicts that differ or are incomplete, each violation with its trace and reproduce line")
	flags.BoolVar(&opts.showProgress, "progress", false, "print a progress line on stderr every second (shown anyway when stderr is a terminal)")
	sweepRandom := flags.Bool("sweep", false, "walk random configurations around each scenario's, beyond any sweep's bounds: --walks per configuration (default 64) until --time; reports the smallest violating one (fuzz_sweep.go)")
	cover := flags.Bool("cover", false, "also print which spec mechanisms the walks exercised, and those they never reached")
	opts.triage.addFlags(flags, true)
	defer opts.triage.close()
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "kvcheck fuzz: unexpected argument %s (scenarios are given with --scenario, files with --config)\n%s", quote(flags.Arg(0)), usageLine("fuzz"))
		return exitUsage
	}
	if err := opts.triage.validate(); err != nil {
		fmt.Fprintf(stderr, "kvcheck fuzz: %v\n", err)
		return exitUsage
	}
	switch {
	case opts.duration < 0 || opts.walks < 0:
		fmt.Fprintln(stderr, "kvcheck fuzz: --time and --walks must not be negative")
		return exitUsage
	case opts.duration == 0 && opts.walks == 0:
		fmt.Fprintln(stderr, "kvcheck fuzz: --time 0 needs a --walks budget")
		return exitUsage
	}
	if err := validateRunFlags(opts.workers, opts.out, opts.rewrite); err != nil {
		fmt.Fprintf(stderr, "kvcheck fuzz: %v\n", err)
		return exitUsage
	}
	if !flags.Changed("seed") {
		opts.seed = uint64(time.Now().UnixNano())
	}
	derivation := stdout
	if opts.json {
		derivation = stderr
	}
	variants, err := selection{opts.scenarios, opts.fixes, opts.configs, "fuzz", opts.quiet, false}.variants(derivation)
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck fuzz: %v\n", err)
		return exitUsage
	}
	opts.rewriteLine = rewriteCommand(append([]string{"fuzz"}, args...))
	if opts.out != "" {
		prefixes := outPrefixes(variants)
		if *sweepRandom {
			prefixes = nil
			for _, v := range variants {
				prefixes = append(prefixes, outPrefix(v.scenario.Name, fixesLabel(v.fixes), "fuzz-sweep."))
			}
		}
		if err := preflightOut(opts.out, opts.rewrite, prefixes, opts.rewriteLine); err != nil {
			fmt.Fprintf(stderr, "kvcheck fuzz: %v\n", err)
			return exitUsage
		}
	}
	if *sweepRandom {
		return runFuzzSweep(opts, variants, stdout, stderr)
	}
	if !opts.json && !opts.quiet {
		fmt.Fprintf(stdout, "kvcheck fuzz: seed %d, %d worker(s), %s, %s walks\n",
			opts.seed, opts.workers, budgetText(opts), walkKind(opts.swarm))
	}
	if err := opts.start(*cover, stderr); err != nil {
		fmt.Fprintf(stderr, "kvcheck fuzz: %v\n", err)
		return exitUsage
	}
	defer opts.interrupt.release()
	deadline := time.Now().Add(opts.duration)
	var failed []fuzzReport
	var reports []checkReport
	for i, v := range variants {
		if opts.interrupt.stopped() {
			break
		}
		if opts.duration > 0 {
			// The run's budget: an equal part of what is left to each
			// variant still to run, so a variant that finds its violation
			// early leaves its time to the others.
			opts.share = max(time.Until(deadline)/time.Duration(len(variants)-i), time.Millisecond)
		}
		opts.progress.begin("kvcheck fuzz " + variantLabel(v))
		r, err := fuzzVariant(v, opts)
		opts.progress.end()
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck fuzz: %v\n", err)
			return exitUsage
		}
		opts.gate.judge(v, &r.checkReport)
		opts.triage.fuzz(&r, stderr)
		reports = append(reports, r.checkReport)
		if r.Result == "violation" {
			failed = append(failed, r)
		}
		if opts.json {
			line, _ := json.Marshal(r)
			fmt.Fprintln(stdout, string(line))
			continue
		}
		if !opts.quiet {
			printFuzzSummary(stdout, r)
		}
	}
	if opts.interrupt.stopped() {
		w := stdout
		if opts.json {
			w = stderr
		}
		fmt.Fprintf(w, "kvcheck fuzz: interrupted by %s after %d of %d variants; what was found so far follows\n", opts.interrupt.signalName(), len(reports), len(variants))
	}
	if opts.json {
		opts.gate.printGate(stderr, "kvcheck fuzz", reports)
	} else {
		if !opts.quiet {
			fmt.Fprintln(stdout)
		}
		opts.gate.printGate(stdout, "kvcheck fuzz", reports)
		for _, r := range failed {
			if !opts.quiet || !r.AsExpected {
				printFuzzViolation(stdout, r)
			}
		}
	}
	if opts.coverage != nil {
		opts.coverage.print(stdout, opts.json, commandName()+" fuzz "+strings.Join(args, " "))
	}
	if opts.out != "" {
		if code := writeFuzzTranscripts(opts, failed, stdout, stderr); code != exitOK {
			return code
		}
	}
	if opts.interrupt.stopped() {
		return exitInterrupted
	}
	return opts.gate.gateStatus(reports)
}

// fuzzVariant runs the walks on one variant and shrinks what they find.
func fuzzVariant(v variant, opts fuzzOptions) (fuzzReport, error) {
	sp, err := v.scenario.Spec(v.fixes)
	if err != nil {
		return fuzzReport{}, err
	}
	sp.Cover = opts.coverage.sink()
	var growth stateGrowth
	res := fuzz.Run(sp, fuzz.Options{Seed: opts.seed, Workers: opts.workers, Walks: opts.walks, Duration: opts.share, Swarm: opts.swarm,
		Stop: opts.interrupt.stopped,
		Progress: func(p fuzz.Progress) {
			growth.round(p)
			opts.progress.update(func(elapsed time.Duration) string {
				return fmt.Sprintf("%d walks, %d distinct states, %d states/s, longest path %d, %.1fs of %s", p.Walks, p.States, perSecond(p.States, elapsed), p.Depth, elapsed.Seconds(), opts.share.Round(time.Millisecond))
			})
		}})
	opts.coverage.add(v.scenario.Name, sp.Cover)
	sp.Cover = nil // shrinking replays are not part of the walks' coverage
	r := fuzzReport{
		checkReport: checkReport{
			Scenario:    v.scenario.Name,
			Fixes:       v.fixes.Names(),
			Result:      "ok",
			States:      res.States,
			Transitions: res.Steps,
			Depth:       res.Depth,
			Seconds:     res.Elapsed.Seconds(),
			Goals:       map[string]bool{},
			Trace:       []string{},
			Reproduce:   fuzzReproduceCommand(v, opts),
		},
		Seed:    opts.seed,
		Walks:   res.Walks,
		variant: v,
	}
	for _, g := range res.Goals {
		r.Goals[g.Name] = g.Reached
	}
	if found := res.Violation; found != nil {
		start := time.Now()
		shrunk, err := fuzz.Shrink[spec.State, spec.Action](sp, found.Trace, found.Key, fuzz.KVShrinkOptions())
		if err != nil {
			return r, fmt.Errorf("%s: shrinking the violation found: %v", v.scenario.Name, err)
		}
		r.ShrinkSeconds = time.Since(start).Seconds()
		r.Result, r.Invariant, r.Group, r.Message = "violation", found.Invariant, found.Group, shrunk.Message
		r.StepsBeforeShrink = len(found.Trace)
		r.Steps, r.Trace, r.actions, r.Shortest = len(shrunk.Trace), traceLines(shrunk.Trace), shrunk.Trace, shrunk.Optimal
		r.Cycle = cycleLines(shrunk.Cycle)
		if red := shrunk.Reduced; red != nil {
			r.ReducedConfig = configChanges(&sp.Config, &red.Spec.(*spec.Spec).Config)
			r.ReducedSteps = red.Steps
			r.ReducedTrace, r.reducedActions = traceLines(red.Trace), red.Trace
			r.reduced = red.Spec.(*spec.Spec)
		}
		return r, nil
	}
	// Random walks prove nothing: a run without a violation ended at its
	// budget.
	r.Result = verdictIncomplete
	r.Message = fmt.Sprintf("no violation in %d walks (%d distinct states), but the run stopped at its budget (%s)", res.Walks, res.States, shareText(opts))
	if res.Interrupted {
		r.Interrupted = true
		r.Message = fmt.Sprintf("interrupted by %s after %d walks (%d distinct states); no violation so far", opts.interrupt.signalName(), res.Walks, res.States)
	}
	for _, g := range res.Goals {
		if !g.Reached {
			r.Message += fmt.Sprintf("; goal %s (%s) was never reached", g.Name, g.Doc)
		}
	}
	if hint := growth.stalled(res.Walks, res.States); hint != "" && !res.Interrupted {
		r.Message += "; " + hint + ": " + strings.Join(variantCommand("check", v), " ")
	}
	return r, nil
}

// stateGrowth follows the distinct states a fuzz run reaches, round by
// round, to tell a run that spent its budget on a space it had already
// covered: one that kvcheck check can exhaust, and so prove.
type stateGrowth struct {
	states, walks int // at the last round that found a new state
}

// round takes a round's progress.
func (g *stateGrowth) round(p fuzz.Progress) {
	if p.States > g.states {
		g.states, g.walks = p.States, p.Walks
	}
}

// minStalledWalks is how many walks a run takes before stalled may call
// its space covered.
const minStalledWalks = 1000

// stalled says, when the run's last new state came in the first half of
// its walks (and it walked at least minStalledWalks), that the space
// stopped growing and is worth exhausting; "" otherwise.
func (g *stateGrowth) stalled(walks, states int) string {
	if walks < minStalledWalks || states > g.states || g.walks > walks/2 {
		return ""
	}
	return fmt.Sprintf("the walks found no new state after walk %d of %d (%d distinct states), so the space looks small enough to exhaust and prove with", g.walks, walks, states)
}

// configChanges lists the settings of reduced that differ from base, as
// configuration text lines (configtext.Format), and its request lines when
// the requests changed.
func configChanges(base, reduced *spec.Config) []string {
	var out []string
	for _, s := range space.ChangedSettings(base, reduced) {
		out = append(out, s.String())
	}
	if requests := space.RequestLines(reduced); !slices.Equal(requests, space.RequestLines(base)) {
		out = append(out, requests...)
	}
	return out
}

// fuzzReproduceCommand is the one command that re-runs exactly this
// variant's walks and shrinking.
func fuzzReproduceCommand(v variant, opts fuzzOptions) string {
	parts := variantCommand("fuzz", v)
	parts = append(parts, "--seed", fmt.Sprint(opts.seed), "--workers", fmt.Sprint(opts.workers))
	if opts.duration != defaultFuzzTime {
		parts = append(parts, "--time", opts.duration.String())
	}
	if opts.walks > 0 {
		parts = append(parts, "--walks", fmt.Sprint(opts.walks))
	}
	if opts.swarm {
		parts = append(parts, "--swarm")
	}
	return strings.Join(parts, " ")
}

func budgetText(opts fuzzOptions) string {
	var parts []string
	if opts.duration > 0 {
		parts = append(parts, opts.duration.String()+" for the run")
	}
	if opts.walks > 0 {
		parts = append(parts, fmt.Sprintf("%d walks per variant", opts.walks))
	}
	return strings.Join(parts, " or ")
}

// shareText names the budget a variant stopped at.
func shareText(opts fuzzOptions) string {
	var parts []string
	if opts.duration > 0 {
		parts = append(parts, fmt.Sprintf("%s of the run's --time %s", opts.share.Round(time.Millisecond), opts.duration))
	}
	if opts.walks > 0 {
		parts = append(parts, fmt.Sprintf("--walks %d", opts.walks))
	}
	return strings.Join(parts, " or ")
}

func walkKind(swarm bool) string {
	if swarm {
		return "swarm novelty"
	}
	return "novelty"
}

func variantName(r fuzzReport) string {
	fixes := strings.Join(r.Fixes, "+")
	if fixes == "" {
		fixes = "real code"
	}
	return fmt.Sprintf("%s (%s)", r.Scenario, fixes)
}

// printFuzzSummary prints one line per variant: what was found, or how
// much was covered.
func printFuzzSummary(w io.Writer, r fuzzReport) {
	reached := 0
	for _, ok := range r.Goals {
		if ok {
			reached++
		}
	}
	cover := fmt.Sprintf("%d walks, %d steps, %d distinct states, longest path %d, goals %d/%d reached, %.2fs",
		r.Walks, r.Transitions, r.States, r.Depth, reached, len(r.Goals), r.Seconds)
	switch {
	case r.Result == verdictIncomplete:
		fmt.Fprintf(w, "%s: incomplete, no violation within the budget: %s\n", variantName(r), cover)
	default:
		fmt.Fprintf(w, "%s: %s after %s; shrunk %d → %d steps\n", variantName(r), r.Invariant, cover, r.StepsBeforeShrink, r.Steps)
	}
}

// printFuzzViolation prints a violation's shrunk trace, its reduced
// configuration, and the command that reproduces it.
func printFuzzViolation(w io.Writer, r fuzzReport) {
	fmt.Fprintf(w, "\n%s: %s\n  %s\n", variantName(r), r.Invariant, r.Message)
	if r.Invariant != unreachedGoal {
		proof := ""
		if r.Shortest {
			proof = "; no shorter trace exists (bounded exhaustive search)"
		}
		fmt.Fprintf(w, "  found after %d walks in %d steps, shrunk in %.2fs to %d steps%s:\n", r.Walks, r.StepsBeforeShrink, r.ShrinkSeconds, r.Steps, proof)
		for i, line := range r.Trace {
			fmt.Fprintf(w, "  %4d  %s\n", i+1, line)
		}
		printCycle(w, violationReport{Steps: r.Steps, Cycle: r.Cycle})
		if len(r.ReducedTrace) > 0 {
			fmt.Fprintf(w, "  smallest configuration that still shows it (%d reductions), %d steps:\n", len(r.ReducedSteps), len(r.ReducedTrace))
			for _, line := range r.ReducedConfig {
				fmt.Fprintf(w, "        %s\n", line)
			}
			for i, line := range r.ReducedTrace {
				fmt.Fprintf(w, "  %4d  %s\n", i+1, line)
			}
		}
		printTriage(w, r.Triage, "  ")
	}
	fmt.Fprintf(w, "  reproduce: %s\n", r.Reproduce)
}
