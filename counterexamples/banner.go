package counterexamples

import (
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// stories holds one hand-written paragraph per built-in scenario
// (stories/NAME.txt): what happens in the engine, in TensorRT-LLM's words.
// The banner of the scenario's real-code transcript quotes it.
//
//go:embed stories
var stories embed.FS

// Story returns the story of the scenario, "" if it has none.
func Story(scenario string) string {
	data, err := stories.ReadFile("stories/" + scenario + ".txt")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// bannerWidth is where banner text wraps.
const bannerWidth = 100

// banner composes the comment block at the top of a transcript: title,
// the report it reproduces, how it was found, the setup and a step
// outline with the `[*]` step, the fixes, the story and a legend.
func banner(ce Counterexample, steps []Step, marked int) []string {
	sp := ce.Spec
	var out []string
	add := func(lines ...string) { out = append(out, lines...) }
	add(title(ce, steps), "")
	if sc := sp.Scenario; sc != nil {
		add(wrap("Reproduces: "+sc.Report+": "+sc.Doc+".", "  ")...)
	}
	if ce.ReplayOf != "" {
		add(wrap(fmt.Sprintf("Replays: the actions of %s under %s.", ce.ReplayOf, fixDocs(sp.Fixes)), "  ")...)
		if ce.FoundBy != "" {
			add(wrap("Checked by: "+ce.FoundBy+" ("+ce.Search+").", "  ")...)
		}
	} else if ce.FoundBy != "" {
		add(wrap("Found by: "+ce.FoundBy+" ("+ce.Search+").", "  ")...)
	}
	add("")
	add(wrap("Setup: "+setup(&sp.Config), "  ")...)
	add("")
	add(outline(ce, steps, marked)...)
	if len(ce.FixedBy) > 0 {
		add("", "Fixes checked against it:")
		for _, n := range ce.FixedBy {
			line := fmt.Sprintf("  %s (%s) %s", fixesName(n.Fixes), fixSources(n.Fixes), n.Verdict)
			if n.File != "" {
				line += ": " + n.File
			}
			add(wrap(line, "    ")...)
		}
	}
	for _, note := range ce.Notes {
		add("")
		add(wrap(note, "  ")...)
	}
	if story := Story(scenarioName(sp)); story != "" && ce.ReplayOf == "" && sp.Fixes == 0 {
		add("")
		for _, para := range strings.Split(story, "\n\n") {
			add(wrap(strings.Join(strings.Fields(para), " "), "")...)
		}
	}
	add("")
	add(legend(ce.Trace)...)
	return out
}

// title is the banner's first line.
func title(ce Counterexample, steps []Step) string {
	name := scenarioName(ce.Spec) + " (" + strings.ReplaceAll(fixesName(ce.Spec.Fixes), "real-code", "real code") + ")"
	for _, s := range steps {
		if s.After.Crash.Happened {
			c := s.After.Crash
			return fmt.Sprintf("%s: %s raises %q", name, c.Function, c.String())
		}
	}
	if ce.Invariant != "" {
		return fmt.Sprintf("%s: %s: %s", name, ce.Invariant, ce.Message)
	}
	if ce.ReplayOf != "" {
		return name + ": the same actions, and no invariant breaks"
	}
	return name + ": no invariant breaks"
}

// fixDocs describes the fixes of a set, or says it is the real code.
func fixDocs(fixes spec.Fixes) string {
	list := fixes.List()
	if len(list) == 0 {
		return "the real code"
	}
	docs := make([]string, len(list))
	for i, f := range list {
		docs[i] = f.String() + ", " + f.Doc()
	}
	return strings.Join(docs, "; ")
}

// fixSources names where each fix comes from: its doc up to the first
// colon ("PR #19006").
func fixSources(fixes spec.Fixes) string {
	var parts []string
	seen := map[string]bool{}
	for _, f := range fixes.List() {
		source, _, _ := strings.Cut(f.Doc(), ":")
		if !seen[source] {
			seen[source] = true
			parts = append(parts, source)
		}
	}
	return strings.Join(parts, "; ")
}

// setup describes the configuration in words.
func setup(cfg *spec.Config) string {
	var parts []string
	ranks := "1 rank"
	if cfg.Ranks != 1 {
		ranks = fmt.Sprintf("%d ranks", cfg.Ranks)
	}
	ranks += " (" + cfg.Loop.String() + " executor loop"
	if cfg.AttentionDP {
		ranks += ", attention DP"
	}
	ranks += ")"
	each := "each with"
	if cfg.Ranks == 1 {
		each = "with"
	}
	parts = append(parts, fmt.Sprintf("%s, %s %s, %d tokens a page, %d/%d IndexMapper slots",
		ranks, each, describePools(cfg), cfg.TokensPerBlock, cfg.TargetIndexSlots, cfg.DraftIndexSlots))
	reuse := "block reuse off"
	if cfg.BlockReuse {
		reuse = "block reuse on"
	}
	chunked := "no chunked prefill"
	if cfg.ChunkedPrefill {
		chunked = fmt.Sprintf("chunked prefill (unit %d)", cfg.ChunkUnitSize)
	}
	parts = append(parts, reuse, fmt.Sprintf("%s, max_num_tokens %d, max_batch_size %d", chunked, cfg.MaxNumTokens, cfg.MaxBatchSize),
		fmt.Sprintf("MTP max_draft_len %d", cfg.MaxDraftLen),
		fmt.Sprintf("max_util_for_resume %d %%", cfg.ResumeGatePercent))
	if cfg.HostTier {
		parts = append(parts, "a host tier below GPU")
	}
	if !cfg.RecomputePause {
		parts = append(parts, "recompute-pause off")
	}
	if cfg.EarlyFinish {
		parts = append(parts, "requests may end early at EOS")
	}
	parts = append(parts, fmt.Sprintf("code %s, draft view %s", cfg.Version, cfg.DraftView))
	return strings.Join(parts, "; ") + ". Requests: " + describeRequests(cfg) + "."
}

// describePools says which pools each rank has and their sizes, naming
// the ranks that differ from rank 0.
func describePools(cfg *spec.Config) string {
	var parts []string
	for p := spec.Target; p <= spec.Draft; p++ {
		if !cfg.HasPool(0, p) {
			continue
		}
		text := fmt.Sprintf("a %s pool of %d pages", p, cfg.PoolBlocks(0, p))
		if p == spec.Draft {
			switch cfg.DraftPool {
			case spec.UnpairedDraftPool:
				text = fmt.Sprintf("an unpaired draft pool of %d pages (stop_committing, left out of admission)", cfg.PoolBlocks(0, p))
			case spec.PairedDraftPool:
				text = fmt.Sprintf("a paired draft pool of %d pages (enable_joint_kv_cache_reuse)", cfg.PoolBlocks(0, p))
			}
		}
		for r := uint8(1); r < cfg.Ranks; r++ {
			if !cfg.HasPool(r, p) {
				text += fmt.Sprintf(" (none on rank %d)", r)
			} else if n := cfg.PoolBlocks(r, p); n != cfg.PoolBlocks(0, p) {
				text += fmt.Sprintf(" (%d on rank %d)", n, r)
			}
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, " and ")
}

// describeRequests groups identical request templates.
func describeRequests(cfg *spec.Config) string {
	type run struct {
		t spec.RequestTemplate
		n int
	}
	var runs []run
	for _, t := range cfg.Requests {
		if n := len(runs); n > 0 && runs[n-1].t == t {
			runs[n-1].n++
			continue
		}
		runs = append(runs, run{t, 1})
	}
	parts := make([]string, len(runs))
	for i, r := range runs {
		text := fmt.Sprintf("%d × prompt %d + %d new tokens", r.n, r.t.PromptLen, r.t.MaxNewTokens)
		if r.t.Family != spec.NoFamily && r.t.SharedPrefix > 0 {
			text += fmt.Sprintf(" sharing their first %d tokens (family %d)", r.t.SharedPrefix, r.t.Family)
		}
		if cfg.Ranks > 1 {
			text += fmt.Sprintf(" on rank %d", r.t.Rank)
		}
		parts[i] = text
	}
	return strings.Join(parts, ", then ")
}

var rankArg = regexp.MustCompile(`\brank=(\d+)\b`)

// actionRank is the rank= argument of an action line, -1 without one.
func actionRank(line string) int {
	m := rankArg.FindStringSubmatch(line)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// outlineGroup is one line of the step outline: a run of steps that
// carries one batch on one rank, or a run of rank-less steps.
type outlineGroup struct {
	first, last int // 0-based step indices
	rank        int
	text        string
	// plain says the group is a run of steps that neither form a batch nor
	// change any pool's usage (after its first step).
	plain bool
	steps int
}

// outline is the Test section: one line per batch a rank runs (from the
// step that forms it to the step that clears it) and per run of arrivals,
// with the pages in use afterwards, then the `[*]` step.
func outline(ce Counterexample, steps []Step, marked int) []string {
	sp := ce.Spec
	var groups []*outlineGroup
	open := map[int]*outlineGroup{}
	for i, s := range steps {
		r := actionRank(s.Text)
		if r < 0 || r >= len(s.After.Ranks) {
			if n := len(groups); n > 0 && groups[n-1].rank < 0 && groups[n-1].last == i-1 {
				groups[n-1].last = i
				groups[n-1].text += ", " + s.Text
				continue
			}
			groups = append(groups, &outlineGroup{first: i, last: i, rank: -1, text: s.Text})
			continue
		}
		before, after := s.Before.Ranks[r].Batch, s.After.Ranks[r].Batch
		if g := open[r]; g != nil {
			g.last = i
			if after.Count == 0 {
				delete(open, r)
			}
			continue
		}
		if before.Count == 0 && after.Count > 0 {
			g := &outlineGroup{first: i, last: i, rank: r, text: fmt.Sprintf("rank %d runs [%s]", r, after.Describe())}
			groups = append(groups, g)
			open[r] = g
			continue
		}
		if n := len(groups); n > 0 && groups[n-1].plain && groups[n-1].last == i-1 && sameUsage(&s.Before, &s.After) {
			g := groups[n-1]
			g.last = i
			g.steps++
			if g.steps <= 3 {
				g.text += ", " + s.Text
			} else if g.steps == 4 {
				g.text += ", ..."
			}
			continue
		}
		groups = append(groups, &outlineGroup{first: i, last: i, rank: r, text: s.Text, plain: true, steps: 1})
	}
	width := 0
	for _, g := range groups {
		width = max(width, len(g.text))
	}
	lines := []string{"Test (steps; pages in use after them, per pool):"}
	for _, g := range groups {
		span := itoa(g.first + 1)
		if g.last > g.first {
			span += "-" + itoa(g.last+1)
		}
		line := fmt.Sprintf("  %-7s %-*s", span, width, g.text)
		if g.rank >= 0 {
			line += "  " + pagesInUse(sp, &steps[g.last].After, g.rank)
		}
		lines = append(lines, strings.TrimRight(line, " "))
	}
	if marked >= 0 {
		s := steps[marked]
		var what string
		switch {
		case !s.Enabled:
			what = "is not enabled"
		case s.After.Crash.Happened:
			what = fmt.Sprintf("raises in %s (the title's error)", s.After.Crash.Function)
		case len(s.Violations) > 0:
			what = "breaks " + violationNames(s.Violations)
		case ce.Invariant != "":
			what = "ends in a " + ce.Invariant
		default:
			what = "broke in the real code; here nothing breaks"
		}
		lines = append(lines, wrap(fmt.Sprintf("  [*] %-4d %s %s", marked+1, s.Text, what), "      ")...)
	}
	return lines
}

// sameUsage reports whether no pool of any rank changed its free pages.
func sameUsage(a, b *spec.State) bool {
	for r := range a.Ranks {
		for p := range a.Ranks[r].Pools {
			if a.Ranks[r].Pools[p].Free != b.Ranks[r].Pools[p].Free {
				return false
			}
		}
	}
	return true
}

// pagesInUse is "target 7/8, draft 8/8" for one rank.
func pagesInUse(sp *spec.Spec, s *spec.State, r int) string {
	var parts []string
	for p := range s.Ranks[r].Pools {
		kind := spec.PoolKind(p)
		if !sp.Config.HasPool(uint8(r), kind) {
			continue
		}
		size := int(sp.Config.PoolBlocks(uint8(r), kind))
		parts = append(parts, fmt.Sprintf("%s %d/%d", kind, size-int(s.Ranks[r].Pools[p].Free), size))
	}
	text := strings.Join(parts, ", ")
	if sp.Config.Ranks > 1 {
		text = fmt.Sprintf("rank %d: %s", r, text)
	}
	return text
}

// legend names the real functions behind each action kind of the trace.
func legend(trace []spec.Action) []string {
	lines := []string{"Actions (each is followed by ---- and what it changed: old → new):"}
	seen := map[spec.ActionKind]bool{}
	for _, a := range trace {
		if seen[a.Kind] {
			continue
		}
		seen[a.Kind] = true
		if f := a.Kind.RealFunctions(); f != "" {
			lines = append(lines, wrap(fmt.Sprintf("  %s: %s", a.Kind, f), "    ")...)
		}
	}
	return lines
}

// wrap breaks text into banner lines, continuation lines indented.
func wrap(text, indent string) []string {
	lead := len(text) - len(strings.TrimLeft(text, " "))
	words := strings.Fields(text)
	var lines []string
	line := strings.Repeat(" ", lead)
	for _, w := range words {
		if strings.TrimSpace(line) != "" && len(line)+1+len(w) > bannerWidth {
			lines = append(lines, line)
			line = indent
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += w
	}
	if strings.TrimSpace(line) != "" {
		lines = append(lines, line)
	}
	return lines
}
