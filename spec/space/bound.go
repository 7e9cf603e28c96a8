package space

import (
	"fmt"
)

// checkSpaceSize refuses, before Enumerate walks anything, a space that is
// sure to pass MaxSpaceCombinations: the product of the settings' value
// counts times the fewest request sequences any of their combinations has
// (those on one rank). Without it a typo in a range (target_blocks=1..4096
// twice) walked 20 million combinations, for tens of seconds and hundreds
// of megabytes, before failing.
func (cs *ConfigSpace) checkSpaceSize() error {
	settings := 1
	for _, s := range cs.Settings {
		settings = saturatingMul(settings, len(s.Values))
	}
	least := 1
	if cs.Mix != nil {
		least = cs.Mix.countSequences(1)
	}
	if total := saturatingMul(settings, least); total > MaxSpaceCombinations {
		return fmt.Errorf("the ranges give more than the %d combinations a sweep walks (%s setting combinations, each with at least %s request sequences); narrow them",
			MaxSpaceCombinations, countText(settings), countText(least))
	}
	return nil
}

// checkSequences refuses a request mix whose sequences on ranks ranks
// alone pass MaxSpaceCombinations, before sequences makes them.
func (m *RequestMix) checkSequences(ranks uint8) error {
	if n := m.countSequences(ranks); n > MaxSpaceCombinations {
		return fmt.Errorf("the request ranges give %s request sequences on %d rank(s), more than the %d combinations a sweep walks; narrow them", countText(n), ranks, MaxSpaceCombinations)
	}
	return nil
}

// countSequences is len(m.sequences(tpb, ranks)) for any tpb (the kinds
// of request do not depend on it), without making them; it saturates at
// MaxSpaceCombinations+1.
func (m *RequestMix) countSequences(ranks uint8) int {
	kinds := len(m.kinds(1))
	total := 0
	for _, count := range m.Count {
		// ways[u] is the number of ways to fill the requests still to come
		// when u ranks are in use (ranks are named in order of first use).
		ways := make([]int, int(ranks)+1)
		for u := range ways {
			ways[u] = 1
		}
		for range count {
			next := make([]int, len(ways))
			for u := range ways {
				sum := 0
				for r := 0; r <= u && r < int(ranks); r++ {
					sum = saturatingAdd(sum, ways[max(u, r+1)])
				}
				next[u] = saturatingMul(kinds, sum)
			}
			ways = next
		}
		total = saturatingAdd(total, ways[0])
	}
	return total
}

// saturatingMul and saturatingAdd stop at MaxSpaceCombinations+1: the
// counts only need to say whether the bound is passed.
func saturatingMul(a, b int) int {
	const limit = MaxSpaceCombinations + 1
	if a == 0 || b == 0 {
		return 0
	}
	if a > limit/b {
		return limit
	}
	return min(a*b, limit)
}

func saturatingAdd(a, b int) int { return min(a+b, MaxSpaceCombinations+1) }

// countText is n, or "more than MaxSpaceCombinations" when it saturated.
func countText(n int) string {
	if n > MaxSpaceCombinations {
		return fmt.Sprintf("more than %d", MaxSpaceCombinations)
	}
	return fmt.Sprint(n)
}
