package model

import (
	"reflect"
	"testing"
	"unsafe"
)

// byteBlobTree is blobTree fingerprinted by its encoding (ByteStates).
type byteBlobTree struct{ blobTree }

func (byteBlobTree) StateSize() int { return int(unsafe.Sizeof(blob{})) }

// TestByteStatesMatchFingerprints: fingerprinting a state by hashing its
// encoding finds the same states, transitions, violation and goals as the
// spec's own Fingerprint, sequentially, with workers and with liveness.
func TestByteStatesMatchFingerprints(t *testing.T) {
	tree := blobTree{depth: 10}
	for _, opts := range []Options{{}, {Workers: 2}, {Liveness: true, KeepGoing: true}} {
		want := Check[blob, int](tree, opts)
		got := Check[blob, int](byteBlobTree{tree}, opts)
		if got.States != 1<<11-1 {
			t.Errorf("%+v: %d states, want %d", opts, got.States, 1<<11-1)
		}
		got.Elapsed, got.Usage, want.Elapsed, want.Usage = 0, Usage{}, 0, Usage{}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: ByteStates gives %+v\nFingerprint gives %+v", opts, got, want)
		}
	}
}

// ring is a counter modulo 5 whose states are fingerprinted by their
// encoding: the step from 4 leads back to the initial state.
type ring struct{}

type ringState struct{ v, _ uint8 }

func (ring) Initial() ringState { return ringState{} }
func (ring) Actions(s *ringState, out []int) []int {
	return append(out, 1)
}
func (ring) Next(s *ringState, _ int) ringState { return ringState{v: (s.v + 1) % 5} }
func (ring) Fingerprint(s *ringState) uint64    { return uint64(s.v) * 0x9e3779b97f4a7c15 }
func (ring) Invariants() []Invariant[ringState] { return nil }
func (ring) Goals() []Goal[ringState]           { return nil }
func (ring) ActionString(int) string            { return "step" }
func (ring) StateSize() int                     { return int(unsafe.Sizeof(ringState{})) }
func (ring) IsTerminal(*ringState) bool         { return false }

// TestByteStatesInitialStoredOnce: the initial state is stored under the
// fingerprint its successors are looked up by, so a step back to it finds
// it (5 states, not a second copy of the ring).
func TestByteStatesInitialStoredOnce(t *testing.T) {
	for _, opts := range []Options{{}, {Workers: 2}, {Liveness: true}} {
		if got := Check[ringState, int](ring{}, opts); got.States != 5 || !got.Complete {
			t.Errorf("%+v: %d states (complete %v), want 5", opts, got.States, got.Complete)
		}
	}
}
