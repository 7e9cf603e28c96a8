package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kvcheck/kvcheck/cmd/internal/configfile"
	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/spf13/pflag"
)

// pressureOptions are check's flags for the pressure sweep of a
// TensorRT-LLM options file (configfile.Pressure): on by default, with the
// sweep's results cache and shards.
type pressureOptions struct {
	on       bool   // --pressure
	cacheDir string // --cache
	noCache  bool   // --no-cache
	shard    string // --shard i/n
}

// addPressureFlags registers check's pressure flags.
func addPressureFlags(flags *pflag.FlagSet, o *pressureOptions) {
	flags.BoolVar(&o.on, "pressure", true, "check a TensorRT-LLM options file (--config) on the pressure sweep around its sizes, requiring each pool to fill, a refusal and an eviction (--pressure=false: its derived configuration alone, which must reach them too)")
	flags.StringVar(&o.cacheDir, "cache", defaultCacheDir(), "results cache of the pressure sweeps and the triage re-checks (shared with kvcheck sweep)")
	flags.BoolVar(&o.noCache, "no-cache", false, "neither read nor write the results cache")
	flags.StringVar(&o.shard, "shard", "", "i/n: check only shard i of n of each --config file's pressure sweep and print its results as JSON lines for kvcheck merge")
}

// triagePressure is the hook where the triage of a pressure sweep's
// smallest counterexample (issue 20: what it depends on, whether it is a
// known bug) plugs in: called with the variant's report once the sweep is
// folded, it may print its triage on w. nil: no triage yet; the report
// names the fixes that close the counterexample (sweep.Annotate).
var triagePressure func(w io.Writer, rep sweep.Report, v sweep.Variant)

// pressureRun checks the pressure variants of one `kvcheck check` run: it
// holds their results cache and the shard, and, per scenario, the real
// code's smallest counterexample, which the fix variants' transcripts
// replay (check_out.go).
type pressureRun struct {
	opts  checkOptions
	cache *sweep.Cache
	shard sweep.Shard
	// info is where the sweep's lines go (stderr under --json or --shard).
	info io.Writer
	// realCode is, per scenario, the scenario at its real code's smallest
	// counterexample.
	realCode map[string]*scenario.Scenario
}

// newPressureRun opens the cache and parses the shard.
func newPressureRun(opts checkOptions, info io.Writer) (*pressureRun, error) {
	pr := &pressureRun{opts: opts, info: info, realCode: map[string]*scenario.Scenario{}}
	if opts.pressure.shard != "" {
		s, err := sweep.ParseShard(opts.pressure.shard)
		if err != nil {
			return nil, err
		}
		pr.shard = s
	}
	return pr, nil
}

// openCache opens the results cache for the first pressure variant (a run
// of built-in scenarios alone touches no cache directory).
func (pr *pressureRun) openCache() error {
	if pr.cache != nil || pr.opts.pressure.noCache || pr.opts.pressure.cacheDir == "" || pr.opts.coverage != nil {
		return nil
	}
	c, err := sweep.OpenCache(pr.opts.pressure.cacheDir)
	if err != nil {
		return fmt.Errorf("%v (--no-cache to run without)", err)
	}
	pr.cache = c
	return nil
}

// close flushes the cache.
func (pr *pressureRun) close() {
	if pr.cache != nil {
		pr.cache.Close()
	}
}

// defaultPressureMaxStates bounds each configuration's search in a
// pressure sweep unless --max-states is given: above a sweep's default,
// since a deployment's own configuration is often larger than a built-in
// scenario's, below check's, since a sweep checks hundreds.
const defaultPressureMaxStates = 1_000_000

// search is the bound of each configuration's search: check's flags, with
// defaultPressureMaxStates unless --max-states is given.
func (pr *pressureRun) search() sweep.Search {
	maxStates := defaultPressureMaxStates
	if pr.opts.maxStates != defaultMaxStates {
		maxStates = pr.opts.maxStates
	}
	// --skip-invariant narrows the sweep as it narrows a check (runCheck
	// has refused a narrowing that leaves nothing).
	kept, _ := narrowInvariants(specInvariantNames(), pr.opts.only, pr.opts.skip)
	return sweep.Search{Depth: pr.opts.depth, MaxStates: maxStates, Liveness: pr.opts.liveness, Invariants: kept, Named: pr.opts.only, Symmetry: pr.opts.symmetry}
}

