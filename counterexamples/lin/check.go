package lin

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/kvcheck/kvcheck/spec"
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

func specFor(h *History, scenario string) (*spec.Spec, error) {
	var text string
	if h.Header != nil {
		text = h.Header.Config
		if scenario == "" {
			scenario = h.Header.Scenario
		}
	}
	if text != "" {
		cfg, err := spec.ParseConfig(spec.Config{}, text)
		if err != nil {
			return nil, &InputError{h.File, 1, fmt.Sprintf("header: config: %v", err)}
		}
		return spec.New(cfg, 0)
	}
	if scenario == "" {
		return nil, &InputError{h.File, 1, `no configuration: expected a header line {"kvcheck_history": 1, "scenario": NAME} or {"kvcheck_history": 1, "config": TEXT}, or --scenario NAME`}
	}
	sc, err := spec.LookupScenario(scenario)
	if err != nil {
		return nil, err
	}
	return sc.Spec(0)
}

// modelState is the sequential model's state of one (engine, rank, pool):
// a spec State, and the rank and pool the partition is about (learned from
// its first operation).
type modelState struct {
	rank  uint8
	pool  spec.PoolKind
	known bool
	s     spec.State
}

// Model returns the porcupine model of sp's per-pool sequential
// semantics (spec.Spec.ApplyCacheOp), partitioned per (rank, pool).
func Model(sp *spec.Spec) porcupine.Model {
	return porcupine.Model{
		Partition: partitionOps,
		Init:      func() any { return modelState{s: sp.Initial()} },
		Step: func(state, input, output any) (bool, any) {
			st := state.(modelState)
			rec := input.(*Record)
			next := modelState{rank: uint8(rec.Rank), pool: rec.pool, known: true, s: st.s}
			res, ok := sp.ApplyCacheOp(&next.s, uint8(rec.Rank), rec.pool, rec.op)
			if !ok || !matches(rec, res) {
				return false, st
			}
			return true, next
		},
		Equal: func(a, b any) bool {
			x, y := a.(modelState), b.(modelState)
			return x.rank == y.rank && x.pool == y.pool && x.known == y.known && x.s == y.s
		},
		Hash: func(state any) uint64 {
			st := state.(modelState)
			return sp.Fingerprint(&st.s) ^ uint64(st.pool)
		},
		DescribeOperation: func(input, output any) string { return describeRecord(input.(*Record)) },
		DescribeState: func(state any) string {
			st := state.(modelState)
			if !st.known {
				return "every pool empty"
			}
			return sp.DescribePool(&st.s, st.rank, st.pool)
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
		return res.Raise == *r.Raise
	}
	if res.Raise != "" || r.OK == nil || res.OK != *r.OK {
		return false
	}
	if rec.op.Kind == spec.CacheCreate && res.OK {
		return r.Reused != nil && int(res.Reused) == *r.Reused
	}
	return true
}

// describeRecord renders a record as "req 3 resize(capacity=12,
// history=None) → False".
func describeRecord(rec *Record) string {
	return fmt.Sprintf("req %d %s → %s", rec.Request, describeCall(rec), describeResult(rec.Result))
}

func describeCall(rec *Record) string {
	var args []string
	for _, key := range argSpec[rec.op.Kind] {
		v, ok := rec.Args[key]
		switch {
		case !ok || v == nil:
			args = append(args, key+"=None")
		default:
			args = append(args, fmt.Sprintf("%s=%v", key, v))
		}
	}
	return rec.Op + "(" + strings.Join(args, ", ") + ")"
}

func describeResult(r ResultRecord) string {
	switch {
	case r.Raise != nil:
		return "raises " + *r.Raise
	case r.OK != nil && *r.OK && r.Reused != nil:
		return fmt.Sprintf("a cache, %d tokens reused", *r.Reused)
	case r.OK != nil && *r.OK:
		return "True"
	}
	return "False"
}

// describeModelResult renders what the model returns.
func describeModelResult(rec *Record, res spec.CacheResult, ok bool) string {
	switch {
	case !ok:
		return "has no such step (a create under a request ID whose cache is open)"
	case res.Raise != "":
		return "raises " + res.Raise
	case rec.op.Kind == spec.CacheCreate && res.OK:
		return fmt.Sprintf("returns a cache with %d tokens reused", res.Reused)
	case rec.op.Kind == spec.CacheCreate:
		return "returns None (no IndexMapper slot)"
	case res.OK:
		return "returns True"
	}
	return "returns False"
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
		s := sp.Initial()
		for _, id := range longest {
			rec := part[id].Input.(*Record)
			sp.ApplyCacheOp(&s, uint8(rec.Rank), rec.pool, rec.op)
		}
		out.PoolState = sp.DescribePool(&s, uint8(culprit.Rank), culprit.pool)
		res, ok := sp.ApplyCacheOp(&s, uint8(culprit.Rank), culprit.pool, culprit.op)
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
