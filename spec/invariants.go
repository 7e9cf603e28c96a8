package spec

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/kvcheck/kvcheck/model"
)

// Invariant names, stable: transcripts, reports and the CLI use them.
const (
	InvNoCrash                = "no-crash-on-refusal"
	InvHistoryWithinCapacity  = "history-within-capacity"
	InvPoolConservation       = "pool-conservation"
	InvNoLeakedCache          = "no-leaked-cache"
	InvMirrorWithinTargetLife = "mirror-within-target-lifetime"
	InvIndexSlots             = "index-slots-bounded"
	InvRanksAgree             = "ranks-agree"
	InvForwardOverActive      = "forward-over-active-caches"
	InvInFlightCachesActive   = "in-flight-caches-active"
)

// Invariants returns the named safety properties of docs/spec.md that
// are checked in every reached state: the built-in ones, in their check
// order, then those declared with defineInvariant.
func (sp *Spec) Invariants() []model.Invariant[State] {
	var out []model.Invariant[State]
	for _, d := range sp.invariantDecls() {
		if !sp.skips(d.Name) {
			out = append(out, d.Invariant)
		}
	}
	return out
}

// PORClass says whether the partial-order reduction preserves a property
// (Spec.Stable): declared with every goal and invariant, so a new one is
// argued for, or left unreduced, on purpose
// (TestPartialOrderClassifiesEveryProperty names one that is not).
type PORClass uint8

const (
	// PORUndeclared is the zero value: nobody said yet.
	PORUndeclared PORClass = iota
	// PORStable: the reduction preserves it (the cases Spec.Stable argues).
	PORStable
	// PORUnstable: it reads what a reduced step may reorder (the
	// pipeline's shared records, say), so a check naming it is not reduced.
	PORUnstable
)

// invariantDecl is an invariant bound to a spec with its POR class.
type invariantDecl struct {
	model.Invariant[State]
	POR PORClass
}

// InvariantDef declares an invariant in its mechanism's file
// (defineInvariant). Exactly one of Check (the whole state) and ByRank
// (each rank on its own, see byRank; such a property of one rank's state
// is stable under the reduction, so POR may be left undeclared) is set.
type InvariantDef struct {
	Name, Doc string
	Check     func(sp *Spec, s *State) *model.Failure
	ByRank    func(sp *Spec, s *State, ranks rankRange) *model.Failure
	POR       PORClass
}

// invariantDefs holds the invariants declared with defineInvariant, in
// package initialization order; they are checked after the built-in ones.
var invariantDefs []InvariantDef

// defineInvariant declares an invariant and returns its name, the one
// transcripts, reports and --invariant use.
func defineInvariant(d InvariantDef) string {
	if (d.Check == nil) == (d.ByRank == nil) {
		panic("spec: invariant " + d.Name + " needs exactly one of Check and ByRank")
	}
	if d.ByRank != nil && d.POR == PORUndeclared {
		d.POR = PORStable
	}
	for _, other := range invariantDefs {
		if other.Name == d.Name {
			panic("spec: invariant " + d.Name + " declared twice")
		}
	}
	invariantDefs = append(invariantDefs, d)
	return d.Name
}

// whole is invariant name whose check reads the whole state, with its POR
// class.
func whole(name, doc string, por PORClass, check func(s *State) *model.Failure) invariantDecl {
	return invariantDecl{model.Invariant[State]{Name: name, Doc: doc, Check: check}, por}
}

