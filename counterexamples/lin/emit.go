package lin

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/kvcheck/kvcheck/spec"
)

// EmitOptions shape a history emitted from the spec.
type EmitOptions struct {
	// Engine is the engine instance the records name, so several runs can
	// sit side by side in one history as different engines.
	Engine int
	// Start is the first call timestamp.
	Start int64
	// Overlap makes each operation of a (rank, pool) return only after the
	// next one of the same (rank, pool) was called, so the checker has to
	// find their order; without it they follow one another.
	Overlap bool
}

// timeStep is the time between two consecutive calls of one step.
const timeStep = 10

// FromTrace replays trace on sp and returns the cache operations each step
// makes on each (rank, pool): read off the states before and after the step
// (a close, a create with or without a reuse lookup, a resume, a resize, a
// commit, a suspend per cache), ordered so that the spec's sequential
// per-pool model reproduces the pool the step left behind, plus the
// refused resize or resume a crash of _prepare_draft_resources reports.
// Results are what the model returns. Operations of different ranks and
// pools of one step interleave in time. It errs when no order of the
// derived operations reproduces a step, which would mean the model and the
// spec disagree.
func FromTrace(sp *spec.Spec, trace []spec.Action, opts EmitOptions) ([]Record, error) {
	states := []spec.State{sp.Initial()}
	enabled := []spec.Action{}
	for i, a := range trace {
		cur := &states[len(states)-1]
		enabled = sp.Actions(cur, enabled[:0])
		found := false
		for _, e := range enabled {
			if e.String() == a.String() {
				states = append(states, sp.Next(cur, e))
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("step %d: action %q is not enabled", i+1, a.String())
		}
	}
	type key struct {
		rank int
		pool spec.PoolKind
	}
	models := map[key]*spec.PoolModel{}
	var records []Record
	clock := opts.Start
	for i := 1; i < len(states); i++ {
		before, after := &states[i-1], &states[i]
		var perPool [][]Record
		for r := 0; r < int(sp.Config.Ranks); r++ {
			for p := range after.Ranks[r].Pools {
				kind := spec.PoolKind(p)
				if !sp.Config.HasPool(uint8(r), kind) {
					continue
				}
				k := key{r, kind}
				if models[k] == nil {
					m := sp.InitialPool(uint8(r), kind)
					models[k] = &m
				}
				ops, err := deriveStep(sp, models[k], before, after, r, kind)
				if err != nil {
					return nil, fmt.Errorf("step %d (%s), rank %d %s pool: %w", i, trace[i-1].String(), r, kind, err)
				}
				var recs []Record
				for _, op := range ops {
					recs = append(recs, newRecord(opts.Engine, r, kind, op.op, op.result))
				}
				perPool = append(perPool, recs)
			}
		}
		for j := 0; ; j++ {
			any := false
			for _, recs := range perPool {
				if j < len(recs) {
					recs[j].Call, recs[j].Return = clock, clock+timeStep/2
					clock += timeStep
					records = append(records, recs[j])
					any = true
				}
			}
			if !any {
				break
			}
		}
		clock += timeStep
	}
	if opts.Overlap {
		overlap(records, 1)
	}
	return records, nil
}

// overlap stretches each operation's return past the call of the
// window-th next operation on the same (rank, pool), so up to window+1 of
// its operations are in flight at once; the order they were made in stays
// a legal one.
func overlap(records []Record, window int) {
	recent := map[int][]int{}
	for i := range records {
		k := partitionKey(&records[i])
		prev := recent[k]
		if len(prev) >= window {
			records[prev[len(prev)-window]].Return = records[i].Call + 1
		}
		recent[k] = append(prev, i)
	}
}

// Merge merges histories into one ordered by call time (ties keep their
// input order), for runs placed side by side as different engines.
func Merge(histories ...[]Record) []Record {
	var out []Record
	for _, h := range histories {
		out = append(out, h...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Call < out[j].Call })
	return out
}

// Walk returns a random run of sp of at most maxSteps actions, each chosen
// uniformly among the enabled ones, ending early where nothing is enabled.
func Walk(sp *spec.Spec, rng *rand.Rand, maxSteps int) []spec.Action {
	s := sp.Initial()
	var trace []spec.Action
	var enabled []spec.Action
	for len(trace) < maxSteps {
		enabled = sp.Actions(&s, enabled[:0])
		if len(enabled) == 0 {
			break
		}
		a := enabled[rng.IntN(len(enabled))]
		trace = append(trace, a)
		s = sp.Next(&s, a)
	}
	return trace
}

// newRecord builds a record of op with the model's result res.
func newRecord(engine, rank int, pool spec.PoolKind, op spec.CacheOp, res spec.CacheResult) Record {
	rec := Record{Engine: engine, Rank: rank, Pool: pool.String(), Request: int(op.ID), Op: op.Kind.String(), op: op, pool: pool}
	switch op.Kind {
	case spec.CacheCreate:
		rec.Args = map[string]any{"reuse": op.Reuse, "prompt": int(op.Prompt)}
	case spec.CacheResize:
		rec.Args = map[string]any{"capacity": noneOr(op.Capacity), "history": noneOr(op.History)}
	case spec.CacheCommit:
		rec.Args = map[string]any{"tokens": int(op.Tokens), "last": op.Last}
	}
	if res.Raise != "" {
		text := res.Raise
		rec.Result.Raise = &text
		return rec
	}
	ok := res.OK
	rec.Result.OK = &ok
	if op.Kind == spec.CacheCreate && ok {
		n := int(res.Reused)
		rec.Result.Reused = &n
	}
	return rec
}

func noneOr(n int) any {
	if n == spec.CacheKeep {
		return nil
	}
	return n
}

// emitted is one derived operation and the model's result.
type emitted struct {
	op     spec.CacheOp
	result spec.CacheResult
}

// deriveStep derives the operations of one step on pool p of rank r and
// applies them to model, trying a few orders of the caches until the model
// reproduces the pool the step left.
func deriveStep(sp *spec.Spec, model *spec.PoolModel, before, after *spec.State, r int, p spec.PoolKind) ([]emitted, error) {
	var closes, rest [][]spec.CacheOp
	var shrinking []bool
	for id := 0; id < spec.MaxIDs; id++ {
		c0 := before.Ranks[r].Pools[p].Caches[id]
		c1 := after.Ranks[r].Pools[p].Caches[id]
		ops, closeOnly := cacheOps(sp, after, r, uint8(id), c0, c1)
		if len(ops) == 0 {
			continue
		}
		if closeOnly {
			closes = append(closes, ops)
			continue
		}
		rest = append(rest, ops)
		shrinking = append(shrinking, c1.Capacity < c0.Capacity)
	}
	failing := crashOp(before, after, r, p)
	orders := candidateOrders(closes, rest, shrinking)
	for _, order := range orders {
		trial := *model
		var out []emitted
		ok := true
		for _, op := range order {
			res, applied := sp.ApplyPoolOp(&trial, uint8(r), p, op)
			if !applied || res.Raise != "" || !res.OK {
				ok = false
				break
			}
			out = append(out, emitted{op, res})
		}
		if !ok || !poolsMatch(&trial, &after.Ranks[r].Pools[p]) {
			continue
		}
		if failing != nil {
			res, applied := sp.ApplyPoolOp(&trial, uint8(r), p, *failing)
			if !applied || res.OK {
				continue
			}
			out = append(out, emitted{*failing, res})
		}
		*model = trial
		return out, nil
	}
	return nil, fmt.Errorf("no order of the %d derived cache operations reproduces the pool", countOps(closes)+countOps(rest))
}

func countOps(groups [][]spec.CacheOp) int {
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	return n
}

// candidateOrders lists the orders deriveStep tries: closes first then the
// caches by ID; closes, then shrinking caches, then the others; closes then
// the caches in reverse ID order.
func candidateOrders(closes, rest [][]spec.CacheOp, shrinking []bool) [][]spec.CacheOp {
	flat := func(groups ...[][]spec.CacheOp) []spec.CacheOp {
		var out []spec.CacheOp
		for _, g := range groups {
			for _, ops := range g {
				out = append(out, ops...)
			}
		}
		return out
	}
	var shrinkFirst, growLater [][]spec.CacheOp
	for i, ops := range rest {
		if shrinking[i] {
			shrinkFirst = append(shrinkFirst, ops)
		} else {
			growLater = append(growLater, ops)
		}
	}
	reversed := make([][]spec.CacheOp, len(rest))
	for i, ops := range rest {
		reversed[len(rest)-1-i] = ops
	}
	return [][]spec.CacheOp{
		flat(closes, rest),
		flat(closes, shrinkFirst, growLater),
		flat(closes, reversed),
	}
}

// cacheOps derives the operations one cache went through in a step, in
// the order the real code makes them: close (of a gone or replaced
// cache), create, resume, resize, commit, suspend. closeOnly says the
// cache was only closed. A created cache starts at its reused prefix, as
// _create_kv_cache leaves it.
func cacheOps(sp *spec.Spec, after *spec.State, r int, id uint8, c0, c1 spec.Cache) ([]spec.CacheOp, bool) {
	var ops []spec.CacheOp
	cur := c0
	if c0.Status != spec.Absent && (c1.Status == spec.Absent || c1.Incarnation != c0.Incarnation) {
		ops = append(ops, spec.CacheOp{Kind: spec.CacheClose, ID: id})
		if c1.Status == spec.Absent {
			return ops, true
		}
		cur = spec.Cache{}
	}
	if c1.Status == spec.Absent {
		return ops, false
	}
	curStop := cur.StopCommitting()
	resumed := false
	if cur.Status == spec.Absent {
		reuse := !c1.StopCommitting() || c1.Shared > 0 || c1.Committed > 0
		prompt := after.Ranks[r].Requests[id].Prompt
		ops = append(ops, spec.CacheOp{Kind: spec.CacheCreate, ID: id, Reuse: reuse, Prompt: int(prompt)})
		// A cache created in this step commits nothing before a later step's
		// update, so its committed tokens are the prefix it reused (whole
		// blocks, or ending inside one with partial reuse).
		var tokens uint8
		if reuse {
			tokens = c1.Committed
		}
		cur = spec.Cache{Status: spec.Suspended, Capacity: tokens, History: tokens, Committed: tokens}
		curStop = !reuse
		// Resumed in this step, though perhaps suspended again (a first
		// chunk whose resize failed): the resume may have copied a
		// partially reused block into a fresh page.
		resumed = !c1.NeverResumed()
	}
	resize := c1.Capacity != cur.Capacity || c1.History != cur.History
	commit := c1.Committed != cur.Committed || c1.StopCommitting() && !curStop
	// A cache whose host-tier pages came back to GPU in this step was
	// resumed, though perhaps suspended again (an admission that was
	// reverted).
	onboarded := c1.Offloaded < cur.Offloaded
	status := cur.Status
	if (c1.Status == spec.Active || resize || commit || resumed || onboarded) && status != spec.Active {
		ops = append(ops, spec.CacheOp{Kind: spec.CacheResume, ID: id})
		status = spec.Active
	}
	if resize {
		op := spec.CacheOp{Kind: spec.CacheResize, ID: id, Capacity: spec.CacheKeep, History: spec.CacheKeep}
		if c1.Capacity != cur.Capacity {
			op.Capacity = int(c1.Capacity)
		}
		if c1.History != cur.History {
			op.History = int(c1.History)
		}
		ops = append(ops, op)
	}
	if commit {
		ops = append(ops, spec.CacheOp{Kind: spec.CacheCommit, ID: id, Tokens: int(c1.Committed), Last: c1.StopCommitting() && !curStop})
	}
	if c1.Status == spec.Suspended && status == spec.Active {
		ops = append(ops, spec.CacheOp{Kind: spec.CacheSuspend, ID: id})
	}
	return ops, false
}

// crashOp is the refused operation a crash in this step on this pool
// reports, if its error text carries it: a draft resize that returned
// False (the capacity is in the text) or a refused resume.
func crashOp(before, after *spec.State, r int, p spec.PoolKind) *spec.CacheOp {
	c := after.Crash
	if !c.Happened || before.Crash.Happened || int(c.Rank) != r || c.Pool != p {
		return nil
	}
	switch c.Error {
	case spec.ErrDraftContextResize, spec.ErrDraftGenerationResize:
		return &spec.CacheOp{Kind: spec.CacheResize, ID: c.ID, Capacity: int(c.Value), History: spec.CacheKeep}
	case spec.ErrDraftResume:
		return &spec.CacheOp{Kind: spec.CacheResume, ID: c.ID}
	}
	return nil
}

// poolsMatch compares what the sequential model tracks of a pool: free
// pages, the reuse tree and each cache's status, lengths, shared and
// offloaded blocks and stop_committing.
func poolsMatch(model *spec.PoolModel, real *spec.Pool) bool {
	wide := spec.FromPool(real)
	if model.Free != wide.Free || model.Tree != wide.Tree || model.TreeTail != wide.TreeTail {
		return false
	}
	for id := range wide.Caches {
		m, c := &model.Caches[id], &wide.Caches[id]
		if m.Status != c.Status || m.Capacity != c.Capacity || m.History != c.History || m.Committed != c.Committed ||
			m.Shared != c.Shared || m.Offloaded != c.Offloaded || m.StopCommitting() != c.StopCommitting() {
			return false
		}
	}
	return true
}

// CacheWalk returns n random operations on pool p of one rank, each
// applied to the spec's sequential model with the result it returns: a
// long history of one (rank, pool) (request IDs are reused after a close)
// for stress tests and benchmarks. Operations follow one another in time;
// Overlap makes them concurrent.
func CacheWalk(sp *spec.Spec, rng *rand.Rand, p spec.PoolKind, n int) []Record {
	m := sp.InitialPool(0, p)
	ids := len(sp.Config.Requests)
	var records []Record
	clock := int64(0)
	for len(records) < n {
		id := uint8(1 + rng.IntN(ids))
		c := m.Caches[id]
		op := spec.CacheOp{ID: id, Tokens: spec.CacheKeep, Capacity: spec.CacheKeep, History: spec.CacheKeep}
		switch {
		case c.Status == spec.Absent:
			op.Kind = spec.CacheCreate
			op.Reuse = rng.IntN(2) == 0
			op.Prompt = int(sp.Config.Requests[id-1].PromptLen)
		case rng.IntN(8) == 0:
			op.Kind = spec.CacheClose
		case c.Status == spec.Suspended:
			op.Kind = spec.CacheResume
		default:
			switch rng.IntN(6) {
			case 0:
				op.Kind = spec.CacheSuspend
			case 1:
				op.Kind = spec.CacheCommit
				op.Tokens = int(c.History)
				op.Last = rng.IntN(3) == 0
			default:
				op.Kind = spec.CacheResize
				op.Capacity = min(int(c.Capacity)+rng.IntN(9)-2, spec.MaxTokens)
				op.Capacity = max(op.Capacity, 0)
				op.History = min(int(c.History)+rng.IntN(3), op.Capacity+rng.IntN(2))
			}
		}
		res, ok := sp.ApplyPoolOp(&m, 0, p, op)
		if !ok {
			continue
		}
		rec := newRecord(0, 0, p, op, res)
		rec.Call, rec.Return = clock, clock+timeStep/2
		clock += timeStep
		records = append(records, rec)
	}
	return records
}

// Overlap stretches each operation's return past the call of the
// window-th next operation on the same (rank, pool) (EmitOptions.Overlap
// is window 1), so the checker has to search their order. The records must
// be in call order.
func Overlap(records []Record, window int) { overlap(records, window) }
