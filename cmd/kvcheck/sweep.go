package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kvcheck/kvcheck/cmd/internal/configfile"
	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/space"
)

// sweepOptions are the flags of `kvcheck sweep`.
type sweepOptions struct {
	scenarios []string
	fixes     []string
	ranges    []string
	configs   []string
	depth     int
	maxStates int
	liveness  bool
	symmetry  bool     // --symmetry (symmetry.go)
	only      []string // --invariant
	skip      []string // --skip-invariant
	keepGoing bool
	workers   int
	shard     string
	budget    time.Duration
	cacheDir  string
	noCache   bool
	json      bool
	out       string
	rewrite   bool
	progress  bool // --progress (progress.go)
	// profile, expectProfile and writeProfile are --profile,
	// --expect-profile and --write-profile (sweep_profile.go): each checks
	// every configuration, as --keep-going.
	profile       bool
	expectProfile string
	writeProfile  string
}

// defaultSweepMaxStates bounds each configuration's search in a sweep.
const defaultSweepMaxStates = 200_000

func runSweep(args []string, stdout, stderr io.Writer) int {
	var opts sweepOptions
	flags := newFlagSet("sweep", stderr)
	flags.StringArrayVar(&opts.scenarios, "scenario", nil, "built-in scenario whose neighbourhood to sweep (repeatable; default: all)")
	flags.StringArrayVar(&opts.fixes, "fix", nil, "fix variant to apply (repeatable; 'none' = the real code alone; default: the real code and each of the scenario's fixes)")
	flags.StringArrayVar(&opts.ranges, "range", nil, "KEY=VALUES range replacing the scenario's default for KEY, e.g. target_blocks=4..8, version=all, requests=1..3 (repeatable; see docs/sweep.md)")
	flags.StringArrayVar(&opts.configs, "config", nil, "sweep around the configuration in FILE (kvcheck's configuration text with `sweep KEY=VALUES ...` lines, or YAML with a kvcheck: section whose sweep: maps keys to values; repeatable)")
	flags.IntVar(&opts.depth, "depth", 0, "maximum search depth per configuration, at least 1 (default: the scenario's)")
	flags.IntVar(&opts.maxStates, "max-states", defaultSweepMaxStates, "maximum distinct states per configuration (0: no bound)")
	flags.BoolVar(&opts.liveness, "liveness", true, "also look for livelocks on each complete search")
	addSymmetryFlag(flags, &opts.symmetry)
	flags.StringArrayVar(&opts.only, "invariant", nil, "check only this invariant (repeatable; default: all), e.g. to look past a livelock for a crash")
	flags.StringArrayVar(&opts.skip, "skip-invariant", nil, "check every invariant but this one (repeatable)")
	flags.BoolVar(&opts.keepGoing, "keep-going", false, "check every configuration, not only up to the smallest counterexample's size class")
	flags.BoolVar(&opts.profile, "profile", false, "check every configuration (as --keep-going) and print each variant's verdict profile: how many configurations hold, break each invariant, raise in each function, with a digest (docs/sweep.md#verdict-profiles)")
	flags.StringVar(&opts.expectProfile, "expect-profile", "", "compare each variant's verdict profile with FILE's (implies --profile); exit 1 naming each variant that differs or is missing from FILE, 0 when all agree")
	flags.StringVar(&opts.writeProfile, "write-profile", "", "write each variant's verdict profile to FILE (implies --profile; an existing FILE only with --rewrite)")
	flags.IntVar(&opts.workers, "workers", defaultWorkers(), "configurations checked in parallel (results do not depend on it)")
	flags.StringVar(&opts.shard, "shard", "", "i/n: check only shard i of n (deterministic partition) and print its results as JSON lines for kvcheck merge")
	flags.DurationVar(&opts.budget, "time", 0, "time budget for the whole sweep (0: none); past it the report says incomplete and the exit status is 3")
	flags.StringVar(&opts.cacheDir, "cache", defaultCacheDir(), "results cache directory (results are keyed by configuration, variant and a hash of the spec and engine)")
	flags.BoolVar(&opts.noCache, "no-cache", false, "neither read nor write the results cache")
	flags.BoolVar(&opts.json, "json", false, "print one JSON object per variant")
	flags.StringVar(&opts.out, "out", "", "write each variant's smallest counterexample as a transcript in this directory")
	flags.BoolVar(&opts.rewrite, "rewrite", false, "with --out, replace transcripts that already exist")
	flags.BoolVar(&opts.progress, "progress", false, "print a progress line on stderr every second: the variant, configurations checked, elapsed (shown anyway when stderr is a terminal)")
	var tri triageHook
	tri.addFlags(flags, false)
	cover := flags.Bool("cover", false, "also print which spec mechanisms the checked configurations exercised, and those never reached, and the value classes of each setting the configurations reached (checks every configuration afresh: cached results carry no coverage)")
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "kvcheck sweep: unexpected argument %s (scenarios are given with --scenario)\n", quote(flags.Arg(0)))
		return exitUsage
	}
	if err := tri.validate(); err != nil {
		fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
		return exitUsage
	}
	if err := validateBounds(flags, opts.depth, opts.maxStates); err != nil {
		fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
		return exitUsage
	}
	if opts.budget < 0 {
		fmt.Fprintf(stderr, "kvcheck sweep: --time must not be negative, got %s\n", opts.budget)
		return exitUsage
	}
	var shard sweep.Shard
	if opts.shard != "" {
		var err error
		if shard, err = sweep.ParseShard(opts.shard); err != nil {
			fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
			return exitUsage
		}
	}
	variants, err := sweepVariants(opts)
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
		return exitUsage
	}
	if err := validateRunFlags(opts.workers, opts.out, opts.rewrite && opts.writeProfile == ""); err != nil {
		fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
		return exitUsage
	}
	var expected *profileFile
	switch {
	case opts.expectProfile != "" && opts.writeProfile != "":
		fmt.Fprintf(stderr, "kvcheck sweep: --expect-profile and --write-profile: give one (compare with a file, or write one)\n")
		return exitUsage
	case opts.expectProfile != "":
		if expected, err = readProfileFile(opts.expectProfile); err != nil {
			fmt.Fprintf(stderr, "kvcheck sweep: %v\nreproduce: %s\n", err, commandLine(append([]string{"sweep"}, args...)))
			return exitUsage
		}
	case opts.writeProfile != "":
		if err := preflightProfileFile(opts.writeProfile, opts.rewrite); err != nil {
			fmt.Fprintf(stderr, "kvcheck sweep: %v; nothing was swept\nreproduce: %s\n", err, commandLine(append([]string{"sweep"}, args...)))
			return exitUsage
		}
	}
	if opts.profile || expected != nil || opts.writeProfile != "" {
		opts.profile = true
		opts.keepGoing = true
	}
	rewriteLine := rewriteCommand(append([]string{"sweep"}, args...))
	if opts.out != "" {
		var prefixes []string
		for _, v := range variants {
			prefixes = append(prefixes, outPrefix(v.scenario.Name, fixesLabel(v.fixes), "sweep."))
		}
		if err := preflightOut(opts.out, opts.rewrite, prefixes, rewriteLine); err != nil {
			fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
			return exitUsage
		}
	}
	if err := sweep.CheckInvariantNames(opts.only); err != nil {
		fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
		return exitUsage
	}
	named := opts.only
	if len(opts.skip) > 0 {
		kept, err := narrowInvariants(specInvariantNames(), opts.only, opts.skip)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
			return exitUsage
		}
		opts.only = kept
	}
	var coverage *coverage
	if *cover {
		coverage = newCoverage()
	}
	var cache *sweep.Cache
	if !opts.noCache && opts.cacheDir != "" && coverage == nil {
		if cache, err = sweep.OpenCache(opts.cacheDir); err != nil {
			fmt.Fprintf(stderr, "kvcheck sweep: %v (--no-cache to run without)\n", err)
			return exitUsage
		}
		defer cache.Close()
	}
	tri.share(cache)
	start := time.Now()
	run := sweep.Options{
		Search:    sweep.Search{Depth: opts.depth, MaxStates: opts.maxStates, Liveness: opts.liveness, Invariants: opts.only, Named: named, Symmetry: opts.symmetry},
		Workers:   opts.workers,
		KeepGoing: opts.keepGoing,
		Shard:     shard,
		Cache:     cache,
	}
	if opts.budget > 0 {
		run.Deadline = start.Add(opts.budget)
	}
	interrupt := watchInterrupts()
	defer interrupt.release()
	run.Stop = interrupt.stopped
	progress := newProgress(stderr, opts.progress)
	// Spaces are per scenario; enumerate each once.
	spaces := map[string]*sweepSpace{}
	var results []sweepResult
	var records *sweep.Writer
	info := stdout
	if opts.shard != "" {
		records = sweep.NewWriter(stdout)
		defer records.Flush()
		info = stderr
	} else if opts.json {
		info = stderr
	}
	checkedNow, reused := 0, 0
	for _, v := range variants {
		if interrupt.stopped() {
			break
		}
		sp, ok := spaces[v.key()]
		if !ok {
			if sp, err = newSweepSpace(v, opts.ranges, run.Deadline, interrupt.stopped); err != nil {
				if interrupt.stopped() {
					break
				}
				fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
				if !run.Deadline.IsZero() && time.Now().After(run.Deadline) {
					fmt.Fprintf(stderr, "reproduce: %s\n", commandLine(append([]string{"sweep"}, args...)))
					return exitIncomplete
				}
				return exitUsage
			}
			spaces[v.key()] = sp
			fmt.Fprintf(info, "kvcheck sweep: %s: %d configurations (%d combinations, %d invalid, %d equivalent to another)\n  ranges: %s\n",
				v.scenario.Name, len(sp.configs), sp.stats.Combinations, sp.stats.Invalid, sp.stats.Equivalent, strings.Join(sp.ranges, " "))
		}
		sv := sweep.Variant{Scenario: v.scenario, Fixes: v.fixes}
		header := sp.header(sv, shard, run)
		header.ConfigFile = v.path
		part := sweep.Part{Header: header}
		run.Cover = coverage.sink()
		progress.begin(fmt.Sprintf("kvcheck sweep %s (%s)", v.scenario.Name, v.fixes.Label()))
		cached := sweep.Run(sv, sp.configs, run, func(r sweep.Record) {
			part.Records = append(part.Records, r)
			coverage.addConfig(&sp.configs[r.Index].Config)
			progress.update(func(elapsed time.Duration) string {
				return fmt.Sprintf("%d of %d configurations, %d configurations/s, %.1fs", len(part.Records), len(sp.configs), perSecond(len(part.Records), elapsed), elapsed.Seconds())
			})
		})
		progress.end()
		coverage.add(v.scenario.Name, run.Cover)
		checkedNow += len(part.Records) - cached
		reused += cached
		part.Header.Stopped = !run.Deadline.IsZero() && time.Now().After(run.Deadline)
		if records != nil {
			if err := writePart(records, part); err != nil {
				fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
				return exitUsage
			}
			continue
		}
		var rep sweep.Report
		if interrupt.stopped() {
			// No seed check after an interrupt: report what was checked.
			rep, err = sweep.Fold([]sweep.Part{part})
			rep.Seed, rep.Reproduce = "not checked (interrupted)", sweepCommand(part.Header)
			rep.Finding = fmt.Sprintf("interrupted by %s: no violation in the %d of %d configurations checked", interrupt.signalName(), rep.Configurations, rep.Needed)
			if s := rep.Smallest; s != nil {
				rep.Finding = fmt.Sprintf("interrupted by %s; so far configuration #%d (%s) breaks %s after %d steps", interrupt.signalName(), s.Index, s.Size(), s.Invariant, s.Steps)
			}
		} else {
			rep, err = foldAndAnnotate([]sweep.Part{part}, cache)
		}
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck sweep: %v\n", err)
			return exitUsage
		}
		results = append(results, sweepResult{rep, sv, part.Header, pressureGoalsMissing(rep, v.file)})
	}
	elapsed := time.Since(start)
	if interrupt.stopped() {
		kept := "no results cache (--no-cache), so a rerun checks them again"
		if cache != nil {
			kept = fmt.Sprintf("their results are stored in the cache %s, so the same command continues from there", cache.Dir())
		}
		fmt.Fprintf(info, "kvcheck sweep: interrupted by %s after %.1fs: %d configurations checked now, %d reused from the cache, in %d of %d variants; %s\n",
			interrupt.signalName(), elapsed.Seconds(), checkedNow, reused, len(results), len(variants), kept)
	}
	if records != nil {
		fmt.Fprintf(info, "kvcheck sweep: shard %s: %d configurations checked, %d from the cache, in %.1fs; fold the shards with kvcheck merge\n",
			shard, checkedNow, reused, elapsed.Seconds())
		if interrupt.stopped() {
			return exitInterrupted
		}
		return exitOK
	}
	if interrupt.stopped() {
		// Said above.
	} else if cache != nil {
		if checkedNow == 0 && reused > 0 {
			fmt.Fprintf(info, "warm cache: all %d results reused from %s, nothing rechecked (%.2fs)\n", reused, cache.Dir(), elapsed.Seconds())
		} else {
			fmt.Fprintf(info, "cache: %d results reused, %d checked now and stored in %s (%.1fs)\n", reused, checkedNow, cache.Dir(), elapsed.Seconds())
		}
	} else {
		fmt.Fprintf(info, "%d configurations checked in %.1fs\n", checkedNow, elapsed.Seconds())
	}
	status := reportSweep(results, opts.json, opts.out, opts.rewrite, rewriteLine, "kvcheck sweep", &tri, stdout, stderr)
	if status != exitUsage && !interrupt.stopped() {
		// The profile is the verdict here: a violation it pins is expected.
		if expected != nil {
			status = expectProfiles(results, expected, "kvcheck sweep", info)
		} else if opts.writeProfile != "" {
			status = writeProfiles(opts.writeProfile, results, commandLine(append([]string{"sweep"}, args...)), "kvcheck sweep", info, stderr)
		}
	}
	if coverage != nil {
		coverage.print(stdout, opts.json, commandName()+" sweep "+strings.Join(args, " "))
	}
	if interrupt.stopped() && status != exitUsage {
		return exitInterrupted
	}
	return status
}

