package model

import "math"

// LivelockInvariant is the Violation.Invariant of a reachable state from
// which no good end state is reachable (see Options.Liveness).
const LivelockInvariant = "livelock"

// livelockMessage is the Violation.Message of a livelock.
const livelockMessage = "no path from this state reaches a terminal state: the run can only cycle (livelock) or stop short"

// pending marks, in worker.succ, a successor whose index merge has yet to
// assign. No state gets this index: liveness is not checked beyond
// math.MaxUint32 states.
const pending = math.MaxUint32

// blockBits sets the size of a uint32s block: 64Ki entries, 256 KiB.
const blockBits = 16

// uint32s is an append-only list of uint32 held in fixed-size blocks, so
// that it never copies and wastes at most one block, where a growing slice
// allocates several times its final size in all and briefly holds twice
// it.
type uint32s struct {
	blocks [][]uint32
	n      int
}

func (l *uint32s) append(v uint32) {
	if l.n&(1<<blockBits-1) == 0 {
		l.blocks = append(l.blocks, make([]uint32, 1<<blockBits))
	}
	l.blocks[l.n>>blockBits][l.n&(1<<blockBits-1)] = v
	l.n++
}

func (l *uint32s) at(i int) uint32 {
	return l.blocks[i>>blockBits][i&(1<<blockBits-1)]
}

// liveness records the transition graph of a search for the liveness
// analysis, in compressed sparse row form, without the states: states are
// numbered in discovery order (their insertion order in the visited table),
// and merge expands states in increasing number, so the successors of each
// state can simply be appended.
type liveness struct {
	// start.at(u) is where the successors of state u begin in dst; those
	// of u end where those of u+1 begin. States not expanded (yet) have no
	// entry or an empty range.
	start uint32s
	// dst holds the successor indices, self-loops and repeats of the
	// previous successor left out (they cannot change what is reachable).
	dst uint32s
	// good lists the good end states: expanded (so no invariant fails),
	// no enabled action, terminal.
	good []uint32
	// overflow is set when the graph outgrew uint32 offsets; dst is then
	// dropped and liveness is not checked.
	overflow bool
}

// add records the successors succ of the expanded state u, in action order,
// and whether u is a good end state. Calls come in increasing u.
func (l *liveness) add(u uint32, succ []uint32, good bool) {
	if l.overflow {
		return
	}
	if uint64(l.dst.n)+uint64(len(succ)) >= math.MaxUint32 {
		*l = liveness{overflow: true}
		return
	}
	for l.start.n <= int(u) {
		l.start.append(uint32(l.dst.n))
	}
	if good {
		l.good = append(l.good, u)
	}
	prev := u
	for _, v := range succ {
		if v != prev {
			l.dst.append(v)
			prev = v
		}
	}
}

// checkLiveness reports whether the liveness analysis can run on the
// finished search: it explored everything reachable and its graph fits.
func (s *search[S, A]) checkLiveness() bool {
	return s.live != nil && s.complete() && !s.live.overflow && s.count < pending
}

// livelock finds the doomed states of a complete search: the states from
// which no good end state is reachable. If there are any, it returns a
// livelock violation with the shortest trace to the first-discovered doomed
// state. Discovery is breadth-first, so that state is one of the shallowest
// doomed states, and the states before it on the trace are not doomed.
//
// It builds the reverse graph (4 bytes per recorded transition and per
// state, next to the forward graph until it is built), marks the states
// that reach a good end state by a backward search from them, and takes
// the first unmarked one.
func (s *search[S, A]) livelock() (Violation[A], bool) {
	l := s.live
	n := s.count
	for l.start.n <= n {
		l.start.append(uint32(l.dst.n))
	}

	// Reverse CSR: count the predecessors of each state into rstart[v],
	// accumulate so that rstart[v] is where v's predecessors end, then
	// place each predecessor just before that end, moving it back to where
	// they begin.
	rstart := make([]uint32, n+1)
	for i, b := range l.dst.blocks {
		for _, v := range b[:min(len(b), l.dst.n-i<<blockBits)] {
			rstart[v]++
		}
	}
	var sum uint32
	for v := range n {
		sum += rstart[v]
		rstart[v] = sum
	}
	rstart[n] = sum
	pred := make([]uint32, l.dst.n)
	for u := range n {
		for i, end := int(l.start.at(u)), int(l.start.at(u+1)); i < end; i++ {
			v := l.dst.at(i)
			rstart[v]--
			pred[rstart[v]] = uint32(u)
		}
	}
	l.start, l.dst = uint32s{}, uint32s{}

	// Backward search from the good end states (each state is expanded
	// once, so l.good has no repeats).
	coreach := make([]uint64, (n+63)/64)
	for _, v := range l.good {
		coreach[v/64] |= 1 << (v % 64)
	}
	stack := l.good
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, u := range pred[rstart[v]:rstart[v+1]] {
			if coreach[u/64]&(1<<(u%64)) == 0 {
				coreach[u/64] |= 1 << (u % 64)
				stack = append(stack, u)
			}
		}
	}
	l.good = nil

	for w, bits := range coreach {
		if bits == math.MaxUint64 {
			continue
		}
		for b := range 64 {
			u := w*64 + b
			if u >= n {
				return Violation[A]{}, false
			}
			if bits&(1<<b) == 0 {
				trace := s.traceTo(uint32(u))
				return Violation[A]{
					Invariant: LivelockInvariant,
					Message:   livelockMessage,
					Trace:     trace,
					Depth:     len(trace),
				}, true
			}
		}
	}
	return Violation[A]{}, false
}