// invariantDecls returns every invariant of the spec, skipped ones too,
// with its POR class: the built-in ones in their check order, then the
// declared ones. A byRank invariant is a property of each rank's own
// state, which the reduction preserves (Stable).
func (sp *Spec) invariantDecls() []invariantDecl {
	decls := []invariantDecl{
		whole(InvNoCrash,
			"the engine never raises on a resource refusal: no exception escapes the executor loop (every rank is hard-killed when one does)",
			PORStable, sp.checkNoCrash),
		sp.byRank(InvHistoryWithinCapacity,
			"committed <= history <= capacity for every cache in every pool (the core's stated _KVCache invariant, docs/reference.md)",
			sp.checkHistoryWithinCapacity),
		sp.byRank(InvPoolConservation,
			"free pages + pages held by caches + reuse-tree blocks = pool size, shared blocks counted once; pages offloaded to the host tier fit it",
			sp.checkPoolConservation),
		sp.byRank(InvNoLeakedCache,
			"every cache in any pool belongs to a live incarnation of its request ID (no leaked mirror IDs, reference I6/I7)",
			sp.checkNoLeakedCache),
		sp.byRank(InvMirrorWithinTargetLife,
			"a draft mirror never outlives the target cache of the same request incarnation (reference I5)",
			sp.checkMirrorWithinTargetLifetime),
		sp.byRank(InvIndexSlots,
			"live caches per manager never exceed its IndexMapper slots (reference I9)",
			sp.checkIndexSlots),
		sp.byRank(InvPageIndexRow,
			"no cache has more pages than a row of the host page-index buffer holds (max_blocks_per_seq)",
			sp.checkPageIndexRow),
		whole(InvForwardOverActive, // a record only the forwarding rank's step sets, never cleared
			"a forward runs only requests whose KV caches on its rank are ACTIVE: suspend() cuts a cache's page-index buffers, and a forward over it reads stale page indices (_restore_page_index_bufs, kv_cache_manager_v2.py at 00746ef); nothing raises",
			PORStable, sp.checkForwardOverActive),
		whole(InvInFlightCachesActive, // checks pipeline loops only, which are never reduced
			"under pipeline parallelism no stage frees a request, or suspends it with a host tier below GPU, while a micro-batch it forwarded with the request has not been handled: non-last context chunks are not in inflight_request_ids, so the stage's own scheduler may pick them, and their pages could then be reused or move to host while the forward writes them (INFER: the forward's writes are asynchronous; a suspend without a lower tier keeps the pages held, so it is not flagged)",
			PORStable, sp.checkInFlightCachesActive),
		whole(InvRanksAgree,
			"ranks agree on every collective's outcome: expected_num_active_requests and can_queue under attention DP, the handled batches under pipeline parallelism (reference I10)",
			PORStable, sp.checkRanksAgree),
	}
	decls = append(decls, sp.bookkeepingInvariants()...)
	for _, d := range invariantDefs {
		d := d
		if d.ByRank != nil {
			decl := sp.byRank(d.Name, d.Doc, func(s *State, rs rankRange) *model.Failure { return d.ByRank(sp, s, rs) })
			decl.POR = d.POR
			decls = append(decls, decl)
			continue
		}
		decls = append(decls, whole(d.Name, d.Doc, d.POR, func(s *State) *model.Failure { return d.Check(sp, s) }))
	}
	return decls
}

// skips reports whether the spec leaves invariant name unchecked: its
// scenario reports it elsewhere (Scenario.CheckedElsewhere), or a test
// set it aside.
func (sp *Spec) skips(name string) bool {
	if sp.Scenario != nil {
		if _, ok := sp.Scenario.CheckedElsewhere[name]; ok {
			return true
		}
	}
	return slices.Contains(sp.skipInvariants, name)
}

// checkRanksAgree compares what each rank took from the last collective.
// Attention-DP ranks run in lockstep, so within an iteration every rank
// must hold the same expected_num_active_requests and, once _can_queue ran,
// the same can_queue. A pipeline stage may only handle an executed batch
// rank 0 has handled, and only in rank 0's order.
func (sp *Spec) checkRanksAgree(s *State) *model.Failure {
	if sp.Config.AttentionDP {
		for r := uint8(1); r < sp.Config.Ranks; r++ {
			// Under pipeline parallelism the allgathers run within a stage.
			f := uint8(0)
			if sp.Config.Loop == PipelineLoop {
				f = sp.Config.stageOf(r) * sp.Config.adpWidth()
			}
			first, rank := &s.Ranks[f], &s.Ranks[r]
			if rank.ExpectedActive != first.ExpectedActive {
				return &model.Failure{Message: fmt.Sprintf("rank %d expects %d active requests, rank %d %d", r, rank.ExpectedActive, f, first.ExpectedActive)}
			}
			if afterCanQueue(rank.Phase) && afterCanQueue(first.Phase) && rank.CanQueue != first.CanQueue {
				return &model.Failure{Message: fmt.Sprintf("rank %d took can_queue=%v, rank %d can_queue=%v", r, rank.CanQueue, f, first.CanQueue)}
			}
		}
	}
	if sp.Config.Loop == PipelineLoop {
		for i := 0; i < int(s.PipelineLen); i++ {
			it := &s.Pipeline[i]
			if it.Handled != 0 && it.Handled&1 == 0 {
				return &model.Failure{Message: fmt.Sprintf("pipeline iteration %d was handled by ranks %s before rank 0", i, rankSet(it.Handled))}
			}
			for j := 0; j < i; j++ {
				if older := &s.Pipeline[j]; older.executed() && it.Handled&^older.Handled != 0 {
					return &model.Failure{Message: fmt.Sprintf("ranks %s handled pipeline iteration %d before iteration %d", rankSet(it.Handled&^older.Handled), i, j)}
				}
			}
		}
	}
	return nil
}

// afterCanQueue reports whether a rank in phase p has taken this
// iteration's _can_queue decision.
func afterCanQueue(p Phase) bool {
	return p == PhaseQueued || p == PhasePrepared || p == PhaseForwarded
}