// sweepSpace is one scenario's enumerated space.
type sweepSpace struct {
	base    spec.Config
	ranges  []string
	configs []space.SpaceConfig
	stats   space.SpaceStats
}

// sweepVariant is a variant to sweep and where its space comes from.
type sweepVariant struct {
	scenario *scenario.Scenario
	fixes    spec.Fixes
	// path is the --config file of the scenario ("" for a built-in one);
	// ranges its sweep ranges, or the built-in scenario's defaults.
	path   string
	ranges []configfile.Range
	// file is the --config file read (nil for a built-in scenario): its
	// pressure goals are required of the sweep (config_pressure.go).
	file *configfile.File
}

// key names the variant's space.
func (v sweepVariant) key() string { return v.scenario.Name + "\x00" + v.path }

// sweepVariants expands --scenario, --config and --fix: each scenario (all
// built-in ones without --scenario or --config) under the --fix set or,
// without --fix, as the real code and with each of its fix sets. Unlike
// check, any fix may be swept on any scenario: whether a fix meant for one
// seed survives another's neighbourhood is a question a sweep answers.
func sweepVariants(opts sweepOptions) ([]sweepVariant, error) {
	var sources []sweepVariant
	for _, name := range opts.scenarios {
		sc, err := lookupScenario(name)
		if err != nil {
			return nil, err
		}
		src := sweepVariant{scenario: sc}
		for _, r := range space.DefaultRanges(sc.Name) {
			src.ranges = append(src.ranges, configfile.Range{Text: r})
		}
		sources = append(sources, src)
	}
	if err := oneStdin(opts.configs); err != nil {
		return nil, err
	}
	for _, path := range opts.configs {
		f, err := loadConfig(path)
		if err != nil {
			return nil, fmt.Errorf("--config: %v", err)
		}
		ranges := f.Sweep
		if f.Pressure != nil {
			ranges = f.Pressure.Ranges // the file's kvcheck.sweep among them
		}
		if len(ranges) == 0 && len(opts.ranges) == 0 {
			return nil, fmt.Errorf("--config: %s: no sweep ranges; give a kvcheck.sweep mapping (YAML), sweep KEY=VALUES lines (configuration text) or --range", path)
		}
		sources = append(sources, sweepVariant{scenario: f.Scenario, path: path, ranges: ranges, file: f})
	}
	if len(opts.scenarios) == 0 && len(opts.configs) == 0 {
		for _, sc := range scenario.All() {
			src := sweepVariant{scenario: sc}
			for _, r := range space.DefaultRanges(sc.Name) {
				src.ranges = append(src.ranges, configfile.Range{Text: r})
			}
			sources = append(sources, src)
		}
	}
	var explicit *spec.Fixes
	if len(opts.fixes) > 0 {
		var names []string
		for _, n := range opts.fixes {
			if n != "none" {
				names = append(names, n)
			}
		}
		if len(names) > 0 && len(names) < len(opts.fixes) {
			return nil, fmt.Errorf("--fix none (the real code alone) cannot be combined with another --fix")
		}
		fixes, err := parseFixes(names)
		if err != nil {
			return nil, err
		}
		explicit = &fixes
	}
	var out []sweepVariant
	for _, src := range sources {
		if explicit != nil {
			src.fixes = *explicit
			out = append(out, src)
			continue
		}
		for _, fixes := range src.scenario.Variants() {
			src.fixes = fixes
			out = append(out, src)
		}
	}
	return out, nil
}

