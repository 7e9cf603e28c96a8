// Package sweep checks one variant (a scenario under a set of fixes) on
// every configuration of a space.ConfigSpace: the engine of `kvcheck sweep`
// and `kvcheck merge`. A run checks the configurations a shard owns, in
// parallel, one exhaustive search each, and emits one Record per
// configuration; Fold turns the records of one run, or of every shard's
// run, into the same Report.
package sweep

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/space"
)

// Variant is a scenario checked under a set of fixes.
type Variant struct {
	Scenario *scenario.Scenario
	Fixes    spec.Fixes
}

// Label is the variant as a transcript names it: "adp-dummy-leak.real-code".
func (v Variant) Label() string {
	name := "real-code"
	if names := v.Fixes.Names(); len(names) > 0 {
		name = joinPlus(names)
	}
	return v.Scenario.Name + "." + name
}

// Search bounds each configuration's exhaustive search.
type Search struct {
	// Depth is the maximum search depth (0: the scenario's).
	Depth int
	// MaxStates bounds each search's distinct states.
	MaxStates int
	// Liveness also looks for livelocks on complete searches.
	Liveness bool
	// Invariants, when given, are the only invariants checked.
	Invariants []string `json:",omitempty"`
	// Named are the invariants the user asked for by name (--invariant):
	// checked even on a scenario that reports them elsewhere
	// (scenario.Scenario.Checking).
	Named []string `json:",omitempty"`
	// Symmetry stores one state per orbit of interchangeable ranks
	// (model.Options.Symmetry): the same verdicts, fewer states.
	Symmetry bool `json:",omitempty"`
	// Match, when set, makes the search look for one violation only
	// (match.go): kvcheck triage asks whether a finding persists in a
	// changed configuration.
	Match *Match `json:",omitempty"`
}

// CheckInvariantNames reports a name that is not an invariant of the spec.
func CheckInvariantNames(names []string) error {
	sc := scenario.All()[0]
	sp, err := sc.Spec(0)
	if err != nil {
		return err
	}
	sp.Scenario = nil // every invariant, those sc reports elsewhere included
	valid := map[string]bool{}
	var all []string
	for _, inv := range sp.Invariants() {
		valid[inv.Name] = true
		all = append(all, inv.Name)
	}
	for _, n := range names {
		if !valid[n] {
			return fmt.Errorf("unknown invariant %q; valid invariants: %s", n, strings.Join(all, ", "))
		}
	}
	return nil
}

// Options shape a run.
type Options struct {
	Search Search
	// Workers check configurations in parallel (one search each).
	Workers int
	// KeepGoing checks every configuration; otherwise a run stops after the
	// size class (requests, pages, ranks) of its first violation, which is
	// where the smallest counterexample is.
	KeepGoing bool
	// Deadline stops taking new configurations (zero: none).
	Deadline time.Time
	// Stop, when it returns true (an interrupt), stops taking new
	// configurations and stops the searches under way; a search it stops
	// is neither emitted nor cached (nil: never).
	Stop  func() bool
	Shard Shard
	// Cache supplies and keeps results (nil: none).
	Cache *Cache
	// Cover counts the spec mechanisms the checked configurations exercise
	// (nil: none); results read from the cache add nothing to it.
	Cover *spec.Coverage
}

