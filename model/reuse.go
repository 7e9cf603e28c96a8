package model

import (
	"sync"
	"sync/atomic"
)

// searchTables is what a finished search leaves for the next one: the
// visited set's shards (emptied), the queues' blocks, the first blocks of
// the parent links and of the liveness graph, and the workers with their
// buffers and caches. A sweep checks thousands of configurations of a few
// hundred states each, and a search that allocated, cleared and unmapped
// its tables each time spent most of its time, and all of its system time,
// doing so. Nothing carried over changes a result: the visited set is
// empty, blocks and buffers are written before they are read, a worker's
// caches of parts are exact (decode) or keyed by the part's hash (encode,
// as the fingerprint is), and its memos of Part invariants and of local
// steps are keyed by the search (search.salt).
type searchTables struct {
	visited *visitedSet
	blocks  [][]byte
	parent  []uint32
	action  []uint8
	start   []uint32
	dst     []uint32
	workers any // []*worker[S, A] of the search that left them
}

// tablesPool holds the tables of finished searches.
var tablesPool sync.Pool

// searchSalts numbers the searches, for the keys of the workers' memos.
var searchSalts atomic.Uint64

// takeTables gives s the tables of a finished search, if there are any.
func (s *search[S, A]) takeTables(withIdx bool) {
	s.salt = searchSalts.Add(1)
	t, _ := tablesPool.Get().(*searchTables)
	if t == nil {
		s.visited = newVisitedSet(withIdx)
		return
	}
	if t.visited != nil {
		t.visited.reuse(withIdx)
		s.visited = t.visited
	} else {
		s.visited = newVisitedSet(withIdx)
	}
	s.blocks.free = append(s.blocks.free[:0], t.blocks...)
	if t.parent != nil {
		s.links.parent.blocks = [][]uint32{t.parent}
		s.links.action.blocks = [][]uint8{t.action}
	}
	if s.live != nil && t.start != nil {
		s.live.start.blocks = [][]uint32{t.start}
		s.live.dst.blocks = [][]uint32{t.dst}
	}
	if ws, ok := t.workers.([]*worker[S, A]); ok {
		for i := range min(len(ws), len(s.workers)) {
			w := ws[i]
			w.cur.valid = false
			w.reduced = 0
			w.positions = w.positions[:0]
			// States of another configuration may have used bytes past
			// this one's StateSize, which must be zero.
			clear(w.successors[:cap(w.successors)])
			clear(w.held.successors[:cap(w.held.successors)])
			w.state = *new(S)
			s.workers[i] = w
		}
	}
}

// giveTables leaves s's tables for the next search; s must not be used
// afterwards.
func (s *search[S, A]) giveTables() {
	t := &searchTables{workers: s.workers}
	if s.visited.release() {
		t.visited = s.visited
	}
	s.visited = nil
	// The queues are empty and closed: their blocks are in the pool.
	t.blocks = s.blocks.free
	if len(t.blocks) > keptQueueBlocks {
		t.blocks = t.blocks[:keptQueueBlocks]
	}
	if b := s.links.parent.blocks; len(b) > 0 {
		t.parent, t.action = b[0], s.links.action.blocks[0]
	}
	if l := s.keptLive; l != nil && len(l.start.blocks) > 0 && len(l.dst.blocks) > 0 {
		t.start, t.dst = l.start.blocks[0], l.dst.blocks[0]
	}
	tablesPool.Put(t)
}

// keptQueueBlocks is how many queue blocks (1 MiB each) a search leaves
// for the next.
const keptQueueBlocks = 4
