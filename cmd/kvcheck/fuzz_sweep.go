package main

import (
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/cmd/internal/triage"
	"github.com/kvcheck/kvcheck/counterexamples"
	"github.com/kvcheck/kvcheck/fuzz"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/space"
)

// fuzzSweepReport is one line of `kvcheck fuzz --sweep --json`: what the
// walks found on random configurations around one variant's scenario.
type fuzzSweepReport struct {
	Scenario string   `json:"scenario"`
	Fixes    []string `json:"fixes"`
	Result   string   `json:"result"`
	// Configurations is how many random valid configurations were walked
	// (Invalid draws were skipped), Violating how many broke an invariant.
	Configurations int `json:"configurations"`
	Invalid        int `json:"invalid"`
	Violating      int `json:"violating"`
	// States and Walks add up the walks of every configuration.
	States int    `json:"states"`
	Walks  int    `json:"walks"`
	Seed   uint64 `json:"seed"`
	// Smallest is the smallest violating configuration (fewest requests,
	// pages, ranks, then the shortest shrunk trace): Draw is its number
	// in the seed's sequence of draws.
	Smallest  *fuzzSweepFind `json:"smallest,omitempty"`
	Reproduce string         `json:"reproduce"`
}

// fuzzSweepFind is a violation on one random configuration.
type fuzzSweepFind struct {
	Draw      int      `json:"draw"`
	Requests  int      `json:"requests"`
	Pages     int      `json:"pages"`
	Ranks     int      `json:"ranks"`
	Config    string   `json:"config"`
	Invariant string   `json:"invariant"`
	Message   string   `json:"message"`
	Steps     int      `json:"steps"`
	Trace     []string `json:"trace"`
	actions   []spec.Action
	Triage    *triage.Report `json:"triage,omitempty"`
}

// defaultSweepWalks is the walks per random configuration when --walks is
// not given.
const defaultSweepWalks = 64

// runFuzzSweep is `kvcheck fuzz --sweep`: for each variant, random
// configurations around its scenario's (space.RandomConfig: the scenario's
// shape, sizes and requests beyond any sweep's bounds), each walked
// --walks times (default 64) under the variant's fixes, until the
// variant's share of --time. The configurations drawn follow from --seed;
// the smallest violating one is shrunk, printed and, with --out, written
// as a transcript. Exit 1 on a violation, else 3: random walks prove
// nothing.
func runFuzzSweep(opts fuzzOptions, variants []variant, stdout, stderr io.Writer) int {
	walks := opts.walks
	if walks == 0 {
		walks = defaultSweepWalks
	}
	if opts.duration == 0 {
		fmt.Fprintln(stderr, "kvcheck fuzz: --sweep needs a --time budget")
		return exitUsage
	}
	deadline := time.Now().Add(opts.duration)
	status := exitIncomplete
	var files []namedFile
	for i, v := range variants {
		share := max(time.Until(deadline)/time.Duration(len(variants)-i), time.Millisecond)
		r := fuzzSweepVariant(v, opts.seed, walks, time.Now().Add(share))
		r.Reproduce = strings.Join(append(variantCommand("fuzz", v), "--sweep", "--seed", fmt.Sprint(opts.seed),
			"--walks", fmt.Sprint(walks), "--time", opts.duration.String()), " ")
		if r.Smallest != nil {
			status = exitViolation
			opts.triage.fuzzSweep(v, r.Smallest, stderr)
		}
		if opts.json {
			jsonLine(stdout, r)
		} else {
			printFuzzSweep(stdout, r)
		}
		if r.Smallest != nil && opts.out != "" {
			f, err := fuzzSweepTranscript(v, r)
			if err != nil {
				fmt.Fprintf(stderr, "kvcheck fuzz: --out: %v\nreproduce: %s\n", err, r.Reproduce)
				return exitUsage
			}
			files = append(files, f)
		}
	}
	if opts.out != "" && len(files) > 0 {
		w := stdout
		if opts.json {
			w = stderr
		}
		if _, code := writeNewFiles(opts.out, opts.rewrite, files, "kvcheck fuzz", opts.rewriteLine, w, stderr); code != exitOK {
			return code
		}
	}
	return status
}

