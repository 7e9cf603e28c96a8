package sweep

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Report is what a sweep says of one variant: one JSON object of `kvcheck
// sweep --json` and `kvcheck merge --json`.
type Report struct {
	Scenario string   `json:"scenario"`
	Fixes    []string `json:"fixes"`
	// Result is "violation" when some configuration breaks an invariant,
	// else "ok" when the report is Complete, else "incomplete".
	Result string `json:"result"`
	// Configurations is how many configurations were checked; Needed how
	// many the verdict needs (all of them, or, after a violation without
	// --keep-going, those up to the end of the smallest counterexample's
	// size class); Total how many the space holds.
	Configurations int `json:"configurations"`
	Needed         int `json:"needed"`
	Total          int `json:"total"`
	// Complete says every needed configuration was checked and every
	// search exhausted its reachable states.
	Complete bool `json:"complete"`
	// Exhaustive is how many of the checked searches exhausted their
	// reachable states (the others hit --depth or --max-states).
	Exhaustive int `json:"exhaustive"`
	// Violating is how many checked configurations break an invariant.
	Violating int `json:"violating"`
	// Goals counts the checked configurations that reach each scenario
	// goal: a goal no configuration reaches makes an "ok" vacuous there.
	Goals map[string]int `json:"goals"`
	// Smallest is the smallest counterexample: fewest requests, pages,
	// ranks, then the shortest trace.
	Smallest *Smallest `json:"smallest,omitempty"`
	// Findings are the distinct violations the checked configurations
	// show (one per invariant and failure group), each by its smallest
	// configuration, smallest first: Smallest is the first.
	Findings []Smallest `json:"findings,omitempty"`
	// Seed is the verdict on the scenario's own configuration under the
	// same fixes, and Finding says in words when the sweep disagrees.
	Seed    string `json:"seed"`
	Finding string `json:"finding,omitempty"`
	// ClosedBy lists the scenario's other fix sets under which the smallest
	// counterexample's configuration holds.
	ClosedBy []string `json:"closed_by,omitempty"`
	// Profile is the verdict profile over every configuration (profile.go),
	// kept only when the sweep kept going past its first violation.
	Profile *Profile `json:"profile,omitempty"`
	// MissingShards lists the shards merge did not get.
	MissingShards []string `json:"missing_shards,omitempty"`
	Reproduce     string   `json:"reproduce"`
}

// Smallest is a sweep's smallest counterexample.
type Smallest struct {
	Index     int      `json:"index"`
	Requests  int      `json:"requests"`
	Pages     int      `json:"pages"`
	Ranks     int      `json:"ranks"`
	Config    string   `json:"config"`
	Invariant string   `json:"invariant"`
	Message   string   `json:"message"`
	Group     string   `json:"group,omitempty"`
	Steps     int      `json:"steps"`
	Trace     []string `json:"trace"`
	// Cycle is a livelock's cycle, after the stem in Trace.
	Cycle []string `json:"cycle,omitempty"`
}