// newSweepSpace builds the space of a variant's scenario: its
// configuration under its ranges (the file's, or the built-in scenario's
// defaults), each replaced by a --range of the same key.
func newSweepSpace(v sweepVariant, flagRanges []string, deadline time.Time, stop func() bool) (*sweepSpace, error) {
	base := v.scenario.Config
	type src struct {
		text  string
		line  int
		where string
	}
	var order []string
	byKey := map[string]src{}
	add := func(r string, line int, where string) {
		key, _, _ := strings.Cut(r, "=")
		key = strings.TrimSpace(key)
		if _, ok := byKey[key]; !ok {
			order = append(order, key)
		}
		byKey[key] = src{r, line, where}
	}
	for _, r := range v.ranges {
		where := v.path
		if where == "" {
			where = "scenario " + v.scenario.Name + "'s default range"
		}
		add(r.Text, r.Line, where)
	}
	for _, r := range flagRanges {
		add(r, 0, "--range")
	}
	var ranges []string
	for _, k := range order {
		s := byKey[k]
		if _, err := space.NewConfigSpace(base, []string{s.text}, []int{s.line}); err != nil {
			return nil, fmt.Errorf("%s: %v", s.where, err)
		}
		ranges = append(ranges, s.text)
	}
	cs, err := space.NewConfigSpace(base, ranges, nil)
	if err != nil {
		return nil, err
	}
	configs, stats, err := enumerateWithin(cs, deadline, stop)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", v.scenario.Name, err)
	}
	if len(configs) == 0 {
		return nil, fmt.Errorf("%s: no valid configuration in the ranges (%d combinations, all invalid: pools must hold the longest request, see Config.Validate)", v.scenario.Name, stats.Combinations)
	}
	return &sweepSpace{base: base, ranges: cs.Ranges(), configs: configs, stats: stats}, nil
}

