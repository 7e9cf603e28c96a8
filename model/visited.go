package model

import "math/bits"

// visitedTable maps the fingerprints of stored states to how they were
// first reached. It is an open-addressing hash table with linear probing,
// kept at most half full. Membership tests, which dominate a search, read
// only the dense key array, so they cost about one cache miss, less than a
// Go map's. Concurrent contains, get and find calls are safe while nothing
// is inserted.
//
// An indexed table also numbers the stored fingerprints in insertion order
// (0, 1, 2, ...), for the liveness analysis.
type visitedTable[A any] struct {
	keys    []uint64 // fingerprints; 0 marks an empty slot
	visits  []visit[A]
	index   []uint32 // indexed tables: insertion number of keys[i]; else nil
	shift   uint     // 64 - log2(len(keys))
	mask    uint64
	n       int      // stored fingerprints, including 0
	hasZero bool     // fingerprint 0, which cannot be a key, is stored
	zero    visit[A] // its visit
	zeroIdx uint32   // its insertion number (indexed tables)
	indexed bool
}

// newVisitedTable returns a table that holds capacity entries without
// growing, numbering its entries if indexed is set.
func newVisitedTable[A any](capacity int, indexed bool) *visitedTable[A] {
	t := &visitedTable[A]{indexed: indexed}
	t.alloc(max(16, 2<<bits.Len(uint(capacity))))
	return t
}

func (t *visitedTable[A]) alloc(size int) {
	t.keys = make([]uint64, size)
	t.visits = make([]visit[A], size)
	if t.indexed {
		t.index = make([]uint32, size)
	}
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.mask = uint64(size - 1)
}

// home is the first slot probed for fp (Fibonacci hashing, so that weak
// fingerprints such as small integers still spread).
func (t *visitedTable[A]) home(fp uint64) uint64 {
	return (fp * 0x9e3779b97f4a7c15) >> t.shift
}

// contains reports whether fp is stored.
func (t *visitedTable[A]) contains(fp uint64) bool {
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

// get returns the visit stored for fp, which must be stored.
func (t *visitedTable[A]) get(fp uint64) visit[A] {
	if fp == 0 {
		return t.zero
	}
	i := t.home(fp)
	for t.keys[i] != fp {
		i = (i + 1) & t.mask
	}
	return t.visits[i]
}

// find reports whether fp is stored and, in an indexed table, its
// insertion number.
func (t *visitedTable[A]) find(fp uint64) (idx uint32, ok bool) {
	if fp == 0 {
		return t.zeroIdx, t.hasZero
	}
	for i := t.home(fp); ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case fp:
			return t.index[i], true
		case 0:
			return 0, false
		}
	}
}

// fingerprintAt returns the fingerprint with insertion number idx in an
// indexed table; idx must be < n. It scans the whole table.
func (t *visitedTable[A]) fingerprintAt(idx uint32) uint64 {
	if t.hasZero && t.zeroIdx == idx {
		return 0
	}
	for i, fp := range t.keys {
		if fp != 0 && t.index[i] == idx {
			return fp
		}
	}
	panic("model: no stored state has this index")
}

// insert stores fp with v and reports true, or reports false if fp is
// already stored. In an indexed table the new entry's insertion number is
// the previous n.
func (t *visitedTable[A]) insert(fp uint64, v visit[A]) bool {
	if fp == 0 {
		if t.hasZero {
			return false
		}
		t.hasZero, t.zero, t.zeroIdx = true, v, uint32(t.n)
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
	t.keys[i], t.visits[i] = fp, v
	if t.indexed {
		t.index[i] = uint32(t.n)
	}
	t.n++
	return true
}

// grow doubles the table and rehashes its entries.
func (t *visitedTable[A]) grow() {
	keys, visits, index := t.keys, t.visits, t.index
	t.alloc(2 * len(keys))
	for j, fp := range keys {
		if fp == 0 {
			continue
		}
		i := t.home(fp)
		for t.keys[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.keys[i], t.visits[i] = fp, visits[j]
		if t.indexed {
			t.index[i] = index[j]
		}
	}
}
