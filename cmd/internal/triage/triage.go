package triage

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// DefaultMaxStates bounds each re-check of a triage: enough for every
// built-in scenario scaled ×8 that breaks (docs/triage.md), small enough
// that a triage costs seconds.
const DefaultMaxStates = 200_000

// Options shape a triage.
type Options struct {
	// MaxStates bounds each re-check (0: DefaultMaxStates); a re-check cut
	// by it is "cut", neither same nor gone.
	MaxStates int
	// Workers run re-checks in parallel (0: every core).
	Workers int
	// Cache supplies and keeps re-check results (nil: none).
	Cache *sweep.Cache
}

// The labels.
const (
	// Robust: the same violation at every scale tried.
	Robust = "robust"
	// Fragile: gone at some scale.
	Fragile = "fragile"
	// Undetermined: never gone, but some scale could not be checked
	// (its search was cut by the budget, or it does not fit the explored
	// state).
	Undetermined = "undetermined"
)

// The verdicts of one re-check.
const (
	Same = "same" // the violation is there
	Gone = "gone" // a complete search shows no such violation
	Cut  = "cut"  // the search ended at its budget without it
	NA   = "n/a"  // the changed configuration is not valid
)

// Report is the triage of one finding: the `triage` object of kvcheck's
// JSON reports.
type Report struct {
	// Label is robust, fragile or undetermined (the scale re-checks).
	Label string `json:"label"`
	// Story is the finding in one line, with its label, what it needs in
	// real terms, what it is the same as and its capacity edge.
	Story     string    `json:"story"`
	Signature Signature `json:"signature"`
	// Scale holds the scale re-checks: the finding's own page size, then
	// tokens_per_block ×2, ×4, ×8, then pools a page and a few pages
	// larger.
	Scale []Row `json:"scale"`
	// Condition says, for a fragile finding, what it needs in real terms.
	Condition string `json:"condition,omitempty"`
	// Needs are the knob values without which the violation is gone;
	// IndifferentTo the knobs it persists through; Undetermined those
	// whose re-check was cut.
	Needs         []string `json:"needs"`
	IndifferentTo []string `json:"indifferent_to"`
	// ClosedBy are the fixes that, added alone, close it.
	ClosedBy     []string `json:"closed_by"`
	Undetermined []string `json:"undetermined,omitempty"`
	// Knobs holds the dependency re-checks, one per change.
	Knobs []Row `json:"knobs"`
	// SameAs says which known violation it is ("same as seed 000
	// (draft-admission)"), whether it is the fix's failure, which
	// version's path; "new" when it matches no known one. Known is set
	// when it matches a built-in scenario's or a historical bug's.
	SameAs []string `json:"same_as"`
	Known  bool     `json:"known"`
	// CapacityEdge says one request needs a whole pool less what a pad
	// dummy holds; CapacityNote says which.
	CapacityEdge bool   `json:"capacity_edge"`
	CapacityNote string `json:"capacity_note,omitempty"`
	// Checks, Cached and States count the re-checks, those answered by the
	// cache, and the states the others explored; Seconds is the wall time.
	// They depend on the cache and the machine, so the JSON leaves them
	// out: the same finding gets the same object (Cost says them).
	Checks  int     `json:"-"`
	Cached  int     `json:"-"`
	States  int     `json:"-"`
	Seconds float64 `json:"-"`
}

// Row is one re-check: what was changed and the verdict.
type Row struct {
	// Knob is the setting changed ("tokens_per_block", "target_blocks",
	// "fix joint-admission"); Change says from what to what.
	Knob   string `json:"knob"`
	Change string `json:"change"`
	// Verdict is same, gone, cut or n/a; Steps the length of the shortest
	// trace when same, States the search's states, Note why n/a.
	Verdict string `json:"verdict"`
	Steps   int    `json:"steps,omitempty"`
	States  int    `json:"states"`
	Note    string `json:"note,omitempty"`
	// from and to are the knob's values, for the needs' words.
	from, to string
	fix      spec.Fix
	fixRow   int // 0 a setting, 1 a fix added, -1 a fix removed, 2 every fix removed
	tokens   uint32
}

// job is one re-check to run.
type job struct {
	row   *Row
	cfg   spec.Config
	fixes spec.Fixes
	depth int
}

