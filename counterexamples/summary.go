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
	// Text is the line without its rank prefix.
	Text string
}

// Bad reports whether the line tells a crash, a violation or an action
// that was not enabled.
func (l Line) Bad() bool {
	return l.Kind == LineCrash || l.Kind == LineViolation || l.Kind == LineNotEnabled
}

// String renders the line with its rank prefix ("rank 1 req 2: ...",
// "ranks 0, 1 req 2: ...", "rank 0: batch [...]"); a one-rank engine's
// lines carry none.
func (l Line) String(ranks int) string {
	if len(l.Ranks) == 0 || ranks == 1 {
		return l.Text
	}
	prefix := "rank " + strconv.Itoa(l.Ranks[0])
	if len(l.Ranks) > 1 {
		parts := make([]string, len(l.Ranks))
		for i, r := range l.Ranks {
			parts[i] = strconv.Itoa(r)
		}
		prefix = "ranks " + strings.Join(parts, ", ")
	}
	if strings.HasPrefix(l.Text, "req ") {
		return prefix + " " + l.Text
	}
	return prefix + ": " + l.Text
}

// Summary rules: what a directive's output leaves out or merges because an
// action line or another output line says it already. `state` dumps all.
var (
	// summaryDropped are fields whose changes the output leaves out:
	// py_ctx_pre_resize_cap (an input of the next context resize that the
	// capacities show), a stage's position in the pipeline and the
	// pipeline's bookkeeping (the action lines say which stage ran and
	// handled what).
	summaryDropped = map[string]bool{
		"Request.PreResizeCapacity": true,
		"Rank.PipelinePos":          true,
		"State.PipelineLen":         true,
	}
	// summaryFlagDropped are request flags the output leaves out:
	// "inflight" is set by every pipeline forward and cleared by every
	// handle.
	summaryFlagDropped = "inflight"
)

// entityRun is what the steps of a directive did to one entity during
// one lifetime: whether it appeared and went, and the values each changed
// field took, in order.
type entityRun struct {
	appeared, gone bool
	chains         []*chain
}

// chain is the values one field took over the steps, repeats folded.
type chain struct {
	key, name   string
	bare, whole bool
	values      []string
}

// chain is the run's chain of field f, new if f has none yet.
func (r *entityRun) chain(f FieldChange) *chain {
	for _, c := range r.chains {
		if c.key == f.Key {
			return c
		}
	}
	c := &chain{key: f.Key, name: f.Name, bare: f.Bare, whole: f.Whole}
	r.chains = append(r.chains, c)
	return c
}

// add records one change of the field; before is "" for a value the
// field took as its entity appeared.
func (c *chain) add(before, after string) {
	if n := len(c.values); n == 0 || c.values[n-1] != before {
		if before != "" {
			c.values = append(c.values, before)
		}
	}
	if n := len(c.values); n == 0 || c.values[n-1] != after {
		c.values = append(c.values, after)
	}
}

// findChain is the chain of the field key in any lifetime of an entity.
func findChain(runs []*entityRun, key string) *chain {
	for _, r := range runs {
		for _, ch := range r.chains {
			if ch.key == key {
				return ch
			}
		}
	}
	return nil
}

// entityKey identifies an entity across the steps of a directive.
type entityKey struct {
	kind           string
	rank, pool, id int
}

// summary collects the changes of a directive's steps per entity.
type summary struct {
	order []entityKey
	runs  map[entityKey][]*entityRun
	crash string
	// last is the state after the last step.
	last *spec.State
}

// add records one step's change of one entity; an entity that appears
// after it went starts a new lifetime.
func (s *summary) add(c Change) {
	key := entityKey{c.Kind, c.Rank, c.Pool, c.ID}
	runs, seen := s.runs[key]
	if !seen {
		s.order = append(s.order, key)
	}
	if len(runs) == 0 || (c.Appeared && runs[len(runs)-1].gone) {
		runs = append(runs, &entityRun{})
	}
	r := runs[len(runs)-1]
	switch {
	case c.Appeared:
		r.appeared = true
		for _, f := range c.Fields {
			if !summaryDropped[f.Key] {
				r.chain(f).add("", f.After)
			}
		}
	case c.Gone:
		r.gone = true
	default:
		for _, f := range c.Fields {
			if f.Key == "State.Crash" {
				s.crash = f.After
				continue
			}
			if summaryDropped[f.Key] {
				continue
			}
			r.chain(f).add(f.Before, f.After)
		}
	}
	s.runs[key] = runs
}