// enumerateWithin is cs.Enumerate bounded by the sweep's --time deadline
// (zero: none) and its interrupt: a space that takes long to enumerate
// ends the sweep at its budget instead of ignoring it.
func enumerateWithin(cs *space.ConfigSpace, deadline time.Time, stop func() bool) ([]space.SpaceConfig, space.SpaceStats, error) {
	start := time.Now()
	configs, stats, err := cs.EnumerateUntil(func() bool {
		return stop() || !deadline.IsZero() && time.Now().After(deadline)
	})
	if errors.Is(err, space.ErrEnumerationStopped) {
		if stop() {
			return nil, stats, fmt.Errorf("interrupted while enumerating the space")
		}
		return nil, stats, fmt.Errorf("the --time budget ran out after %.1fs while enumerating the space (%d combinations so far), before any configuration was checked; narrow the ranges", time.Since(start).Seconds(), stats.Combinations)
	}
	return configs, stats, err
}

// header is the sweep header of variant v on this space.
func (sp *sweepSpace) header(v sweep.Variant, shard sweep.Shard, run sweep.Options) sweep.Header {
	base := configtext.Format(&sp.base)
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%+v\x00%v\x00%d", base, strings.Join(sp.ranges, "\x00"), run.Search, run.KeepGoing, len(sp.configs))))
	return sweep.Header{
		Scenario: v.Scenario.Name, Fixes: v.Fixes.Names(), Total: len(sp.configs), Shard: shard.String(),
		Space: hex.EncodeToString(h[:12]), Engine: sweep.EngineHash()[:24],
		Ranges: sp.ranges, Base: base, Search: run.Search, KeepGoing: run.KeepGoing,
	}
}

