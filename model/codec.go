package model

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"reflect"
	"sync"
	"unsafe"
)

// ByteStates is implemented by specs whose states are equal exactly when
// their first StateSize bytes are (S has no padding and no field the spec
// means to ignore), and whose bytes from StateSize on are zero in every
// state (for example the slots of ranks a configuration does not have).
// The checker then fingerprints a state by hashing those bytes
// (hashState, 64 bytes a step) instead of calling Fingerprint, and
// queues it in the zero-run encoding, which it computes only for the
// successors not stored yet. It is optional.
type ByteStates interface {
	// StateSize returns n in 0..unsafe.Sizeof(S).
	StateSize() int
}

// codec stores states of type S compactly for the frontier: the state's
// bytes (its first size bytes) as a zero-run encoding, so the zeros that
// dominate a large fixed-size state (unused request slots, pools, ranks)
// cost almost nothing. It needs no code per field, so a spec can add
// fields freely; S must hold no pointers (see Spec).
//
// The encoding is a sequence of runs, each introduced by one byte c:
// c < 0x80 skips c+1 zero bytes; c >= 0x80 copies the next c-0x7f bytes
// literally. Bytes past the last run are zero. zerorun.go writes and
// reads it a word at a time.
type codec[S any] struct {
	size    int             // bytes of S encoded
	spec    StateEncoder[S] // the spec's own encoding, if it has one
	bytesFP bool            // the spec implements ByteStates: fingerprint the state's bytes
	segs    segments        // with bytesFP, how the state's bytes are split (segments.go)
}

func newCodec[S any](spec any) codec[S] {
	var zero S
	full := int(unsafe.Sizeof(zero))
	if p := pointerPathOf(reflect.TypeFor[S]()); p != "" {
		panic(fmt.Sprintf("model: the state type %T holds a pointer, slice, map or string at %s; a Spec's state must be a compact value", zero, p))
	}
	c := codec[S]{size: full}
	if bs, ok := spec.(ByteStates); ok {
		c.size = min(max(bs.StateSize(), 0), full)
		c.bytesFP = true
		c.segs = newSegments(spec, c.size)
	} else {
		c.spec, _ = spec.(StateEncoder[S])
	}
	return c
}

// pointerPaths caches pointerPath(t, "S") by type: a sweep makes a codec
// for each of thousands of searches.
var pointerPaths sync.Map

// pointerPathOf is pointerPath(t, "S"), cached.
func pointerPathOf(t reflect.Type) string {
	if p, ok := pointerPaths.Load(t); ok {
		return p.(string)
	}
	p := pointerPath(t, "S")
	pointerPaths.Store(t, p)
	return p
}

// pointerPath returns where t holds a pointer-like value, or "".
func pointerPath(t reflect.Type, at string) string {
	switch t.Kind() {
	case reflect.Array:
		return pointerPath(t.Elem(), at+"[i]")
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if p := pointerPath(f.Type, at+"."+f.Name); p != "" {
				return p
			}
		}
		return ""
	case reflect.Pointer, reflect.UnsafePointer, reflect.Slice, reflect.Map, reflect.String,
		reflect.Interface, reflect.Chan, reflect.Func:
		return at
	}
	return ""
}

// bytesOf views the encoded prefix of *s as bytes.
func (c codec[S]) bytesOf(s *S) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(s)), c.size)
}

// appendEncoded appends the encoding of *s to dst: the spec's own, the
// segmented encoding of a ByteStates spec (segments.go), or the zero-run
// encoding (zerorun.go).
func (c codec[S]) appendEncoded(dst []byte, s *S) []byte {
	if c.spec != nil {
		return c.spec.AppendState(dst, s)
	}
	if c.bytesFP {
		return c.segs.appendEncoded(dst, unsafe.Pointer(s))
	}
	return appendZeroRuns(dst, unsafe.Pointer(s), c.size, int(unsafe.Sizeof(*s)))
}

// decode sets *s from an encoding appendEncoded wrote. With the zero-run
// encoding, bytes of S past the codec's size are left as they are (zero in
// every state of the spec).
func (c codec[S]) decode(src []byte, s *S) {
	if c.spec != nil {
		c.spec.DecodeState(src, s)
		return
	}
	if c.bytesFP {
		c.segs.decode(src, unsafe.Pointer(s))
		return
	}
	decodeZeroRuns(src, unsafe.Pointer(s), c.size, int(unsafe.Sizeof(*s)))
}

// StateEncoder is implemented by specs that encode their states more
// tightly, or faster, than the generic zero-run encoding: AppendState
// appends an encoding of *s to dst, DecodeState sets *s from it. Decoding
// what AppendState wrote must give back a state equal to *s in every byte.
type StateEncoder[S any] interface {
	AppendState(dst []byte, s *S) []byte
	DecodeState(src []byte, s *S)
}

// hashState is the fingerprint of a state whose spec implements
// ByteStates: a wyhash-style multiply-fold of its bytes in four
// independent lanes of 16 bytes, so that the multiplications overlap, then
// 16 bytes a step and the tail. It runs at about 25 bytes a nanosecond,
// so a 1,646-byte spec state takes ~65 ns.
func hashState(b []byte) uint64 {
	const (
		k0 = 0xa0761d6478bd642f
		k1 = 0xe7037ed1a0b428db
		k2 = 0x8ebc6af09c88c6e3
		k3 = 0x589965cc75374cc3
	)
	n := len(b)
	p := unsafe.Pointer(unsafe.SliceData(b))
	h := uint64(n) ^ k0
	i := 0
	if n >= 64 {
		h1, h2, h3 := h^k1, h^k2, h^k3
		for ; i+64 <= n; i += 64 {
			h = foldMul(load64(p, i)^k1, load64(p, i+8)^h)
			h1 = foldMul(load64(p, i+16)^k2, load64(p, i+24)^h1)
			h2 = foldMul(load64(p, i+32)^k3, load64(p, i+40)^h2)
			h3 = foldMul(load64(p, i+48)^k0, load64(p, i+56)^h3)
		}
		h = foldMul(h^k1, h1^k2) ^ foldMul(h2^k3, h3^k0)
	}
	for ; i+16 <= n; i += 16 {
		h = foldMul(load64(p, i)^k1, load64(p, i+8)^h)
	}
	// The tail: the last 16 bytes, overlapping what came before, when
	// there are as many (the length, mixed in last, tells inputs apart).
	var a, c uint64
	switch {
	case i == n:
	case n >= 16:
		a, c = load64(p, n-16), load64(p, n-8)
	default:
		var tail [16]byte
		copy(tail[:], b[i:])
		le := binary.LittleEndian
		a, c = le.Uint64(tail[:]), le.Uint64(tail[8:])
	}
	h = foldMul(a^k2, c^h)
	return foldMul(h^k0, uint64(n)^k1)
}

// foldMul multiplies a and b to 128 bits and folds the halves together.
func foldMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