// Fold turns one variant's parts, from a single run or from every shard of
// one, into its report (without the seed verdict and the fixes that close
// the counterexample: see Annotate). The report does not depend on how the
// configurations were sharded.
func Fold(parts []Part) (Report, error) {
	if len(parts) == 0 {
		return Report{}, fmt.Errorf("no sweep header")
	}
	h := parts[0].Header
	shards := map[int]bool{}
	count := 0
	byIndex := map[int]Record{}
	for _, p := range parts {
		g := p.Header
		if g.Space != h.Space || g.Engine != h.Engine || g.Scenario != h.Scenario || !slices.Equal(g.Fixes, h.Fixes) {
			return Report{}, fmt.Errorf("%s %v: shard %s is of another sweep (its space, spec or engine differ from shard %s's); merge only the shards of one run of one kvcheck build", g.Scenario, g.Fixes, g.Shard, h.Shard)
		}
		s, err := ParseShard(g.Shard)
		if err != nil {
			return Report{}, err
		}
		if count == 0 {
			count = s.Count
		} else if s.Count != count {
			return Report{}, fmt.Errorf("%s %v: shards of %d and of %d parts; merge the shards of one partition", g.Scenario, g.Fixes, count, s.Count)
		}
		shards[s.Index] = true
		for _, r := range p.Records {
			if _, dup := byIndex[r.Index]; !dup {
				byIndex[r.Index] = r
			}
		}
	}
	records := make([]Record, 0, len(byIndex))
	for _, r := range byIndex {
		records = append(records, r)
	}
	sort.Slice(records, func(i, j int) bool { return records[i].Index < records[j].Index })
	rep := Report{Scenario: h.Scenario, Fixes: h.Fixes, Result: ResultOK, Total: h.Total, Needed: h.Total, Goals: map[string]int{}}
	for i := 0; i < count; i++ {
		if !shards[i] {
			rep.MissingShards = append(rep.MissingShards, Shard{i, count}.String())
		}
	}
	cutoff := h.Total - 1
	if !h.KeepGoing {
		for i, r := range records {
			if r.Result != ResultViolation {
				continue
			}
			// The records of the first violation's size class: every shard
			// checked its part of it before stopping.
			cutoff = r.Index
			for _, later := range records[i+1:] {
				if sizeKey(later) != sizeKey(r) {
					break
				}
				cutoff = later.Index
			}
			rep.Needed = cutoff + 1
			break
		}
	}
	finding := map[[2]string]int{}
	for _, r := range records {
		if r.Index > cutoff {
			break
		}
		rep.Configurations++
		if r.Complete {
			rep.Exhaustive++
		}
		for _, g := range r.Goals {
			rep.Goals[g]++
		}
		if r.Result != ResultViolation {
			continue
		}
		rep.Violating++
		rep.Result = ResultViolation
		sig := [2]string{r.Invariant, r.Group}
		if k, ok := finding[sig]; !ok {
			finding[sig] = len(rep.Findings)
			rep.Findings = append(rep.Findings, smallestOf(r))
		} else if smaller(r, &rep.Findings[k]) {
			rep.Findings[k] = smallestOf(r)
		}
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool { return lessSmallest(&rep.Findings[i], &rep.Findings[j]) })
	if len(rep.Findings) > 0 {
		s := rep.Findings[0]
		rep.Smallest = &s
	}
	rep.Complete = rep.Configurations == rep.Needed && rep.Exhaustive == rep.Configurations
	if h.KeepGoing {
		rep.Profile = NewProfile(records, h.Total)
	}
	if rep.Result == ResultOK && !rep.Complete {
		rep.Result = ResultIncomplete
	}
	return rep, nil
}

func sizeKey(r Record) [3]int { return [3]int{r.Requests, r.Pages, r.Ranks} }

// smallestOf is a violating record as a counterexample.
func smallestOf(r Record) Smallest {
	return Smallest{Index: r.Index, Requests: r.Requests, Pages: r.Pages, Ranks: r.Ranks, Config: r.Config,
		Invariant: r.Invariant, Message: r.Message, Group: r.Group, Steps: len(r.Trace), Trace: r.Trace, Cycle: r.Cycle}
}

// lessSmallest orders counterexamples as smaller does.
func lessSmallest(a, b *Smallest) bool {
	return smaller(Record{Index: a.Index, Requests: a.Requests, Pages: a.Pages, Ranks: a.Ranks, Trace: a.Trace}, b)
}

// smaller orders counterexamples: fewest requests, pages, ranks, then the
// shortest trace, then the first in the space.
func smaller(r Record, s *Smallest) bool {
	return cmp.Or(cmp.Compare(r.Requests, s.Requests), cmp.Compare(r.Pages, s.Pages), cmp.Compare(r.Ranks, s.Ranks),
		cmp.Compare(len(r.Trace), s.Steps), cmp.Compare(r.Index, s.Index)) < 0
}

// FixesLabel is the fixes joined by "+", or "real code".
func FixesLabel(fixes []string) string {
	if len(fixes) == 0 {
		return "real code"
	}
	return strings.Join(fixes, "+")
}
