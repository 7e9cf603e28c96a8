package model

import (
	"iter"
	"math/bits"
)

// FingerprintTable maps 64-bit state fingerprints to values of type V: the
// visited set of Check and of the random walkers of package fuzz, which
// store with each state how it was first reached.
//
// It is an open-addressing hash table with linear probing, kept at most
// half full. Membership tests, which dominate a search, read only the dense
// key array, so they cost about one cache miss, less than a Go map's. Slots
// are found by Fibonacci hashing, so that weak fingerprints such as small
// integers still spread. Fingerprint 0, which marks an empty slot, is
// stored out of band and is as valid a key as any other.
//
// Concurrent calls to Contains, Lookup, Get, Len and All are safe while
// nothing is inserted (no Insert or Reset runs). The zero FingerprintTable
// is not usable: make one with NewFingerprintTable.
type FingerprintTable[V any] struct {
	keys    []uint64 // fingerprints; 0 marks an empty slot
	vals    []V      // vals[i] goes with keys[i]
	shift   uint     // 64 - log2(len(keys))
	mask    uint64   // len(keys) - 1
	n       int      // stored fingerprints, including 0
	hasZero bool     // fingerprint 0, which cannot be a key, is stored
	zero    V        // its value
}

// NewFingerprintTable returns a table that holds capacity entries without
// growing. It grows as needed beyond that.
func NewFingerprintTable[V any](capacity int) *FingerprintTable[V] {
	t := &FingerprintTable[V]{}
	t.alloc(minSlots(capacity))
	return t
}

// minSlots is the number of slots, a power of two, that keeps capacity
// entries at most half full.
func minSlots(capacity int) int {
	return max(16, 2<<bits.Len(uint(capacity)))
}

func (t *FingerprintTable[V]) alloc(size int) {
	t.keys = make([]uint64, size)
	t.vals = make([]V, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.mask = uint64(size - 1)
}

// home is the first slot probed for fp (Fibonacci hashing).
func (t *FingerprintTable[V]) home(fp uint64) uint64 {
	return (fp * 0x9e3779b97f4a7c15) >> t.shift
}

// Len returns the number of stored fingerprints.
func (t *FingerprintTable[V]) Len() int { return t.n }

// Contains reports whether fp is stored. It reads only the key array.
func (t *FingerprintTable[V]) Contains(fp uint64) bool {
	if fp == 0 {
		return t.hasZero
	}
	for i := t.home(fp); ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case fp:
			return true
		case 0:
			return false
		}
	}
}

// Lookup returns the value stored with fp and whether fp is stored.
func (t *FingerprintTable[V]) Lookup(fp uint64) (V, bool) {
	if fp == 0 {
		return t.zero, t.hasZero
	}
	for i := t.home(fp); ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case fp:
			return t.vals[i], true
		case 0:
			var zero V
			return zero, false
		}
	}
}

// Get returns the value stored with fp, or the zero V if fp is not stored.
func (t *FingerprintTable[V]) Get(fp uint64) V {
	v, _ := t.Lookup(fp)
	return v
}

// Insert stores fp with v and reports true, or reports false and leaves
// the table unchanged if fp is already stored.
func (t *FingerprintTable[V]) Insert(fp uint64, v V) bool {
	if fp == 0 {
		if t.hasZero {
			return false
		}
		t.hasZero, t.zero = true, v
		t.n++
		return true
	}
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	i := t.home(fp)
	for ; t.keys[i] != 0; i = (i + 1) & t.mask {
		if t.keys[i] == fp {
			return false
		}
	}
	t.keys[i], t.vals[i] = fp, v
	t.n++
	return true
}

// grow doubles the table and rehashes its entries.
func (t *FingerprintTable[V]) grow() {
	keys, vals := t.keys, t.vals
	t.alloc(2 * len(keys))
	for j, fp := range keys {
		if fp == 0 {
			continue
		}
		i := t.home(fp)
		for t.keys[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.keys[i], t.vals[i] = fp, vals[j]
	}
}

// All yields every stored fingerprint with its value: fingerprint 0 first
// if it is stored, then the others in slot order, which is deterministic
// for a given sequence of insertions (and Resets). The table must not be
// modified during the iteration.
func (t *FingerprintTable[V]) All() iter.Seq2[uint64, V] {
	return func(yield func(uint64, V) bool) {
		if t.hasZero && !yield(0, t.zero) {
			return
		}
		for i, fp := range t.keys {
			if fp != 0 && !yield(fp, t.vals[i]) {
				return
			}
		}
	}
}

// Reset empties the table. It keeps the table's memory when it is small
// and shrinks it to the initial minimum otherwise.
func (t *FingerprintTable[V]) Reset() {
	if len(t.keys) > 1<<16 {
		t.alloc(minSlots(0))
	} else {
		clear(t.keys)
		clear(t.vals) // drop references the values may hold
	}
	var zero V
	t.n, t.hasZero, t.zero = 0, false, zero
}
