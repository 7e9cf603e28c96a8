package spec

import (
	"fmt"
	"unsafe"

	"github.com/kvcheck/kvcheck/model"
)

// Spec is the executable spec of one scenario under a set of fixes: a
// model.Spec[State, Action] the checker and the fuzzer explore.
type Spec struct {
	Config Config
	Fixes  Fixes
	// Scenario is what the spec keeps of the scenario it was made from, if
	// any (ScenarioInfo): it contributes goals and the invariants checked
	// elsewhere.
	Scenario *ScenarioInfo
	// Cover, when set, counts the actions, branches and raises Next
	// exercises (coverage.go); nil collects nothing.
	Cover *Coverage
	// symmetry is the configuration's rank symmetry (symmetry.go), nil
	// when it has none.
	symmetry *symmetries
	// skipInvariants are invariants a test sets aside (a scenario's own are
	// in Scenario.CheckedElsewhere).
	skipInvariants []string
}

var _ model.Spec[State, Action] = (*Spec)(nil)
var _ model.Terminator[State] = (*Spec)(nil)

// New returns the spec of cfg with fixes applied, or the configuration's
// validation error.
func New(cfg Config, fixes Fixes) (*Spec, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newSpec(cfg, fixes), nil
}

// NewModel returns the spec of a configuration at its real sizes, for the
// sequential pool model `kvcheck lin` checks histories against
// (ApplyPoolOp); it cannot be explored unless New accepts the
// configuration too.
func NewModel(cfg Config, fixes Fixes) (*Spec, error) {
	if err := cfg.ValidateReal(); err != nil {
		return nil, err
	}
	return newSpec(cfg, fixes), nil
}

func newSpec(cfg Config, fixes Fixes) *Spec {
	cfg.Requests = append([]RequestTemplate(nil), cfg.Requests...)
	fixes.applyTo(&cfg)
	return &Spec{Config: cfg, Fixes: fixes, symmetry: newSymmetries(&cfg)}
}

// Initial is the engine after start-up: every pool empty, no request.
func (sp *Spec) Initial() State {
	var s State
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		for p := Target; p < numPools; p++ {
			if sp.Config.hasPool(r, p) {
				s.Ranks[r].Pools[p].Free = uint8(sp.Config.poolBlocksOn(r, p))
			}
		}
	}
	return s
}

// Actions appends the enabled actions in a fixed order: the next arrival,
// the environment's KV transfers, then the executor loop's next step on each
// rank (collectives once, when every rank has reached them).
func (sp *Spec) Actions(s *State, out []Action) []Action {
	if s.Crash.Happened {
		return out
	}
	if int(s.Arrived) < len(sp.Config.Requests) {
		t := sp.Config.template(s.Arrived + 1)
		if s.Ranks[t.Rank].Phase == PhaseIdle && !sp.arrivalWaits(s, t) {
			out = append(out, Action{Kind: ActArrive, ID: s.Arrived + 1})
		}
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		for id := uint8(1); id < MaxIDs; id++ {
			q := &s.Ranks[r].Requests[id]
			if (q.State == DisaggTransmission || q.State == DisaggContextTransmission && q.Flags&requestFlagKVSent == 0) && s.Ranks[r].Phase == PhaseIdle {
				out = append(out, Action{Kind: ActReceiveKV, Rank: r, ID: id})
			}
		}
	}
	switch sp.Config.Loop {
	case PipelineLoop:
		return sp.pipelineActions(s, out)
	case OverlapLoop:
		return sp.overlapActions(s, out)
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		rank := &s.Ranks[r]
		switch rank.Phase {
		case PhaseIdle:
			if sp.hasActiveRequests(rank) {
				out = append(out, Action{Kind: ActSchedule, Rank: r})
			}
		case PhaseScheduled:
			out = append(out, Action{Kind: ActPrepareResources, Rank: r})
		case PhasePrepared:
			out = sp.forwardChoices(&rank.Batch, r, out)
		case PhaseForwarded:
			out = append(out, Action{Kind: ActUpdate, Rank: r})
		}
	}
	return out
}

// overlapActions appends the overlap loop's enabled actions. With attention
// DP the fetch and can-queue allgathers are collectives, enabled once every
// rank has reached them.
func (sp *Spec) overlapActions(s *State, out []Action) []Action {
	adp := sp.Config.AttentionDP
	if adp && sp.allRanksIn(s, PhaseIdle) && sp.anyActive(s) {
		out = append(out, Action{Kind: ActFetch, Collective: true})
	}
	if adp && sp.allRanksIn(s, PhaseScheduled) {
		out = append(out, Action{Kind: ActCanQueue, Collective: true})
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		rank := &s.Ranks[r]
		switch rank.Phase {
		case PhaseIdle:
			if !adp && (sp.hasActiveRequests(rank) || rank.Previous.Count > 0 || sp.hasPendingSends(rank)) {
				out = append(out, Action{Kind: ActSchedule, Rank: r})
			}
		case PhaseFetched:
			out = append(out, Action{Kind: ActSchedule, Rank: r})
		case PhaseScheduled:
			if !adp {
				out = append(out, Action{Kind: ActCanQueue, Rank: r})
			}
		case PhaseQueued:
			out = append(out, Action{Kind: ActPrepareResources, Rank: r})
		case PhasePrepared:
			if rank.CanQueue {
				out = sp.forwardChoices(&rank.Batch, r, out)
				continue
			}
			out = append(out, sp.updateResourcesAction(rank, r))
		case PhaseForwarded:
			out = append(out, sp.updateResourcesAction(rank, r))
		}
	}
	return out
}

