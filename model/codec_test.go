package model

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// sparse is a state type shaped like the spec's: mostly zeros, with short
// runs of non-zero bytes and isolated ones.
type sparse struct {
	a [7]uint8
	b [300]uint8
	c uint8
	d [33]uint8
}

// TestZeroRunCodecRoundTrip: decoding the zero-run encoding of a state
// gives back every byte, for random states of every density, and a
// mostly-zero state encodes to a small fraction of its size.
func TestZeroRunCodecRoundTrip(t *testing.T) {
	c := newCodec[sparse](nil)
	rng := rand.New(rand.NewPCG(3, 4))
	var enc []byte
	for i := range 5000 {
		var s sparse
		b := c.bytesOf(&s)
		density := rng.IntN(100) + 1
		for j := range b {
			if rng.IntN(100) < density {
				b[j] = uint8(rng.IntN(256))
			}
		}
		if i%7 == 0 { // long runs on both sides of the word boundaries
			for j := rng.IntN(len(b)); j < len(b) && rng.IntN(40) > 0; j++ {
				b[j] = 0xff
			}
		}
		enc = c.appendEncoded(enc[:0], &s)
		got := sparse{d: [33]uint8{1, 2, 3}} // decode must clear what it does not set
		c.decode(enc, &got)
		if got != s {
			t.Fatalf("state %d (density %d%%): decode(encode(s)) differs from s\nencoding % x", i, density, enc)
		}
	}
	var s sparse
	s.a[3], s.b[100], s.b[101], s.b[250], s.d[32] = 1, 2, 3, 4, 5
	if enc = c.appendEncoded(enc[:0], &s); len(enc) > 16 {
		t.Errorf("5 non-zero bytes of %d encode to %d bytes (% x), want at most 16", len(c.bytesOf(&s)), len(enc), enc)
	}
}

// TestStateTypeWithPointersPanics: the compact queue copies state bytes,
// so a state type holding a pointer is refused at once, with its path.
func TestStateTypeWithPointersPanics(t *testing.T) {
	type bad struct {
		n    int
		name string
	}
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("no panic for a state type holding a string")
		}
		if msg, _ := r.(string); msg == "" || !strings.Contains(msg, "S.name") {
			t.Fatalf("panic %v, want it to name S.name", r)
		}
	}()
	newCodec[bad](nil)
}
