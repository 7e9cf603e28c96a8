package spec

import "github.com/kvcheck/kvcheck/model"

var _ model.PartialOrder[State, Action] = (*Spec)(nil)

// Persistent is the spec's partial-order reduction (model.PartialOrder):
// the enabled steps of one rank, taken before any other rank's, when no
// other step can interfere with them before that rank acts. Ranks are the
// processes: between two collectives a rank's steps (schedule, prepare,
// forward, update, and its KV transfers completing) read and write only
// its own Rank (Locality), and a crash, which ends every rank, is the
// only step that touches another rank (Visible). Rank q's enabled steps
// are a persistent set in s when
//
//   - no collective is enabled (a collective needs every rank, so while q
//     has a step of its own, none becomes enabled before q acts), and q
//     does not stand at a collective: under attention DP with the overlap
//     loop, an idle rank waits for fetch and a scheduled one for
//     can-queue, and its own steps there (a KV transfer completing on an
//     idle rank) change what the collective reads;
//   - no arrival can reach q before q acts: an arrival is enabled only
//     while its rank is idle, so q is either busy, or no request that has
//     not arrived yet is routed to q;
//   - pipeline parallelism is off: every pipeline step reads or writes the
//     shared iteration records (Locality reports them collective).
//
// Arrivals to other ranks only append to those ranks and count Arrived,
// which no rank's step reads, so they commute with q's steps. Among the
// eligible ranks it takes the one with the fewest enabled steps (the
// smallest set), the lowest on a tie.
func (sp *Spec) Persistent(s *State, enabled []Action, out []int32) []int32 {
	if sp.Config.Loop == PipelineLoop || sp.Config.Ranks < 2 || s.Crash.Happened {
		return out
	}
	var steps [MaxRanks]int
	for _, a := range enabled {
		if a.Kind == ActArrive {
			continue
		}
		r, collective := sp.Locality(a)
		if collective {
			return out
		}
		steps[r]++
	}
	best := -1
	for q := uint8(0); q < sp.Config.Ranks; q++ {
		if steps[q] > 0 && (best < 0 || steps[q] < steps[best]) && sp.actsAlone(s, q) {
			best = int(q)
		}
	}
	if best < 0 {
		return out
	}
	for k, a := range enabled {
		if a.Kind != ActArrive && int(a.Rank) == best {
			out = append(out, int32(k))
		}
	}
	return out
}

// actsAlone reports whether no step of another rank and no arrival can
// interfere with rank q's steps before q takes one (see Persistent).
func (sp *Spec) actsAlone(s *State, q uint8) bool {
	rank := &s.Ranks[q]
	if sp.Config.AttentionDP && sp.Config.Loop == OverlapLoop && (rank.Phase == PhaseIdle || rank.Phase == PhaseScheduled) {
		return false
	}
	if rank.Phase != PhaseIdle {
		return true
	}
	for id := int(s.Arrived) + 1; id <= len(sp.Config.Requests); id++ {
		if sp.Config.template(uint8(id)).Rank == q {
			return false
		}
	}
	return true
}

// Visible reports a step that crashes: the crash ends every rank, so it
// disables the other ranks' steps and must not be reordered with them.
func (sp *Spec) Visible(s, next *State) bool { return next.Crash.Happened }

// Stable reports whether the reduction preserves the invariant or goal
// named name (model.PartialOrder.Stable): whether, when a state t reached
// from s without rank q's steps violates it, so does t with q's step
// taken first, or s. t then holds s's rank q, and the step changes only
// rank q, never Crash (Visible), so:
//
//   - a property of each rank's own state (any rank's caches, pools,
//     cursors, batch, records; the crash record, which only the crashing
//     rank's step writes; "no crash and ..." of one rank) holds in the
//     new state for every rank but q, and for q already held in s;
//   - ranks-agree compares ranks' expected_num_active_requests, which
//     only the fetch collective writes, and can_queue, which only the
//     can-queue collective sets; a rank's own step can only leave the
//     window in which its can_queue is compared (update-resources, which
//     also resets it), never enter it (can-queue is a collective), so if
//     the step mends a disagreement, q was in the window in s with the
//     same values, and s disagrees too;
//   - all-requests-finished holds in t only if q's requests are finished
//     in s, and a finished request stays finished.
//
// Properties of the pipeline's shared records are not claimed (pipeline
// parallelism is never reduced anyway). TestPartialOrderSpecRules checks
// the rules these arguments rest on over the scenarios' state spaces.
func (sp *Spec) Stable(name string) bool { return porClass(sp, name) == PORStable }

// porClass is the POR class declared with the invariant or goal named
// name: with the invariant (invariantDecls: byRank ones are stable by
// construction) or the goal (GoalDef.POR); PORUndeclared for none.
func porClass(sp *Spec, name string) PORClass {
	for _, d := range sp.invariantDecls() {
		if d.Name == name {
			return d.POR
		}
	}
	for _, g := range allGoals {
		if g.Name == name {
			return g.POR
		}
	}
	return PORUndeclared
}
