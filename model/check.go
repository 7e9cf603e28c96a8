package model

import (
	"math"
	"runtime/debug"
	"slices"
	"time"
)

// Options bounds and shapes a Check run.
type Options struct {
	// MaxDepth bounds the search depth: states at this depth are stored and
	// checked but not expanded. 0 means unbounded.
	MaxDepth int
	// MaxStates bounds the number of distinct states stored: the search
	// stops when it discovers a new state while this many are stored.
	// 0 means unbounded.
	MaxStates int
	// Workers is the number of goroutines that expand states; <= 1 expands
	// sequentially. The Result does not depend on it (except Elapsed).
	Workers int
	// KeepGoing collects one shortest violation per (invariant, Failure.Group)
	// instead of stopping at the first violation. A violating state is then
	// expanded like any other, so a violation that does not end the run (a
	// leak, a disagreement) hides nothing beyond it; an end state (a crash:
	// no enabled action) has no successors anyway.
	KeepGoing bool
	// Liveness adds livelock detection. When the search is complete (see
	// Result.Complete), Check finds the doomed states: the reachable states
	// from which no good end state is reachable. A good end state has no
	// enabled action, is terminal (see Terminator) and violates no
	// invariant. Three verdicts are kept apart: a deadlock is a state with
	// no enabled action that is not terminal; a doomed state whose every
	// run ends at a violation (or a deadlock) is reported as those, not as
	// a livelock; a livelock is a cycle among doomed states, a run that
	// goes on forever and never finishes. Check reports one livelock
	// violation as a lasso: Trace is the stem (a shortest path to the
	// first-discovered doomed state from which a cycle is reachable, then
	// on to the cycle), Cycle the cycle, chosen to show the story (see
	// Progressor). Without a Terminator there is no good end state, so every
	// cycle is a livelock.
	//
	// The search then also records its transitions (4 bytes each,
	// self-loops left out, with a bit per state for them); the analysis
	// adds 4 bytes per transition and 16 per state. (The states' discovery
	// numbers, which the analysis uses, are stored with them in any case,
	// at no extra cost.)
	Liveness bool
	// MaxMemory bounds, in bytes, the memory the search holds: past it the
	// frontier moves to a temporary file (in SpillDir) in sequential
	// blocks, and when the visited set itself approaches it the search
	// stops with Result.OutOfMemory. It also sets the Go runtime's soft
	// memory limit for the duration of the check. 0 means unbounded.
	MaxMemory int64
	// Symmetry stores one state per orbit of the spec's symmetry, when the
	// spec implements Symmetric and has one (symmetry.go): same verdicts,
	// invariants, goals and shortest counterexample lengths, fewer states;
	// counterexamples stay concrete runs of the spec. With Liveness, a
	// livelock's cycle is found among the concrete states (liveness_lasso.go).
	Symmetry bool
	// SpillDir is where the disk queue's file goes ("" = os.TempDir()).
	SpillDir string
	// Stop, when set, is called before each round of expansion (a few
	// thousand states); when it returns true the search ends there, as if a
	// bound had cut it (Result.Complete is false), and Result.Interrupted
	// is set. kvcheck uses it to stop cleanly on SIGINT.
	Stop func() bool
	// PartialOrder explores, where the spec offers one (see PartialOrder),
	// only a persistent set of the enabled actions: one interleaving of
	// steps that do not interfere instead of all of them. Verdicts are the
	// same: every invariant violated, deadlock, livelock and goal of the
	// full search is found. A violation found this way may have a longer
	// trace than the shortest, so Check then re-runs an unreduced search
	// bounded by the deepest violation found, whose violations (the
	// shortest ones, as without the reduction) it reports; a livelock, or
	// a search cut by MaxDepth, is replaced by the whole unreduced search.
	// See Result.Rederived and docs/engine.md.
	PartialOrder bool
	// Progress, when set, is called after each round with the counts so
	// far, from the goroutine that called Check.
	Progress func(Progress)
}

// DeadlockInvariant is the Violation.Invariant of a reachable state that has
// no enabled action and is not terminal.
const DeadlockInvariant = "deadlock"

// Violation is a reachable state that breaks an invariant (or deadlocks),
// with a shortest action sequence that reaches it.
type Violation[A any] struct {
	Invariant string // invariant name, or DeadlockInvariant
	Message   string
	Group     string
	Trace     []A // shortest action sequence from Initial to the violating state
	Depth     int // len(Trace)
	// Cycle is, for a LivelockInvariant violation, the actions that lead
	// from the state Trace ends in back to that state; nil otherwise.
	Cycle []A
	// DoomedAt is, for a livelock, the number of steps of Trace after which
	// no run can finish any more (Trace may go on from there to the cycle).
	DoomedAt int
	// Refused is, for a livelock, the index in Cycle of the first step that
	// refuses work (see Progressor), or -1.
	Refused int
}

// GoalResult says whether the search reached a state satisfying a goal.
type GoalResult struct {
	Name    string
	Doc     string
	Reached bool
}

// Progress is how far a search has gone.
type Progress struct {
	States, Transitions, Depth int
	// Rederive is empty in the search the options ask for; after a
	// partial-order-reduced search, while the unreduced search that
	// rederive runs goes on, it says why that search runs (its counts
	// start again from zero).
	Rederive string
}

