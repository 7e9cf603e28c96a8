package model

import (
	"slices"
	"sync"
)

// search is the state of one Check run: a level-synchronous breadth-first
// search. Each level's frontier is processed in rounds; in a round the
// workers expand contiguous chunks of the frontier (in parallel when there
// are several), then merge folds their successors into the visited map
// sequentially, in frontier order. The visited map is only read while
// workers run and only written while merging, so the outcome is the same as
// a sequential search whatever the number of workers.
type search[S, A any] struct {
	spec       Spec[S, A]
	terminator Terminator[S] // nil when the spec has no legitimate end states
	opts       Options
	invariants []Invariant[S]
	goals      []Goal[S]
	reached    []bool // reached[i]: goals[i] holds in some stored state
	unreached  int    // goals not reached yet

	visited  *FingerprintTable[visit[A]]
	initFP   uint64      // fingerprint of the initial state
	frontier []queued[S] // states of the level being expanded
	next     []queued[S] // unexpanded states of the next level
	workers  []*worker[S, A]

	transitions int
	depth       int32 // deepest level stored
	cut         bool  // MaxDepth or MaxStates kept part of the space unexplored
	stopped     bool  // stopped at a violation (no KeepGoing)
	violations  []Violation[A]
	reported    map[violationKey]bool

	live *liveness // the transition graph, when opts.Liveness is set
}

// statesPerWorker is how many frontier states each worker expands per round.
// It bounds the memory held by successors awaiting the merge.
const statesPerWorker = 2048

// visit is what the search remembers of a stored state: how it was first
// reached, and its index. States themselves are not stored; a trace is
// rebuilt by walking parent fingerprints.
type visit[A any] struct {
	parent uint64 // fingerprint of the predecessor (unused for the initial state)
	// idx numbers the stored states in insertion (discovery) order, 0, 1,
	// 2, ..., for the liveness analysis; it wraps beyond math.MaxUint32
	// states, where liveness is not checked.
	idx    uint32
	action A // the action that leads from parent to this state
}

// queued is a frontier entry: a state to expand, its index (discovery
// order, maintained only with Options.Liveness) and its fingerprint. idx
// sits before fp so that it usually fills padding after state.
type queued[S any] struct {
	state S
	idx   uint32
	fp    uint64
}

// expansion is a worker's summary of one frontier state.
type expansion struct {
	enabled  int32 // number of enabled actions
	deadlock bool  // no enabled action and not terminal
	cut      bool  // at MaxDepth with enabled actions: not expanded
	end      int32 // the state's candidates end here in worker.candidates
	succEnd  int32 // with Liveness: the state's successors end here in worker.succ
}

// candidate is a successor that was not stored when its round began.
type candidate[S, A any] struct {
	state    S
	fp       uint64
	action   A
	index    int32              // position of action among the enabled actions
	failures []InvariantFailure // invariants state violates
}

// worker holds the reusable buffers of one expanding goroutine.
type worker[S, A any] struct {
	actions    []A
	expansions []expansion
	candidates []candidate[S, A]
	successors []queued[S] // of the state being expanded
	stored     []bool      // stored[i]: successors[i] was stored before the round
	// succ holds, with Liveness, the index of each successor of each
	// expanded state in action order, or pending for a candidate, whose
	// index merge assigns.
	succ []uint32
	_    [64]byte // keeps workers' slice headers off each other's cache lines
}

// violationKey identifies the failure mechanisms that KeepGoing reports once.
type violationKey struct{ invariant, group string }

// deadlockFailure is what a deadlocked state violates.
var deadlockFailure = []InvariantFailure{{
	Invariant: DeadlockInvariant,
	Failure:   Failure{Message: "no action is enabled and the state is not terminal"},
}}

func newSearch[S, A any](spec Spec[S, A], opts Options) *search[S, A] {
	hint := 1 << 12
	if opts.MaxStates > 0 {
		hint = min(opts.MaxStates, 1<<20)
	}
	s := &search[S, A]{
		spec:       spec,
		opts:       opts,
		invariants: spec.Invariants(),
		goals:      spec.Goals(),
		visited:    NewFingerprintTable[visit[A]](hint),
		workers:    make([]*worker[S, A], max(1, opts.Workers)),
		reported:   make(map[violationKey]bool),
	}
	for i := range s.workers {
		s.workers[i] = new(worker[S, A])
	}
	s.terminator, _ = spec.(Terminator[S])
	s.reached = make([]bool, len(s.goals))
	s.unreached = len(s.goals)
	if opts.Liveness {
		s.live = new(liveness)
	}
	return s
}

