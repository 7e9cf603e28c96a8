package model

import (
	"fmt"
	"slices"
)

// PartialOrder is implemented by a spec whose actions are mostly steps of
// processes that act alone (the KV-cache spec: ranks between two
// collectives), so that a search may explore one interleaving of them
// instead of all: a partial-order reduction with persistent (ample) sets
// (Godefroid; Peled; Clarke, Grumberg and Peled's conditions C0–C3). The
// engine uses it when Options.PartialOrder is set and every invariant and
// goal it checks is Stable.
type PartialOrder[S, A any] interface {
	// Persistent appends to out the positions, in enabled (the actions
	// Actions returned for s, in order), of a persistent set of s, and
	// returns it; it appends nothing when it knows no persistent set
	// smaller than enabled. The set must be the enabled actions of one
	// process, and persistent: no action that can happen from s before one
	// of the set's actions does (any sequence of actions outside the set)
	// enables, disables or changes the effect of one of the set's actions,
	// or is enabled, disabled or changed by it, except through a step that
	// Visible reports.
	Persistent(s *S, enabled []A, out []int32) []int32
	// Visible reports whether the step from s to next, by an action of the
	// set Persistent returned for s, does something the reduction must not
	// reorder (the KV-cache spec: it crashes, which ends every rank); the
	// search then expands s fully.
	Visible(s, next *S) bool
	// Stable reports whether the invariant or goal named name is one the
	// reduction preserves: if a state t reached from a state s by actions
	// outside Persistent(s) violates the invariant (reaches the goal), then
	// so does t with one of the set's non-visible steps taken first, or s
	// itself. Predicates of one process's state, or of what only the
	// processes' own steps write, are; a predicate comparing processes
	// needs its own argument. The search reduces only when every invariant
	// and goal it checks is Stable.
	Stable(name string) bool
}

// partialOrderOf returns the reduction the search may use for spec under
// opts, or nil: opts.PartialOrder is set, the spec (under any wrapper)
// implements PartialOrder, and every invariant and goal is Stable.
func partialOrderOf[S, A any](spec Spec[S, A], opts Options) PartialOrder[S, A] {
	if !opts.PartialOrder {
		return nil
	}
	po, ok := unwrap(spec).(PartialOrder[S, A])
	if !ok {
		return nil
	}
	for _, inv := range spec.Invariants() {
		if !po.Stable(inv.Name) {
			return nil
		}
	}
	for _, g := range spec.Goals() {
		if !po.Stable(g.Name) {
			return nil
		}
	}
	return po
}

// reduce is the reduction's part of expanding st: it moves a persistent
// set of w.actions to the front (recording each action's position among
// the enabled ones in w.positions) and computes its successors. If none
// of them is visible and none was stored before the current level began
// (the cycle proviso, see below), w.actions is cut to the set; otherwise
// st is expanded fully. It returns how many successors it computed.
//
// The cycle proviso (C3) for a breadth-first search: st is expanded fully
// when one of the set's successors has an index below levelStart, that is
// a depth no greater than st's. Along any cycle of the reduced graph, the
// state discovered last has its successor on the cycle discovered before
// it, so at no greater depth: that state is expanded fully, so every cycle
// holds a fully expanded state, and no action is ignored forever. States
// discovered in the current level (depth + 1) never trigger it, whatever
// the round in which they were discovered, so the outcome does not depend
// on the number of workers.
func (s *search[S, A]) reduce(w *worker[S, A], st *S) int {
	w.positions = w.positions[:0]
	w.ample = s.por.Persistent(st, w.actions, w.ample[:0])
	n := len(w.ample)
	if n == 0 || n >= len(w.actions) {
		return 0
	}
	// Reorder: the set first, in its order, then the others in theirs.
	w.reordered = w.reordered[:0]
	in := w.inSet[:0]
	for range w.actions {
		in = append(in, false)
	}
	for _, k := range w.ample {
		w.reordered = append(w.reordered, w.actions[k])
		w.positions = append(w.positions, k)
		in[k] = true
	}
	for k, a := range w.actions {
		if !in[k] {
			w.reordered = append(w.reordered, a)
			w.positions = append(w.positions, int32(k))
		}
	}
	w.inSet = in
	w.actions, w.reordered = w.reordered, w.actions
	reduced := true
	for k := 0; k < n; k++ {
		s.successor(w, st, k)
		if !reduced {
			continue
		}
		if s.por.Visible(st, &w.successors[k]) {
			reduced = false
			continue
		}
		if idx, ok := s.visited.lookup(w.fps[k]); ok && idx != pending && idx < s.levelStart {
			reduced = false
		}
	}
	if reduced {
		w.actions = w.actions[:n]
		w.positions = w.positions[:n]
		w.reduced++
	}
	return n
}

