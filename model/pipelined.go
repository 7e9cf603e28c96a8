package model

// With several workers and the first storing as it expands (search.direct:
// neither liveness nor the partial-order reduction), a level's rounds are
// pipelined. Once the insert phase of round r has decided which of its
// candidates are new, the first worker assigns r while the second pops
// round r+1 from the frontier and the other workers, the second among
// them, start expanding it, claiming its blocks from the back; the first
// joins them, claiming from the front, when it has assigned r. So no
// worker waits while one assigns, and the round's work is shared out by
// the claims whatever each worker did before.
//
// What makes this the sequential search's outcome still:
//   - assign reads only the buffers the workers expanded r into (kept by
//     keepRound) and writes only the parent links, the next level's queue
//     and the search's counts; the helpers expand r+1 into their other
//     buffers (worker.bufs) and only read the visited set, and the second
//     pops r+1 from the frontier, which assign does not read. The first
//     worker, which stores as it expands, expands r+1 only after assigning
//     r, and its blocks are still the round's first states, so the order
//     of stores is frontier order.
//   - r+1's candidates are judged against the goals not reached when r's
//     insert phase began: goals that r reaches are judged for nothing, and
//     marking a reached goal again changes nothing.
//   - the first worker grows a shard of the visited set while the others
//     read it by publishing the grown table whole and keeping the old one
//     until the insert phase (visitedShard.shared): ahead of need, when it
//     starts a round (reserveShared), so that the insert phase, where
//     every worker waits for the last, seldom grows one.
//   - a frontier block is released only once every round with entries in
//     it was assigned, since preferDeadlock may read the states of the
//     round being assigned and of the next; queue blocks come from a
//     locked pool, since the second worker may read a spilled block back
//     while the first queues new states.
//   - the first worker decides, after assigning r, whether the search
//     stops (a violation, a cut, Options.Stop, the memory budget, a disk
//     queue error) before r+1 counts for anything: then it sets halt,
//     which ends the helpers' claims, and every worker leaves after the
//     barrier that ends r+1's expansion. A level ends when the second
//     worker pops an empty round (or the frontier could not be read),
//     which every worker learns at once from ready.

// levelPipelined is level for a search whose rounds are pipelined.
func (s *search[S, A]) levelPipelined(depth int32) (stop bool) {
	atBound := s.opts.MaxDepth > 0 && int(depth) >= s.opts.MaxDepth
	s.levelStart = uint32(s.count)
	s.popRound(&s.round)
	if len(s.round) == 0 {
		return false
	}
	if stop := s.interruptedOrFailed(); stop {
		return true
	}
	rounds := [2]*[]queuedRef{&s.round, &s.nextRound}
	var goals [2]uint64
	goals[0] = s.unreachedGoals()
	var retired [2]int // blocks popped to the end before each round's pop
	retired[0] = len(s.frontier.retire)
	s.startRound(len(s.round))
	s.halt.Store(false)
	base := s.ready.Load() // rounds popped before this level's second
	var at, stopAt int
	s.team.run(func(w int) {
		wk := s.workers[w]
		for i, p := uint64(0), 0; ; i, p = i+1, p^1 {
			if w > 0 {
				wk.roundBufs = &wk.bufs[p]
			} else {
				// Room for twice the states the round before stored.
				s.visited.reserveShared(2*s.lastNew/len(s.visited.shards) + 16)
			}
			s.expandRound(w, *rounds[p], atBound, goals[p])
			s.team.sync() // the round is expanded
			if s.halt.Load() {
				return
			}
			s.orderBlocks(wk)
			s.insert(w)
			if w == 0 {
				s.keepRound()
				goals[1-p] = s.unreachedGoals() // the round before was assigned
			}
			s.team.sync() // the round's candidates are stored or dropped
			switch w {
			case 0:
				before := s.count
				at, stop = s.assign(depth)
				s.lastNew = s.count - before
				stopAt = p
				s.ready.wait(s.team.spin, base+i+1)
				if !stop {
					// The round's expansion is over, and the blocks retired
					// before the next round's pop hold none of its states.
					s.frontier.release(retired[1-p])
					stop = s.roundEnd(depth)
				}
				if s.levelDone { // the helpers have left
					if !stop && len(*rounds[1-p]) > 0 {
						stop = s.interruptedOrFailed() // the frontier could not be read
					}
					return
				}
				if !stop {
					stop = s.interruptedOrFailed()
				}
				if stop {
					s.halt.Store(true)
					s.team.sync() // the helpers' expansion of the next round ends
					return
				}
			case 1:
				retired[1-p] = len(s.frontier.retire)
				s.popRound(rounds[1-p])
				s.startRound(len(*rounds[1-p]))
				s.levelDone = len(*rounds[1-p]) == 0 || s.frontier.err != nil
				s.ready.publish(base + i + 1)
			default:
				s.ready.wait(s.team.spin, base+i+1)
			}
			if w > 0 && s.levelDone {
				return
			}
		}
	})
	if stopAt == 1 { // the round assigned last is s.round, the next s.nextRound
		s.round, s.nextRound = s.nextRound, s.round
	}
	if stop && s.stopped && s.violations[0].Depth > int(depth) {
		s.preferDeadlock(at + 1)
	}
	return stop
}