func (sp *Spec) checkNoCrash(s *State) *model.Failure {
	if !s.Crash.Happened {
		return nil
	}
	return &model.Failure{
		Message: s.Crash.Describe(),
		Group:   fmt.Sprintf("%s %s pool: %s", s.Crash.Function, s.Crash.Pool, errorKind(s.Crash.Error)),
	}
}

// rankRange is the ranks lo..hi-1 an invariant's check looks at: every
// configured rank for its Check, one for its Part (byRank).
type rankRange struct{ lo, hi uint8 }

// allRanks is every configured rank.
func (sp *Spec) allRanks() rankRange { return rankRange{0, sp.Config.Ranks} }

// byRank is the invariant name whose check looks at each rank on its own:
// for the ranks of its range it reads only those ranks and the records
// every rank shares (Arrived, Crash, Pipeline), and returns the failure of
// the first rank that has one. Its Check looks at every rank and its Part
// at one (model.Invariant.Part), so that the checker evaluates it once per
// distinct rank and shared records, not once per state;
// TestInvariantPartsLocal checks both claims on reachable states.
// A property of each rank's own state is stable under the partial-order
// reduction (Stable), so its POR class is PORStable.
func (sp *Spec) byRank(name, doc string, check func(s *State, ranks rankRange) *model.Failure) invariantDecl {
	return invariantDecl{model.Invariant[State]{
		Name:  name,
		Doc:   doc,
		Check: func(s *State) *model.Failure { return check(s, sp.allRanks()) },
		Part:  func(s *State, r int) *model.Failure { return check(s, rankRange{uint8(r), uint8(r) + 1}) },
	}, PORStable}
}

var _ model.Partitioned = (*Spec)(nil)

// Parts says that a state's bytes are the records every rank shares, then
// one part per configured rank (model.Partitioned): a rank's own step
// changes only its part.
func (sp *Spec) Parts() (head, size, count int) {
	return int(unsafe.Offsetof(State{}.Ranks)), int(unsafe.Sizeof(Rank{})), int(sp.Config.Ranks)
}

// eachCache calls f for every live cache of the ranks of rs and every pool
// until f returns a failure.
func (sp *Spec) eachCache(s *State, rs rankRange, f func(v rankView, p PoolKind, id uint8, c *Cache) *model.Failure) *model.Failure {
	for r := rs.lo; r < rs.hi; r++ {
		v := s.view(&sp.Config, r)
		for p := Target; p < numPools; p++ {
			if !sp.Config.hasPool(r, p) {
				continue
			}
			// Only the dummy's ID (0) and the configured requests' IDs
			// ever hold a cache.
			for id := uint8(0); int(id) <= len(sp.Config.Requests); id++ {
				c := v.cache(p, id)
				if c.Status == Absent {
					continue
				}
				if fail := f(v, p, id, c); fail != nil {
					return fail
				}
			}
		}
	}
	return nil
}

func (sp *Spec) checkHistoryWithinCapacity(s *State, rs rankRange) *model.Failure {
	return sp.eachCache(s, rs, func(v rankView, p PoolKind, id uint8, c *Cache) *model.Failure {
		if c.Committed <= c.History && c.History <= c.Capacity {
			return nil
		}
		return &model.Failure{Message: fmt.Sprintf("rank %d %s pool request %d: committed %d, history %d, capacity %d",
			v.r, p, id, c.Committed, c.History, c.Capacity)}
	})
}

func (sp *Spec) checkPoolConservation(s *State, rs rankRange) *model.Failure {
	for r := rs.lo; r < rs.hi; r++ {
		v := s.view(&sp.Config, r)
		for p := Target; p < numPools; p++ {
			if !sp.Config.hasPool(r, p) {
				continue
			}
			pool := v.pool(p)
			total := int(pool.Free)
			for f := range pool.Tree {
				total += int(pool.Tree[f])
			}
			for id := range pool.Caches {
				c := &pool.Caches[id]
				if c.Status == Absent {
					continue
				}
				blocks := int(sp.Config.blocksFor(c.Capacity))
				if int(c.Shared)+int(c.Offloaded) > blocks {
					return &model.Failure{Message: fmt.Sprintf("rank %d %s pool request %d: %d shared + %d offloaded blocks exceed its %d blocks",
						r, p, id, c.Shared, c.Offloaded, blocks)}
				}
				if f := v.family(uint8(id)); c.Shared > 0 && (f == NoFamily || c.Shared > pool.Tree[f]) {
					return &model.Failure{Message: fmt.Sprintf("rank %d %s pool request %d references %d tree blocks the tree does not hold",
						r, p, id, c.Shared)}
				}
				total += blocks - int(c.Shared) - int(c.Offloaded)
			}
			offloaded := 0
			for id := range pool.Caches {
				offloaded += int(pool.Caches[id].Offloaded)
			}
			if host := int(sp.Config.hostBlocksOn(r, p)); offloaded > host {
				return &model.Failure{Message: fmt.Sprintf("rank %d %s pool: %d pages offloaded to a host tier of %d", r, p, offloaded, host)}
			}
			if want := int(sp.Config.poolBlocksOn(r, p)); total != want {
				return &model.Failure{Message: fmt.Sprintf("rank %d %s pool: free %d + held + tree blocks = %d, pool has %d",
					r, p, pool.Free, total, want)}
			}
		}
	}
	return nil
}

