package model

import "slices"

// blockStates is how many frontier states a worker claims at a time.
var blockStates uint32 = 32

// claimDelayForTest, when set (export_test.go), is called before each
// claim, so that tests can vary how the workers share a round.
var claimDelayForTest func(w int)

// With several workers, a round is shared out as it is expanded: the first
// worker claims blocks of blockStates states from the round's front, the
// others from its back, until they meet. So the workers finish together
// however their speeds differ, and the first worker's blocks are the
// round's first states, contiguous and in order, which lets it store its
// successors as it goes (search.direct): every other worker's block comes
// later in frontier order. Another worker's blocks are not contiguous and
// it claims them back to front, so it drops a successor it already made a
// candidate of (roundSet) only within a block; the insert phase, which
// takes the blocks in frontier order (worker.order), finds the later of
// two such candidates stored. No worker claims more than claimLimit
// states, which bounds the memory its buffers grow to.

// block is a run of a round's states that one worker expanded: its
// position in the round, and where its expansions end in the worker's
// buffers. The owned lists' ends, one per owner, are in worker.ownedEnds.
type block struct {
	start  int32 // the round position of its first state
	expEnd int32 // its expansions end here in worker.expansions
}

// blockRef names a worker's block, for worker.order.
type blockRef struct {
	start int32
	w, b  int32
}

// roundSize is how many states a round holds: three quarters of
// statesPerWorker a worker, so that a worker limited to statesPerWorker
// (claimLimit) may claim up to a third more than an even share (with two
// workers, one may take twice the other's).
func (s *search[S, A]) roundSize() int {
	if len(s.workers) == 1 {
		return statesPerWorker
	}
	return statesPerWorker * len(s.workers) * 3 / 4
}

// claimLimit is how many of a round's states worker w may claim:
// statesPerWorker, or the whole round for a helper of a pipelined search
// (pipelined.go), which starts the round while the first worker assigns
// the one before and grows the visited set: however late the first
// joins, the helpers need not wait for it. A helper's buffers then hold up
// to two rounds' successors.
func (s *search[S, A]) claimLimit(w int) int {
	if s.direct && w > 0 {
		return s.roundSize()
	}
	return statesPerWorker
}

// startRound readies the claims for a round of n states.
func (s *search[S, A]) startRound(n int) {
	s.claims.Store(uint64(n) << 32)
}

// claim returns the next block of the round for worker w, from the front
// for the first worker and from the back for the others, or false when
// the round is all claimed or w has claimed its share.
func (s *search[S, A]) claim(w int, claimed int) (lo, hi int, ok bool) {
	if claimDelayForTest != nil {
		claimDelayForTest(w)
	}
	if s.halt.Load() { // the search stops (pipelined.go)
		return 0, 0, false
	}
	for {
		v := s.claims.Load()
		front, back := uint32(v), uint32(v>>32)
		n := min(blockStates, back-front, uint32(s.claimLimit(w)-claimed))
		if n == 0 || front >= back {
			return 0, 0, false
		}
		var next uint64
		if w == 0 {
			next = uint64(back)<<32 | uint64(front+n)
			lo = int(front)
		} else {
			next = uint64(back-n)<<32 | uint64(front)
			lo = int(back - n)
		}
		if s.claims.CompareAndSwap(v, next) {
			return lo, lo + int(n), true
		}
	}
}

// orderBlocks sets w.order to every worker's blocks in frontier order;
// each worker sorts its own copy, after the round's expansion.
func (s *search[S, A]) orderBlocks(w *worker[S, A]) {
	w.order = w.order[:0]
	for wi, other := range s.workers {
		for b, bl := range other.blocks {
			w.order = append(w.order, blockRef{start: bl.start, w: int32(wi), b: int32(b)})
		}
	}
	if len(s.workers) > 1 {
		slices.SortFunc(w.order, func(a, b blockRef) int { return int(a.start - b.start) })
	}
}

// expansionStart returns where the candidates and the successors of
// r.expansions[i] start in r.candidates and r.succ: where the expansion
// before it in r ends, whichever block that is in.
func (r *roundBufs) expansionStart(i int32) (candidates, succ int32) {
	if i == 0 {
		return 0, 0
	}
	return r.expansions[i-1].end, r.expansions[i-1].succEnd
}

// blockSpan returns the expansions of block b, as the range of
// r.expansions they fill.
func (r *roundBufs) blockSpan(b int) (from, to int32) {
	if b > 0 {
		from = r.blocks[b-1].expEnd
	}
	return from, r.blocks[b].expEnd
}

// ownedSpan returns the range of r.owned[o] that block b listed.
func (r *roundBufs) ownedSpan(b, o int) (from, to int32) {
	n := len(r.owned)
	if b > 0 {
		from = r.ownedEnds[(b-1)*n+o]
	}
	return from, r.ownedEnds[b*n+o]
}
