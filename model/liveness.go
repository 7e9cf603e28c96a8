package model

import (
	"math"
	"slices"
)

// LivelockInvariant is the Violation.Invariant of a livelock: a reachable
// cycle of states from which no good end state is reachable (see
// Options.Liveness).
const LivelockInvariant = "livelock"

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
	if l.n&(1<<blockBits-1) == 0 && l.n>>blockBits >= len(l.blocks) {
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
	// selfLoop and violating are bitsets over state indices: the states
	// with a transition to themselves (a cycle of one step, left out of
	// dst), and the states that violate an invariant (expanded under
	// KeepGoing, never good).
	selfLoop, violating bitset
	// overflow is set when the graph outgrew uint32 offsets; dst is then
	// dropped and liveness is not checked.
	overflow bool
}

// bitset is a growable set of state indices.
type bitset []uint64

func (b *bitset) set(i uint32) {
	for int(i/64) >= len(*b) {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

func (b bitset) has(i uint32) bool {
	return int(i/64) < len(b) && b[i/64]&(1<<(i%64)) != 0
}

// markViolating records that state u violates an invariant.
func (l *liveness) markViolating(u uint32) {
	if !l.overflow {
		l.violating.set(u)
	}
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
	if good && !l.violating.has(u) {
		l.good = append(l.good, u)
	}
	prev := u
	for _, v := range succ {
		if v == u {
			l.selfLoop.set(u)
		}
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

// graph is the recorded transition graph in both directions, over the
// states' discovery numbers.
type graph struct {
	n      int
	start  uint32s // forward: successors of u are dst[start(u):start(u+1)]
	dst    uint32s
	rstart []uint32 // reverse: predecessors of v are pred[rstart[v]:rstart[v+1]]
	pred   []uint32
}

func (g *graph) succ(u uint32, f func(v uint32)) {
	for i, end := int(g.start.at(int(u))), int(g.start.at(int(u)+1)); i < end; i++ {
		f(g.dst.at(i))
	}
}

// graph closes the recorded forward graph and builds the reverse one (4
// bytes per recorded transition and per state).
func (s *search[S, A]) graph() *graph {
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
	g := &graph{n: n, start: l.start, dst: l.dst, rstart: rstart, pred: pred}
	for u := range n {
		g.succ(uint32(u), func(v uint32) {
			rstart[v]--
			pred[rstart[v]] = uint32(u)
		})
	}
	return g // l keeps the blocks too, for the next search (reuse.go)
}

// backward marks in set every state that reaches one of seeds through
// states for which within is true (seeds included), and returns set.
func (g *graph) backward(seeds []uint32, set bitset, within func(u uint32) bool) bitset {
	stack := append([]uint32(nil), seeds...)
	for _, v := range seeds {
		set.set(v)
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, u := range g.pred[g.rstart[v]:g.rstart[v+1]] {
			if !set.has(u) && within(u) {
				set.set(u)
				stack = append(stack, u)
			}
		}
	}
	return set
}

// livelock analyses a complete search. A state is doomed when no good end
// state is reachable from it (a backward search from the good end states
// marks the others). Doomed states whose every run stops at a violation or
// a deadlock are reported as those (under KeepGoing); a livelock is a
// cycle among doomed states: a run that goes on forever and can never
// finish. If there is one, livelock returns it as a lasso (see lasso): the
// stem reaches the first-discovered doomed state from which such a cycle
// is reachable (breadth-first discovery, so a shallowest one), then the
// cycle.
func (s *search[S, A]) livelock() (Violation[A], bool) {
	l := s.live
	g := s.graph()
	n := g.n
	coreach := g.backward(l.good, make(bitset, (n+63)/64), func(uint32) bool { return true })
	l.good = nil
	doomed := func(u uint32) bool { return !coreach.has(u) }

	// The doomed states on a cycle: in a strongly connected component of
	// the doomed subgraph with two states or more, or with a self-loop.
	cyclic := g.cyclicStates(doomed, l.selfLoop)
	if len(cyclic) == 0 {
		return Violation[A]{}, false
	}
	// The doomed states from which a cycle is reachable; the first of them
	// ends the stem.
	trapped := g.backward(cyclic, make(bitset, (n+63)/64), doomed)
	first := uint32(0)
	for !trapped.has(first) {
		first++
	}
	return s.lasso(first, trapped)
}

// cyclicStates returns the states for which within holds that lie on a
// cycle of such states, in increasing order: Tarjan's algorithm, iterative,
// on the subgraph within induces (4 × 3 bytes per state).
func (g *graph) cyclicStates(within func(u uint32) bool, selfLoop bitset) []uint32 {
	const unvisited = math.MaxUint32
	index := make([]uint32, g.n)
	low := make([]uint32, g.n)
	for i := range index {
		index[i] = unvisited
	}
	onStack := make(bitset, (g.n+63)/64)
	var stack, cyclic []uint32
	type frame struct{ u, next uint32 }
	var calls []frame
	counter := uint32(0)
	for root := range uint32(g.n) {
		if index[root] != unvisited || !within(root) {
			continue
		}
		calls = append(calls, frame{root, g.start.at(int(root))})
		index[root], low[root] = counter, counter
		counter++
		stack = append(stack, root)
		onStack.set(root)
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			u := f.u
			if end := g.start.at(int(u) + 1); f.next < end {
				v := g.dst.at(int(f.next))
				f.next++
				if !within(v) {
					continue
				}
				if index[v] == unvisited {
					index[v], low[v] = counter, counter
					counter++
					stack = append(stack, v)
					onStack.set(v)
					calls = append(calls, frame{v, g.start.at(int(v))})
				} else if onStack.has(v) {
					low[u] = min(low[u], index[v])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].u
				low[p] = min(low[p], low[u])
			}
			if low[u] != index[u] {
				continue
			}
			// u roots a component: pop it.
			k := len(stack) - 1
			for stack[k] != u {
				k--
			}
			component := stack[k:]
			if len(component) > 1 || selfLoop.has(u) {
				cyclic = append(cyclic, component...)
			}
			for _, w := range component {
				onStack[w/64] &^= 1 << (w % 64)
			}
			stack = stack[:k]
		}
	}
	slices.Sort(cyclic)
	return cyclic
}