// Result summarises a Check run.
type Result[A any] struct {
	States      int // distinct states stored
	Transitions int // transitions explored, including ones to known states
	Depth       int // deepest BFS level reached
	// Complete is true when the reachable state space was exhausted: no
	// bound cut the search and it did not stop early at a violation.
	Complete bool
	// Violations holds the violations found, shortest first. Without
	// KeepGoing it has at most one; with KeepGoing one per (invariant,
	// group), ordered by depth, then discovery order.
	Violations []Violation[A]
	Goals      []GoalResult // in spec order
	// LivenessChecked is true when Options.Liveness was set and the
	// liveness analysis ran: the search was complete and there were fewer
	// than 2³²-1 states and transitions.
	LivenessChecked bool
	// OutOfMemory is true when the search stopped because it would have
	// passed Options.MaxMemory (the result is then incomplete).
	OutOfMemory bool
	// Symmetric is true when the search stored one state per orbit of the
	// spec's symmetry (Options.Symmetry and a spec with one): States then
	// counts orbits.
	Symmetric bool
	// Interrupted is true when Options.Stop ended the search.
	Interrupted bool
	// Err is the I/O error of the disk queue that stopped the search, if
	// any (the result is then incomplete).
	Err error
	// CollisionProbability estimates the chance that two distinct states
	// shared a 64-bit fingerprint, so that one was never explored, as TLC
	// calculates it: each new state against the states stored before it,
	// and each transition to a known state against the stored ones.
	CollisionProbability float64
	Elapsed              time.Duration
	// Usage is the memory the search used; like Elapsed, it depends on
	// Workers and on the machine.
	Usage Usage
	// PartialOrder is true when the search used the spec's partial-order
	// reduction (Options.PartialOrder); Reduced counts the states it
	// expanded through a persistent set only, not fully.
	PartialOrder bool
	Reduced      int
	// Rederived is the number of states the unreduced search that
	// re-derived the shortest violations stored (0 when none ran).
	Rederived int
}

// Usage is the memory a Check run used.
type Usage struct {
	// SpilledBytes counts the bytes the frontier wrote to disk.
	SpilledBytes int64
	// PeakQueueBytes is the most memory the frontier and next level held
	// at once (after a round).
	PeakQueueBytes int64
	// VisitedBytes is the memory of the visited set and the parent links
	// at the end: what the search keeps per stored state.
	VisitedBytes int64
}

// Check explores the states of spec reachable from Initial breadth-first,
// checks every invariant in every newly discovered state and evaluates the
// goals on it. A state that violates an invariant is recorded and, unless
// opts.KeepGoing, not expanded. A state with no enabled action that the spec does not declare
// terminal (see Terminator) is a DeadlockInvariant violation. Because the
// search is breadth-first, the trace of each violation is a shortest one.
// With opts.Liveness, a complete search is followed by livelock detection
// (see Options.Liveness). The result is deterministic for a given spec and
// bounds, whatever opts.Workers is.
func Check[S any, A any](spec Spec[S, A], opts Options) Result[A] {
	start := time.Now()
	s := newSearch(spec, opts)
	defer s.giveTables()
	if opts.MaxMemory > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(opts.MaxMemory))
	}
	s.run()
	for _, w := range s.workers {
		s.reduced += w.reduced
	}
	res := Result[A]{
		States:       s.count,
		Transitions:  s.transitions,
		Depth:        int(s.depth),
		Complete:     s.complete(),
		Violations:   s.violations,
		Goals:        make([]GoalResult, len(s.goals)),
		OutOfMemory:  s.outOfMemory,
		Interrupted:  s.interrupted,
		Symmetric:    s.sym != nil,
		Err:          s.err,
		PartialOrder: s.por != nil,
		Reduced:      s.reduced,
		Usage: Usage{
			SpilledBytes:   s.frontier.spilled + s.next.spilled,
			PeakQueueBytes: s.peakQueue,
			VisitedBytes:   s.visited.bytes() + s.links.bytes(),
		},
	}
	res.CollisionProbability = collisionProbability(res.States, res.Transitions)
	if s.checkLiveness() {
		res.LivenessChecked = true
		if v, ok := s.livelock(); ok {
			res.Violations = append(res.Violations, v)
		}
	}
	s.keptLive, s.live = s.live, nil
	for i, g := range s.goals {
		res.Goals[i] = GoalResult{Name: g.Name, Doc: g.Doc, Reached: s.reached[i]}
	}
	if s.por != nil {
		rederive(spec, opts, &res, s.depthCut)
	}
	slices.SortStableFunc(res.Violations, func(a, b Violation[A]) int { return a.Depth - b.Depth })
	res.Elapsed = time.Since(start)
	return res
}

// collisionProbability is TLC's optimistic estimate of the probability
// that a search storing n states through m transitions met a fingerprint
// collision: n²/2 pairs among the stored states and n·(m−n) lookups of
// known states, each colliding with probability 2⁻⁶⁴.
func collisionProbability(n, m int) float64 {
	fn, fm := float64(n), float64(m)
	return min(1, (fn*fn/2+fn*max(fm-fn, 0))/math.Exp2(64))
}
