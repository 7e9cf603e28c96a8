package fuzz

import (
	"fmt"
	"runtime"

	"github.com/kvcheck/kvcheck/model"
)

// This file finds livelocks in configurations too large to exhaust. A walk
// that comes back to a state it visited since the last step that made
// progress (model.Progress; without it no step does) has gone round a
// cycle: a candidate. A bounded exhaustive search from that state confirms
// it: complete, and a cycle among states from which no run finishes. The
// reported trace is the walk's path to the candidate, then the lasso's stem
// from it; the cycle is the lasso's.

// Livelock candidates are confirmed by a search of at most confirmStates
// states; a larger space from the candidate leaves it unconfirmed.
const confirmStates = 1 << 14

// maxCycleWatch bounds how many states since the last progress a walk
// remembers to notice a return.
const maxCycleWatch = 256

// maxConfirmations bounds the bounded searches one walker (or one rapid
// run) spends on livelock candidates; past it, it stops looking. A real
// livelock shows within the first few candidates, while the side loops of
// a variant without one would otherwise cost a search each.
const maxConfirmations = 4

// cycleWatch is a walk's memory of the states it visited since its last
// progress, and of the candidates already refuted.
type cycleWatch struct {
	fps []uint64
	// refused says a step since the last progress refused work; with a
	// spec that says what progress is, only such a cycle is a candidate
	// (a loop that refuses nothing is the walk's own wandering).
	refused bool
	refuted map[uint64]bool
	tries   int
}

// reset forgets the states visited (at a walk's start or after progress).
func (c *cycleWatch) reset() { c.fps, c.refused = c.fps[:0], false }

// step classifies the step a from from to to with progress, if the spec
// has one: progress resets the watch.
func watchStep[S, A any](c *cycleWatch, progress model.Progressor[S, A], from *S, a A, to *S) {
	switch {
	case progress == nil:
	case progress.Progress(from, a, to):
		c.reset()
	case progress.Refused(from, a, to):
		c.refused = true
	}
}

// returned records fp and reports whether the walk had visited it since
// the last progress and it is worth confirming (with progress known: some
// step since refused work).
func (c *cycleWatch) returned(fp uint64, progressKnown bool) bool {
	if c.tries >= maxConfirmations {
		return false
	}
	for _, seen := range c.fps {
		if seen == fp {
			return !c.refuted[fp] && (c.refused || !progressKnown)
		}
	}
	if len(c.fps) == maxCycleWatch {
		c.reset()
	}
	c.fps = append(c.fps, fp)
	return false
}

// confirmLivelockAt runs the bounded search from s (fingerprint fp),
// reached by prefix, and returns the livelock it confirms, with prefix
// then the stem as its trace; otherwise nil, and c does not try s again.
func confirmLivelockAt[S, A any](c *cycleWatch, sp model.Spec[S, A], s S, fp uint64, prefix []A) *Violation[A] {
	c.tries++
	res := model.Check(model.From(sp, s), model.Options{Liveness: true, MaxStates: confirmStates})
	for _, v := range res.Violations {
		if v.Invariant == model.LivelockInvariant {
			return &Violation[A]{
				Key:     Key{Invariant: model.LivelockInvariant},
				Message: v.Message,
				Trace:   append(append([]A(nil), prefix...), v.Trace...),
				Cycle:   v.Cycle,
			}
		}
	}
	if c.refuted == nil {
		c.refuted = map[uint64]bool{}
	}
	c.refuted[fp] = true
	return nil
}

// confirmLivelock confirms the current state as a livelock candidate and
// records the livelock; it reports whether it did.
func (w *worker[S, A, P]) confirmLivelock() bool {
	prefix := append(w.pathTo(w.startFP), w.trace...)
	v := confirmLivelockAt(&w.watch, model.Spec[S, A](w.sp), w.state, w.fp, prefix)
	if v == nil {
		return false
	}
	v.Worker, v.Walk = w.id, w.walks
	w.violation = v
	return true
}

// ConfirmLivelock replays trace and returns the livelock that a bounded
// search from its end state confirms (trace, then the stem, and the
// cycle), or nil: how a livelock found by a walk, rapid or a transcript is
// replayed.
func ConfirmLivelock[S, A any](sp model.Spec[S, A], trace []A) (*Violation[A], error) {
	states, err := model.Replay(sp, trace)
	if err != nil {
		return nil, err
	}
	var c cycleWatch
	end := states[len(states)-1]
	return confirmLivelockAt(&c, sp, end, sp.Fingerprint(&end), trace), nil
}

// shrinkLivelock is Shrink for a livelock: when a bounded exhaustive
// search of the whole spec completes, its lasso (the shortest stem to the
// first doomed state with a cycle ahead); otherwise the stem without its
// loops, then ddmin, keeping every candidate whose end state the bounded
// search from it still confirms.
func shrinkLivelock[S, A any](sp model.Spec[S, A], trace []A, opts ShrinkOptions[S, A]) (Shrunk[S, A], error) {
	key := Key{Invariant: model.LivelockInvariant}
	found, err := ConfirmLivelock(sp, trace)
	if err != nil {
		return Shrunk[S, A]{}, fmt.Errorf("the trace does not replay: %v", err)
	}
	if found == nil {
		return Shrunk[S, A]{}, fmt.Errorf("no bounded search of %d states from the trace's end confirms a livelock", confirmStates)
	}
	res := model.Check(sp, model.Options{Liveness: true, MaxStates: opts.MaxSearchStates, Workers: runtime.NumCPU()})
	for _, v := range res.Violations {
		if v.Invariant == model.LivelockInvariant {
			return Shrunk[S, A]{Key: key, Message: v.Message, Trace: v.Trace, Cycle: v.Cycle, Optimal: true}, nil
		}
	}
	stem := ddmin(dropLoops(sp, found.Trace), func(candidate []A) ([]A, bool) {
		v, err := ConfirmLivelock(sp, candidate)
		return candidate, err == nil && v != nil
	})
	found, _ = ConfirmLivelock(sp, stem)
	return Shrunk[S, A]{Key: key, Message: found.Message, Trace: found.Trace, Cycle: found.Cycle}, nil
}
