package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// ActionKind names one step the explorer can take.
type ActionKind uint8

const (
	// ActArrive: the next request arrives (environment).
	ActArrive ActionKind = iota + 1
	// ActSchedule: _prepare_and_schedule_batch and _can_queue on a rank.
	ActSchedule
	// ActPrepareResources: ResourceManager.prepare_resources on a rank.
	ActPrepareResources
	// ActForward: forward and sampling on a rank; carries the environment's
	// accepted draft tokens and early finishes.
	ActForward
	// ActUpdate: context update, responses, update_resources on a rank.
	ActUpdate
	// ActFetch: the attention-DP allgather of active-request counts at the
	// start of an iteration (collective).
	ActFetch
	// ActCanQueue: PyExecutor._can_queue (collective with attention DP).
	ActCanQueue
	// ActUpdateResources: the overlap loop's processing of the previous
	// batch (or its deferral) at the end of an iteration.
	ActUpdateResources
	// ActReceiveKV: a disaggregated-generation request's KV transfer
	// completes (environment).
	ActReceiveKV
	// ActHandle: the pipeline loop's _handle_executed_batch calls at the end
	// of a stage's iteration; rank 0 chooses how many.
	ActHandle
	numActionKinds
)

var actionNames = [numActionKinds]string{
	ActArrive:           "arrive",
	ActSchedule:         "schedule",
	ActPrepareResources: "prepare-resources",
	ActForward:          "forward",
	ActUpdate:           "update",
	ActFetch:            "fetch",
	ActCanQueue:         "can-queue",
	ActUpdateResources:  "update-resources",
	ActReceiveKV:        "kv-received",
	ActHandle:           "handle",
}

// Fate of the previous batch in an update-resources action.
const (
	fateNone uint8 = iota
	fateProcessed
	fateDeferred
)

var fateNames = [...]string{fateNone: "none", fateProcessed: "previous", fateDeferred: "deferred"}

func (k ActionKind) String() string {
	if k == 0 || k >= numActionKinds {
		return fmt.Sprintf("action(%d)", k)
	}
	return actionNames[k]
}

// Action is one transition of the spec. It prints as one transcript line
// that ParseAction reads back.
type Action struct {
	Kind ActionKind
	Rank uint8
	// ID is the arriving request (ActArrive).
	ID uint8
	// Accepted is py_num_accepted_draft_tokens per request ID (ActForward).
	Accepted [MaxIDs]uint8
	// EOS has bit id set for a generation request the environment finishes
	// early (ActForward).
	EOS uint16
	// Requests has bit id set for each generation request the forward
	// carries choices for, so the line lists exactly them.
	Requests uint16
	// Collective marks an action every rank takes together (fetch, and
	// can-queue under attention DP); it prints with no rank.
	Collective bool
	// Fate is what update-resources does with the previous batch.
	Fate uint8
	// Count is how many executed batches a pipeline stage handles.
	Count uint8
}

// String renders the action as a transcript line, e.g.
// "forward rank=0 accept=1:1,2:0 eos=2".
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(a.Kind.String())
	switch a.Kind {
	case ActArrive:
		fmt.Fprintf(&b, " req=%d", a.ID)
	case ActSchedule, ActPrepareResources, ActUpdate, ActFetch, ActCanQueue:
		if !a.Collective {
			fmt.Fprintf(&b, " rank=%d", a.Rank)
		}
	case ActUpdateResources:
		fmt.Fprintf(&b, " rank=%d batch=%s", a.Rank, fateNames[a.Fate])
	case ActReceiveKV:
		fmt.Fprintf(&b, " rank=%d req=%d", a.Rank, a.ID)
	case ActHandle:
		fmt.Fprintf(&b, " rank=%d count=%d", a.Rank, a.Count)
	case ActForward:
		fmt.Fprintf(&b, " rank=%d", a.Rank)
		if a.Requests != 0 {
			b.WriteString(" accept=")
			sep := ""
			for id := 0; id < MaxIDs; id++ {
				if a.Requests&(1<<id) != 0 {
					fmt.Fprintf(&b, "%s%d:%d", sep, id, a.Accepted[id])
					sep = ","
				}
			}
		}
		if a.EOS != 0 {
			b.WriteString(" eos=")
			sep := ""
			for id := 0; id < MaxIDs; id++ {
				if a.EOS&(1<<id) != 0 {
					fmt.Fprintf(&b, "%s%d", sep, id)
					sep = ","
				}
			}
		}
	}
	return b.String()
}