// writePart writes a variant's header and records as JSON lines.
func writePart(w *sweep.Writer, p sweep.Part) error {
	if err := w.Header(p.Header); err != nil {
		return err
	}
	for _, r := range p.Records {
		if err := w.Record(r); err != nil {
			return err
		}
	}
	return w.Flush()
}

// sweepResult is a variant's report with what made it.
type sweepResult struct {
	report  sweep.Report
	variant sweep.Variant
	header  sweep.Header
	// vacuous are the pressure goals of a --config file's sweep that no
	// configuration reached: its ok says nothing there (exit 1).
	vacuous []string
}

// foldAndAnnotate folds the parts of one variant and completes the report
// (its checks through cache when it is not nil).
func foldAndAnnotate(parts []sweep.Part, cache *sweep.Cache) (sweep.Report, error) {
	rep, err := sweep.Fold(parts)
	if err != nil {
		return rep, err
	}
	h := parts[0].Header
	sc, err := sweepScenario(h)
	if err != nil {
		return rep, err
	}
	fixes, err := spec.ParseFixes(h.Fixes)
	if err != nil {
		return rep, err
	}
	base, err := configtext.Parse(spec.Config{}, h.Base)
	if err != nil {
		return rep, fmt.Errorf("the sweep's base configuration: %v", err)
	}
	if err := sweep.Annotate(&rep, sweep.Variant{Scenario: sc, Fixes: fixes}, base, h.Search, cache); err != nil {
		return rep, err
	}
	rep.Reproduce = sweepCommand(h)
	return rep, nil
}