// Triage re-checks the finding's configuration under every scale and knob
// change, matches its signature against the known violations and returns
// the labels.
func Triage(f Finding, opts Options) (*Report, error) {
	start := time.Now()
	if err := f.Config.Validate(); err != nil {
		return nil, err
	}
	sig, err := f.signature()
	if err != nil {
		return nil, err
	}
	if opts.MaxStates == 0 {
		opts.MaxStates = DefaultMaxStates
	}
	if opts.Workers == 0 {
		opts.Workers = runtime.NumCPU()
	}
	sc := f.Scenario
	if sc == nil {
		sc = &scenario.Scenario{ScenarioInfo: spec.ScenarioInfo{Name: "config"}}
	}
	rep := &Report{Signature: sig, Needs: []string{}, ClosedBy: []string{}, IndifferentTo: []string{}, SameAs: []string{}}
	r := runner{opts: opts, sc: sc, sig: sig, rep: rep}

	// The finding's own page size, the scales and the larger pools.
	base := &Row{Knob: "tokens_per_block", Change: fmt.Sprintf("%d (the finding's)", f.Config.TokensPerBlock), tokens: f.Config.TokensPerBlock}
	jobs := []*job{{row: base, cfg: f.Config, fixes: f.Fixes, depth: sc.Depth}}
	for _, k := range Scales {
		t := f.Config.TokensPerBlock * k
		row := &Row{Knob: "tokens_per_block", Change: fmt.Sprintf("×%d (%d)", k, t), tokens: t}
		jobs = append(jobs, &job{row: row, cfg: scaleTokens(f.Config, t), fixes: f.Fixes, depth: sc.Depth * int(k)})
	}
	for _, n := range Growths {
		row := &Row{Knob: "pools", Change: fmt.Sprintf("+%s", plural(int(n), "page"))}
		jobs = append(jobs, &job{row: row, cfg: growPools(f.Config, n), fixes: f.Fixes, depth: sc.Depth})
	}
	scaleJobs := len(jobs)
	for _, c := range knobChanges(&f) {
		row := c.row
		jobs = append(jobs, &job{row: &row, cfg: c.cfg, fixes: c.fixes, depth: sc.Depth})
	}
	r.run(jobs)
	for _, j := range jobs[:scaleJobs] {
		rep.Scale = append(rep.Scale, *j.row)
	}
	for _, j := range jobs[scaleJobs:] {
		if j.row.Verdict != NA || j.row.Note != "" {
			rep.Knobs = append(rep.Knobs, *j.row)
		}
	}
	if base.Verdict == Gone || base.Verdict == NA {
		// The trace replayed, so a complete search must find it.
		return nil, fmt.Errorf("the finding does not reproduce: a complete search for %s on its own configuration does not find it (%d states)", sig.Words(), base.States)
	}
	rep.Label = label(rep.Scale)
	rep.Condition = r.condition(&f)
	rep.Needs, rep.ClosedBy, rep.IndifferentTo, rep.Undetermined = dependencies(rep.Knobs)
	rep.CapacityEdge, rep.CapacityNote = capacityEdge(&f.Config)
	if rep.CapacityEdge && rep.Condition == "" && grownGone(rep.Scale) {
		rep.Condition = "needs one request at its longest to fill the pool: " + rep.CapacityNote
	}
	refs := references(opts, r.runOne)
	rep.SameAs, rep.Known = attribute(&f, sig, rep.Knobs, refs)
	rep.Story = story(rep)
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// runner runs re-checks through the cache and counts them.
type runner struct {
	opts Options
	sc   *scenario.Scenario
	sig  Signature
	rep  *Report
	mu   sync.Mutex
}

// search is the bounded search for the finding's violation.
func (r *runner) search(depth int) sweep.Search {
	m := &sweep.Match{Invariant: r.sig.Invariant, Group: r.sig.match()}
	return sweep.Search{Depth: depth, MaxStates: r.opts.MaxStates, Liveness: r.sig.Invariant == model.LivelockInvariant, Match: m}
}

// run runs the jobs in parallel and fills in their rows.
func (r *runner) run(jobs []*job) {
	next := make(chan *job)
	var wg sync.WaitGroup
	for range max(r.opts.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				r.do(j)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
}

// do runs one job.
func (r *runner) do(j *job) {
	if j.row.Verdict == NA {
		return
	}
	if err := j.cfg.Validate(); err != nil {
		j.row.Verdict, j.row.Note = NA, strings.TrimPrefix(err.Error(), "invalid configuration: ")
		return
	}
	rec := r.runOne(sweep.Variant{Scenario: r.sc, Fixes: j.fixes}, j.cfg, r.search(j.depth))
	j.row.Verdict, j.row.States = verdict(rec), rec.States
	if j.row.Verdict == Same {
		j.row.Steps = len(rec.Trace)
	}
}

// runOne runs one check through the cache and counts it.
func (r *runner) runOne(v sweep.Variant, cfg spec.Config, search sweep.Search) sweep.Record {
	rec, cached := sweep.CheckConfig(v, cfg, search, r.opts.Cache)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Checks++
	if cached {
		r.rep.Cached++
	} else {
		r.rep.States += rec.States
	}
	return rec
}

// verdict is a re-check's verdict.
func verdict(rec sweep.Record) string {
	switch {
	case rec.Result == sweep.ResultViolation:
		return Same
	case rec.Complete:
		return Gone
	}
	return Cut
}

// label is the scale re-checks' verdict: fragile when the violation is
// gone at one, robust when it is there at every one, else undetermined.
func label(rows []Row) string {
	for _, r := range rows {
		if r.Verdict == Gone {
			return Fragile
		}
	}
	for _, r := range rows {
		if r.Verdict != Same {
			return Undetermined
		}
	}
	return Robust
}

// grownGone reports whether the violation is gone in larger pools.
func grownGone(rows []Row) bool {
	for _, r := range rows {
		if r.Knob == "pools" && r.Verdict == Gone {
			return true
		}
	}
	return false
}

// condition says what a fragile finding needs in real terms: the page
// size it needs (found by bisecting between the largest page it was seen
// at and the smallest it was gone at, when the scales say so in order),
// and the pool size.
func (r *runner) condition(f *Finding) string {
	var parts []string
	seen, gone := uint32(0), uint32(0)
	monotone := true
	for _, row := range r.rep.Scale {
		if row.Knob != "tokens_per_block" {
			continue
		}
		switch row.Verdict {
		case Same:
			if gone != 0 {
				monotone = false
			}
			seen = row.tokens
		case Gone:
			if gone == 0 {
				gone = row.tokens
			}
		}
	}
	if gone != 0 && monotone && seen != 0 {
		// Bisect the page size between seen and gone.
		for gone-seen > 1 {
			t := seen + (gone-seen)/2
			row := &Row{Knob: "tokens_per_block", Change: fmt.Sprintf("%d (bisecting)", t), tokens: t}
			j := &job{row: row, cfg: scaleTokens(f.Config, t), fixes: f.Fixes, depth: r.sc.Depth * int((t+f.Config.TokensPerBlock-1)/f.Config.TokensPerBlock)}
			r.do(j)
			r.rep.Scale = append(r.rep.Scale, *row)
			if row.Verdict == Same {
				seen = t
			} else if row.Verdict == Gone {
				gone = t
			} else {
				break
			}
		}
		if gone-seen == 1 {
			parts = append(parts, "needs "+r.pageCondition(f, gone))
		} else {
			parts = append(parts, fmt.Sprintf("needs tokens_per_block ≤ %d (gone at %d)", seen, gone))
		}
	} else if gone != 0 {
		parts = append(parts, fmt.Sprintf("gone at tokens_per_block %d, not in order of the page size", gone))
	}
	for _, row := range r.rep.Scale {
		if row.Knob == "pools" && row.Verdict == Gone {
			parts = append(parts, fmt.Sprintf("gone with every pool %s larger", strings.TrimPrefix(row.Change, "+")))
			break
		}
	}
	return strings.Join(parts, "; ")
}

// pageCondition says what a finding gone from tokens_per_block t on
// needs: tokens_per_block < t and, when t is a whole number n of
// generation steps of 1 + max_draft_len tokens and one more draft token
// brings the finding back at t (n·(2 + max_draft_len) > t, as the
// statement predicts), that it needs n + n·max_draft_len >
// tokens_per_block.
func (r *runner) pageCondition(f *Finding, t uint32) string {
	text := fmt.Sprintf("tokens_per_block < %d", t)
	d := f.Config.MaxDraftLen
	if d == 0 || t%(1+d) != 0 {
		return text
	}
	cfg := scaleTokens(f.Config, t)
	cfg.MaxDraftLen = d + 1
	row := &Row{Knob: "max_draft_len", Change: fmt.Sprintf("%d → %d at tokens_per_block %d", d, d+1, t), from: fmt.Sprint(d), to: fmt.Sprint(d + 1)}
	// A statement, not a verdict: a quarter of the budget, and a cut
	// search only means it is not made.
	budget := r.opts.MaxStates
	r.opts.MaxStates = max(budget/4, 1)
	r.do(&job{row: row, cfg: cfg, fixes: f.Fixes, depth: r.sc.Depth * int((t+f.Config.TokensPerBlock-1)/f.Config.TokensPerBlock)})
	r.opts.MaxStates = budget
	r.rep.Scale = append(r.rep.Scale, *row)
	if row.Verdict != Same {
		return text
	}
	n := t / (1 + d)
	return fmt.Sprintf("%s: %d + %d·max_draft_len > tokens_per_block (%d generation steps of 1 + %d tokens more than a page; with one more draft token it is back at %d)",
		text, n, n, n, d, t)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