func (sp *Spec) updateResourcesAction(rank *Rank, r uint8) Action {
	fate := fateNone
	switch rank.previousBatchFate() {
	case "previous":
		fate = fateProcessed
	case "deferred":
		fate = fateDeferred
	}
	return Action{Kind: ActUpdateResources, Rank: r, Fate: fate}
}

// allRanksIn reports whether every rank stands at phase p.
func (sp *Spec) allRanksIn(s *State, p Phase) bool {
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		if s.Ranks[r].Phase != p {
			return false
		}
	}
	return true
}

// anyActive reports whether some rank has an active request, a previous
// batch still to process, or a context KV send to see complete.
func (sp *Spec) anyActive(s *State) bool {
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		if sp.hasActiveRequests(&s.Ranks[r]) || s.Ranks[r].Previous.Count > 0 || sp.hasPendingSends(&s.Ranks[r]) {
			return true
		}
	}
	return false
}

// hasActiveRequests reports whether the rank has a request in
// active_requests.
func (sp *Spec) hasActiveRequests(rank *Rank) bool {
	for id := range rank.Requests {
		if rank.Requests[id].State.isActive() {
			return true
		}
	}
	return false
}

// forwardChoices enumerates the environment's choices for one forward of
// batch b: accepted draft tokens 0..max_draft_len for each generation
// entry and, with EarlyFinish, whether it ends at EOS. Dummies get no
// choice (their sample is discarded).
func (sp *Spec) forwardChoices(b *Batch, r uint8, out []Action) []Action {
	return sp.forwardChoicesFor(r, out, b, nil)
}

// forwardChoicesFor is forwardChoices for the batches of one forward
// action (under pipeline parallelism with attention DP, a last stage's two
// ADP ranks sample together; peer may be nil). Request IDs are unique
// across ranks, so one choice per ID covers both.
func (sp *Spec) forwardChoicesFor(r uint8, out []Action, b, peer *Batch) []Action {
	var gens [2 * MaxBatch]uint8
	n := 0
	for _, bb := range [2]*Batch{b, peer} {
		if bb == nil {
			continue
		}
		for i := 0; i < int(bb.Count); i++ {
			if e := bb.Entries[i]; e.Kind == GenerationStep && e.ID != dummyID {
				gens[n] = e.ID
				n++
			}
		}
	}
	base := Action{Kind: ActForward, Rank: r}
	for i := 0; i < n; i++ {
		base.Requests |= 1 << gens[i]
	}
	options := int(sp.Config.MaxDraftLen) + 1
	if sp.Config.EarlyFinish {
		options *= 2
	}
	total := 1
	for i := 0; i < n; i++ {
		total *= options
	}
	for c := 0; c < total; c++ {
		a := base
		rest := c
		for i := 0; i < n; i++ {
			choice := rest % options
			rest /= options
			a.Accepted[gens[i]] = uint8(choice % (int(sp.Config.MaxDraftLen) + 1))
			if choice > int(sp.Config.MaxDraftLen) {
				a.EOS |= 1 << gens[i]
			}
		}
		out = append(out, a)
	}
	return out
}

// Next applies action a to a copy of s.
func (sp *Spec) Next(s *State, a Action) State {
	var next State
	sp.NextInto(&next, s, a)
	return next
}

var _ model.NextWriter[State, Action] = (*Spec)(nil)

// NextInto sets *dst to Next(s, a) (model.NextWriter): the checker writes
// each successor once, into its own buffer, instead of copying a returned
// State (about 2 kB) twice more. dst holds a state of this spec (or the
// zero State), whose ranks past Config.Ranks are zero like s's, so only
// the configured ranks' bytes are copied.
func (sp *Spec) NextInto(dst *State, s *State, a Action) {
	n := sp.StateSize()
	copy(unsafe.Slice((*byte)(unsafe.Pointer(dst)), n), unsafe.Slice((*byte)(unsafe.Pointer(s)), n))
	next := dst
	switch a.Kind {
	case ActArrive:
		sp.arrive(next)
	case ActReceiveKV:
		sp.receiveKV(next, &a)
	case ActFetch:
		sp.fetch(next)
	case ActCanQueue:
		sp.canQueue(next, &a)
	case ActSchedule:
		switch sp.Config.Loop {
		case PipelineLoop:
			sp.pipelineStart(next)
		case OverlapLoop:
			sp.scheduleOverlap(next, a.Rank)
		default:
			sp.schedule(next, a.Rank)
		}
	case ActPrepareResources:
		if sp.Config.Loop == OverlapLoop {
			sp.prepareOverlap(next, a.Rank)
		} else {
			sp.prepareResources(next, a.Rank)
		}
	case ActForward:
		switch sp.Config.Loop {
		case PipelineLoop:
			sp.pipelineFollow(next, &a)
		case OverlapLoop:
			sp.forwardOverlap(next, &a)
		default:
			sp.forward(next, &a)
		}
	case ActUpdate:
		sp.update(next, a.Rank)
	case ActUpdateResources:
		sp.updateResourcesOverlap(next, a.Rank)
	case ActHandle:
		sp.pipelineHandle(next, &a)
	}
	if sp.Config.AttentionDP {
		if r, collective := sp.Locality(a); collective {
			sp.canonicalizeDummyIncarnations(next)
		} else {
			// A rank-local step changes only its rank; the others are s's,
			// canonical as in every state Next returns
			// (TestReachableDummyIncarnationsCanonical).
			canonicalizeRankDummyIncarnations(&next.Ranks[r])
		}
	}
	if sp.Cover != nil {
		sp.Cover.transition(s, &a, next)
	}
}