func (sp *Spec) checkNoLeakedCache(s *State, rs rankRange) *model.Failure {
	return sp.eachCache(s, rs, func(v rankView, p PoolKind, id uint8, c *Cache) *model.Failure {
		req := v.request(id)
		live := req.State.isActive() || req.State == DisaggContextTransmission
		if live && req.Incarnation == c.Incarnation {
			return nil
		}
		owner := "no live request"
		if live {
			owner = fmt.Sprintf("incarnation %d is live", req.Incarnation)
		}
		return &model.Failure{
			Message: fmt.Sprintf("rank %d %s pool holds a cache under request ID %d (incarnation %d, capacity %d) but %s",
				v.r, p, id, c.Incarnation, c.Capacity, owner),
			Group: fmt.Sprintf("leaked %s cache", p),
		}
	})
}

func (sp *Spec) checkMirrorWithinTargetLifetime(s *State, rs rankRange) *model.Failure {
	return sp.eachCache(s, rs, func(v rankView, p PoolKind, id uint8, c *Cache) *model.Failure {
		if p != Draft {
			return nil
		}
		t := v.cache(Target, id)
		if t.Status != Absent && t.Incarnation == c.Incarnation {
			return nil
		}
		return &model.Failure{Message: fmt.Sprintf("rank %d draft pool holds a mirror for request %d (incarnation %d) whose target cache is gone",
			v.r, id, c.Incarnation)}
	})
}

func (sp *Spec) checkIndexSlots(s *State, rs rankRange) *model.Failure {
	for r := rs.lo; r < rs.hi; r++ {
		v := s.view(&sp.Config, r)
		for p := Target; p < numPools; p++ {
			if n := v.liveCaches(p); n > int(sp.Config.indexSlots(p)) {
				return &model.Failure{Message: fmt.Sprintf("rank %d %s pool: %d live caches, IndexMapper has %d slots",
					r, p, n, sp.Config.indexSlots(p))}
			}
		}
	}
	return nil
}

func (sp *Spec) checkForwardOverActive(s *State) *model.Failure {
	if !s.Hazard.Happened {
		return nil
	}
	return &model.Failure{Message: s.Hazard.Describe(), Group: "forward over a " + s.Hazard.Status.String() + " " + s.Hazard.Pool.String() + " cache"}
}

// checkInFlightCachesActive looks, on every stage, at the executed
// micro-batches the stage has forwarded and not yet handled: each of
// their real requests must still hold its target cache there, ACTIVE, or
// suspended where no tier below GPU can take its pages.
func (sp *Spec) checkInFlightCachesActive(s *State) *model.Failure {
	if sp.Config.Loop != PipelineLoop || s.Crash.Happened {
		return nil
	}
	w := sp.Config.adpWidth()
	for i := uint8(0); i < s.PipelineLen; i++ {
		it := &s.Pipeline[i]
		if !it.executed() {
			continue
		}
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			stage := sp.Config.stageOf(r)
			if it.Forwarded&(1<<stage) == 0 || it.Handled&(1<<stage) != 0 {
				continue
			}
			b := sp.microBatch(s, i, r%w)
			v := s.view(&sp.Config, r)
			for j := 0; j < int(b.Count); j++ {
				e := &b.Entries[j]
				if e.ID == dummyID {
					continue
				}
				// Suspended without a tier below GPU, the pages stay held
				// where the forward writes them; freed, or suspended with a
				// host tier that may take them, they can move under it.
				if st := v.cache(Target, e.ID).Status; st == Absent || st == Suspended && sp.Config.HostTier {
					what := "context chunk"
					if e.Kind == GenerationStep {
						what = "generation step"
					}
					return &model.Failure{
						Message: fmt.Sprintf("rank %d request %d: its target cache is %s while a %s the stage forwarded with it is still in flight (not yet handled)", r, e.ID, st, what),
						Group:   "in-flight " + what + " " + st.String(),
					}
				}
			}
		}
	}
	return nil
}
