package spec

import (
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/model"
)

// This file says what progress is for the checker's livelock analysis
// (model.Progress): a livelock is a cycle of steps on which no request
// progresses, and the cycle kvcheck shows goes through the step where work
// is refused.

var _ model.Progressor[State, Action] = (*Spec)(nil)
var _ model.LivelockStory[State, Action] = (*Spec)(nil)

// Progress reports whether the step advances some request: one arrives,
// a real request's tokens (max_beam_num_tokens) or context position
// (context_current_position) advance, or it moves on in its lifecycle
// (its KV transfer completes, its prefill ends, it completes or is
// freed). The attention-DP dummy's steps are not progress: dummies exist
// to keep collectives aligned.
func (sp *Spec) Progress(from *State, _ Action, to *State) bool {
	if to.Arrived > from.Arrived {
		return true
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		for id := 1; id < MaxIDs; id++ {
			a, b := &from.Ranks[r].Requests[id], &to.Ranks[r].Requests[id]
			if b.NumTokens > a.NumTokens || b.Position > a.Position || b.State != a.State && b.State.after(a.State) {
				return true
			}
		}
	}
	return false
}

// after reports whether a request in state s has moved on from state
// prev: a later stage of the lifecycle (a recompute pause goes back to
// context, which is not progress).
func (s RequestState) after(prev RequestState) bool {
	return lifecycleStage[s] > lifecycleStage[prev]
}

// lifecycleStage orders the request states along a request's life.
var lifecycleStage = [...]uint8{
	NotArrived:                0,
	DisaggGenerationInit:      1,
	DisaggTransmission:        2,
	DisaggTransComplete:       3,
	ContextInit:               4,
	GenerationInProgress:      5,
	GenerationToComplete:      6,
	DisaggContextTransmission: 7,
	GenerationComplete:        8,
	Finished:                  9,
}

// Refused reports whether the step refuses waiting work: a rank with
// active requests schedules an empty batch, or _can_queue vetoes a rank's
// forward.
func (sp *Spec) Refused(from *State, a Action, to *State) bool {
	switch a.Kind {
	case ActSchedule:
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			if rank := &to.Ranks[r]; from.Ranks[r].Phase != rank.Phase && rank.Batch.Count == 0 && sp.hasRealActive(rank) {
				return true
			}
		}
	case ActCanQueue:
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			if rank := &to.Ranks[r]; rank.Phase == PhaseQueued && !rank.CanQueue && rank.Batch.Count > 0 {
				return true
			}
		}
	}
	return false
}

// hasRealActive reports whether the rank has an active request other than
// the attention-DP dummy.
func (sp *Spec) hasRealActive(rank *Rank) bool {
	for id := 1; id < MaxIDs; id++ {
		if rank.Requests[id].State.isActive() {
			return true
		}
	}
	return false
}

// LivelockStory says in one line which requests the cycle leaves stuck
// and why: the ranks that schedule an empty batch while requests wait
// (and, under attention DP, veto every forward), then the requests that
// never advance, then what the V2 scheduler's deadlock detector does on
// it (DetectorVerdict).
func (sp *Spec) LivelockStory(start *State, cycle []Action) string {
	empty := map[uint8]bool{}
	s := *start
	for _, a := range cycle {
		next := sp.Next(&s, a)
		if a.Kind == ActSchedule && sp.Refused(&s, a, &next) {
			for r := uint8(0); r < sp.Config.Ranks; r++ {
				if s.Ranks[r].Phase != next.Ranks[r].Phase && next.Ranks[r].Batch.Count == 0 {
					empty[r] = true
				}
			}
		}
		s = next
	}
	var parts []string
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		if !empty[r] {
			continue
		}
		part := fmt.Sprintf("rank %d schedules an empty batch though %s waits (%d target pages free)",
			r, sp.requestList(&start.Ranks[r]), start.Ranks[r].Pools[Target].Free)
		if sp.Config.AttentionDP && sp.Config.Ranks > 1 {
			part += " and vetoes every forward"
		}
		parts = append(parts, part)
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		if !empty[r] && sp.hasRealActive(&start.Ranks[r]) {
			parts = append(parts, fmt.Sprintf("rank %d's %s never advances", r, sp.requestList(&start.Ranks[r])))
		}
		if sent := sendingList(&start.Ranks[r]); sent != "" {
			parts = append(parts, fmt.Sprintf("rank %d's sent KV of %s stays pinned (no forward runs, so no completion poll)", r, sent))
		}
	}
	parts = append(parts, "no request progresses", sp.DetectorVerdict(start, cycle))
	return strings.Join(parts, "; ")
}

// requestList names the rank's active real requests with where each
// stands, e.g. "request 1 (context 8/16)".
func (sp *Spec) requestList(rank *Rank) string {
	var names []string
	for id := 1; id < MaxIDs; id++ {
		q := &rank.Requests[id]
		switch q.State {
		case ContextInit:
			names = append(names, fmt.Sprintf("request %d (context %d/%d)", id, q.Position, q.Prompt))
		case GenerationInProgress:
			names = append(names, fmt.Sprintf("request %d (generation, %d tokens)", id, q.NumTokens))
		default:
			if q.State.isActive() {
				names = append(names, fmt.Sprintf("request %d (%s)", id, q.State))
			}
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names, ", ")
}

// sendingList names the rank's context-only requests whose KV is pinned
// while it is sent, e.g. "request 1", or "".
func sendingList(rank *Rank) string {
	var names []string
	for id := 1; id < MaxIDs; id++ {
		if rank.Requests[id].State == DisaggContextTransmission {
			names = append(names, fmt.Sprint(id))
		}
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) == 1 {
		return "request " + names[0]
	}
	return "requests " + strings.Join(names, ", ")
}