// ParseAction parses a transcript line produced by Action.String. The
// error says what was expected.
func ParseAction(line string) (Action, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return Action{}, fmt.Errorf("empty action line")
	}
	var a Action
	for k := ActArrive; k < numActionKinds; k++ {
		if fields[0] == k.String() {
			a.Kind = k
		}
	}
	if a.Kind == 0 {
		names := make([]string, 0, numActionKinds)
		for k := ActArrive; k < numActionKinds; k++ {
			names = append(names, k.String())
		}
		return Action{}, fmt.Errorf("unknown action %q; expected one of: %s", fields[0], strings.Join(names, ", "))
	}
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		key, value, ok := strings.Cut(f, "=")
		if !ok {
			return Action{}, fmt.Errorf("%s: argument %q is not key=value", a.Kind, f)
		}
		if seen[key] {
			return Action{}, fmt.Errorf("%s: argument %q given twice", a.Kind, key)
		}
		seen[key] = true
		var err error
		switch {
		case key == "req" && (a.Kind == ActArrive || a.Kind == ActReceiveKV):
			a.ID, err = parseSmall(value, 1, MaxRequests)
		case key == "batch" && a.Kind == ActUpdateResources:
			err = fmt.Errorf("expected previous, deferred or none")
			for f, name := range fateNames {
				if value == name {
					a.Fate, err = uint8(f), nil
				}
			}
		case key == "count" && a.Kind == ActHandle:
			a.Count, err = parseSmall(value, 0, MaxRanks)
		case key == "rank" && a.Kind != ActArrive:
			a.Rank, err = parseSmall(value, 0, MaxRanks-1)
		case key == "accept" && a.Kind == ActForward:
			err = parseAccepted(value, &a)
		case key == "eos" && a.Kind == ActForward:
			for _, part := range strings.Split(value, ",") {
				var id uint8
				if id, err = parseSmall(part, 0, MaxIDs-1); err != nil {
					break
				}
				a.EOS |= 1 << id
			}
		default:
			return Action{}, fmt.Errorf("%s: unexpected argument %q", a.Kind, key)
		}
		if err != nil {
			return Action{}, fmt.Errorf("%s: %s=%s: %v", a.Kind, key, value, err)
		}
	}
	if (a.Kind == ActArrive || a.Kind == ActReceiveKV) && !seen["req"] {
		return Action{}, fmt.Errorf("%s: missing req=N", a.Kind)
	}
	if a.Kind == ActUpdateResources && !seen["batch"] {
		return Action{}, fmt.Errorf("update-resources: missing batch=previous|deferred|none")
	}
	if a.Kind == ActHandle && !seen["count"] {
		return Action{}, fmt.Errorf("handle: missing count=N")
	}
	switch {
	case a.Kind == ActArrive:
	case a.Kind == ActFetch || a.Kind == ActCanQueue:
		a.Collective = !seen["rank"]
	case !seen["rank"]:
		return Action{}, fmt.Errorf("%s: missing rank=N", a.Kind)
	}
	return a, nil
}

func parseAccepted(value string, a *Action) error {
	for _, part := range strings.Split(value, ",") {
		idText, nText, ok := strings.Cut(part, ":")
		if !ok {
			return fmt.Errorf("expected id:accepted pairs, got %q", part)
		}
		id, err := parseSmall(idText, 0, MaxIDs-1)
		if err != nil {
			return err
		}
		n, err := parseSmall(nText, 0, 3)
		if err != nil {
			return err
		}
		if a.Requests&(1<<id) != 0 {
			return fmt.Errorf("request %d listed twice", id)
		}
		a.Requests |= 1 << id
		a.Accepted[id] = n
	}
	return nil
}

func parseSmall(text string, lo, hi int) (uint8, error) {
	n, err := strconv.Atoi(text)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("expected an integer %d..%d, got %q", lo, hi, text)
	}
	return uint8(n), nil
}
