package spec

import (
	"bytes"
	"unsafe"
)

// This file is the spec's state symmetry (issue 11): ranks with the same
// configuration that hold the same requests are interchangeable, so the
// checker stores each orbit of states once (model.Symmetric).
//
// The group. An element g is a rank permutation π with a request-ID
// bijection σ: request i, routed to rank r, becomes the request σ(i) routed
// to π(r) with the same template otherwise (prompt, tokens, family,
// disaggregation). What fixes the group:
//
//   - Requests within a rank are not interchangeable: the V2 scheduler is
//     first come, first served and the spec keeps a rank's requests in ID
//     (arrival) order, so swapping two requests of one template changes
//     which is scheduled first. σ therefore keeps the ID order of each
//     rank's requests, which makes σ a function of π.
//   - Requests arrive in ID order (State.Arrived): a request that has not
//     arrived is fixed (σ(k) = k), and π fixes its rank, since the arrival
//     routes it there. So the group depends on Arrived, and is computed
//     once per value of Arrived.
//   - Every rank of a loop other than the pipeline's has the same pools
//     (poolBlocksOn, hostBlocksOn and hasPool do not depend on the rank
//     there). Pipeline stages differ in role (rank 0 schedules, the last
//     stage samples) and may differ in pool sizes: the pipeline loop has no
//     symmetry.
//   - The attention-DP dummy (ID 0) is every rank's own: σ(0) = 0.
//
// Applying g permutes everything in the state that names a rank or a
// request ID: the ranks, each rank's request slots and kv_cache_map
// entries (pool Caches), the IDs in its batch and previous batch, and the
// crash's rank and request. Nothing else in the state names one: reuse
// trees are per prompt family (σ keeps families), IndexMapper slots and
// ExpectedActive are counts, and the dummy's incarnations are per rank.
// TestSymmetrySound checks, over reachable states of every multi-rank
// scenario and random configurations, that Actions, Next, the invariants,
// the goals and IsTerminal commute with every valid g.

// rankSymmetry is one group element: π on ranks and σ on request IDs.
type rankSymmetry struct {
	rank [MaxRanks]uint8 // π: rank r becomes rank rank[r]
	from [MaxRanks]uint8 // π⁻¹: rank r of the image is rank from[r]
	id   [MaxIDs]uint8   // σ: request ID i becomes id[i]
}

// symmetries holds, for each value of State.Arrived, the group elements
// other than the identity that are valid in the states with that many
// arrivals.
type symmetries struct {
	byArrived [MaxRequests + 1][]rankSymmetry
	ranks     int // configured ranks
	size      int // bytes of a state they use (stateSize)
}

// newSymmetries computes the rank symmetry group of cfg for every value of
// Arrived, or returns nil when there is none (one rank, the pipeline loop,
// or ranks that never hold alike requests).
func newSymmetries(cfg *Config) *symmetries {
	n := int(cfg.Ranks)
	if n < 2 || cfg.Loop == PipelineLoop {
		return nil
	}
	sym := &symmetries{ranks: n, size: stateSize(n)}
	any := false
	perms := rankPermutations(n)
	for arrived := 0; arrived <= len(cfg.Requests); arrived++ {
		for _, pi := range perms[1:] { // perms[0] is the identity
			if g, ok := requestBijection(cfg, pi, arrived); ok {
				sym.byArrived[arrived] = append(sym.byArrived[arrived], g)
				any = true
			}
		}
	}
	if !any {
		return nil
	}
	return sym
}

