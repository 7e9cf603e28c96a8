package counterexamples

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// LineKind says what an output line of an action directive tells.
type LineKind uint8

const (
	// LineChange is what the steps changed on the engine, a rank or a
	// request and its caches.
	LineChange LineKind = iota
	// LinePages is the pages in use of a rank's pools.
	LinePages
	// LineCrash is the raise that brought the engine down.
	LineCrash
	// LineViolation is an invariant a step broke.
	LineViolation
	// LineNotEnabled is an action that was not enabled where it stood.
	LineNotEnabled
	// LineEnd says why nothing is enabled after the last step.
	LineEnd
)

// Line is one output line of an action directive.
type Line struct {
	Kind LineKind
	// Ranks are the ranks the line is about: one, several when their lines
	// were the same, none for the engine as a whole.
	Ranks []int
	// Subject is what on those ranks the line is about ("req 3", "pages in
	// use"), "" for the rank itself or the engine; Text is what it says.
	Subject, Text string
}

// Bad reports whether the line tells a crash, a violation or an action
// that was not enabled.
func (l Line) Bad() bool {
	return l.Kind == LineCrash || l.Kind == LineViolation || l.Kind == LineNotEnabled
}

// Body is the line without its ranks: "req 3: position 0 → 8".
func (l Line) Body() string {
	if l.Subject == "" {
		return l.Text
	}
	return l.Subject + ": " + l.Text
}

// String renders the line with its ranks ("rank 1 req 2: ...", "ranks 0, 1
// req 2: ...", "rank 0: batch [...]"); a one-rank engine's lines carry
// none.
func (l Line) String(ranks int) string {
	if len(l.Ranks) == 0 || ranks == 1 {
		return l.Body()
	}
	parts := make([]string, len(l.Ranks))
	for i, r := range l.Ranks {
		parts[i] = strconv.Itoa(r)
	}
	prefix := "rank " + parts[0]
	if len(parts) > 1 {
		prefix = "ranks " + strings.Join(parts, ", ")
	}
	if l.Subject != "" {
		return prefix + " " + l.Body()
	}
	return prefix + ": " + l.Text
}

// Summary rules: what a directive's output leaves out or merges because an
// action line or another output line says it already; `state` dumps all.
// TestSummaryRulesApply checks every key still changes in the transcripts.
var (
	// summaryDropped: the executor phase an action moves its rank to and
	// the count of arrived requests (the action lines say them);
	// py_ctx_pre_resize_cap (an input of the next context resize that the
	// capacities show); a stage's position in the pipeline and the
	// pipeline's length (the action lines say which stage ran).
	summaryDropped = []spec.FieldKey{spec.KeyPhase, spec.KeyArrived, spec.KeyPreResizeCapacity, spec.KeyPipelinePos, spec.KeyPipelineLen}
	// summaryKeys are the keys the rules below single out.
	summaryKeys = append(slices.Clone(summaryDropped), spec.KeyCrash, spec.KeyPipelineBatch, spec.KeyBatch,
		spec.KeyRequestFlags, spec.KeyPosition, spec.KeyDraftPosition, spec.KeyRequestIncarn, spec.KeyCacheIncarn, spec.KeyPoolTree)
)

// chain is the values one field of one entity took over the steps,
// repeats folded.
type chain struct {
	key         spec.FieldKey
	index       int
	name        string
	bare, whole bool
	values      []spec.Field
}

// add records one change of the field.
func (c *chain) add(f FieldChange) {
	for _, v := range []*spec.Field{f.Before, &f.Field} {
		if n := len(c.values); v != nil && (n == 0 || c.values[n-1].Value != v.Value) {
			c.values = append(c.values, *v)
		}
	}
}

// texts are the chain's values in words; a whole value (a batch, a
// nested record) that was empty at first starts at its next value.
func (c *chain) texts() []string {
	values := c.values
	if c.whole && len(values) > 1 && values[0].Zero {
		values = values[1:]
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = v.Value
	}
	return out
}

// sameValues reports whether two chains took the same values.
func sameValues(a, b *chain) bool {
	return slices.EqualFunc(a.values, b.values, func(x, y spec.Field) bool { return x.Raw == y.Raw })
}