// space enumerates a pressure variant's configurations (and opens the
// cache they are checked through).
func (pr *pressureRun) space(v variant) (*sweepSpace, error) {
	if err := pr.openCache(); err != nil {
		return nil, err
	}
	return newSweepSpace(sweepVariant{scenario: v.scenario, path: v.configPath, ranges: v.pressure.Ranges}, nil, time.Time{}, pr.opts.interrupt.stopped)
}

// run sweeps v's space and folds the records; emit, when not nil, gets
// every record (a shard's output).
func (pr *pressureRun) run(v variant, sp *sweepSpace) (sweep.Part, int) {
	sv := sweep.Variant{Scenario: v.scenario, Fixes: v.fixes}
	run := sweep.Options{Search: pr.search(), Workers: pr.opts.workers, KeepGoing: pr.opts.keepGoing, Shard: pr.shard, Cache: pr.cache,
		Cover: pr.opts.coverage.sink()} // --cover: no cache is opened, so every configuration counts
	header := sp.header(sv, pr.shard, run)
	header.ConfigFile = v.configPath
	part := sweep.Part{Header: header}
	cached := sweep.Run(sv, sp.configs, run, func(r sweep.Record) { part.Records = append(part.Records, r) })
	pr.opts.coverage.add(v.scenario.Name, run.Cover)
	return part, cached
}

// check is the pressure sweep of one variant as a check report, and the
// variant its transcripts are written for (its scenario at the
// configuration of the counterexample).
func (pr *pressureRun) check(v variant) (checkReport, variant, error) {
	start := time.Now()
	sp, err := pr.space(v)
	if err != nil {
		return checkReport{}, v, err
	}
	fmt.Fprintf(pr.info, "kvcheck: %s (%s): pressure sweep of %d configurations, smallest first (%s); goals required: %s\n",
		v.scenario.Name, fixesLabel(v.fixes), len(sp.configs), strings.Join(sp.ranges, " "), strings.Join(v.pressure.Goals, ", "))
	part, _ := pr.run(v, sp)
	rep, err := foldAndAnnotate([]sweep.Part{part}, pr.cache)
	if err != nil {
		return checkReport{}, v, err
	}
	r := checkReport{
		Scenario: v.scenario.Name, Fixes: v.fixes.Names(), Result: "ok", Complete: rep.Complete,
		Goals: map[string]bool{}, Liveness: pr.opts.liveness, Symmetric: pr.opts.symmetry, Trace: []string{},
		Reproduce: reproduceCommand(v, pr.opts), Seconds: time.Since(start).Seconds(),
		kept: pr.search().Invariants, noLiveness: !pr.opts.liveness,
	}
	for _, rec := range part.Records {
		r.States += rec.States
	}
	for _, g := range v.scenario.Goals {
		r.Goals[g.Name] = rep.Goals[g.Name] > 0
	}
	if s := rep.Smallest; s != nil {
		fmt.Fprintf(pr.info, "kvcheck: %s (%s): %d of %d configurations checked, up to the size class of #%d, the smallest that breaks %s\n",
			v.scenario.Name, fixesLabel(v.fixes), rep.Configurations, rep.Total, s.Index, s.Invariant)
	} else {
		var counts []string
		for _, g := range v.pressure.Goals {
			counts = append(counts, fmt.Sprintf("%s %d", g, rep.Goals[g]))
		}
		fmt.Fprintf(pr.info, "kvcheck: %s (%s): %d of %d configurations checked; configurations reaching each pressure goal: %s\n",
			v.scenario.Name, fixesLabel(v.fixes), rep.Configurations, rep.Total, strings.Join(counts, ", "))
	}
	if triagePressure != nil {
		triagePressure(pr.info, rep, sweep.Variant{Scenario: v.scenario, Fixes: v.fixes})
	}
	if s := rep.Smallest; s != nil {
		cfg, err := configtext.Parse(spec.Config{}, s.Config)
		if err != nil {
			return r, v, fmt.Errorf("configuration #%d: %v", s.Index, err)
		}
		at := *v.scenario
		at.Config = cfg
		sp, err := spec.New(cfg, v.fixes)
		if err != nil {
			return r, v, err
		}
		for _, line := range s.Trace {
			a, err := sp.ParseAction(line)
			if err != nil {
				return r, v, fmt.Errorf("configuration #%d: trace line %q: %v", s.Index, line, err)
			}
			r.actions = append(r.actions, a)
		}
		r.Result, r.Invariant, r.Steps, r.Trace, r.Depth = "violation", s.Invariant, s.Steps, s.Trace, s.Steps
		r.Message = fmt.Sprintf("%s (configuration #%d of the pressure sweep, %s: %s)", s.Message, s.Index, s.Size(), differingSettings(v.scenario.Config, cfg))
		if len(rep.ClosedBy) > 0 {
			r.Message += "; closed by " + strings.Join(rep.ClosedBy, ", ")
		}
		if rep.Seed != "" {
			r.Message += "; at the file's own sizes: " + rep.Seed
		}
		v.scenario = &at
		if v.fixes == 0 {
			pr.realCode[at.Name] = &at
		}
		return r, v, nil
	}
	if real, ok := pr.realCode[v.scenario.Name]; ok {
		// This fix holds on the whole sweep, so on the configuration the
		// real code breaks at too: its transcript replays that trace there.
		v.scenario = real
	}
	if rep.Configurations < rep.Needed || !rep.Complete {
		r.Result = verdictIncomplete
		r.Message = fmt.Sprintf("no violation in %d of %d configurations of the pressure sweep, but %d searches stopped at their --depth or --max-states %d budget (or the sweep was cut short); nothing is proved",
			rep.Configurations, rep.Total, rep.Configurations-rep.Exhaustive, pr.search().MaxStates)
		return r, v, nil
	}
	var missing []string
	for _, g := range v.pressure.Goals {
		if rep.Goals[g] == 0 {
			def, _ := spec.LookupGoal(g)
			missing = append(missing, fmt.Sprintf("%s (%s)", g, def.Doc))
		}
	}
	if len(missing) > 0 {
		r.Result, r.Invariant = "violation", unreachedGoal
		r.Message = fmt.Sprintf("vacuous: none of the %d configurations of the pressure sweep reached %s, so this check says nothing about what the code does there; send more requests or longer ones (kvcheck.requests) until it does", rep.Configurations, strings.Join(missing, "; "))
	}
	return r, v, nil
}

