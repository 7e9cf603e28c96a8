package lin

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// SpecFor returns the spec whose sequential per-pool model checks h: the
// header's configuration text (applied to the zero configuration), else
// the named scenario's configuration; scenario, if not "", overrides the
// header's scenario. It errs when neither gives a configuration, and at
// the first record whose rank the configuration does not have.
func SpecFor(h *History, scenario string) (*spec.Spec, error) {
	sp, err := specFor(h, scenario)
	if err != nil {
		return nil, err
	}
	for _, rec := range h.Records {
		if rec.Rank >= int(sp.Config.Ranks) {
			return nil, &InputError{h.File, rec.Line, fmt.Sprintf("rank %d, but the configuration has %d rank(s); expected a rank below %d (or a configuration with more ranks)",
				rec.Rank, sp.Config.Ranks, sp.Config.Ranks)}
		}
	}
	return sp, nil
}

func specFor(h *History, name string) (*spec.Spec, error) {
	var text string
	var fixes spec.Fixes
	if h.Header != nil {
		text = h.Header.Config
		if name == "" {
			name = h.Header.Scenario
		}
		var err error
		if fixes, err = spec.ParseFixes(h.Header.Fixes); err != nil {
			return nil, &InputError{h.File, h.Header.Line, fmt.Sprintf("header: fixes: %v", err)}
		}
	}
	if text != "" {
		cfg, err := configtext.ParseReal(spec.Config{}, text)
		if err != nil {
			return nil, &InputError{h.File, h.Header.Line, fmt.Sprintf("header: config: %v", err)}
		}
		return spec.NewModel(cfg, fixes)
	}
	if name == "" {
		return nil, &InputError{h.File, 1, `no configuration: expected a header line {"kvcheck_history": 1, "scenario": NAME} or {"kvcheck_history": 1, "config": TEXT}, or --scenario NAME`}
	}
	sc, err := scenario.Lookup(name)
	if err != nil {
		return nil, err
	}
	return sc.Spec(fixes)
}

// modelState is the sequential model's state of one (engine, rank, pool):
// the pool model, and the rank and pool the partition is about (learned
// from its first operation).
type modelState struct {
	rank  uint8
	pool  spec.PoolKind
	known bool
	m     spec.PoolModel
}

// apply applies rec's operation to a copy of st and returns the result
// and the new state.
func apply(sp *spec.Spec, st modelState, rec *Record) (spec.CacheResult, bool, modelState) {
	next := modelState{rank: uint8(rec.Rank), pool: rec.pool, known: true, m: st.m}
	if !st.known {
		next.m = sp.InitialPool(uint8(rec.Rank), rec.pool)
	}
	res, ok := sp.ApplyPoolOp(&next.m, uint8(rec.Rank), rec.pool, rec.op)
	return res, ok, next
}

// Model returns the porcupine model of sp's per-pool sequential
// semantics (spec.Spec.ApplyPoolOp), partitioned per (rank, pool).
func Model(sp *spec.Spec) porcupine.Model {
	return porcupine.Model{
		Partition: partitionOps,
		Init:      func() any { return modelState{} },
		Step: func(state, input, output any) (bool, any) {
			st := state.(modelState)
			rec := input.(*Record)
			res, ok, next := apply(sp, st, rec)
			if !ok || !matches(rec, res) {
				return false, st
			}
			return true, next
		},
		Equal: func(a, b any) bool { return a.(modelState) == b.(modelState) },
		Hash: func(state any) uint64 {
			st := state.(modelState)
			return spec.FingerprintPool(&st.m) ^ uint64(st.pool)
		},
		DescribeOperation: func(input, output any) string { return describeRecord(input.(*Record)) },
		DescribeState: func(state any) string {
			st := state.(modelState)
			if !st.known {
				return "every pool empty"
			}
			return sp.DescribePool(&st.m, st.rank, st.pool)
		},
	}
}

// partitionKey orders partitions by engine, rank, then pool.
func partitionKey(rec *Record) int {
	return (rec.Engine*(spec.MaxRanks+1)+rec.Rank)*2 + int(rec.pool)
}

