package counterexamples

import (
	"embed"
	"fmt"
	"regexp"
	"slices"
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
const bannerWidth = 130

// StoryPath is where the story of a scenario lives in the repository.
func StoryPath(scenario string) string { return "counterexamples/stories/" + scenario + ".txt" }

// banner composes the comment block at the top of a transcript: the
// title; the report it reproduces and where its story is; how it was
// found; the setup; an outline of the directives below with the pages in
// use after each, the `[*]` step and the fixes checked against it. The
// actions' legend is in the README and on the explain page.
func banner(ce Counterexample, steps []Step, marked int, groups [][]int) []string {
	sp := ce.Spec
	var out []string
	add := func(lines ...string) { out = append(out, lines...) }
	add(title(ce, steps))
	if sc := sp.Scenario; sc != nil {
		text := "Reproduces: " + sc.Report + ": " + sc.Doc + "."
		if Story(sc.Name) != "" && ce.ReplayOf == "" && sp.Fixes == 0 {
			text += " What happens: " + StoryPath(sc.Name) + "."
		}
		add(wrap(text, "  ")...)
	}
	if ce.ReplayOf != "" {
		add(wrap(fmt.Sprintf("Replays: the actions of %s under %s.", ce.ReplayOf, fixDocs(sp.Fixes)), "  ")...)
		if ce.FoundBy != "" {
			add(wrap("Checked by: "+ce.FoundBy+" ("+ce.Search+").", "  ")...)
		}
	} else if ce.FoundBy != "" {
		add(wrap("Found by: "+ce.FoundBy+" ("+ce.Search+").", "  ")...)
	}
	add(wrap("Setup: "+setup(&sp.Config), "  ")...)
	add(outline(ce, steps, marked, groups)...)
	for _, note := range ce.Notes {
		add(wrap(note, "  ")...)
	}
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
// colon ("PR #19006"), when it has one.
func fixSources(fixes spec.Fixes) string {
	var parts []string
	seen := map[string]bool{}
	for _, f := range fixes.List() {
		source, _, found := strings.Cut(f.Doc(), ":")
		if found && !seen[source] {
			seen[source] = true
			parts = append(parts, source)
		}
	}
	return strings.Join(parts, "; ")
}

// setup describes the configuration in words, leaving out what is at its
// usual value (a resume gate of 100 %, recompute-pause on, the draft view
// that follows the target's).
func setup(cfg *spec.Config) string {
	var parts []string
	ranks := "1 rank"
	if cfg.Ranks != 1 {
		ranks = fmt.Sprintf("%d ranks", cfg.Ranks)
	}
	ranks += ", " + cfg.Loop.String() + " loop"
	if cfg.AttentionDP {
		ranks += ", attention DP"
		if cfg.MaxNumActiveRequests > 0 {
			ranks += fmt.Sprintf(" (max_num_active_requests %d)", cfg.MaxNumActiveRequests)
		}
	}
	if cfg.KVTransceiver {
		ranks += ", disaggregated generation"
	}
	parts = append(parts, ranks, describePools(cfg)+fmt.Sprintf(", %d tokens a page", cfg.TokensPerBlock))
	if cfg.BlockReuse {
		parts = append(parts, "block reuse on")
	}
	chunked := "no chunked prefill"
	if cfg.ChunkedPrefill {
		chunked = fmt.Sprintf("chunked prefill (unit %d)", cfg.ChunkUnitSize)
	}
	parts = append(parts, fmt.Sprintf("%s, max_num_tokens %d, max_batch_size %d", chunked, cfg.MaxNumTokens, cfg.MaxBatchSize),
		fmt.Sprintf("MTP max_draft_len %d", cfg.MaxDraftLen))
	if cfg.ResumeGatePercent != 100 {
		parts = append(parts, fmt.Sprintf("max_util_for_resume %d %%", cfg.ResumeGatePercent))
	}
	if cfg.HostTier {
		parts = append(parts, "a host tier below GPU")
	}
	if !cfg.RecomputePause {
		parts = append(parts, "recompute-pause off")
	}
	if cfg.EarlyFinish {
		parts = append(parts, "requests may end early at EOS")
	}
	version := cfg.Version.String()
	if cfg.DraftView != spec.DraftViewSameAsTarget {
		version += ", draft view " + cfg.DraftView.String()
	}
	parts = append(parts, version)
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
		text := fmt.Sprintf("target pool %d pages", cfg.PoolBlocks(0, p))
		if p == spec.Draft {
			switch cfg.DraftPool {
			case spec.UnpairedDraftPool:
				text = fmt.Sprintf("unpaired draft pool %d pages", cfg.PoolBlocks(0, p))
			case spec.PairedDraftPool:
				text = fmt.Sprintf("paired draft pool %d pages", cfg.PoolBlocks(0, p))
			default:
				text = fmt.Sprintf("draft pool %d pages", cfg.PoolBlocks(0, p))
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
	return strings.Join(parts, ", ")
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
		text := fmt.Sprintf("%d × prompt %d, max_tokens %d", r.n, r.t.PromptLen, r.t.MaxNewTokens)
		if r.t.Family != spec.NoFamily && r.t.SharedPrefix > 0 {
			text += fmt.Sprintf(", sharing their first %d tokens", r.t.SharedPrefix)
		}
		if r.t.ReceivingKV {
			text += ", receiving KV"
		}
		if oneRank := !slices.ContainsFunc(cfg.Requests, func(t spec.RequestTemplate) bool { return t.Rank != r.t.Rank }); cfg.Ranks > 1 && !oneRank {
			text += fmt.Sprintf(" on rank %d", r.t.Rank)
		}
		parts[i] = text
	}
	return strings.Join(parts, "; ")
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

// maxOutlineLines is the most lines the Test outline takes before the `[*]`
// line; a longer outline takes several directives to a line.
const maxOutlineLines = 4

// outline is the Test section: one line per directive of the body (or,
// when the body has a directive per action, per iteration), with what ran
// and the pages in use afterwards, coarsened to at most maxOutlineLines
// lines; then the `[*]` step.
func outline(ce Counterexample, steps []Step, marked int, groups [][]int) []string {
	sp := ce.Spec
	spans := outlineSpans(sp, steps, marked, groups)
	header := "Test (steps: what ran; pages in use after them"
	if sp.Config.Ranks > 1 {
		var ranks []string
		for r := 0; r < int(sp.Config.Ranks); r++ {
			ranks = append(ranks, fmt.Sprintf("rank %d %s", r, poolNames(sp, r)))
		}
		header += ", " + strings.Join(ranks, " | ")
	} else {
		header += ", " + poolNames(sp, 0)
	}
	lines := []string{header + "):"}
	texts := make([]string, len(spans))
	width := 0
	for i, span := range spans {
		texts[i] = spanText(sp, steps[span[0]:span[1]+1])
		width = max(width, len(texts[i]))
	}
	for i, span := range spans {
		label := itoa(span[0] + 1)
		if span[1] > span[0] {
			label += "-" + itoa(span[1]+1)
		}
		line := fmt.Sprintf("  %-7s %-*s  %s", label, width, texts[i], pagesAfter(sp, &steps[span[1]].After))
		lines = append(lines, strings.TrimRight(line, " "))
	}
	if marked >= 0 {
		s := steps[marked]
		what := stepOutcome(ce, s)
		if what == "" {
			what = "broke in the real code (" + ce.ReplayBroke + "); here nothing breaks"
		}
		lines = append(lines, wrap(fmt.Sprintf("  [*] %-3d %s: %s", marked+1, s.Text, what), "      ")...)
	}
	for _, text := range fixLines(ce.FixedBy) {
		lines = append(lines, wrap("      "+text, "        ")...)
	}
	return lines
}

// fixLines say, one fix set a line, whether it closes the violation,
// with its transcript: "closed by joint-admission (PR #19006):
// draft-admission.joint-admission.ok.txt".
func fixLines(notes []FixNote) []string {
	var out []string
	for _, n := range notes {
		name := fixesName(n.Fixes)
		source := fixSources(n.Fixes)
		switch {
		case strings.HasPrefix(n.Verdict, "closes it"):
			if source != "" {
				name += " (" + source + ")"
			}
			out = append(out, "closed by "+name+": "+n.File)
		case strings.HasPrefix(n.Verdict, "does not close it"):
			why := strings.Trim(strings.TrimPrefix(n.Verdict, "does not close it"), " ()")
			if source != "" {
				why = source + "; " + why
			}
			out = append(out, "not closed by "+name+" ("+why+"): "+n.File)
		default:
			if source != "" {
				name += " (" + source + ")"
			}
			out = append(out, name+": "+n.Verdict)
		}
	}
	return out
}

// outlineSpans are the step spans of the outline's lines: the directives'
// (the iterations' when each action is a directive), joined in runs until
// there are at most maxOutlineLines; the marked step ends a span.
func outlineSpans(sp *spec.Spec, steps []Step, marked int, groups [][]int) [][2]int {
	trace := make([]spec.Action, len(steps))
	for i, s := range steps {
		trace[i] = s.Action
	}
	if len(groups) == len(steps) && len(steps) > 1 {
		groups = groupSteps(sp, trace, 1, marked)
	}
	spans := make([][2]int, len(groups))
	for i, g := range groups {
		spans[i] = [2]int{g[0], g[len(g)-1]}
	}
	for len(spans) > maxOutlineLines {
		var joined [][2]int
		for i := 0; i < len(spans); i++ {
			if i+1 < len(spans) && spans[i][1] != marked {
				joined = append(joined, [2]int{spans[i][0], spans[i+1][1]})
				i++
				continue
			}
			joined = append(joined, spans[i])
		}
		if len(joined) == len(spans) {
			break
		}
		spans = joined
	}
	return spans
}

// spanText says what ran in a span of steps: its arrivals, the batches
// the ranks ran, or else its actions.
func spanText(sp *spec.Spec, steps []Step) string {
	var arrivals []string
	var batches []string
	seen := map[string]bool{}
	for _, s := range steps {
		if s.Action.Kind == spec.ActArrive {
			arrivals = append(arrivals, itoa(int(s.Action.ID)))
		}
		for _, c := range s.Changes {
			for _, f := range c.Fields {
				var batch string
				switch {
				case c.Kind == "Pipeline" && c.Appeared && f.Key == "PipelineIteration.Batch":
					batch = "micro-batches " + f.After
				case c.Kind == "Ranks" && f.Key == "Rank.Batch" && f.After != "[]":
					batch = fmt.Sprintf("rank %d runs %s", c.Rank, f.After)
				default:
					continue
				}
				if !seen[batch] {
					seen[batch] = true
					batches = append(batches, batch)
				}
			}
		}
	}
	var parts []string
	if len(arrivals) > 0 {
		parts = append(parts, "arrive req="+strings.Join(arrivals, ", "))
	}
	parts = append(parts, joinBatches(batches)...)
	if len(batches) == 0 {
		var actions []string
		for _, s := range steps {
			if s.Action.Kind != spec.ActArrive {
				actions = append(actions, s.Text)
			}
		}
		if len(actions) > 2 {
			actions = append(actions[:2], "...")
		}
		parts = append(parts, actions...)
	}
	return strings.Join(parts, "; ")
}

// joinBatches folds "rank 0 runs [a]", "rank 0 runs [b]" into "rank 0 runs
// [a], [b]", and more than two batches into "[a] ... [z]".
func joinBatches(batches []string) []string {
	type run struct {
		who     string
		batches []string
	}
	var runs []run
	for _, b := range batches {
		i := strings.Index(b, " [")
		if n := len(runs); n > 0 && runs[n-1].who == b[:i] {
			runs[n-1].batches = append(runs[n-1].batches, b[i+1:])
			continue
		}
		runs = append(runs, run{b[:i], []string{b[i+1:]}})
	}
	var out []string
	for _, r := range runs {
		who, list := r.who, r.batches
		if len(list) == 1 {
			who = strings.TrimSuffix(who, "es")
		}
		if len(list) > 2 {
			list = []string{list[0], "...", list[len(list)-1]}
		}
		out = append(out, who+" "+strings.ReplaceAll(strings.Join(list, ", "), ", ..., ", " ... "))
	}
	return out
}

// poolNames names the pools of rank r in the order pagesAfter lists them.
func poolNames(sp *spec.Spec, r int) string {
	var names []string
	for p := spec.Target; p <= spec.Draft; p++ {
		if sp.Config.HasPool(uint8(r), p) {
			names = append(names, p.String())
		}
	}
	return strings.Join(names, " ")
}

// pagesAfter is the pages in use of every pool, "7/8 8/8" per rank, ranks
// separated by " | ".
func pagesAfter(sp *spec.Spec, s *spec.State) string {
	var ranks []string
	for r := 0; r < int(sp.Config.Ranks); r++ {
		var parts []string
		for p := spec.Target; p <= spec.Draft; p++ {
			if !sp.Config.HasPool(uint8(r), p) {
				continue
			}
			size := int(sp.Config.PoolBlocks(uint8(r), p))
			parts = append(parts, fmt.Sprintf("%d/%d", size-int(s.Ranks[r].Pools[p].Free), size))
		}
		ranks = append(ranks, strings.Join(parts, " "))
	}
	return strings.Join(ranks, " | ")
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