// entityRun is what the steps of a directive did to one entity during
// one lifetime: whether it appeared and went, and its fields' chains.
type entityRun struct {
	appeared, gone bool
	chains         []*chain
}

// chain is the run's chain of field f, new if f has none yet.
func (r *entityRun) chain(f FieldChange) *chain {
	for _, c := range r.chains {
		if c.key == f.Key && c.index == f.Index {
			return c
		}
	}
	c := &chain{key: f.Key, index: f.Index, name: f.Name, bare: f.Bare, whole: f.Whole}
	r.chains = append(r.chains, c)
	return c
}

// findChain is the chain of the field key in any lifetime of an entity.
func findChain(runs []*entityRun, key spec.FieldKey) *chain {
	for _, r := range runs {
		for _, c := range r.chains {
			if c.key == key {
				return c
			}
		}
	}
	return nil
}

// summary collects the changes of a directive's steps per entity.
type summary struct {
	order []spec.EntityID
	runs  map[spec.EntityID][]*entityRun
	crash string
}

// add records one step's change of one entity; an entity that appears
// after it went starts a new lifetime.
func (s *summary) add(c Change) {
	runs, seen := s.runs[c.EntityID]
	if !seen {
		s.order = append(s.order, c.EntityID)
	}
	if len(runs) == 0 || (c.Appeared && runs[len(runs)-1].gone) {
		runs = append(runs, &entityRun{})
	}
	r := runs[len(runs)-1]
	r.appeared = r.appeared || c.Appeared
	r.gone = r.gone || c.Gone
	for _, f := range c.Fields {
		switch {
		case c.Gone || slices.Contains(summaryDropped, f.Key):
		case f.Key == spec.KeyCrash:
			s.crash = f.Value
		default:
			r.chain(f).add(f)
		}
	}
	s.runs[c.EntityID] = runs
}

// summarize is the output of the steps of one action directive: the
// micro-batches rank 0 started; for each rank, its own changes (batch,
// can_queue, ...) and one line per request with the changes of the
// request and of its caches in each pool; the pages in use of every pool
// that changed; the crash; and per step what broke or was not enabled.
// Each changed field shows every value it took ("capacity 12 → 14 → 13");
// lines that are the same on several ranks are one line ("ranks 0, 1 req
// 2: ...").
func summarize(sp *spec.Spec, steps []Step, firstNumber int) []Line {
	s := &summary{runs: map[spec.EntityID][]*entityRun{}}
	var batches []string
	for _, st := range steps {
		for _, c := range st.Changes {
			switch {
			case c.Kind == spec.PipelineEntity && c.Appeared:
				// Rank 0 started an iteration: its micro-batch, as
				// scheduled. The rest is the pipeline's bookkeeping.
				b := "[]"
				for _, f := range c.Fields {
					if f.Key == spec.KeyPipelineBatch {
						b = f.Value
					}
				}
				batches = append(batches, b)
			case c.Kind != spec.PipelineEntity:
				s.add(c)
			}
		}
	}
	var out []Line
	switch len(batches) {
	case 0:
	case 1:
		out = append(out, Line{Text: "micro-batch " + batches[0]})
	default:
		out = append(out, Line{Text: "micro-batches " + strings.Join(batches, ", ")})
	}
	perRank := make([][]Line, sp.Config.Ranks)
	last := &steps[len(steps)-1].After
	for _, id := range s.order {
		switch id.Kind {
		case spec.EngineEntity:
			if text := renderRuns(s.runs[id], id.Kind, nil); text != "" {
				out = append(out, Line{Text: text})
			}
		case spec.RankEntity:
			if text := renderRuns(s.runs[id], id.Kind, rankRules); text != "" {
				perRank[id.Rank] = append(perRank[id.Rank], Line{Ranks: []int{id.Rank}, Text: text})
			}
		}
	}
	for r := range perRank {
		for id := 0; id < spec.MaxIDs; id++ {
			if text := s.requestLine(r, id, last); text != "" {
				perRank[r] = append(perRank[r], Line{Ranks: []int{r}, Subject: "req " + strconv.Itoa(id), Text: text})
			}
		}
	}
	out = append(out, mergeRanks(perRank)...)
	out = append(out, mergeRanks(s.pagesLines(sp, steps))...)
	if s.crash != "" {
		out = append(out, Line{Kind: LineCrash, Subject: "crashed", Text: s.crash})
	}
	for i, st := range steps {
		where := ""
		if len(steps) > 1 {
			where = fmt.Sprintf("step %d (%s): ", firstNumber+i, st.Text)
		}
		if !st.Enabled {
			out = append(out, Line{Kind: LineNotEnabled, Text: where + st.notEnabled})
			continue
		}
		if i+1 < len(steps) {
			where = "after " + where
		} else {
			where = ""
		}
		for _, v := range st.Violations {
			message := v.Message
			if c := st.After.Crash; c.Happened && v.Message == c.Describe() {
				message = "as above" // the crash line says it
			}
			out = append(out, Line{Kind: LineViolation, Text: fmt.Sprintf("%sviolation %s: %s", where, v.Invariant, message)})
		}
		if st.End != "" {
			out = append(out, Line{Kind: LineEnd, Text: where + st.End})
		}
	}
	return out
}

