package fuzz

import "math/bits"

// link says how a state was first reached: from the state with fingerprint
// parent through action. Following links from any stored state ends at the
// initial state, so every stored state has a replayable trace.
type link[A any] struct {
	parent uint64
	action A
}

// seenTable maps the fingerprints of the states reached to their links. It
// is an open-addressing hash table with linear probing, kept at most half
// full, so a lookup costs about one cache miss. Lookups may run
// concurrently while nothing is inserted.
type seenTable[A any] struct {
	keys    []uint64 // fingerprints; 0 marks an empty slot
	links   []link[A]
	shift   uint
	mask    uint64
	n       int
	hasZero bool    // fingerprint 0, which cannot be a key, is stored
	zero    link[A] // its link
}

func newSeenTable[A any](capacity int) *seenTable[A] {
	t := &seenTable[A]{}
	t.alloc(max(16, 2<<bits.Len(uint(capacity))))
	return t
}

func (t *seenTable[A]) alloc(size int) {
	t.keys = make([]uint64, size)
	t.links = make([]link[A], size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.mask = uint64(size - 1)
}

// home is the first slot probed for fp (Fibonacci hashing).
func (t *seenTable[A]) home(fp uint64) uint64 { return (fp * 0x9e3779b97f4a7c15) >> t.shift }

func (t *seenTable[A]) contains(fp uint64) bool {
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

// get returns the link of fp and whether fp is stored.
func (t *seenTable[A]) get(fp uint64) (link[A], bool) {
	if fp == 0 {
		return t.zero, t.hasZero
	}
	for i := t.home(fp); ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case fp:
			return t.links[i], true
		case 0:
			return link[A]{}, false
		}
	}
}

// insert stores fp with l unless it is stored; it reports whether it was new.
func (t *seenTable[A]) insert(fp uint64, l link[A]) bool {
	if fp == 0 {
		if t.hasZero {
			return false
		}
		t.hasZero, t.zero = true, l
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
	t.keys[i], t.links[i] = fp, l
	t.n++
	return true
}

func (t *seenTable[A]) grow() {
	keys, links := t.keys, t.links
	t.alloc(2 * len(keys))
	for j, fp := range keys {
		if fp == 0 {
			continue
		}
		i := t.home(fp)
		for t.keys[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.keys[i], t.links[i] = fp, links[j]
	}
}

// each calls f for every stored fingerprint in slot order (deterministic for
// a given set of insertions).
func (t *seenTable[A]) each(f func(fp uint64, l link[A])) {
	if t.hasZero {
		f(0, t.zero)
	}
	for i, fp := range t.keys {
		if fp != 0 {
			f(fp, t.links[i])
		}
	}
}

// reset empties the table, keeping its memory when it is small.
func (t *seenTable[A]) reset() {
	if len(t.keys) > 1<<16 {
		t.alloc(16)
	} else {
		clear(t.keys)
	}
	t.n, t.hasZero = 0, false
}
