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