// rankPermutations returns every permutation of 0..n-1, the identity first.
func rankPermutations(n int) [][MaxRanks]uint8 {
	var out [][MaxRanks]uint8
	var p [MaxRanks]uint8
	for i := range p {
		p[i] = uint8(i)
	}
	var gen func(k int)
	gen = func(k int) {
		if k == n {
			out = append(out, p)
			return
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			gen(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	gen(0)
	return out
}

// requestBijection returns the group element of rank permutation pi when
// the first arrived requests have arrived, if there is one: pi fixes the
// rank of every request still to arrive, and maps the arrived requests of
// each rank, in ID order, onto the arrived requests of its image, template
// for template.
func requestBijection(cfg *Config, pi [MaxRanks]uint8, arrived int) (rankSymmetry, bool) {
	g := rankSymmetry{rank: pi}
	for r := range g.rank {
		g.from[g.rank[r]] = uint8(r)
	}
	for i := range g.id {
		g.id[i] = uint8(i)
	}
	var onRank [MaxRanks][]uint8 // arrived request IDs per rank, in ID order
	for id := 1; id <= len(cfg.Requests); id++ {
		r := cfg.template(uint8(id)).Rank
		if id > arrived {
			if pi[r] != r {
				return g, false
			}
			continue
		}
		onRank[r] = append(onRank[r], uint8(id))
	}
	for r := 0; r < int(cfg.Ranks); r++ {
		from, to := onRank[r], onRank[pi[r]]
		if len(from) != len(to) {
			return g, false
		}
		for i, id := range from {
			if !sameTemplate(cfg.template(id), cfg.template(to[i])) {
				return g, false
			}
			g.id[id] = to[i]
		}
	}
	return g, true
}

// sameTemplate reports whether two requests differ at most in their rank.
func sameTemplate(a, b *RequestTemplate) bool {
	x, y := *a, *b
	x.Rank, y.Rank = 0, 0
	return x == y
}

// apply writes g·s into dst (which must not be s).
func (g *rankSymmetry) apply(dst, s *State, ranks int) {
	g.applyHeader(dst, s)
	for r := 0; r < ranks; r++ {
		g.applyRank(&dst.Ranks[g.rank[r]], &s.Ranks[r])
	}
}

// applyHeader writes the fields of s before Ranks into dst, with the
// ranks and request IDs they name mapped by g. Every field is copied
// whole first, so a field added to State is carried over unless it names a
// rank or a request, which must be mapped here (TestSymmetrySound catches
// one that is not). The pipeline's records are copied as they are:
// pipeline configurations have no rank symmetry (their stages differ).
func (g *rankSymmetry) applyHeader(dst, s *State) {
	ranks := dst.Ranks
	*dst = *s
	dst.Ranks = ranks
	if s.Crash.Happened {
		dst.Crash.Rank = g.rank[s.Crash.Rank]
		dst.Crash.ID = g.id[s.Crash.ID]
	}
	if s.Hazard.Happened {
		dst.Hazard.Rank = g.rank[s.Hazard.Rank]
		dst.Hazard.ID = g.id[s.Hazard.ID]
	}
}

// applyRank writes rank src with its request IDs mapped by σ into dst.
// The rank is copied whole first, then every field indexed by or holding a
// request ID is rewritten, so a new field of Rank is carried over unless
// it names requests (TestSymmetrySound catches one that is not mapped).
func (g *rankSymmetry) applyRank(dst, src *Rank) {
	*dst = *src
	for p := range src.Pools {
		sp, dp := &src.Pools[p], &dst.Pools[p]
		for id := range sp.Caches {
			dp.Caches[g.id[id]] = sp.Caches[id]
		}
	}
	for id := range src.Requests {
		dst.Requests[g.id[id]] = src.Requests[id]
	}
	g.applyBatch(&dst.Batch, &src.Batch)
	g.applyBatch(&dst.Previous, &src.Previous)
	dst.PendingPause = g.applyIDSet(src.PendingPause)
}

// applyIDSet maps a bit set of request IDs by σ.
func (g *rankSymmetry) applyIDSet(set uint16) uint16 {
	var out uint16
	for id := 0; id < MaxIDs; id++ {
		if set&(1<<id) != 0 {
			out |= 1 << g.id[id]
		}
	}
	return out
}

// applyBatch copies a batch with its entries' IDs mapped by σ. σ keeps the
// ID order of the rank's requests, so the entries stay in scheduling order.
func (g *rankSymmetry) applyBatch(dst, src *Batch) {
	*dst = *src
	for i := 0; i < int(src.Count); i++ {
		dst.Entries[i].ID = g.id[src.Entries[i].ID]
	}
}

// applyAction returns g·a: the action that does to g·s what a does to s.
func (g *rankSymmetry) applyAction(a Action) Action {
	b := a
	if !a.Collective && a.Kind != ActArrive {
		b.Rank = g.rank[a.Rank]
	}
	b.ID = g.id[a.ID]
	b.Accepted = [MaxIDs]uint8{}
	b.EOS, b.Requests = 0, 0
	for id := 0; id < MaxIDs; id++ {
		to := g.id[id]
		b.Accepted[to] = a.Accepted[id]
		if a.EOS&(1<<id) != 0 {
			b.EOS |= 1 << to
		}
		if a.Requests&(1<<id) != 0 {
			b.Requests |= 1 << to
		}
	}
	return b
}

// canonicalize rewrites *s into the representative of its orbit: of s and
// its images under the group elements valid in s, the one whose state
// bytes are the smallest. An image is built rank by rank, in the order the
// bytes are compared, and dropped at the first rank that makes it larger
// than the smallest so far. a and b are working space.
func (sym *symmetries) canonicalize(s, a, b *State) {
	cur, cand := s, a // the smallest so far, and the image being built
	header := int(unsafe.Offsetof(State{}.Ranks))
	rankSize := int(unsafe.Sizeof(Rank{}))
	for i, gs := 0, sym.byArrived[s.Arrived]; i < len(gs); i++ {
		g := &gs[i]
		g.applyHeader(cand, s)
		order := bytes.Compare(stateBytes(cand, header), stateBytes(cur, header))
		for d := 0; d < sym.ranks && order <= 0; d++ {
			g.applyRank(&cand.Ranks[d], &s.Ranks[g.from[d]])
			if order == 0 {
				lo := header + d*rankSize
				order = bytes.Compare(stateBytes(cand, lo+rankSize)[lo:], stateBytes(cur, lo+rankSize)[lo:])
			}
		}
		if order < 0 {
			cur, cand = cand, a
			if cur == a {
				cand = b
			}
		}
	}
	if cur != s {
		*s = *cur
	}
}

// stateBytes is the leading n bytes of s, which model.ByteStates compares.
func stateBytes(s *State, n int) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(s)), n)
}

// HasSymmetry reports whether the configuration has any rank symmetry, so
// that the checker canonicalizes states only when it can pay off
// (model.Symmetric).
func (sp *Spec) HasSymmetry() bool { return sp.symmetry != nil }

// Canonicalize rewrites *s into the representative of its orbit under the
// rank symmetry valid in s (model.Symmetric): equal for all states of one
// orbit, and itself a state of the orbit.
func (sp *Spec) Canonicalize(s *State) {
	if sp.symmetry != nil && len(sp.symmetry.byArrived[s.Arrived]) > 0 {
		var a, b State
		sp.symmetry.canonicalize(s, &a, &b)
	}
}