// Fingerprint hashes the state bytes of the configured ranks.
func (sp *Spec) Fingerprint(s *State) uint64 { return fingerprint(s, int(sp.Config.Ranks)) }

// ActionString renders an action as its transcript line; Describe
// (describe.go) words a state, for Dump and the transcripts' step outputs.
func (sp *Spec) ActionString(a Action) string { return a.String() }

// IsTerminal says a state with no enabled action is a legitimate end: the
// engine crashed (an invariant reports it) or every request finished.
func (sp *Spec) IsTerminal(s *State) bool {
	if s.Crash.Happened {
		return true
	}
	return sp.allFinished(s)
}

// allFinished reports whether every request arrived and finished on every
// rank it was routed to.
func (sp *Spec) allFinished(s *State) bool {
	if int(s.Arrived) < len(sp.Config.Requests) {
		return false
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		for id := 1; id <= len(sp.Config.Requests); id++ {
			if !sp.Config.servesRequest(r, uint8(id)) {
				continue
			}
			if s.Ranks[r].Requests[id].State != Finished {
				return false
			}
		}
	}
	return true
}

// ParseAction parses a transcript line and checks it fits this spec's
// configuration.
func (sp *Spec) ParseAction(line string) (Action, error) {
	a, err := ParseAction(line)
	if err != nil {
		return a, err
	}
	if a.Kind != ActArrive && a.Rank >= sp.Config.Ranks {
		return a, fmt.Errorf("%s: rank %d, but the scenario has %d rank(s)", a.Kind, a.Rank, sp.Config.Ranks)
	}
	if a.Kind == ActArrive && int(a.ID) > len(sp.Config.Requests) {
		return a, fmt.Errorf("arrive: request %d, but the scenario has %d request(s)", a.ID, len(sp.Config.Requests))
	}
	return a, nil
}

// Locality says which ranks an action touches: a rank-local action (the
// rank returned, collective false) changes only that rank's state, so
// rank-local actions of different ranks between two collectives commute;
// a collective (fetch, attention-DP can-queue) and the environment's
// arrivals touch several ranks. The checker can use this for rank-aware
// reduction. Pipeline actions also read or write the shared iteration
// record, which orders them by its own rules (a stage runs a micro-batch
// after the previous stage), so they report collective.
func (sp *Spec) Locality(a Action) (rank uint8, collective bool) {
	switch a.Kind {
	case ActFetch, ActArrive:
		return 0, true
	case ActCanQueue:
		return a.Rank, a.Collective
	}
	if sp.Config.Loop == PipelineLoop {
		return a.Rank, true
	}
	return a.Rank, false
}

// LocalPart is Locality for the checker (model.LocalSteps): a rank-local
// action's successor differs from its state only in the action's rank and
// the shared head (a crash is recorded there), so the checker compares
// only those.
func (sp *Spec) LocalPart(a Action) (part int, local bool) {
	r, collective := sp.Locality(a)
	return int(r), !collective
}

// MemoizeLocalSteps is the checker's licence to memoize rank-local steps
// (model.PureLocalSteps): a rank-local step reads only the shared head,
// its own rank and the configuration (TestLocalStepsReadTheirRankOnly),
// and Next has no effect outside its successor unless it records
// coverage.
func (sp *Spec) MemoizeLocalSteps() bool { return sp.Cover == nil }

var _ model.ByteStates = (*Spec)(nil)
var _ model.LocalSteps[Action] = (*Spec)(nil)
var _ model.PureLocalSteps = (*Spec)(nil)

// StateSize is the number of leading bytes of State that the configured
// ranks use: State's fields end with Ranks, and the ranks past
// Config.Ranks stay zero. Together with Next keeping every byte canonical
// (see canonicalizeDummyIncarnations), this lets the checker store and
// fingerprint states by these bytes (model.ByteStates).
func (sp *Spec) StateSize() int { return stateSize(int(sp.Config.Ranks)) }