// sweepScenario is the scenario a sweep header names: the --config file's
// (read again), or the built-in one.
func sweepScenario(h sweep.Header) (*scenario.Scenario, error) {
	sc, _, err := sweepSource(h)
	return sc, err
}

// sweepSource is sweepScenario with the --config file it was read from
// (nil for a built-in scenario).
func sweepSource(h sweep.Header) (*scenario.Scenario, *configfile.File, error) {
	if h.ConfigFile == "" {
		sc, err := lookupScenario(h.Scenario)
		return sc, nil, err
	}
	f, err := loadConfig(h.ConfigFile)
	if err != nil {
		return nil, nil, fmt.Errorf("the sweep's --config file: %v", err)
	}
	return f.Scenario, f, nil
}

// sweepCommand is the command that re-runs a variant's sweep.
func sweepCommand(h sweep.Header) string {
	fixes := h.Fixes
	if len(fixes) == 0 {
		fixes = []string{"none"}
	}
	parts := []string{commandName(), "sweep", "--scenario", h.Scenario}
	if h.ConfigFile != "" {
		parts = []string{commandName(), "sweep", "--config", h.ConfigFile}
	}
	for _, f := range fixes {
		parts = append(parts, "--fix", f)
	}
	for _, r := range h.Ranges {
		parts = append(parts, "--range", r)
	}
	if h.Search.Depth != 0 {
		parts = append(parts, "--depth", fmt.Sprint(h.Search.Depth))
	}
	if h.Search.MaxStates != defaultSweepMaxStates {
		parts = append(parts, "--max-states", fmt.Sprint(h.Search.MaxStates))
	}
	if !h.Search.Liveness {
		parts = append(parts, "--liveness=false")
	}
	parts = symmetryArgs(parts, h.Search.Symmetry)
	all := specInvariantNames()
	if n := len(h.Search.Invariants); n > len(all)/2 {
		// Most invariants kept: name those left out.
		for _, name := range all {
			if !slices.Contains(h.Search.Invariants, name) {
				parts = append(parts, "--skip-invariant", name)
			}
		}
	} else {
		for _, name := range h.Search.Invariants {
			parts = append(parts, "--invariant", name)
		}
	}
	if h.KeepGoing {
		parts = append(parts, "--keep-going")
	}
	return strings.Join(parts, " ")
}

// defaultCacheDir is the user's cache directory's kvcheck/sweep, or "" (no
// cache) when there is none.
func defaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "kvcheck", "sweep")
}

// jsonLine prints v as one JSON line.
func jsonLine(w io.Writer, v any) {
	data, _ := json.Marshal(v)
	fmt.Fprintln(w, string(data))
}

func init() {
	commandHelp["sweep"] = struct{ synopsis, about, example string }{
		"kvcheck sweep [--scenario NAME]... [--config FILE]... [--fix NAME]... [--range KEY=VALUES]... [--shard i/n] [--time DUR] [flags]",
		"Check each variant on every valid configuration in ranges around a scenario's, smallest first, each equivalence\nclass once: the smallest counterexample (fewest requests, pages, ranks, then the shortest trace) or that the\nfix holds on all. Results are cached by configuration, variant and a hash of the spec and engine. Exit 0 all\nhold, 1 a violation, 2 bad usage, 3 incomplete (--time ran out) without a violation. See docs/sweep.md.",
		"kvcheck sweep --scenario adp-dummy-leak --fix free-unpaired-mirror\n  kvcheck sweep --scenario draft-admission --shard 0/4 > shard-0.jsonl",
	}
	commandHelp["merge"] = struct{ synopsis, about, example string }{
		"kvcheck merge [--json] [--out DIR] FILE...",
		"Fold the JSON-lines results of a sweep's shards (kvcheck sweep --shard i/n) into the report one run prints;\nmissing shards make it incomplete (exit 3).",
		"kvcheck merge shard-*.jsonl",
	}
}
