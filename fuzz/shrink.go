package fuzz

import (
	"fmt"
	"runtime"

	"github.com/kvcheck/kvcheck/model"
)

// ShrinkOptions shape Shrink.
type ShrinkOptions[S, A any] struct {
	// Reduce proposes smaller configurations of a spec (KVReductions for the
	// KV-cache spec); nil shrinks the trace only.
	Reduce func(model.Spec[S, A]) []Reduction[S, A]
	// MaxSearchStates bounds each bounded exhaustive search; 0 means 1<<20.
	MaxSearchStates int
}

// Shrunk is a minimal trace with the same violation as the one given.
type Shrunk[S, A any] struct {
	Key
	Message string
	// Trace is on the spec as given: the shortest Shrink found.
	Trace []A
	// Cycle is, for a livelock, the cycle that follows Trace.
	Cycle []A
	// Optimal says a bounded exhaustive search proved that no shorter trace
	// on the spec as given shows the same violation.
	Optimal bool
	// Reduced is the same violation on the smallest configuration the
	// reductions reached, or nil when none applied.
	Reduced *Reduced[S, A]
}

// Reduced is a violation on a reduced configuration.
type Reduced[S, A any] struct {
	Spec model.Spec[S, A]
	// Steps names the reductions applied, in order.
	Steps   []string
	Message string
	Trace   []A
	Optimal bool
}

// Shrink returns a minimal trace with the same violation (same invariant
// and Failure.Group) as trace, which may come from a walk, rapid, the
// fuzzer or a hand-written transcript. It
//
//  1. cuts the trace at the violation and cuts out loops (a state reached
//     twice),
//  2. deletes actions by delta debugging (ddmin),
//  3. searches exhaustively, bounded by the current length, for a shorter
//     trace on the same spec,
//  4. with opts.Reduce, shrinks the configuration itself (fewer requests,
//     ranks, blocks, shorter prompts; dropping a request renumbers the
//     later ones, so IDs stay the smallest), keeping a reduction only when
//     the violation survives with a trace no longer than before, then
//     searches the smallest configuration as in 3.
//
// Every candidate is replayed from the initial state, and an action that
// is not enabled where it is applied rejects it, so every intermediate
// trace is replayable. Shrink fails when trace does not show key.
func Shrink[S, A any](sp model.Spec[S, A], trace []A, key Key, opts ShrinkOptions[S, A]) (Shrunk[S, A], error) {
	if opts.MaxSearchStates <= 0 {
		opts.MaxSearchStates = 1 << 20
	}
	if key.Invariant == model.LivelockInvariant {
		return shrinkLivelock(sp, trace, opts)
	}
	v, err := FirstViolation(sp, trace)
	switch {
	case err != nil:
		return Shrunk[S, A]{}, fmt.Errorf("the trace does not replay: %v", err)
	case v == nil:
		return Shrunk[S, A]{}, fmt.Errorf("the trace breaks no invariant; want %s", key)
	case v.Key != key:
		return Shrunk[S, A]{}, fmt.Errorf("the trace first breaks %s, not %s", v.Key, key)
	}
	out := Shrunk[S, A]{Key: key}
	out.Trace, out.Message = minimize(sp, v.Trace, key)
	out.Trace, out.Message, out.Optimal = searchShorter(sp, key, out.Trace, out.Message, opts.MaxSearchStates)
	if opts.Reduce != nil {
		out.Reduced = reduce(sp, key, out.Trace, opts)
	}
	return out, nil
}

// String renders a key as "invariant" or "invariant (group)".
func (k Key) String() string {
	if k.Group == "" {
		return k.Invariant
	}
	return fmt.Sprintf("%s (%s)", k.Invariant, k.Group)
}

// shows replays candidate and, if it shows key, returns the prefix that
// reaches it and its message.
func shows[S, A any](sp model.Spec[S, A], candidate []A, key Key) ([]A, string, bool) {
	v, err := FirstViolation(sp, candidate)
	if err != nil || v == nil || v.Key != key {
		return nil, "", false
	}
	return v.Trace, v.Message, true
}

// minimize cuts loops out of trace, which shows key, then runs ddmin on it.
func minimize[S, A any](sp model.Spec[S, A], trace []A, key Key) ([]A, string) {
	trace = dropLoops(sp, trace)
	trace = ddmin(trace, func(candidate []A) ([]A, bool) {
		t, _, ok := shows(sp, candidate, key)
		return t, ok
	})
	t, message, ok := shows(sp, trace, key)
	if !ok {
		panic("fuzz: a minimized trace lost its violation")
	}
	return t, message
}

// dropLoops removes the actions between two visits of the same state: the
// states along the rest are unchanged, so the result replays as the trace
// did.
func dropLoops[S, A any](sp model.Spec[S, A], trace []A) []A {
	s := sp.Initial()
	fps := []uint64{sp.Fingerprint(&s)}
	at := map[uint64]int{fps[0]: 0}
	out := make([]A, 0, len(trace))
	for _, a := range trace {
		s = sp.Next(&s, a)
		fp := sp.Fingerprint(&s)
		out = append(out, a)
		if i, ok := at[fp]; ok {
			for _, f := range fps[i+1:] {
				delete(at, f)
			}
			out, fps = out[:i], fps[:i+1]
			continue
		}
		at[fp] = len(out)
		fps = append(fps, fp)
	}
	return out
}

// searchShorter looks for a trace shorter than trace that shows key, by a
// breadth-first search bounded by len(trace)-1 steps and maxStates states.
// It returns the shortest trace it knows and whether it is proved shortest.
func searchShorter[S, A any](sp model.Spec[S, A], key Key, trace []A, message string, maxStates int) ([]A, string, bool) {
	if len(trace) <= 1 {
		return trace, message, true
	}
	res := model.Check(sp, model.Options{MaxDepth: len(trace) - 1, MaxStates: maxStates, KeepGoing: true, Workers: runtime.NumCPU()})
	for _, v := range res.Violations {
		if (Key{v.Invariant, v.Group}) == key {
			return v.Trace, v.Message, true
		}
	}
	return trace, message, res.States < maxStates
}