// summarize is the output of the steps of one action directive: for each
// rank, its own changes (batch, can_queue, ...) and one line per request
// with the changes of the request and of its caches in each pool, then the
// pages in use of every pool that changed, the crash, and per step what
// broke or was not enabled. Each changed field shows every value it took
// ("capacity 12 → 14 → 13"); lines that are the same on several ranks are
// one line ("ranks 0, 1 req 2: ...").
func summarize(sp *spec.Spec, steps []Step, firstNumber int) []Line {
	s := &summary{runs: map[entityKey][]*entityRun{}}
	var batches []string
	for _, st := range steps {
		for _, c := range st.Changes {
			if c.Kind == "Pipeline" {
				// Rank 0 started an iteration: its micro-batch, as
				// scheduled. The rest is the pipeline's bookkeeping.
				if c.Appeared {
					b := "[]"
					for _, f := range c.Fields {
						if f.Key == "PipelineIteration.Batch" {
							b = f.After
						}
					}
					batches = append(batches, b)
				}
				continue
			}
			s.add(c)
		}
	}
	var engine []Line
	switch len(batches) {
	case 0:
	case 1:
		engine = append(engine, Line{Text: "micro-batch " + batches[0]})
	default:
		engine = append(engine, Line{Text: "micro-batches " + strings.Join(batches, ", ")})
	}
	perRank := make([][]Line, sp.Config.Ranks)
	requestIDs := make([][]int, sp.Config.Ranks)
	for _, key := range s.order {
		runs := s.runs[key]
		switch key.kind {
		case "":
			if text := renderRuns(runs, "", nil); text != "" {
				engine = append(engine, Line{Text: text})
			}
		case "Ranks":
			if text := renderRuns(runs, "", rankRules); text != "" {
				perRank[key.rank] = append(perRank[key.rank], Line{Ranks: []int{key.rank}, Text: text})
			}
		case "Requests", "Caches":
			if !slices.Contains(requestIDs[key.rank], key.id) {
				requestIDs[key.rank] = append(requestIDs[key.rank], key.id)
			}
		}
	}
	if len(steps) > 0 {
		s.last = &steps[len(steps)-1].After
	}
	for r := range perRank {
		ids := requestIDs[r]
		slices.Sort(ids)
		for _, id := range ids {
			if text := s.requestLine(r, id, s.last); text != "" {
				perRank[r] = append(perRank[r], Line{Ranks: []int{r}, Text: "req " + strconv.Itoa(id) + ": " + text})
			}
		}
	}
	out := engine
	out = append(out, mergeRanks(perRank)...)
	out = append(out, mergeRanks(s.pagesLines(sp))...)
	if s.crash != "" {
		out = append(out, Line{Kind: LineCrash, Text: "crashed: " + s.crash})
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
			where = fmt.Sprintf("after step %d (%s): ", firstNumber+i, st.Text)
		} else {
			where = ""
		}
		for _, v := range st.Violations {
			message := v.Message
			if s.crash != "" && strings.HasSuffix(s.crash, v.Message) {
				message = "as above"
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
func rankRules(c *chain) []string {
	if c.key != "Rank.Batch" {
		return c.values
	}
	text, cleared := "", false
	for _, v := range c.values[1:] {
		switch {
		case v == "[]":
			cleared = true
		case text == "":
			text = v
		case cleared:
			text += ", " + v // the next iteration's batch
		default:
			text += " → " + v // the same batch, changed
		}
		if v != "[]" {
			cleared = false
		}
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
	reqRuns := s.runs[entityKey{"Requests", rank, -1, id}]
	if text := renderRuns(reqRuns, "arrived", requestRules(reqRuns, rank, id, last)); text != "" {
		parts = append(parts, text)
	}
	for p := spec.Target; p <= spec.Draft; p++ {
		runs := s.runs[entityKey{"Caches", rank, int(p), id}]
		if text := renderRuns(runs, "created", cacheRules); text != "" {
			parts = append(parts, p.String()+" "+text)
		}
	}
	return strings.Join(parts, "; ")
}

// requestRules leaves out the inflight flag and the draft view's cursor
// when it moved with the target's, and says where the draft cursor stands
// when the target's moved without it.
func requestRules(runs []*entityRun, rank, id int, last *spec.State) func(c *chain) []string {
	return func(c *chain) []string {
		switch c.key {
		case "Request.Flags":
			var out []string
			for _, v := range c.values {
				v = withoutFlag(v, summaryFlagDropped)
				if n := len(out); n == 0 || out[n-1] != v {
					out = append(out, v)
				}
			}
			if len(out) < 2 && len(c.values) > 1 {
				return nil
			}
			return out
		case "Request.DraftPosition":
			if pos := findChain(runs, "Request.Position"); pos != nil && slices.Equal(pos.values, c.values) {
				return nil
			}
		case "Request.Incarnation":
			if len(c.values) == 1 && c.values[0] == "1" {
				return nil
			}
		case "Request.Position":
			if findChain(runs, "Request.DraftPosition") == nil && last != nil {
				req := last.Ranks[rank].Requests[id]
				if req.DraftPosition != req.Position {
					out := append([]string(nil), c.values...)
					out[len(out)-1] += " (draft position stays " + strconv.Itoa(int(req.DraftPosition)) + ")"
					return out
				}
			}
		}
		return c.values
	}
}

// cacheRules leaves out a cache's first incarnation.
func cacheRules(c *chain) []string {
	if c.key == "Cache.Incarnation" && len(c.values) == 1 && c.values[0] == "1" {
		return nil
	}
	return c.values
}

// withoutFlag removes one flag name from a "+"-joined flag list.
func withoutFlag(v, flag string) string {
	var kept []string
	for _, f := range strings.Split(v, "+") {
		if f != flag {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		return "none"
	}
	return strings.Join(kept, "+")
}

// renderRuns renders the lifetimes of one entity over a directive's steps:
// "created active, capacity 8 → 12, closed".
func renderRuns(runs []*entityRun, verb string, rules func(*chain) []string) string {
	var texts []string
	for _, r := range runs {
		var parts []string
		for _, c := range r.chains {
			values := c.values
			if rules != nil {
				values = rules(c)
			}
			if c.whole && len(values) > 1 && (values[0] == "none" || values[0] == "[]") {
				values = values[1:]
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
		if r.appeared && verb != "" {
			text = strings.TrimSpace(verb + " " + text)
		}
		if r.gone {
			gone := "closed"
			if verb == "arrived" {
				gone = "removed"
			}
			if text != "" {
				text += ", "
			}
			text += gone
		}
		if text != "" {
			texts = append(texts, text)
		}
	}
	return strings.Join(texts, ", then ")
}

// pagesLines are, per rank, the pages in use of every pool that changed,
// with the pool size and the reuse-tree blocks: "pages in use: target
// 3 → 5/8, draft 3 → 7/8".
func (s *summary) pagesLines(sp *spec.Spec) [][]Line {
	out := make([][]Line, sp.Config.Ranks)
	for r := range out {
		var pools []string
		for p := spec.Target; p <= spec.Draft; p++ {
			runs := s.runs[entityKey{"Pools", r, int(p), int(p)}]
			if len(runs) == 0 {
				continue
			}
			size := int(sp.Config.PoolBlocks(uint8(r), p))
			text := strconv.Itoa(size-int(s.last.Ranks[r].Pools[p].Free)) + "/" + strconv.Itoa(size)
			var trees []string
			for _, c := range runs[0].chains {
				switch {
				case c.key == "Pool.Free":
					used := make([]string, len(c.values))
					for i, v := range c.values {
						n, _ := strconv.Atoi(v)
						used[i] = strconv.Itoa(size - n)
					}
					text = strings.Join(used, " → ") + "/" + strconv.Itoa(size)
				case strings.HasPrefix(c.key, "Pool.Tree["):
					trees = append(trees, c.name+" "+strings.Join(c.values, " → "))
				}
			}
			if len(trees) > 0 {
				text += " (" + strings.Join(trees, ", ") + ")"
			}
			pools = append(pools, p.String()+" "+text)
		}
		if len(pools) > 0 {
			out[r] = []Line{{Kind: LinePages, Ranks: []int{r}, Text: "pages in use: " + strings.Join(pools, ", ")}}
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
					if !used[r2][j] && l2.Text == l.Text {
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