// Run checks v on the configurations of configs that opts.Shard owns and
// calls emit with each record, from one goroutine at a time, in no
// particular order. It returns how many records came from the cache.
func Run(v Variant, configs []space.SpaceConfig, opts Options, emit func(Record)) (cached int) {
	var owned []int
	for i := range configs {
		if opts.Shard.Owns(i) {
			owned = append(owned, i)
		}
	}
	// cutoff is the last index worth checking: the end of the size class
	// of the first violation seen.
	var cutoff atomic.Int64
	cutoff.Store(int64(len(configs)))
	var next atomic.Int64
	var mu sync.Mutex
	record := func(r Record) {
		mu.Lock()
		defer mu.Unlock()
		if r.Result == ResultViolation && !opts.KeepGoing {
			end := classEnd(configs, r.Index)
			if int64(end) < cutoff.Load() {
				cutoff.Store(int64(end))
			}
		}
		emit(r)
	}
	depth := opts.Search.Depth
	if depth == 0 {
		depth = v.Scenario.Depth
	}
	workers := max(opts.Workers, 1)
	if workers > runtime.NumCPU()*4 {
		workers = runtime.NumCPU() * 4
	}
	var fromCache atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(owned) {
					return
				}
				i := owned[k]
				if int64(i) > cutoff.Load() {
					return
				}
				if !opts.Deadline.IsZero() && time.Now().After(opts.Deadline) {
					return
				}
				if opts.Stop != nil && opts.Stop() {
					return
				}
				key := ""
				if opts.Cache != nil {
					key = opts.Cache.Key(v, opts.Search, configs[i].Key)
					if r, ok := opts.Cache.Lookup(v, key); ok {
						// The size and text are the configuration's, not the
						// result's: a record stored by Annotate has none.
						c := &configs[i]
						r.Index, r.Requests, r.Pages, r.Ranks = i, c.Requests, c.Pages, c.Ranks
						if r.Result == ResultViolation {
							r.Config = c.Text()
						}
						fromCache.Add(1)
						record(r)
						continue
					}
				}
				r, stopped := checkOne(v, &configs[i], opts.Search, depth, opts.Cover, opts.Stop)
				if stopped {
					return
				}
				r.Index = i
				if opts.Cache != nil {
					opts.Cache.Store(v, key, r)
				}
				record(r)
			}
		}()
	}
	wg.Wait()
	return int(fromCache.Load())
}

// classEnd is the last index of the size class of configs[i] (configs are
// sorted, so a class is contiguous).
func classEnd(configs []space.SpaceConfig, i int) int {
	key := configs[i].SizeKey()
	for i+1 < len(configs) && configs[i+1].SizeKey() == key {
		i++
	}
	return i
}

// checkOne runs the exhaustive search of v on one configuration; stopped
// says stop ended it first (its record then means nothing).
func checkOne(v Variant, c *space.SpaceConfig, search Search, depth int, cover *spec.Coverage, stop func() bool) (r Record, stopped bool) {
	r = Record{Result: ResultOK, Requests: c.Requests, Pages: c.Pages, Ranks: c.Ranks}
	sp, err := spec.New(c.Config, v.Fixes)
	if err != nil {
		// Enumerate returns valid configurations only.
		panic(err)
	}
	if v.Scenario != nil {
		sp.Scenario = v.Scenario.Checking(search.Named).Info()
	}
	sp.Cover = cover
	var checked model.Spec[spec.State, spec.Action] = sp
	if len(search.Invariants) > 0 {
		checked = model.OnlyInvariants(checked, search.Invariants)
	}
	opts := model.Options{
		MaxDepth:  depth,
		MaxStates: search.MaxStates,
		Workers:   1,
		Liveness:  search.Liveness,
		Symmetry:  search.Symmetry,
		Stop:      stop,
	}
	if search.Match != nil {
		checked = search.Match.narrow(checked, &opts)
	}
	res := model.Check(checked, opts)
	if res.Interrupted {
		return r, true
	}
	if search.Match != nil {
		res.Violations = search.Match.pick(res.Violations)
	}
	r.States = res.States
	// A search that stopped at a violation has its verdict too.
	r.Complete = res.Complete || len(res.Violations) > 0
	for _, g := range res.Goals {
		if g.Reached {
			r.Goals = append(r.Goals, g.Name)
		}
	}
	if len(res.Violations) > 0 {
		viol := res.Violations[0]
		r.Result = ResultViolation
		r.Invariant = viol.Invariant
		r.Message = viol.Message
		r.Group = viol.Group
		r.Trace = actionLines(viol.Trace)
		if viol.Cycle != nil {
			r.Cycle = actionLines(viol.Cycle)
		}
		r.Config = c.Text()
	}
	return r, false
}

func actionLines(trace []spec.Action) []string {
	out := make([]string, len(trace))
	for j, a := range trace {
		out[j] = a.String()
	}
	return out
}

func joinPlus(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += "+"
		}
		out += n
	}
	return out
}
