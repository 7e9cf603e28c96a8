package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/space"
)

// Annotate completes a folded report: the verdict on the base (seed)
// configuration under the same fixes, the fix sets under which the
// smallest counterexample's configuration holds (the scenario's other fix
// sets, then these fixes plus one more), and the finding in words, above
// all when a fix closes the seed's configuration but not the sweep.
// The checks use and fill cache when it is not nil.
func Annotate(rep *Report, v Variant, base spec.Config, search Search, cache *Cache) error {
	seedText := configtext.Format(&base)
	seed, err := checkText(v, seedText, search, cache)
	if err != nil {
		return fmt.Errorf("the base configuration: %v", err)
	}
	rep.Seed = verdictWords(seed)
	if rep.Smallest != nil {
		var candidates []spec.Fixes
		for _, other := range v.Scenario.Variants() {
			if other != 0 && other != v.Fixes {
				candidates = append(candidates, other)
			}
		}
		for _, f := range spec.AllFixes() {
			if with := v.Fixes.With(f); with != v.Fixes && !slices.Contains(candidates, with) {
				candidates = append(candidates, with)
			}
		}
		for _, fixes := range candidates {
			r, err := checkText(Variant{v.Scenario, fixes}, rep.Smallest.Config, search, cache)
			if err != nil {
				return fmt.Errorf("the smallest counterexample's configuration: %v", err)
			}
			if r.Result == ResultOK && r.Complete {
				rep.ClosedBy = append(rep.ClosedBy, FixesLabel(fixes.Names()))
			}
		}
	}
	rep.Finding = finding(rep, v, seed)
	return nil
}

// checkText checks v on a configuration given as text, through cache
// when it is not nil.
func checkText(v Variant, text string, search Search, cache *Cache) (Record, error) {
	cfg, err := configtext.Parse(spec.Config{}, text)
	if err != nil {
		return Record{}, err
	}
	r, _ := CheckConfig(v, cfg, search, cache)
	return r, nil
}

// CheckConfig checks v on one valid configuration under search (a Depth
// of 0 is the scenario's), through cache when it is not nil: a result of
// the same configuration, variant, bounds and engine is reused, and cached
// says so. The record's Index is 0.
func CheckConfig(v Variant, cfg spec.Config, search Search, cache *Cache) (r Record, cached bool) {
	depth := search.Depth
	if depth == 0 {
		depth = v.Scenario.Depth
	}
	c := space.SpaceConfig{Config: cfg, Requests: len(cfg.Requests), Pages: spec.ConfigPages(&cfg), Ranks: int(cfg.Ranks)}
	key := ""
	if cache != nil {
		key = cache.Key(v, search, space.ConfigIdentity(&cfg))
		if r, ok := cache.Lookup(v, key); ok {
			r.Requests, r.Pages, r.Ranks = c.Requests, c.Pages, c.Ranks
			return r, true
		}
	}
	r, _ = checkOne(v, &c, search, depth, nil, nil)
	if cache != nil {
		cache.Store(v, key, r)
	}
	return r, false
}

// verdictWords is a record's verdict in a few words.
func verdictWords(r Record) string {
	if r.Result == ResultViolation {
		return fmt.Sprintf("%s after %d steps", r.Invariant, len(r.Trace))
	}
	if !r.Complete {
		return fmt.Sprintf("incomplete (no violation in %d states, cut by the bounds)", r.States)
	}
	return "ok"
}

// finding says what the sweep adds to the check of the seed configuration.
func finding(rep *Report, v Variant, seed Record) string {
	s := rep.Smallest
	switch {
	case s == nil && rep.Complete:
		return fmt.Sprintf("holds on all %d configurations", rep.Total)
	case s == nil && rep.Exhaustive < rep.Configurations:
		return fmt.Sprintf("incomplete: no violation in the %d of %d configurations checked, but %d of their searches were cut by --depth or --max-states", rep.Configurations, rep.Needed, rep.Configurations-rep.Exhaustive)
	case s == nil:
		return fmt.Sprintf("incomplete: no violation in the %d of %d configurations checked", rep.Configurations, rep.Needed)
	}
	where := fmt.Sprintf("configuration #%d (%s) breaks %s after %d steps", s.Index, s.Size(), s.Invariant, s.Steps)
	closed := "no other fix tried closes it"
	if len(rep.ClosedBy) > 0 {
		closed = "closed by " + strings.Join(rep.ClosedBy, ", ")
	}
	switch {
	case v.Fixes != 0 && seed.Result == ResultOK && !seed.Complete:
		return fmt.Sprintf("the seed's configuration is incomplete (its search was cut by the bounds); in the sweep: %s; %s", where, closed)
	case v.Fixes != 0 && seed.Result == ResultOK:
		return fmt.Sprintf("closes the seed's configuration but not the sweep: %s; %s", where, closed)
	case v.Fixes != 0:
		return fmt.Sprintf("does not close the seed's configuration either; smallest: %s; %s", where, closed)
	}
	return fmt.Sprintf("smallest counterexample: %s; %s", where, closed)
}

// Size is the counterexample's size in words: "2 requests, 8 pages, 1 rank".
func (s *Smallest) Size() string {
	return fmt.Sprintf("%s, %s, %s", plural(s.Requests, "request"), plural(s.Pages, "page"), plural(s.Ranks, "rank"))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
