package model

import "time"

// splitForTest, when set (export_test.go), replaces split's proportions: it
// returns the chunks' bounds for a round of n states and w workers, so
// that tests can check that the outcome does not depend on them.
var splitForTest func(n, w int) []int

// plan sets s.chunks, the sizes of the workers' chunks in a full round,
// in proportion to each worker's speed in the rounds before
// (worker.perState), so that the workers finish about together: the first
// worker, which stores as it goes (search.direct), spends less on a state
// than the others, which keep their candidates for the insert phase. The
// fastest worker's chunk has statesPerWorker states, which bounds the
// memory each worker's buffers grow to; it returns the round's size.
// Which states a worker expands changes neither which candidates are new
// nor their order, so the proportions, which come from the clock, change
// nothing but the time.
func (s *search[S, A]) plan() int {
	if len(s.chunks) != len(s.workers) {
		s.chunks = make([]int, len(s.workers))
	}
	timed := true
	fastest := 0.0 // the least time a state
	for _, wk := range s.workers {
		timed = timed && wk.perState > 0
		if fastest == 0 || wk.perState < fastest {
			fastest = wk.perState
		}
	}
	size := 0
	for w, wk := range s.workers {
		c := statesPerWorker
		if timed {
			c = max(1, int(statesPerWorker*fastest/wk.perState))
		}
		s.chunks[w] = c
		size += c
	}
	return size
}

// split sets s.bounds, cutting the round into one contiguous chunk per
// worker, in worker order, in the proportions of s.chunks: no chunk has
// more states than its size there.
func (s *search[S, A]) split() {
	n, nw := len(s.round), len(s.workers)
	if splitForTest != nil && nw > 1 {
		copy(s.bounds, splitForTest(n, nw))
		return
	}
	if len(s.chunks) != nw {
		s.plan()
	}
	full := 0
	for _, c := range s.chunks {
		full += c
	}
	at := 0
	for w, c := range s.chunks {
		s.bounds[w] = at * n / full
		at += c
	}
	s.bounds[nw] = n
}

// timedExpand expands worker w's chunk and updates its cost of a state,
// for split.
func (s *search[S, A]) timedExpand(w int, atBound bool) {
	wk := s.workers[w]
	chunk := s.chunkOf(w)
	wk.direct = s.direct && w == 0
	if len(s.workers) == 1 {
		s.expand(wk, chunk, atBound)
		return
	}
	start := time.Now()
	s.expand(wk, chunk, atBound)
	if len(chunk) < 64 {
		return // too few states to time
	}
	cost := float64(time.Since(start).Nanoseconds()) / float64(len(chunk))
	if wk.perState == 0 {
		wk.perState = cost
	} else {
		wk.perState = (wk.perState + cost) / 2
	}
}

// reserve makes room, in every shard of the visited set, for about twice
// as many of the first worker's successors as it stored in the round
// before, so that insertShared seldom leaves one to the insert phase.
func (s *search[S, A]) reserve() {
	stored := s.workers[0].stored
	s.visited.reserve(2*stored/len(s.visited.shards) + 16)
}