// fuzzSweepVariant walks random configurations of v until the deadline.
func fuzzSweepVariant(v variant, seed uint64, walks int, deadline time.Time) fuzzSweepReport {
	r := fuzzSweepReport{Scenario: v.scenario.Name, Fixes: v.fixes.Names(), Result: verdictIncomplete, Seed: seed}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var best *fuzzSweepFind
	for draw := 1; time.Now().Before(deadline); draw++ {
		cfg := space.RandomConfig(rng, v.scenario.Config)
		sp, err := spec.New(cfg, v.fixes)
		if err != nil {
			r.Invalid++
			continue
		}
		sp.Scenario = v.scenario.Info()
		r.Configurations++
		res := fuzz.Run(sp, fuzz.Options{Seed: seed ^ uint64(draw), Workers: 1, Walks: walks})
		r.States += res.States
		r.Walks += res.Walks
		found := res.Violation
		if found == nil {
			continue
		}
		r.Violating++
		f := &fuzzSweepFind{Draw: draw, Requests: len(cfg.Requests), Pages: spec.ConfigPages(&cfg), Ranks: int(cfg.Ranks),
			Config: configtext.Format(&cfg), Invariant: found.Invariant, Message: found.Message, actions: found.Trace}
		if best == nil || smallerFind(f, best) {
			best = f
		}
	}
	if best != nil {
		// Shrink only the one reported.
		cfg, _ := configtext.Parse(spec.Config{}, best.Config)
		sp, _ := spec.New(cfg, v.fixes)
		sp.Scenario = v.scenario.Info()
		if shrunk, err := fuzz.Shrink[spec.State, spec.Action](sp, best.actions, fuzz.Key{Invariant: best.Invariant}, fuzz.KVShrinkOptions()); err == nil {
			best.actions = shrunk.Trace
		}
		best.Steps = len(best.actions)
		for _, a := range best.actions {
			best.Trace = append(best.Trace, a.String())
		}
		r.Result = "violation"
		r.Smallest = best
	}
	return r
}

// smallerFind orders finds: fewest requests, pages, ranks, then the
// shortest trace, then the earliest draw.
func smallerFind(a, b *fuzzSweepFind) bool {
	return cmp.Or(cmp.Compare(a.Requests, b.Requests), cmp.Compare(a.Pages, b.Pages), cmp.Compare(a.Ranks, b.Ranks),
		cmp.Compare(len(a.actions), len(b.actions)), cmp.Compare(a.Draw, b.Draw)) < 0
}

// printFuzzSweep prints a variant's result and its smallest find.
func printFuzzSweep(w io.Writer, r fuzzSweepReport) {
	fmt.Fprintf(w, "%s (%s): %s: %d random configurations walked (%d walks, %d states; %d invalid draws skipped), %d violating\n",
		r.Scenario, fixesTitle(r.Fixes), r.Result, r.Configurations, r.Walks, r.States, r.Invalid, r.Violating)
	if s := r.Smallest; s != nil {
		size := (&sweep.Smallest{Requests: s.Requests, Pages: s.Pages, Ranks: s.Ranks}).Size()
		fmt.Fprintf(w, "  smallest: draw %d (%s): %s\n  %s\n", s.Draw, size, s.Invariant, s.Message)
		for _, line := range strings.Split(strings.TrimSpace(counterexamples.ConfigText(mustConfig(s.Config))), "\n") {
			fmt.Fprintf(w, "    %s\n", line)
		}
		fmt.Fprintf(w, "  shrunk trace (%d steps):\n", s.Steps)
		for j, line := range s.Trace {
			fmt.Fprintf(w, "  %4d  %s\n", j+1, line)
		}
		printTriage(w, s.Triage, "  ")
	}
	fmt.Fprintf(w, "  reproduce: %s\n", r.Reproduce)
}

// fuzzSweepTranscript writes a variant's smallest find as a transcript.
func fuzzSweepTranscript(v variant, r fuzzSweepReport) (namedFile, error) {
	s := r.Smallest
	cfg, err := configtext.Parse(spec.Config{}, s.Config)
	if err != nil {
		return namedFile{}, err
	}
	sp, err := spec.New(cfg, v.fixes)
	if err != nil {
		return namedFile{}, err
	}
	sp.Scenario = v.scenario.Info()
	name := strings.TrimSuffix(counterexamples.FileName(v.scenario.Name, v.fixes, ""), "ok.txt") + "fuzz-sweep." + s.Invariant + ".txt"
	data, err := counterexamples.Write(counterexamples.Counterexample{
		Spec: sp, Trace: s.actions, Invariant: s.Invariant, Message: s.Message, FoundBy: r.Reproduce, Triage: bannerTriage(s.Triage),
		Search: fmt.Sprintf("random walks on %d random configurations; the smallest violating one (draw %d), its trace shrunk", r.Configurations, s.Draw),
	})
	if err != nil {
		return namedFile{}, fmt.Errorf("%s: %v", name, err)
	}
	return namedFile{name: name, data: data, summary: fmt.Sprintf("%s after %d steps", s.Invariant, s.Steps)}, nil
}