// run performs the search.
func (s *search[S, A]) run() {
	init := s.spec.Initial()
	fp := s.spec.Fingerprint(&init)
	s.initFP = fp
	s.visited.Insert(fp, visit[A]{})
	s.evalGoals(&init)
	if failures := checkInvariants(s.invariants, &init, s.opts.KeepGoing); failures != nil {
		s.record(failures, fp)
		return
	}
	s.frontier = append(s.frontier, queued[S]{state: init, fp: fp})
	for depth := int32(0); len(s.frontier) > 0; depth++ {
		if s.level(depth) {
			return
		}
		s.frontier, s.next = s.next, s.frontier[:0]
	}
}

// level expands the frontier, whose states are at depth, into s.next. It
// reports whether the search must stop.
func (s *search[S, A]) level(depth int32) (stop bool) {
	atBound := s.opts.MaxDepth > 0 && int(depth) >= s.opts.MaxDepth
	roundSize := statesPerWorker * len(s.workers)
	for start := 0; start < len(s.frontier); start += roundSize {
		round := s.frontier[start:min(start+roundSize, len(s.frontier))]
		chunk := s.expandRound(round, atBound)
		for i := range s.workers {
			lo, hi := i*chunk, min((i+1)*chunk, len(round))
			if lo >= hi {
				break
			}
			at := s.merge(round[lo:hi], s.workers[i], depth)
			if at < 0 {
				continue
			}
			if s.stopped && s.violations[0].Depth > int(depth) {
				s.preferDeadlock(s.frontier[start+lo+at+1:])
			}
			return true
		}
	}
	return false
}

// expandRound splits round into one chunk per worker, expands the chunks
// (concurrently when there are several workers) and returns the chunk size.
func (s *search[S, A]) expandRound(round []queued[S], atBound bool) (chunk int) {
	n := len(s.workers)
	chunk = (len(round) + n - 1) / n
	if n == 1 {
		s.expand(s.workers[0], round, atBound)
		return chunk
	}
	var wg sync.WaitGroup
	for i := range s.workers {
		lo, hi := i*chunk, min((i+1)*chunk, len(round))
		if lo >= hi {
			break
		}
		wg.Go(func() { s.expand(s.workers[i], round[lo:hi], atBound) })
	}
	wg.Wait()
	return chunk
}

// expand computes the successors of the states in chunk into w. Successors
// already stored are counted but dropped; the others become candidates,
// checked against the invariants, for merge to store.
func (s *search[S, A]) expand(w *worker[S, A], chunk []queued[S], atBound bool) {
	w.expansions = w.expansions[:0]
	w.candidates = w.candidates[:0]
	w.succ = w.succ[:0]
	for i := range chunk {
		st := &chunk[i].state
		w.actions = s.spec.Actions(st, w.actions[:0])
		e := expansion{enabled: int32(len(w.actions))}
		switch {
		case len(w.actions) == 0:
			e.deadlock = !s.terminal(st)
		case atBound:
			e.cut = true
		default:
			s.addCandidates(w, st)
		}
		e.end = int32(len(w.candidates))
		e.succEnd = int32(len(w.succ))
		w.expansions = append(w.expansions, e)
	}
}

// addCandidates appends to w.candidates the successors of st through
// w.actions that are not stored yet, with their invariant failures. The
// successors are computed first and looked up together, so that the
// lookups' cache misses overlap.
func (s *search[S, A]) addCandidates(w *worker[S, A], st *S) {
	w.successors = w.successors[:0]
	for _, a := range w.actions {
		w.successors = append(w.successors, queued[S]{state: s.spec.Next(st, a)})
		next := &w.successors[len(w.successors)-1]
		next.fp = s.spec.Fingerprint(&next.state)
	}
	w.stored = w.stored[:0]
	if s.live != nil {
		for i := range w.successors {
			v, ok := s.visited.Lookup(w.successors[i].fp)
			idx := v.idx
			if !ok {
				idx = pending
			}
			w.stored = append(w.stored, ok)
			w.succ = append(w.succ, idx)
		}
	} else {
		for i := range w.successors {
			w.stored = append(w.stored, s.visited.Contains(w.successors[i].fp))
		}
	}
	for k := range w.successors {
		if w.stored[k] {
			continue
		}
		next := &w.successors[k]
		w.candidates = append(w.candidates, candidate[S, A]{
			state:    next.state,
			fp:       next.fp,
			action:   w.actions[k],
			index:    int32(k),
			failures: checkInvariants(s.invariants, &next.state, s.opts.KeepGoing),
		})
	}
}