// rankRules shows a rank's batch as the batches it formed, without the
// one it held before and the empty batch every iteration ends with:
// "[a], [b]" for the batches of two iterations, "[a] → [b]" for a batch
// changed within one.
func rankRules(_ []*entityRun, c *chain) []string {
	if c.key == spec.KeyPrevious {
		// previous_batch = None when the rank had nothing to queue.
		values := make([]string, len(c.values))
		for i, v := range c.values {
			values[i] = v.Value
			if v.Zero {
				values[i] = "none"
			}
		}
		return values
	}
	if c.key != spec.KeyBatch {
		return c.texts()
	}
	text, cleared := "", false
	for _, v := range c.values[1:] {
		switch {
		case v.Zero:
			cleared = true
		case text == "":
			text = v.Value
		case cleared:
			text += ", " + v.Value // the next iteration's batch
		default:
			text += " → " + v.Value // the same batch, changed
		}
		cleared = cleared && v.Zero
	}
	if text == "" {
		return nil
	}
	return []string{text}
}

// requestLine renders one request's changes and those of its caches:
// "tokens 13 → 14; target capacity 12 → 14 → 13; draft ...".
func (s *summary) requestLine(rank, id int, last *spec.State) string {
	var parts []string
	reqRuns := s.runs[spec.EntityID{Kind: spec.RequestEntity, Rank: rank, ID: id}]
	if text := renderRuns(reqRuns, spec.RequestEntity, requestRules(rank, id, last)); text != "" {
		parts = append(parts, text)
	}
	for p := spec.Target; p <= spec.Draft; p++ {
		runs := s.runs[spec.EntityID{Kind: spec.CacheEntity, Rank: rank, Pool: p, ID: id}]
		if text := renderRuns(runs, spec.CacheEntity, firstIncarnation); text != "" {
			parts = append(parts, p.String()+" "+text)
		}
	}
	return strings.Join(parts, "; ")
}

// firstIncarnation leaves out a request's or cache's first incarnation.
func firstIncarnation(_ []*entityRun, c *chain) []string {
	if (c.key == spec.KeyCacheIncarn || c.key == spec.KeyRequestIncarn) && len(c.values) == 1 && c.values[0].Raw == 1 {
		return nil
	}
	return c.texts()
}

// requestRules leaves out a first incarnation, the inflight flag and the
// draft view's cursor when it moved with the target's, and says where the
// draft cursor stands when the target's moved without it.
func requestRules(rank, id int, last *spec.State) rules {
	return func(runs []*entityRun, c *chain) []string {
		switch c.key {
		case spec.KeyRequestFlags:
			var out []string
			for _, v := range c.values {
				text := spec.WordField(c.key, v.Raw&^spec.RequestFlagInflight)
				if n := len(out); n == 0 || out[n-1] != text {
					out = append(out, text)
				}
			}
			if len(out) < 2 && len(c.values) > 1 {
				return nil
			}
			return out
		case spec.KeyDraftPosition:
			if pos := findChain(runs, spec.KeyPosition); pos != nil && sameValues(pos, c) {
				return nil
			}
		case spec.KeyPosition:
			req := last.Ranks[rank].Requests[id]
			if findChain(runs, spec.KeyDraftPosition) == nil && req.DraftPosition != req.Position {
				out := c.texts()
				out[len(out)-1] += " (draft position stays " + strconv.Itoa(int(req.DraftPosition)) + ")"
				return out
			}
		}
		return firstIncarnation(runs, c)
	}
}

