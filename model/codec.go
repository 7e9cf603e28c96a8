package model

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"reflect"
	"unsafe"
)

// ByteStates is implemented by specs whose states are equal exactly when
// their first StateSize bytes are (S has no padding and no field the spec
// means to ignore), and whose bytes from StateSize on are zero in every
// state (for example the slots of ranks a configuration does not have).
// The checker then fingerprints a state by hashing its zero-run encoding,
// which it needs anyway to queue the state, instead of calling
// Fingerprint: one pass over the state's bytes instead of two, and the
// hash runs over the short encoding. It is optional.
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
// literally. Bytes past the last run are zero.
type codec[S any] struct {
	size    int             // bytes of S encoded
	spec    StateEncoder[S] // the spec's own encoding, if it has one
	bytesFP bool            // the spec implements ByteStates: fingerprint the encoding
}

func newCodec[S any](spec any) codec[S] {
	var zero S
	full := int(unsafe.Sizeof(zero))
	if p := pointerPath(reflect.TypeFor[S](), "S"); p != "" {
		panic(fmt.Sprintf("model: the state type %T holds a pointer, slice, map or string at %s; a Spec's state must be a compact value", zero, p))
	}
	c := codec[S]{size: full}
	if bs, ok := spec.(ByteStates); ok {
		c.size = min(max(bs.StateSize(), 0), full)
		c.bytesFP = true
	} else {
		c.spec, _ = spec.(StateEncoder[S])
	}
	return c
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

// appendEncoded appends the encoding of *s to dst: the spec's own, or the
// zero-run encoding.
func (c codec[S]) appendEncoded(dst []byte, s *S) []byte {
	if c.spec != nil {
		return c.spec.AppendState(dst, s)
	}
	b := c.bytesOf(s)
	p := unsafe.Pointer(s)
	n := len(b)
	i := 0
	for i < n {
		// A run of zeros: skip four zero words at a time, then one (the
		// loads are unaligned and unchecked: z+8 <= n bounds them).
		z := i
		for z+32 <= n && word(p, z)|word(p, z+8)|word(p, z+16)|word(p, z+24) == 0 {
			z += 32
		}
		for z+8 <= n && word(p, z) == 0 {
			z += 8
		}
		if z+8 <= n {
			z += bits.TrailingZeros64(word(p, z)) / 8
		} else {
			for z < n && b[z] == 0 {
				z++
			}
		}
		if z == n {
			break // trailing zeros are implied
		}
		for zeros := z - i; zeros > 0; zeros -= 0x80 {
			dst = append(dst, byte(min(zeros, 0x80)-1))
		}
		// A literal run: up to the next zero byte, or the next two zero
		// bytes when the literal can simply continue through one.
		e := z + 1
		for e < n && (b[e] != 0 || (e+1 < n && b[e+1] != 0)) {
			e++
		}
		for lit := b[z:e]; len(lit) > 0; {
			k := min(len(lit), 0x80)
			dst = append(dst, byte(0x7f+k))
			dst = append(dst, lit[:k]...)
			lit = lit[k:]
		}
		i = e
	}
	return dst
}

// word loads the little-endian 8 bytes at p+i (unaligned, unchecked).
func word(p unsafe.Pointer, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, i))[:])
}

// decode sets *s from an encoding appendEncoded wrote. With the zero-run
// encoding, bytes of S past the codec's size are left as they are (zero in
// every state of the spec).
func (c codec[S]) decode(src []byte, s *S) {
	if c.spec != nil {
		c.spec.DecodeState(src, s)
		return
	}
	b := c.bytesOf(s)
	clear(b)
	i := 0
	for p := 0; p < len(src); {
		r := src[p]
		p++
		if r < 0x80 {
			i += int(r) + 1
			continue
		}
		k := int(r) - 0x7f
		copy(b[i:i+k], src[p:p+k])
		i += k
		p += k
	}
}

// StateEncoder is implemented by specs that encode their states more
// tightly, or faster, than the generic zero-run encoding: AppendState
// appends an encoding of *s to dst, DecodeState sets *s from it. Decoding
// what AppendState wrote must give back a state equal to *s in every byte.
type StateEncoder[S any] interface {
	AppendState(dst []byte, s *S) []byte
	DecodeState(src []byte, s *S)
}

// hashEncoding is the fingerprint of a state whose spec implements
// ByteStates: a wyhash-style multiply-fold of its encoding, 16 bytes a
// step.
func hashEncoding(b []byte) uint64 {
	const (
		k0 = 0xa0761d6478bd642f
		k1 = 0xe7037ed1a0b428db
		k2 = 0x8ebc6af09c88c6e3
	)
	le := binary.LittleEndian
	h := uint64(len(b)) ^ k0
	// Equivalent mutant: "> 16" hashes a last full block as the tail, a
	// different but equally good hash of the same bytes.
	for len(b) >= 16 {
		h = foldMul(le.Uint64(b)^k1, le.Uint64(b[8:])^h)
		b = b[16:]
	}
	var tail [16]byte
	copy(tail[:], b)
	h = foldMul(le.Uint64(tail[:])^k2, le.Uint64(tail[8:])^h)
	return foldMul(h^k0, uint64(len(b))^k1)
}

// foldMul multiplies a and b to 128 bits and folds the halves together.
func foldMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