// shardOnly is `kvcheck check --config FILE --shard i/n`: each pressure
// variant's records of the shard, as JSON lines on stdout for kvcheck
// merge, which folds them and applies the pressure goals.
func (pr *pressureRun) shardOnly(variants []variant, stdout, stderr io.Writer) int {
	w := sweep.NewWriter(stdout)
	defer w.Flush()
	for _, v := range variants {
		if v.pressure == nil {
			fmt.Fprintf(stderr, "kvcheck check: --shard splits the pressure sweeps of TensorRT-LLM options files; %s is not one (check it without --shard)\n", v.scenario.Name)
			return exitUsage
		}
		sp, err := pr.space(v)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
			return exitUsage
		}
		part, cached := pr.run(v, sp)
		if err := writePart(w, part); err != nil {
			fmt.Fprintf(stderr, "kvcheck check: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stderr, "kvcheck check: %s (%s): shard %s: %d configurations checked, %d from the cache; fold the shards with kvcheck merge\n",
			v.scenario.Name, fixesLabel(v.fixes), pr.shard, len(part.Records)-cached, cached)
	}
	return exitOK
}

// differingSettings names the settings of at that differ from base: where
// in the pressure sweep a configuration lies.
func differingSettings(base, at spec.Config) string {
	settings := func(c *spec.Config) []string {
		var out []string
		for _, line := range strings.Split(configtext.Format(c), "\n") {
			if !strings.HasPrefix(line, "request") {
				out = append(out, strings.Fields(line)...)
			}
		}
		return out
	}
	want := map[string]string{}
	for _, f := range settings(&base) {
		if k, v, ok := strings.Cut(f, "="); ok {
			want[k] = v
		}
	}
	var diff []string
	for _, f := range settings(&at) {
		if k, v, ok := strings.Cut(f, "="); ok && want[k] != v {
			diff = append(diff, f)
		}
	}
	if len(diff) == 0 {
		return "the file's own sizes"
	}
	return strings.Join(diff, " ")
}

// pressureGoalsMissing are the pressure goals of a --config file's sweep
// report that no configuration reached (kvcheck sweep and merge, which
// read the file again).
func pressureGoalsMissing(rep sweep.Report, f *configfile.File) []string {
	if f == nil || f.Pressure == nil || rep.Result != sweep.ResultOK {
		return nil
	}
	var missing []string
	for _, g := range f.Pressure.Goals {
		if rep.Goals[g] == 0 {
			missing = append(missing, g)
		}
	}
	return missing
}
