package model

import (
	"math/bits"
	"unsafe"
)

// This file writes and reads the codec's zero-run encoding (codec.go) a
// word at a time: a state of the spec is ~1,650 bytes of which ~100 are
// not zero, in ~50 short runs, so the cost is the number of runs, not of
// bytes. Loads and stores of 8 bytes stay inside the state (of full
// bytes, of which the first n are encoded) and inside dst's capacity and
// src, so the unchecked accesses never leave their objects.

// load64 is the little-endian word at p+i (unaligned, unchecked).
func load64(p unsafe.Pointer, i int) uint64 {
	return *(*uint64)(unsafe.Add(p, i))
}

// store64 writes w at p+i (unaligned, unchecked).
func store64(p unsafe.Pointer, i int, w uint64) {
	*(*uint64)(unsafe.Add(p, i)) = w
}

// zeroBytes has bit 8j+7 set exactly when byte j of w is zero.
func zeroBytes(w uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ^(((w & low7) + low7) | w | low7)
}

// minLiteralBreak is the number of zero bytes that ends a literal run:
// fewer are copied inside it. Breaking at two would cost as much (one skip
// byte and one literal header) as copying them, so three is never larger
// and gives fewer runs.
const minLiteralBreak = 3

// appendZeroRuns appends the encoding of the n bytes at p (an object of
// full bytes) to dst.
func appendZeroRuns(dst []byte, p unsafe.Pointer, n, full int) []byte {
	// The encoding of n bytes takes at most n+n/128+2 bytes; 8 more let
	// literal stores overshoot.
	start := len(dst)
	if cap(dst)-start < n+n/128+16 {
		grown := make([]byte, start, 2*cap(dst)+n+n/128+16)
		copy(grown, dst)
		dst = grown
	}
	out := unsafe.Pointer(unsafe.SliceData(dst[:cap(dst)]))
	o := start
	i := 0
	for i < n {
		// A run of zeros: four zero words at a time, then one, then bytes.
		z := i
		for z+32 <= n && load64(p, z)|load64(p, z+8)|load64(p, z+16)|load64(p, z+24) == 0 {
			z += 32
		}
		for z+8 <= n && load64(p, z) == 0 {
			z += 8
		}
		if z+8 <= n {
			z += bits.TrailingZeros64(load64(p, z)) / 8
		} else {
			for z < n && *(*byte)(unsafe.Add(p, z)) == 0 {
				z++
			}
		}
		if z == n {
			break // trailing zeros are implied
		}
		for zeros := z - i; zeros > 0; zeros -= 0x80 {
			*(*byte)(unsafe.Add(out, o)) = byte(min(zeros, 0x80) - 1)
			o++
		}
		// A literal run, from the non-zero byte at z to the next
		// minLiteralBreak zero bytes (bytes past n count as zero).
		e := literalEnd(p, z, n, full)
		for lit := z; lit < e; {
			k := min(e-lit, 0x80)
			*(*byte)(unsafe.Add(out, o)) = byte(0x7f + k)
			o++
			if lit+k+8 <= full {
				// Whole words; the last may overshoot into dst's slack and
				// read past the literal inside the state.
				for j := 0; j < k; j += 8 {
					store64(out, o+j, load64(p, lit+j))
				}
			} else {
				copy(unsafe.Slice((*byte)(unsafe.Add(out, o)), k), unsafe.Slice((*byte)(unsafe.Add(p, lit)), k))
			}
			o += k
			lit += k
		}
		i = e
	}
	return dst[:o]
}

// literalEnd returns where the literal run starting at the non-zero byte
// z ends: the first position from z on where minLiteralBreak zero bytes
// start, or n, whichever comes first.
func literalEnd(p unsafe.Pointer, z, n, full int) int {
	e := z
	for e+16 <= full {
		z0, z1 := zeroBytes(load64(p, e)), zeroBytes(load64(p, e+8))
		// Bit 8j+7: bytes j, j+1 and j+2 (from e) are zero.
		three := z0 & (z0>>8 | z1<<56) & (z0>>16 | z1<<48)
		if three != 0 {
			return min(e+bits.TrailingZeros64(three)/8, n)
		}
		if e += 8; e >= n {
			return n
		}
	}
	for ; e < n; e++ {
		zeros := 0
		for j := e; j < e+minLiteralBreak && (j >= n || *(*byte)(unsafe.Add(p, j)) == 0); j++ {
			zeros++
		}
		if zeros == minLiteralBreak {
			return e
		}
	}
	return n
}

// decodeZeroRuns sets the n bytes at p (an object of full bytes) from an
// encoding appendZeroRuns wrote.
func decodeZeroRuns(src []byte, p unsafe.Pointer, n, full int) {
	clear(unsafe.Slice((*byte)(p), n))
	in := unsafe.Pointer(unsafe.SliceData(src))
	i := 0
	for q := 0; q < len(src); {
		r := src[q]
		q++
		if r < 0x80 {
			i += int(r) + 1
			continue
		}
		k := int(r) - 0x7f
		if i+k > n || q+k > len(src) {
			panic("model: corrupt state encoding")
		}
		j := 0
		if i+((k+7)&^7) <= full {
			for ; j+8 <= k; j += 8 {
				store64(p, i+j, load64(in, q+j))
			}
			if rest := k - j; rest > 0 && q+j+8 <= len(src) {
				// The last partial word, masked: the bytes after the
				// literal are zero (they start a skip) or are written by
				// the next literal, later.
				store64(p, i+j, load64(in, q+j)&(1<<(8*rest)-1))
				j = k
			}
		}
		for ; j < k; j++ {
			*(*byte)(unsafe.Add(p, i+j)) = *(*byte)(unsafe.Add(in, q+j))
		}
		i += k
		q += k
	}
}