// merge stores the new successors of chunk, which w has just expanded, and
// queues the non-violating ones for the next level. It returns the index in
// chunk of the state being processed when the search had to stop, or -1.
func (s *search[S, A]) merge(chunk []queued[S], w *worker[S, A], depth int32) int {
	first, firstSucc := int32(0), int32(0)
	for i, e := range w.expansions {
		candidates := w.candidates[first:e.end]
		first = e.end
		succ := w.succ[firstSucc:e.succEnd] // empty without Liveness
		firstSucc = e.succEnd
		parent := chunk[i].fp
		if e.deadlock {
			if s.record(deadlockFailure, parent) {
				return i
			}
			continue
		}
		if e.cut {
			s.cut = true
			continue
		}
		for k := range candidates {
			c := &candidates[k]
			if s.opts.MaxStates > 0 && s.visited.Len() >= s.opts.MaxStates && !s.visited.Contains(c.fp) {
				s.transitions += int(c.index) + 1
				s.cut = true
				return i
			}
			idx := uint32(s.visited.Len())
			if !s.visited.Insert(c.fp, visit[A]{parent: parent, idx: idx, action: c.action}) {
				if s.live != nil { // stored by an earlier state or action of this round
					succ[c.index] = s.visited.Get(c.fp).idx
				}
				continue
			}
			if s.live != nil {
				succ[c.index] = idx
			}
			s.depth = depth + 1
			if s.unreached > 0 {
				s.evalGoals(&c.state)
			}
			if c.failures != nil {
				if s.record(c.failures, c.fp) {
					s.transitions += int(c.index) + 1
					return i
				}
				continue
			}
			if len(s.next) == cap(s.next) {
				s.next = slices.Grow(s.next, len(s.next)) // double, not append's 1.25x
			}
			s.next = append(s.next, queued[S]{state: c.state, idx: idx, fp: c.fp})
		}
		s.transitions += int(e.enabled)
		if s.live != nil {
			// A state with no enabled action gets here only if it is terminal.
			s.live.add(chunk[i].idx, succ, e.enabled == 0)
		}
	}
	return -1
}

// record reports the failures of the stored state fp, keeping the first one
// per (invariant, group), and says whether the search must stop.
func (s *search[S, A]) record(failures []InvariantFailure, fp uint64) (stop bool) {
	for _, f := range failures {
		key := violationKey{f.Invariant, f.Group}
		if s.reported[key] {
			continue
		}
		s.reported[key] = true
		trace := s.traceTo(fp)
		s.violations = append(s.violations, Violation[A]{
			Invariant: f.Invariant,
			Message:   f.Message,
			Group:     f.Group,
			Trace:     trace,
			Depth:     len(trace),
		})
	}
	if s.opts.KeepGoing {
		return false
	}
	s.stopped = true
	return true
}

// preferDeadlock is called when the search stops at a violation one level
// below the frontier: a deadlock among the rest of the frontier is shorter,
// so it replaces that violation.
func (s *search[S, A]) preferDeadlock(rest []queued[S]) {
	buf := s.workers[0].actions
	for i := range rest {
		st := &rest[i].state
		if buf = s.spec.Actions(st, buf[:0]); len(buf) == 0 && !s.terminal(st) {
			s.violations = s.violations[:0]
			clear(s.reported)
			s.record(deadlockFailure, rest[i].fp)
			return
		}
	}
}

func (s *search[S, A]) terminal(st *S) bool {
	return s.terminator != nil && s.terminator.IsTerminal(st)
}

// evalGoals marks the goals that st satisfies as reached.
func (s *search[S, A]) evalGoals(st *S) {
	for i, g := range s.goals {
		if !s.reached[i] && g.Reached(st) {
			s.reached[i] = true
			s.unreached--
		}
	}
}
