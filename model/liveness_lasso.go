package model

import (
	"slices"
	"unsafe"
)

// Progressor is implemented by specs that say which steps make progress,
// so that a livelock is reported as the cycle that shows it: one on which
// nothing progresses, through a step where work is refused. Without it
// every step counts as making no progress and refusing nothing.
type Progressor[S, A any] interface {
	// Progress reports whether the step a from `from` to `to` advances some
	// piece of work (in a serving engine: a request's tokens or context
	// position advance, or a request finishes).
	Progress(from *S, a A, to *S) bool
	// Refused reports whether the step a refuses work that is waiting (in
	// a serving engine: an empty batch scheduled while requests are
	// active, a forward vetoed).
	Refused(from *S, a A, to *S) bool
}

// LivelockStory is implemented by specs that can say in one line which
// work a livelock's cycle leaves stuck and why; it becomes the livelock
// violation's Message.
type LivelockStory[S, A any] interface {
	// LivelockStory describes the cycle of actions that leads from start
	// back to start.
	LivelockStory(start *S, cycle []A) string
}

// Livelock messages when the spec tells no story.
const (
	livelockMessage = "no run from here finishes: the cycle repeats forever and nothing progresses on it"
	thrashMessage   = "no run from here finishes: the cycle repeats forever, undoing on it whatever progress it makes"
)

// maxLassoStates bounds the re-exploration that picks a livelock's cycle:
// beyond it the cycle is chosen among the states explored so far.
const maxLassoStates = 1 << 18

// lassoEdge is a transition between two states of the lasso's exploration.
type lassoEdge[A any] struct {
	to       int32
	action   A
	progress bool
	refused  bool
}

// lassoGraph is the part of the doomed region reachable from the stem's
// end, re-explored with the states in hand, so that each step can be
// classified (Progressor). Node 0 is the stem's end; parent and depth give
// a breadth-first tree from it.
type lassoGraph[A any] struct {
	out    [][]lassoEdge[A]
	parent []int32 // node's predecessor in the tree (-1 for node 0)
	via    []A     // the action from parent to node
	depth  []int32
	// from and stamp are shortestPath's scratch: a node's predecessor on
	// the search, valid where stamp equals round.
	from  [][2]int32
	stamp []int32
	round int32
}

// lasso explores from the state with index first, through the trapped
// states (doomed, with a cycle ahead), picks a cycle (see pickCycle) and
// returns the livelock: the stem to first, then on to the cycle's first
// state, and the cycle.
func (s *search[S, A]) lasso(first uint32, trapped bitset) (Violation[A], bool) {
	stem := s.traceTo(first)
	doomedAt := len(stem)
	st := s.spec.Initial()
	for _, a := range stem {
		st = s.spec.Next(&st, a)
	}
	progress := progressOf(s.spec)
	g := s.exploreTrapped(st, trapped, progress)
	cycle, thrash := g.pickCycle()
	if cycle == nil {
		return Violation[A]{}, false
	}
	// cycle[i] is (node, edge index); rotate to start at the node nearest
	// the stem's end.
	best := 0
	for i := range cycle {
		if g.depth[cycle[i][0]] < g.depth[cycle[best][0]] {
			best = i
		}
	}
	cycle = append(cycle[best:], cycle[:best]...)
	var path []A
	for u := cycle[0][0]; u != 0; u = g.parent[u] {
		path = append(path, g.via[u])
	}
	slices.Reverse(path)
	stem = append(stem, path...)
	v := Violation[A]{
		Invariant: LivelockInvariant,
		Message:   livelockMessage,
		Trace:     stem,
		Depth:     len(stem),
		DoomedAt:  doomedAt,
		Refused:   -1,
	}
	if thrash {
		v.Message = thrashMessage
	}
	for i, c := range cycle {
		e := g.out[c[0]][c[1]]
		v.Cycle = append(v.Cycle, e.action)
		if e.refused && v.Refused < 0 {
			v.Refused = i
		}
	}
	if story, ok := unwrap(s.spec).(LivelockStory[S, A]); ok {
		start := s.spec.Initial()
		for _, a := range stem {
			start = s.spec.Next(&start, a)
		}
		if line := story.LivelockStory(&start, v.Cycle); line != "" {
			v.Message = line
		}
	}
	return v, true
}

// unwrap returns the spec an OnlyInvariants filter or From wraps, or spec.
func unwrap[S, A any](spec Spec[S, A]) Spec[S, A] {
	for {
		switch w := spec.(type) {
		case *narrowedSpec[S, A]:
			spec = w.Spec
		case *fromSpec[S, A]:
			spec = w.Spec
		default:
			return spec
		}
	}
}

// progressOf returns the spec's Progressor, or nil.
func progressOf[S, A any](spec Spec[S, A]) Progressor[S, A] {
	p, _ := unwrap(spec).(Progressor[S, A])
	return p
}

