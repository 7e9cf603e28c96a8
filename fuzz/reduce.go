package fuzz

import "github.com/kvcheck/kvcheck/model"

// Reduction is a smaller configuration of a spec: fewer requests, ranks or
// blocks, shorter prompts. Map carries a trace of the larger spec over
// (dropping and renumbering what the reduction removed); the result need
// not replay exactly, reduce adapts it.
type Reduction[S, A any] struct {
	Name string
	Spec model.Spec[S, A]
	Map  func(trace []A) []A
}

// reduce applies reductions greedily, in the order they are proposed, while
// the violation survives with a trace no longer than before, then searches
// the last configuration for a shorter trace. It returns nil when no
// reduction applies.
func reduce[S, A any](sp model.Spec[S, A], key Key, trace []A, opts ShrinkOptions[S, A]) *Reduced[S, A] {
	out := &Reduced[S, A]{Spec: sp, Trace: trace}
	for improved := true; improved; {
		improved = false
		for _, r := range opts.Reduce(out.Spec) {
			adapted, ok := adapt(r.Spec, r.Map(out.Trace), key)
			if !ok {
				continue
			}
			t, message := minimize(r.Spec, adapted, key)
			if len(t) > len(out.Trace) {
				continue
			}
			out.Spec, out.Trace, out.Message = r.Spec, t, message
			out.Steps = append(out.Steps, r.Name)
			improved = true
			break
		}
	}
	if len(out.Steps) == 0 {
		return nil
	}
	out.Trace, out.Message, out.Optimal = searchShorter(out.Spec, key, out.Trace, out.Message, opts.MaxSearchStates)
	return out
}

// adapt replays a mapped trace leniently: an action that is not enabled is
// replaced by the enabled action of the same kind (first word) whose line
// shares the longest prefix with it, or left out when there is none. It
// returns the actions applied up to the violation key, or false when the
// replay ends without it or breaks another invariant first.
func adapt[S, A any](sp model.Spec[S, A], trace []A, key Key) ([]A, bool) {
	invariants := sp.Invariants()
	s := sp.Initial()
	var out, enabled []A
	for _, a := range trace {
		enabled = sp.Actions(&s, enabled[:0])
		k := closest(sp, enabled, sp.ActionString(a))
		if k < 0 {
			continue
		}
		s = sp.Next(&s, enabled[k])
		out = append(out, enabled[k])
		if v := violationIn(invariants, &s, out); v != nil {
			return out, v.Key == key
		}
	}
	return out, key.Invariant == model.DeadlockInvariant && deadlocked(sp, &s)
}

// closest returns the index of the enabled action whose line is line, else
// of the one with the same first word sharing the longest prefix with it,
// or -1.
func closest[S, A any](sp model.Spec[S, A], enabled []A, line string) int {
	best, bestLen := -1, -1
	for j := range enabled {
		other := sp.ActionString(enabled[j])
		if other == line {
			return j
		}
		word := firstWordLen(line)
		n := commonPrefix(line, other)
		if n > bestLen && n >= word && firstWordLen(other) == word {
			best, bestLen = j, n
		}
	}
	return best
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func firstWordLen(s string) int {
	for i := range len(s) {
		if s[i] == ' ' {
			return i
		}
	}
	return len(s)
}
