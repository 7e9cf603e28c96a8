package model

// roundSet is, with several workers, a worker's set of the fingerprints
// it made candidates of in the current round. A later successor of the
// worker's own chunk with one of them is a duplicate that cannot be new
// (the earlier one comes first in frontier order, and the worker's chunk
// is contiguous in it), so it is dropped as a stored one is, instead of
// being encoded and judged for the insert phase to discard: the
// interleavings of independent ranks make many such duplicates within a
// round. Open addressing, at most half full, cleared slot by slot.
type roundSet struct {
	keys    []uint64 // 0: empty
	used    []int32  // the slots in use, to clear
	hasZero bool
}

// add inserts fp and reports whether it was not there.
func (r *roundSet) add(fp uint64) bool {
	if fp == 0 {
		had := r.hasZero
		r.hasZero = true
		return !had
	}
	if 2*(len(r.used)+1) > len(r.keys) {
		r.grow()
	}
	mask := uint64(len(r.keys) - 1)
	for i := mixFP(fp) >> 32 & mask; ; i = (i + 1) & mask {
		switch r.keys[i] {
		case fp:
			return false
		case 0:
			r.keys[i] = fp
			r.used = append(r.used, int32(i))
			return true
		}
	}
}

// has reports whether fp is in the set.
func (r *roundSet) has(fp uint64) bool {
	if fp == 0 {
		return r.hasZero
	}
	if len(r.keys) == 0 {
		return false
	}
	mask := uint64(len(r.keys) - 1)
	for i := mixFP(fp) >> 32 & mask; ; i = (i + 1) & mask {
		switch r.keys[i] {
		case fp:
			return true
		case 0:
			return false
		}
	}
}

// grow doubles the table.
func (r *roundSet) grow() {
	old := r.keys
	r.keys = make([]uint64, max(1024, 2*len(old)))
	r.used = r.used[:0]
	mask := uint64(len(r.keys) - 1)
	for _, fp := range old {
		if fp == 0 {
			continue
		}
		i := mixFP(fp) >> 32 & mask
		for r.keys[i] != 0 {
			i = (i + 1) & mask
		}
		r.keys[i] = fp
		r.used = append(r.used, int32(i))
	}
}

// reset empties the set.
func (r *roundSet) reset() {
	for _, i := range r.used {
		r.keys[i] = 0
	}
	r.used = r.used[:0]
	r.hasZero = false
}
