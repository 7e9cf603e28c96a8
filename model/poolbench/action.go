package poolbench

import (
	"fmt"
	"strconv"
	"strings"
)

// String renders a as one transcript line: "allocate(2) q1", "grow q1",
// "shrink q1", "free q1" or "flush r0". ParseAction reads it back.
func (a Action) String() string {
	switch a.Kind {
	case Allocate:
		return "allocate(" + strconv.Itoa(int(a.Blocks)) + ") q" + strconv.Itoa(int(a.Request))
	case Grow:
		return "grow q" + strconv.Itoa(int(a.Request))
	case Shrink:
		return "shrink q" + strconv.Itoa(int(a.Request))
	case Free:
		return "free q" + strconv.Itoa(int(a.Request))
	case Flush:
		return "flush r" + strconv.Itoa(int(a.Rank))
	}
	return fmt.Sprintf("Action(%d)", a.Kind)
}

// ActionString renders a as one transcript line (see Action.String).
func (p *Pool) ActionString(a Action) string { return a.String() }

// ParseAction parses a line written by Action.String.
func ParseAction(line string) (Action, error) {
	verb, target, ok := strings.Cut(strings.TrimSpace(line), " ")
	if !ok || len(target) < 2 {
		return Action{}, fmt.Errorf("poolbench: bad action %q", line)
	}
	n, err := strconv.ParseUint(target[1:], 10, 8)
	if err != nil {
		return Action{}, fmt.Errorf("poolbench: bad action %q: %v", line, err)
	}
	id := uint8(n)
	if verb == "flush" {
		if target[0] != 'r' {
			return Action{}, fmt.Errorf("poolbench: bad action %q: want flush rN", line)
		}
		return Action{Kind: Flush, Rank: id}, nil
	}
	if target[0] != 'q' {
		return Action{}, fmt.Errorf("poolbench: bad action %q: want qN", line)
	}
	switch verb {
	case "grow":
		return Action{Kind: Grow, Request: id}, nil
	case "shrink":
		return Action{Kind: Shrink, Request: id}, nil
	case "free":
		return Action{Kind: Free, Request: id}, nil
	}
	if size, ok := strings.CutPrefix(verb, "allocate("); ok {
		if size, ok := strings.CutSuffix(size, ")"); ok {
			k, err := strconv.ParseUint(size, 10, 8)
			if err == nil && k > 0 {
				return Action{Kind: Allocate, Request: id, Blocks: uint8(k)}, nil
			}
		}
	}
	return Action{}, fmt.Errorf("poolbench: bad action %q", line)
}