// rederive makes the safety violations of a reduced search the shortest
// ones. A persistent set takes one process's steps first, so the reduced
// graph may reach a violation only by a longer path than the full graph
// has (the full graph may violate after steps of another process alone).
// Every violation the reduced search found is reachable at its depth, so
// an unreduced search bounded by the deepest of them meets each
// (invariant, group) it found at its shortest depth; without KeepGoing it
// stops at the same first violation an unbounded unreduced search stops
// at, and its result replaces res whole (states included, so that a
// failing check reports what it would without the reduction). With
// KeepGoing the reduced search's counts and livelock stay; its safety
// violations are replaced by the re-derived ones. A failing check thus
// costs the reduced search plus the unreduced one up to the violation;
// a passing one (no violation) costs the reduced search only.
//
// Two outcomes are replaced whole by the unreduced search with the same
// options: a reduced search cut by MaxDepth, which proves nothing about the
// full graph up to that depth (its paths may be longer); and a livelock,
// whose stem is a shortest path of the reduced graph to a doomed state and
// may be longer than the full graph's, while the liveness analysis that
// finds the shortest needs the complete graph. Such a check costs the
// reduced search plus the unreduced one.
func rederive[S, A any](spec Spec[S, A], opts Options, res *Result[A], depthCut bool) {
	livelock := slices.ContainsFunc(res.Violations, func(v Violation[A]) bool { return v.Invariant == LivelockInvariant })
	if depthCut || livelock {
		full := opts
		full.PartialOrder = false
		if depthCut {
			full.Progress = rederiveProgress(opts.Progress, fmt.Sprintf("the reduced search reached the depth bound %d, and its paths may be longer than the unreduced ones, so it proves nothing up to that depth; a larger depth bound keeps the reduction", opts.MaxDepth))
		} else {
			full.Progress = rederiveProgress(opts.Progress, "the reduced search found a livelock, whose shortest stem needs the unreduced graph")
		}
		r := Check(spec, full)
		if !depthCut && (r.Interrupted || r.OutOfMemory || r.Err != nil) {
			res.Rederived = r.States
			return // keep the reduced search's livelock, which replays
		}
		reduced := res.Reduced
		*res = r
		res.PartialOrder, res.Reduced, res.Rederived = true, reduced, r.States
		return
	}
	depth, found := 0, false
	for _, v := range res.Violations {
		if v.Invariant != LivelockInvariant {
			depth, found = max(depth, v.Depth), true
		}
	}
	if !found {
		return
	}
	full := opts
	full.PartialOrder, full.Liveness, full.MaxDepth = false, false, depth
	full.Progress = rederiveProgress(opts.Progress, fmt.Sprintf("the reduced search found a violation at depth %d; an unreduced search to that depth finds the shortest", depth))
	r := Check(spec, full)
	res.Rederived = r.States
	if r.Interrupted || r.OutOfMemory || r.Err != nil {
		return // keep the reduced search's violations, which replay
	}
	if !opts.KeepGoing {
		reduced := res.Reduced
		*res = r
		res.PartialOrder, res.Reduced, res.Rederived = true, reduced, r.States
		return
	}
	seen := map[violationKey]bool{}
	for _, v := range r.Violations {
		seen[violationKey{v.Invariant, v.Group}] = true
	}
	out := r.Violations
	for _, v := range res.Violations {
		if !seen[violationKey{v.Invariant, v.Group}] {
			out = append(out, v) // a group the bounded search missed
		}
	}
	res.Violations = out
	for i := range res.Goals {
		res.Goals[i].Reached = res.Goals[i].Reached || r.Goals[i].Reached
	}
}

// rederiveProgress is progress with the reason why rederive runs an
// unreduced search, or nil when progress is.
func rederiveProgress(progress func(Progress), why string) func(Progress) {
	if progress == nil {
		return nil
	}
	return func(p Progress) {
		p.Rederive = why
		progress(p)
	}
}