// exploreTrapped re-explores breadth-first from st (node 0) through the
// trapped states, classifying each step with progress (when not nil).
func (s *search[S, A]) exploreTrapped(st S, trapped bitset, progress Progressor[S, A]) *lassoGraph[A] {
	var zero A
	g := &lassoGraph[A]{out: [][]lassoEdge[A]{nil}, parent: []int32{-1}, via: []A{zero}, depth: []int32{0}}
	ids := map[uint64]int32{s.fingerprint(&st): 0}
	type item struct {
		state S
		id    int32
	}
	queue := []item{{st, 0}}
	var actions []A
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		actions = s.spec.Actions(&cur.state, actions[:0])
		for _, a := range actions {
			next := s.spec.Next(&cur.state, a)
			fp := s.fingerprint(&next)
			id, seen := ids[fp]
			if !seen {
				idx, ok := s.visited.lookup(s.canonicalFingerprint(&next))
				if !ok || !trapped.has(idx) || len(g.out) >= maxLassoStates {
					continue
				}
				id = int32(len(g.out))
				ids[fp] = id
				g.out = append(g.out, nil)
				g.parent = append(g.parent, cur.id)
				g.via = append(g.via, a)
				g.depth = append(g.depth, g.depth[cur.id]+1)
				queue = append(queue, item{next, id})
			}
			e := lassoEdge[A]{to: id, action: a}
			if progress != nil {
				e.progress = progress.Progress(&cur.state, a, &next)
				e.refused = progress.Refused(&cur.state, a, &next)
			}
			g.out[cur.id] = append(g.out[cur.id], e)
		}
	}
	return g
}

// maxCycleTries bounds the edges pickCycle measures a shortest cycle
// through.
const maxCycleTries = 16

// pickCycle chooses the cycle that tells the story: among the cycles of
// steps that make no progress, the shortest through a step that refuses
// work, else the shortest; only if every
// cycle makes progress somewhere (and undoes it), the shortest cycle at
// all, reported as a thrash. A cycle is a list of (node, edge index)
// pairs, each edge leaving its node and entering the next pair's node.
func (g *lassoGraph[A]) pickCycle() (cycle [][2]int32, thrash bool) {
	for _, allowProgress := range []bool{false, true} {
		usable := func(e *lassoEdge[A]) bool { return allowProgress || !e.progress }
		var refused, all [][2]int32
		for u := range g.out {
			for k := range g.out[u] {
				if e := &g.out[u][k]; usable(e) {
					all = append(all, [2]int32{int32(u), int32(k)})
					if e.refused {
						refused = append(refused, all[len(all)-1])
					}
				}
			}
		}
		if c := g.shortestThrough(refused, usable); c != nil {
			return c, allowProgress
		}
		if c := g.shortestThrough(all, usable); c != nil {
			return c, allowProgress
		}
		// No cycle through the edges nearest the root: any cycle, then its
		// shortest rival through one of its steps.
		if c := g.anyCycle(usable); c != nil {
			return g.shortestThrough(c, usable), allowProgress
		}
	}
	return nil, false
}

// shortestThrough returns the shortest cycle through one of the candidate
// edges (the first maxCycleTries of them, nearest the root first), using
// only usable edges, or nil.
func (g *lassoGraph[A]) shortestThrough(candidates [][2]int32, usable func(*lassoEdge[A]) bool) [][2]int32 {
	slices.SortStableFunc(candidates, func(a, b [2]int32) int { return int(g.depth[a[0]] - g.depth[b[0]]) })
	var best [][2]int32
	for i, c := range candidates {
		if i == maxCycleTries {
			break
		}
		path := g.shortestPath(g.out[c[0]][c[1]].to, c[0], usable)
		if path == nil {
			continue
		}
		if cycle := append([][2]int32{c}, path...); best == nil || len(cycle) < len(best) {
			best = cycle
		}
	}
	return best
}

// shortestPath returns the edges of a shortest path from u to w over usable
// edges ((node, edge index) pairs), an empty non-nil slice when u == w, or
// nil when w is unreachable.
func (g *lassoGraph[A]) shortestPath(u, w int32, usable func(*lassoEdge[A]) bool) [][2]int32 {
	if u == w {
		return [][2]int32{}
	}
	if len(g.from) != len(g.out) {
		g.from = make([][2]int32, len(g.out))
		g.stamp = make([]int32, len(g.out))
	}
	g.round++
	g.stamp[u] = g.round
	queue := []int32{u}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for k := range g.out[x] {
			e := &g.out[x][k]
			if g.stamp[e.to] == g.round || !usable(e) {
				continue
			}
			g.stamp[e.to] = g.round
			g.from[e.to] = [2]int32{x, int32(k)}
			if e.to == w {
				var path [][2]int32
				for y := w; y != u; y = g.from[y][0] {
					path = append(path, g.from[y])
				}
				slices.Reverse(path)
				return path
			}
			queue = append(queue, e.to)
		}
	}
	return nil
}

// anyCycle returns some cycle of usable edges reachable from node 0, found
// by a depth-first search for an edge back into the search's stack, or nil.
func (g *lassoGraph[A]) anyCycle(usable func(*lassoEdge[A]) bool) [][2]int32 {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(g.out))
	var stack [][2]int32 // (node, next edge index)
	stack = append(stack, [2]int32{0, 0})
	color[0] = grey
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		u := top[0]
		if int(top[1]) == len(g.out[u]) {
			color[u] = black
			stack = stack[:len(stack)-1]
			continue
		}
		k := top[1]
		top[1]++
		e := &g.out[u][k]
		if !usable(e) {
			continue
		}
		switch color[e.to] {
		case white:
			color[e.to] = grey
			stack = append(stack, [2]int32{e.to, 0})
		case grey: // back edge: the cycle runs from e.to up the stack to u
			i := len(stack) - 1
			for stack[i][0] != e.to {
				i--
			}
			var cycle [][2]int32
			for _, f := range stack[i:] {
				cycle = append(cycle, [2]int32{f[0], f[1] - 1})
			}
			return cycle
		}
	}
	return nil
}

// fingerprint is the fingerprint the search stores st under: the hash of
// its bytes when the spec implements ByteStates, else the spec's.
func (s *search[S, A]) fingerprint(st *S) uint64 {
	if s.codec.bytesFP {
		return s.codec.segs.fingerprint(unsafe.Pointer(st))
	}
	return s.spec.Fingerprint(st)
}
