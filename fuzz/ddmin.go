package fuzz

// ddmin is Zeller's delta debugging on a trace, by complements: it removes
// ever smaller chunks of actions while test accepts the rest, until no
// single action can go (the result is 1-minimal). test returns the
// candidate it accepts, possibly cut shorter (a replay that reaches the
// violation early stops there), and whether it accepts it; every accepted
// trace was replayed, so every intermediate result is replayable.
func ddmin[A any](trace []A, test func([]A) ([]A, bool)) []A {
	n := 2
	for len(trace) >= 2 {
		chunk := (len(trace) + n - 1) / n
		reduced := false
		for start := 0; start < len(trace); start += chunk {
			candidate := make([]A, 0, len(trace)-chunk)
			candidate = append(candidate, trace[:start]...)
			candidate = append(candidate, trace[min(start+chunk, len(trace)):]...)
			if accepted, ok := test(candidate); ok {
				trace = accepted
				n = max(n-1, 2)
				reduced = true
				break
			}
		}
		if reduced {
			continue
		}
		if n >= len(trace) {
			break
		}
		n = min(2*n, len(trace))
	}
	return trace
}