// partitionOps splits a history per (engine, rank, pool): requests share a
// pool's pages, so operations of different requests on one pool do not
// commute and a per-request partition would be unsound.
func partitionOps(history []porcupine.Operation) [][]porcupine.Operation {
	byKey := map[int][]porcupine.Operation{}
	for _, op := range history {
		k := partitionKey(op.Input.(*Record))
		byKey[k] = append(byKey[k], op)
	}
	keys := make([]int, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([][]porcupine.Operation, len(keys))
	for i, k := range keys {
		out[i] = byKey[k]
	}
	return out
}

// matches reports whether the model's result is the recorded one.
func matches(rec *Record, res spec.CacheResult) bool {
	r := rec.Result
	if r.Raise != nil {
		if !raiseMatches(*r.Raise, res.Raise) {
			return false
		}
	} else if res.Raise != "" || r.OK == nil || res.OK != *r.OK {
		return false
	}
	switch k := rec.op.Kind; {
	case (k == spec.CacheCreate || k == spec.CacheCoreCreate) && res.OK:
		return r.Reused != nil && res.Reused == *r.Reused
	case (k == spec.CacheProbeReuse || k == spec.CacheAllocatedDraftLen) && res.OK:
		return r.Value != nil && res.Value == *r.Value
	case k.IsManagerStep():
		return (r.Resize != nil) == res.Resize.Made && (r.Resize == nil || sameResize(*r.Resize, res.Resize))
	}
	return true
}

// raiseMatches reports whether the model's raise is the recorded one: the
// same text, or, when the record gives only the exception's class
// ("ValueError"), a raise of that class.
func raiseMatches(recorded, model string) bool {
	if model == "" {
		return false
	}
	if recorded == model {
		return true
	}
	return !strings.Contains(recorded, ":") && strings.HasPrefix(model, recorded+":")
}

func sameResize(r ResizeArgs, call spec.ResizeCall) bool {
	arg := func(p *int) int {
		if p == nil {
			return spec.CacheKeep
		}
		return *p
	}
	return arg(r[0]) == call.Capacity && arg(r[1]) == call.History
}

// describeRecord renders a record as "req 3 resize(capacity=12,
// history=None) → False".
func describeRecord(rec *Record) string {
	return fmt.Sprintf("req %d %s → %s", rec.Request, describeCall(rec), describeResult(rec.Result))
}

func describeCall(rec *Record) string {
	var args []string
	for _, a := range argSpec[rec.op.Kind] {
		v, ok := rec.Args[a.key]
		switch {
		case !ok && a.optional:
		case !ok || v == nil:
			args = append(args, a.key+"=None")
		default:
			args = append(args, fmt.Sprintf("%s=%v", a.key, v))
		}
	}
	return rec.Op + "(" + strings.Join(args, ", ") + ")"
}

func describeResult(r ResultRecord) string {
	var out string
	switch {
	case r.Raise != nil:
		out = "raises " + *r.Raise
	case r.OK != nil && *r.OK && r.Reused != nil:
		out = fmt.Sprintf("a cache, %d tokens reused", *r.Reused)
	case r.OK != nil && *r.OK && r.Value != nil:
		out = fmt.Sprintf("%d", *r.Value)
	case r.OK != nil && *r.OK:
		out = "True"
	default:
		out = "False"
	}
	if r.Resize != nil {
		out += fmt.Sprintf(", having called resize(%s, %s)", noneText(r.Resize[0]), noneText(r.Resize[1]))
	}
	return out
}

func noneText(p *int) string {
	if p == nil {
		return "None"
	}
	return fmt.Sprint(*p)
}

func callText(n int) string {
	if n == spec.CacheKeep {
		return "None"
	}
	return fmt.Sprint(n)
}

// describeModelResult renders what the model returns.
func describeModelResult(rec *Record, res spec.CacheResult, ok bool) string {
	var out string
	k := rec.op.Kind
	switch {
	case !ok:
		return "has no such step (a create under a request ID whose cache is open)"
	case res.Raise != "":
		out = "raises " + res.Raise
	case (k == spec.CacheCreate || k == spec.CacheCoreCreate) && res.OK:
		out = fmt.Sprintf("returns a cache with %d tokens reused", res.Reused)
	case k == spec.CacheCreate:
		out = "returns None (no IndexMapper slot)"
	case (k == spec.CacheProbeReuse || k == spec.CacheAllocatedDraftLen) && res.OK:
		out = fmt.Sprintf("returns %d", res.Value)
	case k == spec.CacheAllocatedDraftLen:
		out = "returns None (no entry)"
	case res.OK:
		out = "returns True"
	default:
		out = "returns False"
	}
	if k.IsManagerStep() {
		if res.Resize.Made {
			out += fmt.Sprintf(", having called resize(%s, %s)", callText(res.Resize.Capacity), callText(res.Resize.History))
		} else {
			out += ", having called no resize"
		}
	}
	return out
}

// Outcome is the verdict on one history.
type Outcome struct {
	// Result is porcupine's: Ok, Illegal, or Unknown after a timeout.
	Result     porcupine.CheckResult
	Ops        int
	Partitions int
	// First is, for an Illegal history, the operation no legal order
	// explains: of the operations outside the longest linearizable prefix
	// of a failing (rank, pool), the one that returned first.
	First *Record
	// Partition names First's (rank, pool); Explained counts the operations
	// of it that a legal order does place before First.
	Partition string
	Explained int
	// ModelSays is what the spec's sequential model does with First after
	// those operations, and PoolState the pool then.
	ModelSays, PoolState string

	model porcupine.Model
	info  porcupine.LinearizationInfo
}

// Check checks the records for linearizability against sp's sequential
// per-pool model, partitioned per (rank, pool). A timeout of 0 means none.
func Check(sp *spec.Spec, records []Record, timeout time.Duration) *Outcome {
	model := Model(sp)
	ops := make([]porcupine.Operation, len(records))
	for i := range records {
		rec := &records[i]
		ops[i] = porcupine.Operation{ClientId: rec.Request, Input: rec, Output: rec, Call: rec.Call, Return: rec.Return}
	}
	result, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	out := &Outcome{Result: result, Ops: len(ops), model: model, info: info}
	parts := partitionOps(ops)
	out.Partitions = len(parts)
	if result != porcupine.Illegal {
		return out
	}
	partials := info.PartialLinearizations()
	for i, part := range parts {
		longest := longestPartial(partials, i)
		if len(longest) == len(part) {
			continue
		}
		in := map[int]bool{}
		for _, id := range longest {
			in[id] = true
		}
		var culprit *Record
		for id, op := range part {
			rec := op.Input.(*Record)
			if in[id] {
				continue
			}
			if culprit == nil || rec.Return < culprit.Return || rec.Return == culprit.Return && rec.Line < culprit.Line {
				culprit = rec
			}
		}
		if culprit == nil || out.First != nil && out.First.Call <= culprit.Call {
			continue
		}
		out.First = culprit
		out.Partition = fmt.Sprintf("rank %d %s pool", culprit.Rank, culprit.Pool)
		if culprit.Engine != 0 {
			out.Partition = fmt.Sprintf("engine %d ", culprit.Engine) + out.Partition
		}
		out.Explained = len(longest)
		st := modelState{}
		for _, id := range longest {
			_, _, st = apply(sp, st, part[id].Input.(*Record))
		}
		if !st.known {
			st = modelState{rank: uint8(culprit.Rank), pool: culprit.pool, known: true, m: sp.InitialPool(uint8(culprit.Rank), culprit.pool)}
		}
		out.PoolState = sp.DescribePool(&st.m, st.rank, st.pool)
		res, ok, _ := apply(sp, st, culprit)
		out.ModelSays = describeModelResult(culprit, res, ok)
	}
	return out
}

// longestPartial is the longest partial linearization of partition i.
func longestPartial(partials [][][]int, i int) []int {
	var best []int
	if i < len(partials) {
		for _, p := range partials[i] {
			if len(p) > len(best) {
				best = p
			}
		}
	}
	return best
}

// Describe says what the check found, for a report: where the history
// stops being explainable and what the model does instead.
func (o *Outcome) Describe(file string) string {
	switch o.Result {
	case porcupine.Ok:
		return fmt.Sprintf("%s: linearizable: %d operations on %d (rank, pool) pairs have an order the spec's sequential model explains", file, o.Ops, o.Partitions)
	case porcupine.Unknown:
		return fmt.Sprintf("%s: undecided: the check timed out on %d operations", file, o.Ops)
	}
	if o.First == nil {
		return fmt.Sprintf("%s: not linearizable", file)
	}
	r := o.First
	where := file
	if r.Line > 0 {
		where = fmt.Sprintf("%s:%d", file, r.Line)
	}
	return fmt.Sprintf("%s: not linearizable: no legal order of the %s's operations explains %s (called at %d, returned at %d); after the %d operation(s) an order does explain, the spec's sequential model %s\n  the pool then: %s",
		where, o.Partition, describeRecord(r), r.Call, r.Return, o.Explained, o.ModelSays, strings.ReplaceAll(o.PoolState, "\n", "\n  "))
}

// Visualize writes porcupine's HTML visualization of the check.
func (o *Outcome) Visualize(w io.Writer) error {
	return porcupine.Visualize(o.model, o.info, w)
}
