package model

import (
	"fmt"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// search is the state of one Check run: a level-synchronous breadth-first
// search. Each level's frontier is a stateQueue of compactly encoded
// states, processed in rounds of statesPerWorker states per worker. A round
// has these phases:
//
//  1. expand (parallel): each worker decodes its contiguous chunk of the
//     round into a reusable buffer, computes the successors, drops those
//     already stored and those it made candidates of earlier in the round,
//     and keeps the others as candidates: fingerprint, encoded state, and
//     the invariants it violates and goals it reaches. Without liveness
//     and the partial-order reduction, the first worker, whose blocks come
//     first in frontier order (claim.go), stores its new successors as it
//     goes, as a single worker does: a later worker that sees one of them
//     stored drops its own, which comes later in frontier order, and one
//     that does not see it yet keeps it for the insert phase, which finds
//     it stored.
//  2. insert (parallel): each worker inserts into the visited set the
//     other candidates of its own shards, in frontier order, which decides
//     which candidates are new: the first of equal ones in frontier order.
//  3. assign (sequential, light): in frontier order, number the new states,
//     record how they were reached, report violations and stop where a
//     sequential search would, and queue the rest for the next level.
//     Without liveness and the reduction, the other workers expand the
//     next round meanwhile (pipelined.go).
//
// A single worker does 1 and 2 at once, inserting as it expands. While
// workers expand, the visited set is written only by the first worker
// (which publishes a shard it grows whole, visitedShard.shared) and each
// shard is written by one worker while they insert, so the outcome is the
// same as a sequential search whatever the number of workers and however
// they share the round.
type search[S, A any] struct {
	spec       Spec[S, A]
	terminator Terminator[S] // nil when the spec has no legitimate end states
	opts       Options
	invariants []Invariant[S]
	// partInvariants are the invariants with a Part, for a Partitioned
	// spec (judge.go); nil otherwise.
	partInvariants []Invariant[S]
	// wholeInvariants are the others, in order, and noWhole says there
	// are none.
	wholeInvariants []Invariant[S]
	noWhole         bool
	goals           []Goal[S]
	reached         []bool // reached[i]: goals[i] holds in some stored state
	unreached       int    // goals not reached yet

	codec    codec[S]
	into     NextWriter[S, A] // the spec's in-place Next, or nil
	local    LocalSteps[A]    // the spec's rank-local steps, when its parts may be trusted to stay put (no symmetry), or nil
	memo     bool             // local steps come from the workers' memos (stepmemo.go)
	visited  *visitedSet
	links    parentLinks
	count    int         // states stored: the next state index
	frontier *stateQueue // states of the level being expanded
	next     *stateQueue // unexpanded states of the next level
	blocks   blockPool
	workers  []*worker[S, A]
	round    []queuedRef // the frontier states of the current round
	// nextRound is the next round's, popped while this one is assigned.
	nextRound []queuedRef
	team      *team // runs the workers
	// claims is the round's claims (claim.go): the front's next state in
	// the low 32 bits, the back's end in the high 32.
	claims atomic.Uint64
	// direct says the first worker stores its new successors while it
	// expands (several workers, neither liveness nor the reduction), and
	// the rounds are pipelined (pipelined.go).
	direct bool
	// ready counts the rounds the second worker popped in pipelined
	// levels; levelDone, set with it, says the round it popped last is
	// empty or the frontier could not be read; halt tells the workers to
	// stop claiming and leave after the round's expansion.
	ready     counter
	levelDone bool
	halt      atomic.Bool
	lastNew   int // states the round assigned last stored (pipelined.go)

	transitions int
	depth       int32 // deepest level stored
	cut         bool  // MaxDepth or MaxStates kept part of the space unexplored
	cursor      []int // assign's position in each owner's list of a worker's candidates
	// assigned is the buffers each worker expanded the round being
	// assigned into (keepRound).
	assigned    []*roundBufs
	depthCut    bool  // MaxDepth did (a state at the bound had enabled actions)
	stopped     bool  // stopped at a violation (no KeepGoing)
	interrupted bool  // Options.Stop ended the search (cut is set too)
	outOfMemory bool  // stopped because the next step would pass MaxMemory
	err         error // an I/O error of the disk queue stopped the search
	peakQueue   int64 // most bytes the queues held in memory at once
	violations  []Violation[A]
	reported    map[violationKey]bool

	live *liveness // the transition graph, when opts.Liveness is set
	// keptLive is live after the analysis, for its blocks (reuse.go).
	keptLive *liveness
	// salt tells this search's entries in the workers' memos from those
	// of the searches that used the workers before (reuse.go).
	salt uint64
	// sym canonicalizes states (symmetry.go), when opts.Symmetry is set
	// and the spec has a symmetry.
	sym Symmetric[S]

	por        PartialOrder[S, A] // the reduction in use (por.go), or nil
	levelStart uint32             // states stored before the level being expanded
	reduced    int                // states expanded through a persistent set only
}

// statesPerWorker is how many frontier states each worker expands per round.
// It bounds the memory held by successors awaiting the merge.
const statesPerWorker = 2048

// queuedRef is a frontier state of the current round: its index and its
// encoding, which points into a queue block.
type queuedRef struct {
	idx uint32
	enc []byte
}

// expansion is a worker's summary of one frontier state.
type expansion struct {
	idx       uint32 // the state's index
	enabled   int32  // number of enabled actions
	deadlock  bool   // no enabled action and not terminal
	violating bool   // deadlock, but the state violates an invariant
	cut       bool   // at MaxDepth with enabled actions: not expanded
	end       int32  // the state's candidates end here in worker.candidates
	succEnd   int32  // with Liveness: the state's successors end here in worker.succ
}

// candidate is a successor that was not stored when its round began.
type candidate struct {
	fp       uint64
	encEnd   int32              // its encoding ends here in worker.enc (and starts where the previous one ends)
	index    int32              // position of its action among the expanded ones
	action   int32              // position of its action among the enabled ones
	goals    uint64             // bit i: it reaches goals[i], not reached when the round began
	failures []InvariantFailure // invariants it violates
	isNew    bool               // set by the insert phase (copied from owned by assign when listed): first stored here
	listed   bool               // with several workers: in owned, where the insert phase says whether it is new
	idx      uint32             // its index, once assigned (new candidates)
}

// successorSet holds the successors of one expanded state: successors[k]
// through the state's k-th action, its fingerprint fps[k] and, for a
// ByteStates spec, its segment hashes (segHashes[k*segments:]) and the
// mask changed[k] of its segments that differ from the parent's.
type successorSet[S any] struct {
	successors []S
	fps        []uint64
	segHashes  []uint64
	changed    []uint64
}

// ownedCandidate is a candidate as the worker that owns its shard sees it
// in the insert phase: its fingerprint, and whether it was stored there
// first (assign copies isNew back to the candidate, which is marked
// listed).
type ownedCandidate struct {
	fp    uint64
	isNew bool
}

// worker holds the reusable buffers of one expanding goroutine.
type worker[S, A any] struct {
	state S // the frontier state being expanded, decoded
	// cur describes state, segment by segment, for a ByteStates spec
	// (segments.go); anything else that writes state clears cur.valid.
	cur     decoded
	actions []A
	successorSet[S]
	// held is, when a single worker expands (pipelined), the successors
	// of the state expanded before the one in successorSet, looked up
	// and kept after the next state's successors are computed, so that
	// the visited set's cache misses for them overlap with that work;
	// heldAt is its position in expansions, or -1 when nothing is held.
	held   successorSet[S]
	heldAt int
	// fromPrev says the parent of the successors being kept is the state
	// decoded before w.state (its entries are in cur's other buffer).
	fromPrev bool
	// partMemo caches the (head, part) pairs where every Part invariant
	// holds (judge.go).
	partMemo []uint64
	parts    *partCache // for a Partitioned spec (segments.go)
	steps    *stepMemo  // memo of local steps (stepmemo.go), made on first use
	round    roundSet   // with several workers, this round's candidates (roundset.go)
	touched  uint64     // keeps visitedSet.touch's loads from being optimized away
	// order is every worker's blocks of the round in frontier order,
	// after expansion (claim.go).
	order []blockRef
	// roundBufs are the buffers the worker expands the round into: one of
	// bufs, the other kept by a helper for the round the first worker
	// assigns while the helper expands the next (pipelined.go).
	*roundBufs
	bufs [2]roundBufs
	// bufBytes is the memory of the worker's buffers, which it sets after
	// each expansion, for the memory budget (memory.go).
	bufBytes atomic.Int64
	// positions, ample, reordered, inSet and reduced are the partial-order
	// reduction's (por.go): positions[k] is the position of actions[k]
	// among the enabled actions when reduce reordered them.
	positions []int32
	ample     []int32
	reordered []A
	inSet     []bool
	reduced   int      // states expanded through a persistent set only
	_         [64]byte // keeps workers' slice headers off each other's cache lines
}

// roundBufs are a worker's buffers for what it expands in one round.
// blocks are the ones it expanded, in the order it claimed them
// (claim.go), and ownedEnds[b*n+o] is where block b's entries end in
// owned[o], for n workers.
type roundBufs struct {
	blocks    []block
	ownedEnds []int32
	// owned[o] lists, with several workers, the candidates whose shard
	// worker o owns in the insert phase, in order, with their
	// fingerprints: worker o reads them there in sequence and writes its
	// answer there, instead of reading and writing the candidates, which
	// live in the caches of the core that expanded them.
	owned      [][]ownedCandidate
	expansions []expansion
	candidates []candidate
	enc        []byte // the candidates' encodings, back to back
	// succ holds, with Liveness, the index of each successor of each
	// expanded state in action order, or pending for a candidate, whose
	// index the merge assigns.
	succ []uint32
}

// violationKey identifies the failure mechanisms that KeepGoing reports once.
type violationKey struct{ invariant, group string }

// deadlockFailure is what a deadlocked state violates.
var deadlockFailure = []InvariantFailure{{
	Invariant: DeadlockInvariant,
	Failure:   Failure{Message: "no action is enabled and the state is not terminal"},
}}

// maxGoals is the number of goals the workers evaluate in parallel (a bit
// mask per candidate).
const maxGoals = 64

func newSearch[S, A any](spec Spec[S, A], opts Options) *search[S, A] {
	s := &search[S, A]{
		spec:       spec,
		opts:       opts,
		invariants: spec.Invariants(),
		goals:      spec.Goals(),
		codec:      newCodec[S](unwrap(spec)),
		workers:    make([]*worker[S, A], max(1, opts.Workers)),
		reported:   make(map[violationKey]bool),
		sym:        symmetryOf(spec, opts),
	}
	if len(s.goals) > maxGoals {
		panic(fmt.Sprintf("model: a spec has at most %d goals, this one %d", maxGoals, len(s.goals)))
	}
	s.frontier = &stateQueue{pool: &s.blocks, dir: opts.SpillDir}
	s.next = &stateQueue{pool: &s.blocks, dir: opts.SpillDir}
	s.terminator, _ = spec.(Terminator[S])
	s.into, _ = unwrap(spec).(NextWriter[S, A])
	if s.codec.segs.parts && s.sym == nil {
		s.local, _ = unwrap(spec).(LocalSteps[A])
		s.memo = memoizable(s, spec)
	}
	if s.codec.segs.parts {
		for _, inv := range s.invariants {
			if inv.Part != nil {
				s.partInvariants = append(s.partInvariants, inv)
			} else {
				s.wholeInvariants = append(s.wholeInvariants, inv)
			}
		}
		s.noWhole = len(s.wholeInvariants) == 0
	}
	s.reached = make([]bool, len(s.goals))
	s.unreached = len(s.goals)
	if opts.Liveness {
		s.live = new(liveness)
	}
	s.takeTables(opts.Liveness || opts.PartialOrder)
	for i := range s.workers {
		if s.workers[i] == nil {
			w := new(worker[S, A])
			w.roundBufs = &w.bufs[0]
			s.workers[i] = w
		}
	}
	s.por = partialOrderOf(spec, opts)
	s.direct = len(s.workers) > 1 && s.live == nil && s.por == nil
	s.ready.at.init()
	return s
}

// run performs the search.
func (s *search[S, A]) run() {
	defer s.frontier.close()
	defer s.next.close()
	s.team = newTeam(len(s.workers))
	defer s.team.stop()
	init := s.spec.Initial()
	s.canonicalize(&init)
	// The fingerprint successors are looked up by (the hash of the state's
	// bytes for a ByteStates spec), so a step back to the initial state
	// finds it.
	fp := s.fingerprint(&init)
	s.visited.insert(fp, 0)
	s.links.grow(1)
	s.count = 1
	for i, g := range s.goals {
		if g.Reached(&init) {
			s.reached[i] = true
			s.unreached--
		}
	}
	if failures := checkInvariants(s.invariants, &init, s.opts.KeepGoing); failures != nil {
		s.record(failures, 0)
		return
	}
	s.next.push(0, s.codec.appendEncoded(nil, &init))
	for depth := int32(0); s.next.n > 0; depth++ {
		s.frontier, s.next = s.next, s.frontier
		if s.level(depth) {
			return
		}
		s.frontier.reset()
	}
}

// level expands the frontier, whose states are at depth, into s.next. It
// reports whether the search must stop.
//
// A search whose first worker stores as it expands pipelines its rounds
// instead (levelPipelined). With several workers otherwise (liveness or
// the partial-order reduction), while the first assigns a round's new
// states the second pops the next round from the frontier: assign does
// not read the frontier. The second pops only from a frontier held in
// memory; one that spilled to disk is read after the round, as it was
// before the block pool was locked (pipelined.go reads it alongside).
func (s *search[S, A]) level(depth int32) (stop bool) {
	if s.direct {
		return s.levelPipelined(depth)
	}
	atBound := s.opts.MaxDepth > 0 && int(depth) >= s.opts.MaxDepth
	s.levelStart = uint32(s.count)
	s.popRound(&s.round)
	for len(s.round) > 0 {
		if s.interruptedOrFailed() {
			return true
		}
		s.startRound(len(s.round))
		overlap := len(s.workers) > 1 && s.frontier.file == nil
		retired := -1 // blocks popped to the end before the next round's pop, when it overlaps
		s.nextRound = s.nextRound[:0]
		var at int
		goals := s.unreachedGoals() // goals not reached when the round began
		s.team.run(func(w int) {
			s.expandRound(w, s.round, atBound, goals)
			if len(s.workers) == 1 { // it inserted as it expanded
				s.orderBlocks(s.workers[0])
			} else {
				s.team.sync()
				s.orderBlocks(s.workers[w])
				s.insert(w)
				s.team.sync()
			}
			switch {
			case w == 0:
				s.keepRound()
				at, stop = s.assign(depth)
			case w == 1 && overlap:
				retired = len(s.frontier.retire)
				s.popRound(&s.nextRound)
			}
		})
		if stop {
			if s.stopped && s.violations[0].Depth > int(depth) {
				s.preferDeadlock(at + 1)
			}
			return true
		}
		if s.live != nil || s.por != nil {
			s.team.run(s.resolve)
		}
		if s.live != nil {
			s.addLive()
		}
		s.frontier.release(retired)
		if s.roundEnd(depth) {
			return true
		}
		if !overlap {
			s.popRound(&s.nextRound)
		}
		s.round, s.nextRound = s.nextRound, s.round
	}
	return false
}

// roundEnd is what the search does after a round was assigned, when it
// goes on: keep within the memory budget and report progress. It reports
// whether the search must stop.
func (s *search[S, A]) roundEnd(depth int32) (stop bool) {
	if s.overBudget() || s.next.err != nil {
		s.err = s.next.err
		return true
	}
	if s.opts.Progress != nil {
		s.opts.Progress(Progress{States: s.visited.len(), Transitions: s.transitions, Depth: int(depth) + 1})
	}
	return false
}

// interruptedOrFailed is what the search checks before a round: whether
// Options.Stop asks it to stop, or the frontier could not be read back
// from disk. It reports whether the search must stop.
func (s *search[S, A]) interruptedOrFailed() bool {
	if s.opts.Stop != nil && s.opts.Stop() {
		s.cut, s.interrupted = true, true
		return true
	}
	if err := s.frontier.err; err != nil {
		s.err = err
		return true
	}
	return false
}

// popRound pops the next round of the frontier into round.
func (s *search[S, A]) popRound(round *[]queuedRef) {
	r := (*round)[:0]
	for size := s.roundSize(); len(r) < size; {
		idx, enc, ok := s.frontier.pop()
		if !ok {
			break
		}
		r = append(r, queuedRef{idx, enc})
	}
	*round = r
}

// expandRound is worker w's part of round's expansion, against the goals
// among goals: the whole round for a single worker, else the blocks it
// claims (claim.go).
func (s *search[S, A]) expandRound(w int, round []queuedRef, atBound bool, goals uint64) {
	wk := s.workers[w]
	defer wk.noteBytes()
	wk.blocks = wk.blocks[:0]
	wk.ownedEnds = wk.ownedEnds[:0]
	wk.expansions = wk.expansions[:0]
	wk.candidates = wk.candidates[:0]
	if len(wk.owned) != len(s.workers) {
		wk.owned = make([][]ownedCandidate, len(s.workers))
	}
	for o := range wk.owned {
		wk.owned[o] = wk.owned[o][:0]
	}
	wk.enc = wk.enc[:0]
	wk.succ = wk.succ[:0]
	wk.round.reset()
	if len(s.workers) == 1 {
		s.expand(wk, round, 0, atBound, goals)
		return
	}
	claimed := 0
	for {
		lo, hi, ok := s.claim(w, claimed)
		if !ok {
			return
		}
		claimed += hi - lo
		if w > 0 {
			wk.round.reset() // its blocks are not contiguous (claim.go)
		}
		s.expand(wk, round[lo:hi], lo, atBound, goals)
	}
}

// expand computes the successors of the states in chunk, which starts at
// round position start, into w, as a block. Successors already stored are
// counted but dropped; the others become candidates, checked against the
// invariants and goals among goals, for insert and assign.
func (s *search[S, A]) expand(w *worker[S, A], chunk []queuedRef, start int, atBound bool, goals uint64) {
	pipelined := s.live == nil && s.por == nil
	w.heldAt = -1
	for _, ref := range chunk {
		st := &w.state
		s.decodeFrontier(w, ref.enc)
		w.actions = s.spec.Actions(st, w.actions[:0])
		e := expansion{idx: ref.idx, enabled: int32(len(w.actions))}
		switch {
		case len(w.actions) == 0:
			e.deadlock = !s.terminal(st)
			// Under KeepGoing a violating state is expanded; if it is a dead
			// end, it is the end of that violation, not a deadlock.
			e.violating = e.deadlock && s.opts.KeepGoing && checkInvariants(s.invariants, st, true) != nil
		case atBound:
			e.cut = true
		case pipelined:
			s.computeSuccessors(w, st)
			s.keepHeld(w, goals, true)
			w.successorSet, w.held = w.held, w.successorSet
			w.heldAt = len(w.expansions)
			w.expansions = append(w.expansions, e) // its end is set when it is kept
			continue
		default:
			s.addCandidates(w, st, goals)
			e.enabled = int32(len(w.actions)) // the persistent set, if reduced
		}
		if pipelined {
			s.keepHeld(w, goals, true)
		}
		e.end = int32(len(w.candidates))
		e.succEnd = int32(len(w.succ))
		w.expansions = append(w.expansions, e)
	}
	if pipelined {
		s.keepHeld(w, goals, false)
	}
	w.blocks = append(w.blocks, block{start: int32(start), expEnd: int32(len(w.expansions))})
	for o := range w.owned {
		w.ownedEnds = append(w.ownedEnds, int32(len(w.owned[o])))
	}
}

// keepHeld inserts the held successors (w.held, of the state at
// w.expansions[w.heldAt]) into the visited set, in action order, and keeps
// the new ones as candidates (with several workers: looks them up and
// keeps the ones not stored yet nor already this worker's candidates in
// the round); fromPrev says a frontier state was decoded since theirs.
// Without liveness and the partial-order reduction, expansion is
// pipelined this way: the successors of a state are computed and their
// slots prefetched, then the previous state's successors are looked up,
// whose slots were prefetched a state's work earlier. The order of the
// lookups, and so of candidates, is frontier order as without it.
func (s *search[S, A]) keepHeld(w *worker[S, A], goals uint64, fromPrev bool) {
	if w.heldAt < 0 {
		return
	}
	w.successorSet, w.held = w.held, w.successorSet
	w.fromPrev = fromPrev
	switch {
	case len(s.workers) == 1:
		for k, fp := range w.fps {
			if s.visited.insert(fp, pending) {
				s.keep(w, k, fp, true, false, goals)
			}
		}
	case s.direct && w == s.workers[0]:
		// The first of several workers stores as it goes (growing a
		// shard as a single worker does, visitedSet.insertShared).
		for k, fp := range w.fps {
			stored, deferred := s.visited.insertShared(fp)
			switch {
			case stored:
				s.keep(w, k, fp, true, false, goals)
			case deferred && !w.round.has(fp):
				w.round.add(fp)
				s.keep(w, k, fp, false, true, goals)
			}
		}
	default:
		// The other workers only read the visited set while they expand;
		// the insert phase stores their candidates.
		for k, fp := range w.fps {
			if s.visited.contains(fp) || w.round.has(fp) {
				continue
			}
			w.round.add(fp)
			s.keep(w, k, fp, false, true, goals)
		}
	}
	w.fromPrev = false
	w.successorSet, w.held = w.held, w.successorSet
	e := &w.expansions[w.heldAt]
	e.end = int32(len(w.candidates))
	e.succEnd = int32(len(w.succ))
	w.heldAt = -1
}

// computeSuccessors computes the successors of st through w.actions into
// w.successorSet and starts loading their home slots in the visited set.
func (s *search[S, A]) computeSuccessors(w *worker[S, A], st *S) {
	s.sizeSuccessors(w, len(w.actions))
	for k := range w.actions {
		s.successor(w, st, k)
	}
	if len(s.workers) == 1 || s.direct && w == s.workers[0] {
		s.visited.prefetch(w.fps)
	} else {
		s.visited.prefetchShared(w.fps)
	}
}

// sizeSuccessors makes w.successorSet hold n successors.
func (s *search[S, A]) sizeSuccessors(w *worker[S, A], n int) {
	if cap(w.successors) < n {
		w.successors = make([]S, n)
		w.fps = make([]uint64, n)
		w.changed = make([]uint64, n)
	}
	if segs := s.codec.segs.count(); len(w.segHashes) < n*segs {
		w.segHashes = make([]uint64, cap(w.successors)*segs)
	}
	w.successors, w.fps = w.successors[:n], w.fps[:n]
}

// addCandidates appends to w.candidates the successors of st through
// w.actions that are not stored yet, with their invariant failures and the
// goals among goals they reach. The successors are computed first and
// looked up together, so that the lookups' cache misses overlap. A single
// worker inserts them at once (its order is frontier order), and drops
// the ones already inserted in this round. With Liveness, a successor
// first reached earlier in the round, by a candidate, is a candidate with
// no encoding, so that resolve fills in its index.
func (s *search[S, A]) addCandidates(w *worker[S, A], st *S, goals uint64) {
	n := len(w.actions)
	s.sizeSuccessors(w, n)
	done := 0
	if s.por != nil {
		done = s.reduce(w, st)
		n = len(w.actions)
		w.successors, w.fps = w.successors[:n], w.fps[:n]
	}
	for k := done; k < n; k++ {
		s.successor(w, st, k)
	}
	w.touched ^= s.visited.touch(w.fps)
	single := len(s.workers) == 1
	if single && s.live == nil {
		// The common case, in a tight loop: insert, keep the new ones.
		for k, fp := range w.fps {
			if s.visited.insert(fp, pending) {
				s.keep(w, k, fp, true, false, goals)
			}
		}
		return
	}
	for k, fp := range w.fps {
		isNew := false
		if s.live != nil {
			idx, ok := s.visited.lookup(fp)
			switch {
			case ok && idx != pending:
				w.succ = append(w.succ, idx) // stored before this round
				continue
			case ok: // first reached earlier in this round, by a candidate
				w.succ = append(w.succ, pending)
				w.candidates = append(w.candidates, candidate{fp: fp, encEnd: int32(len(w.enc)), index: int32(k)}) // not new: its action position is never read
				continue
			}
			if !single && w.round.has(fp) { // an earlier candidate of this worker's round
				w.succ = append(w.succ, pending)
				w.candidates = append(w.candidates, candidate{fp: fp, encEnd: int32(len(w.enc)), index: int32(k)})
				continue
			}
			w.succ = append(w.succ, pending)
			if single {
				isNew = s.visited.insert(fp, pending)
			}
		} else if s.visited.contains(fp) || w.round.has(fp) {
			continue
		}
		if !single {
			w.round.add(fp)
		}
		s.keep(w, k, fp, isNew, !single, goals)
	}
}

// keep makes w.successors[k], with fingerprint fp, a candidate: encoded,
// judged, and when list is set (several workers, fp not stored by w)
// listed for the worker that owns its shard.
func (s *search[S, A]) keep(w *worker[S, A], k int, fp uint64, isNew, list bool, goals uint64) {
	next := &w.successors[k]
	var hashes []uint64
	if s.codec.bytesFP {
		segs := s.codec.segs.count()
		hashes = w.segHashes[k*segs : (k+1)*segs]
		w.enc = s.encodeSuccessor(w, w.enc, k)
	} else {
		w.enc = s.codec.appendEncoded(w.enc, next)
	}
	c := candidate{fp: fp, encEnd: int32(len(w.enc)), index: int32(k), action: int32(k), isNew: isNew}
	if len(w.positions) > 0 {
		c.action = w.positions[k]
	}
	// With several workers the candidates not stored when the round
	// began are judged here too, while their states are at hand: the few
	// that another candidate of the round stores first are judged for
	// nothing, but no state is decoded again.
	s.judgeCandidate(w, &c, next, hashes, goals)
	w.candidates = append(w.candidates, c)
	if list {
		o := shardOf(fp) % len(s.workers)
		w.owned[o] = append(w.owned[o], ownedCandidate{fp: fp})
		w.candidates[len(w.candidates)-1].listed = true
	}
}

// successor computes the successor of st through w.actions[k] into
// w.successors[k] (in place, when the spec is a NextWriter) and its
// fingerprint into w.fps[k]. Only the successors not stored yet are
// encoded, by addCandidates.
func (s *search[S, A]) successor(w *worker[S, A], st *S, k int) {
	next := &w.successors[k]
	// A rank-local step of a spec whose local steps are pure may come from
	// w's memo of them (stepmemo.go), hashes and all.
	l := s.codec.segs
	n := l.count()
	h := w.segHashes[k*n : (k+1)*n] // empty unless the spec is ByteStates
	part, local := -1, false
	if s.local != nil {
		part, local = s.local.LocalPart(w.actions[k])
	}
	var key uint64
	if local && s.memo {
		var hit bool
		if key, hit = s.memoStep(w, st, k, part, h); hit {
			w.fps[k] = combineHashes(h)
			return
		}
	}
	if s.into != nil {
		s.into.NextInto(next, st, w.actions[k])
	} else {
		*next = s.spec.Next(st, w.actions[k])
	}
	s.canonicalize(next)
	if !s.codec.bytesFP {
		w.fps[k] = s.spec.Fingerprint(next)
		return
	}
	// Segment by segment: the ones the step left as they were in st keep
	// st's hashes.
	p, q := unsafe.Pointer(next), unsafe.Pointer(st)
	maybe := ^uint64(0) // the segments the step may have changed
	if local {
		maybe = 1 | 1<<(1+part)
	}
	var changed uint64
	for j := range h {
		if maybe>>j&1 == 0 || l.sameSegment(p, q, j) {
			h[j] = w.cur.hashes[j]
		} else {
			h[j] = l.hashSegment(p, j)
			changed |= 1 << j
		}
	}
	w.changed[k] = changed
	w.fps[k] = combineHashes(h)
	if local && s.memo {
		s.rememberStep(w, key, k, part, h, changed)
	}
}

// decodeFrontier decodes the frontier state enc into w.state: for a
// ByteStates spec only the segments that differ from the state decoded
// before, which w.cur describes.
func (s *search[S, A]) decodeFrontier(w *worker[S, A], enc []byte) {
	if !s.codec.bytesFP {
		s.codec.decode(enc, &w.state)
		return
	}
	s.codec.segs.decodeFrontier(&w.cur, enc, unsafe.Pointer(&w.state), s.partCacheOf(w))
}

// partCacheOf returns w's cache of parts for a Partitioned spec, or nil.
func (s *search[S, A]) partCacheOf(w *worker[S, A]) *partCache {
	l := s.codec.segs
	if !l.parts {
		return nil
	}
	if size := l.bounds[2] - l.bounds[1]; w.parts == nil || w.parts.size != size {
		w.parts = newPartCache(size)
	}
	return w.parts
}

// encodeSuccessor appends the encoding of w.successors[k], whose segments
// of the mask w.changed[k] differ from w.state's: the others are copied
// from w.state's encoding, and its parts' entries come from w's cache of
// parts when they are there.
func (s *search[S, A]) encodeSuccessor(w *worker[S, A], dst []byte, k int) []byte {
	next, changed := &w.successors[k], w.changed[k]
	l := s.codec.segs
	p := unsafe.Pointer(next)
	cache := s.partCacheOf(w)
	hashes := w.segHashes[k*l.count() : (k+1)*l.count()]
	for j := range l.count() {
		switch {
		case changed&(1<<j) == 0:
			dst = append(dst, w.cur.entryOf(w.fromPrev, j)...)
		case j == 0 || cache == nil:
			dst = l.appendSegment(dst, p, j)
		default:
			if e := cache.encoded(hashes[j]); e != nil {
				dst = append(dst, e...)
				continue
			}
			at := len(dst)
			dst = l.appendSegment(dst, p, j)
			cache.remember(hashes[j], dst[at:])
		}
	}
	return dst
}

// unreachedGoals returns the goals not reached yet, as a bit mask.
func (s *search[S, A]) unreachedGoals() uint64 {
	var goals uint64
	for i, r := range s.reached {
		if !r {
			goals |= 1 << i
		}
	}
	return goals
}

// insert is worker me's part of the insert phase: it stores the candidates
// of the shards it owns, in frontier order, and marks the new ones. Each
// expanding worker listed them for it in owned[me]; the home slot of the
// candidate prefetchDistance places ahead is prefetched, so that the
// cache misses overlap.
func (s *search[S, A]) insert(me int) {
	s.visited.freeRetired(me, len(s.workers)) // nothing reads the set now
	for _, ref := range s.workers[me].order {
		w := s.workers[ref.w]
		from, to := w.ownedSpan(int(ref.b), me)
		owned := w.owned[me][from:to]
		for i := range owned {
			if i+prefetchDistance < len(owned) {
				s.visited.prefetchOne(owned[i+prefetchDistance].fp)
			}
			c := &owned[i]
			c.isNew = s.visited.insert(c.fp, pending)
		}
	}
}

// prefetchDistance is how many candidates ahead insert loads a home slot.
const prefetchDistance = 8

// keepRound records in s.assigned the buffers each worker expanded the
// round into, for assign; with the workers stopped at the barrier after
// the insert phase, each worker's are still its current ones.
func (s *search[S, A]) keepRound() {
	s.assigned = s.assigned[:0]
	for _, w := range s.workers {
		s.assigned = append(s.assigned, w.roundBufs)
	}
}

// assign is the sequential phase of a round: in frontier order it numbers
// the new states, links them to their parents, records violations and
// deadlocks, and queues the states to expand at the next level. When the
// search must stop it returns the round position of the state being
// processed and true.
func (s *search[S, A]) assign(depth int32) (at int, stop bool) {
	if len(s.cursor) != len(s.workers) {
		s.cursor = make([]int, len(s.workers))
	}
	cursor := s.cursor // per owner, the next of w.owned[owner] to read
	for _, ref := range s.workers[0].order {
		w := s.assigned[ref.w]
		from, to := w.blockSpan(int(ref.b))
		for o := range cursor {
			c, _ := w.ownedSpan(int(ref.b), o)
			cursor[o] = int(c)
		}
		for i := from; i < to; i++ {
			e := w.expansions[i]
			at = int(ref.start + i - from)
			first, _ := w.expansionStart(i)
			candidates := w.candidates[first:e.end]
			encStart := int32(0)
			if first > 0 {
				encStart = w.candidates[first-1].encEnd
			}
			if e.deadlock {
				if e.violating {
					continue // the end of a violation, reported as that violation
				}
				if s.record(deadlockFailure, e.idx) {
					return at, true
				}
				continue
			}
			if e.cut {
				s.cut, s.depthCut = true, true
				continue
			}
			for k := range candidates {
				c := &candidates[k]
				start := encStart
				encStart = c.encEnd
				if c.listed {
					o := shardOf(c.fp) % len(s.workers)
					c.isNew = w.owned[o][cursor[o]].isNew
					cursor[o]++
				}
				if !c.isNew {
					continue
				}
				if s.opts.MaxStates > 0 && s.count >= s.opts.MaxStates || s.count >= pending {
					s.transitions += int(c.index) + 1
					s.cut = true
					return at, true
				}
				c.idx = uint32(s.count)
				s.count++
				s.links.set(c.idx, e.idx, int(c.action))
				s.depth = depth + 1
				if c.goals != 0 {
					s.markGoals(c.goals)
				}
				if c.failures != nil {
					if s.record(c.failures, c.idx) {
						s.transitions += int(c.index) + 1
						return at, true
					}
					// KeepGoing: a violation that does not end the run (a
					// leak, a disagreement) must not hide what lies beyond
					// it, so the state is expanded too; an end state (a
					// crash) has no successors anyway. Liveness must not
					// take it for a good end.
					if s.live != nil {
						s.live.markViolating(c.idx)
					}
				}
				s.next.push(c.idx, w.enc[start:c.encEnd])
			}
			s.transitions += int(e.enabled)
		}
	}
	return 0, false
}

// markGoals marks the goals of mask as reached.
func (s *search[S, A]) markGoals(mask uint64) {
	for ; mask != 0; mask &= mask - 1 {
		if i := bits.TrailingZeros64(mask); !s.reached[i] {
			s.reached[i] = true
			s.unreached--
		}
	}
}

// resolve is worker me's part of the liveness and reduction bookkeeping
// after assign: it stores the new states' indices with their fingerprints
// in its shards and, with liveness, fills in the successor index of every
// candidate there.
func (s *search[S, A]) resolve(me int) {
	n := len(s.workers)
	// In frontier order, so that a candidate's index is set before the
	// later ones with its fingerprint look it up.
	for _, ref := range s.workers[me].order {
		w := s.workers[ref.w]
		from, to := w.blockSpan(int(ref.b))
		for i := from; i < to; i++ {
			e := w.expansions[i]
			first, firstSucc := w.expansionStart(i)
			candidates := w.candidates[first:e.end]
			succ := w.succ[firstSucc:e.succEnd]
			for k := range candidates {
				c := &candidates[k]
				if shardOf(c.fp)%n != me {
					continue
				}
				if c.isNew {
					s.visited.setIdx(c.fp, c.idx)
				}
				switch {
				case s.live == nil: // the reduction's cycle proviso needs only the index
				case c.isNew:
					succ[c.index] = c.idx
				default: // stored by an earlier state or action of this round
					succ[c.index], _ = s.visited.lookup(c.fp)
				}
			}
		}
	}
}

// addLive records the round's expanded states in the transition graph.
func (s *search[S, A]) addLive() {
	for _, ref := range s.workers[0].order {
		w := s.workers[ref.w]
		from, to := w.blockSpan(int(ref.b))
		for i := from; i < to; i++ {
			e := w.expansions[i]
			_, firstSucc := w.expansionStart(i)
			succ := w.succ[firstSucc:e.succEnd]
			if e.deadlock || e.cut {
				continue
			}
			// A state with no enabled action gets here only if it is terminal.
			s.live.add(e.idx, succ, e.enabled == 0)
		}
	}
}

// record reports the failures of the stored state idx, keeping the first
// one per (invariant, group), and says whether the search must stop.
func (s *search[S, A]) record(failures []InvariantFailure, idx uint32) (stop bool) {
	for _, f := range failures {
		key := violationKey{f.Invariant, f.Group}
		if s.reported[key] {
			continue
		}
		s.reported[key] = true
		trace, message := s.violationTrace(f, idx)
		s.violations = append(s.violations, Violation[A]{
			Invariant: f.Invariant,
			Message:   message,
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
// below the frontier: a deadlock among the rest of the frontier, from
// round position from on, is shorter, so it replaces that violation.
func (s *search[S, A]) preferDeadlock(from int) {
	w := s.workers[0]
	check := func(ref queuedRef) bool {
		w.cur.valid = false
		s.codec.decode(ref.enc, &w.state)
		if w.actions = s.spec.Actions(&w.state, w.actions[:0]); len(w.actions) == 0 && !s.terminal(&w.state) {
			s.violations = s.violations[:0]
			clear(s.reported)
			s.record(deadlockFailure, ref.idx)
			return true
		}
		return false
	}
	for _, ref := range s.round[min(from, len(s.round)):] {
		if check(ref) {
			return
		}
	}
	for _, ref := range s.nextRound { // popped while the round was assigned
		if check(ref) {
			return
		}
	}
	for {
		idx, enc, ok := s.frontier.pop()
		if !ok || check(queuedRef{idx, enc}) {
			return
		}
	}
}

// complete reports whether the search explored every reachable state: no
// bound cut it, and it did not stop at a violation or for lack of memory.
func (s *search[S, A]) complete() bool {
	return !s.cut && !s.stopped && !s.outOfMemory && s.err == nil
}

func (s *search[S, A]) terminal(st *S) bool {
	return s.terminator != nil && s.terminator.IsTerminal(st)
}