// rules pick the values a chain of an entity's runs shows.
type rules func(runs []*entityRun, c *chain) []string

// renderRuns renders the lifetimes of one entity of a kind over a
// directive's steps: "created active, capacity 8 → 12, closed"; pick (nil
// for all) picks the values each chain shows.
func renderRuns(runs []*entityRun, kind spec.EntityKind, pick rules) string {
	appeared, gone := verbs(kind)
	var texts []string
	for _, r := range runs {
		var parts []string
		for _, c := range r.chains {
			values := c.texts()
			if pick != nil {
				values = pick(runs, c)
			}
			if len(values) == 0 {
				continue
			}
			text := strings.Join(values, " → ")
			if !c.bare {
				text = c.name + " " + text
			}
			parts = append(parts, text)
		}
		text := strings.Join(parts, ", ")
		if r.appeared {
			text = strings.TrimSpace(appeared + " " + text)
		}
		if r.gone {
			text = strings.TrimPrefix(text+", "+gone, ", ")
		}
		if text != "" {
			texts = append(texts, text)
		}
	}
	return strings.Join(texts, ", then ")
}

// pagesLines are, per rank, the pages in use of every pool that changed
// over the steps, read off the states, with the pool size and the
// reuse-tree blocks that changed: "pages in use: target 3 → 5/8, draft
// 3 → 7/8 (family 0 tree blocks 0 → 2)".
func (s *summary) pagesLines(sp *spec.Spec, steps []Step) [][]Line {
	out := make([][]Line, sp.Config.Ranks)
	for r := range out {
		var pools []string
		for p := spec.Target; p <= spec.Draft; p++ {
			if !sp.Config.HasPool(uint8(r), p) {
				continue
			}
			size := int(sp.Config.PoolBlocks(uint8(r), p))
			var used []string
			note := func(s *spec.State) {
				text := strconv.Itoa(size - int(s.Ranks[r].Pools[p].Free))
				if n := len(used); n == 0 || used[n-1] != text {
					used = append(used, text)
				}
			}
			note(&steps[0].Before)
			for i := range steps {
				note(&steps[i].After)
			}
			var trees []string
			if runs := s.runs[spec.EntityID{Kind: spec.PoolEntity, Rank: r, Pool: p, ID: -1}]; len(runs) > 0 {
				for _, c := range runs[0].chains {
					if c.key == spec.KeyPoolTree {
						trees = append(trees, c.name+" "+strings.Join(c.texts(), " → "))
					}
				}
			}
			if len(used) == 1 && len(trees) == 0 {
				continue
			}
			text := p.String() + " " + strings.Join(used, " → ") + "/" + strconv.Itoa(size)
			if len(trees) > 0 {
				text += " (" + strings.Join(trees, ", ") + ")"
			}
			pools = append(pools, text)
		}
		if len(pools) > 0 {
			out[r] = []Line{{Kind: LinePages, Ranks: []int{r}, Subject: "pages in use", Text: strings.Join(pools, ", ")}}
		}
	}
	return out
}

// mergeRanks joins, in rank order, each rank's lines, folding a line
// that is the same on several ranks into one at its first rank's place.
func mergeRanks(perRank [][]Line) []Line {
	var out []Line
	used := make([][]bool, len(perRank))
	for r := range perRank {
		used[r] = make([]bool, len(perRank[r]))
	}
	for r := range perRank {
		for i, l := range perRank[r] {
			if used[r][i] {
				continue
			}
			merged := l
			merged.Ranks = []int{r}
			for r2 := r + 1; r2 < len(perRank); r2++ {
				for j, l2 := range perRank[r2] {
					if !used[r2][j] && l2.Body() == l.Body() {
						used[r2][j] = true
						merged.Ranks = append(merged.Ranks, r2)
						break
					}
				}
			}
			out = append(out, merged)
		}
	}
	return out
}
