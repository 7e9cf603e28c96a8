package fuzz

// link says how a state was first reached: from the state with fingerprint
// parent through action. Following links from any stored state ends at the
// initial state, so every stored state has a replayable trace.
//
// The fingerprints reached are kept in model.FingerprintTable[link[A]]
// tables: a global one, read-only while the workers walk, and one per
// worker for the states it found in the current round (see worker).
type link[A any] struct {
	parent uint64
	action A
}
