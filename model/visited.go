package model

import (
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// visitedShardBits sets the number of shards of a visitedSet.
const visitedShardBits = 6

// visitedSet is the search's set of stored fingerprints, with each state's
// index (discovery number) when the liveness analysis needs to map a
// fingerprint to its state. Everything else the search remembers of a
// state (how it was reached) is in parentLinks, by index.
//
// It is split into 64 shards by the fingerprint's top bits, each an
// open-addressing table with linear probing kept at most 4/5 full and
// grown by half on its own, so that between growths it is 53–80 % full
// (8 bytes a slot: 10–15 bytes a state), growth is gradual (one shard at
// a time, so the transient copy is 1/64 of the table), and the table never
// needs a size hint. Slots are found by multiplying (Lemire's fastrange),
// so a shard can have any size. During a merge each worker owns the shards whose number is its own
// modulo the worker count, so the workers insert in parallel without locks.
//
// Reads (contains, lookup) are safe concurrently when nothing inserts.
// While several workers expand, the first one stores its successors as it
// goes (insertShared, growing a shard by publishing its new table whole,
// visitedShard.shared) and the others read the set with contains: atomic
// loads and stores, so that what a reader sees is either the slot before
// the store or after it.
type visitedSet struct {
	shards  [1 << visitedShardBits]visitedShard
	withIdx bool
}

type visitedShard struct {
	keys []uint64 // fingerprints; 0 marks an empty slot
	// shared is keys as the workers that read the set while the first
	// worker stores (contains, prefetchShared) see it: a shard that grows
	// then is published here whole, and its old table, which they may
	// still be reading, is kept in retired until the insert phase.
	shared  atomic.Pointer[[]uint64]
	retired [][]uint64
	idx     []uint32 // with withIdx: idx[i] goes with keys[i]
	n       int
	hasZero bool // fingerprint 0 is stored (out of band)
	zeroIdx uint32
	_       [64]byte // keeps shards owned by different workers off each other's cache lines
}

// mappedWords is the size from which allocWords maps memory (32 KiB),
// where it maps memory (bigmem_unix.go), and from which a released set
// frees a shard rather than keeping it for the next search.
const mappedWords = 4096

// visitedInitialSlots is each shard's initial size.
const visitedInitialSlots = 64

func newVisitedSet(withIdx bool) *visitedSet {
	v := &visitedSet{withIdx: withIdx}
	for i := range v.shards {
		v.shards[i].alloc(visitedInitialSlots, withIdx)
		v.shards[i].publish()
	}
	return v
}

// mixFP spreads a fingerprint (Fibonacci hashing), so that weak
// fingerprints such as small integers still fill every shard.
func mixFP(fp uint64) uint64 { return fp * 0x9e3779b97f4a7c15 }

// shardOf returns the shard fp belongs to.
func shardOf(fp uint64) int { return int(mixFP(fp) >> (64 - visitedShardBits)) }

func (t *visitedShard) alloc(size int, withIdx bool) {
	t.keys = allocWords(size)
	if withIdx {
		t.idx = allocUint32s(size)
	}
}

// publish makes the shard's keys the ones that readers alongside
// insertShared see (contains, prefetchShared), once it is filled.
func (t *visitedShard) publish() {
	keys := t.keys
	t.shared.Store(&keys)
}

// home is fp's first slot: the mixed bits below the shard number, scaled
// to the shard's size.
func (t *visitedShard) home(fp uint64) int {
	hi, _ := bits.Mul64(mixFP(fp)<<visitedShardBits, uint64(len(t.keys)))
	return int(hi)
}

// full reports whether the shard must grow before one more insert.
func (t *visitedShard) full() bool { return 5*(t.n+1) > 4*len(t.keys) }

// len returns the number of stored fingerprints.
func (v *visitedSet) len() int {
	n := 0
	for i := range v.shards {
		n += v.shards[i].n
	}
	return n
}

// bytes returns the memory the tables hold.
func (v *visitedSet) bytes() int64 {
	var b int64
	for i := range v.shards {
		b += int64(cap(v.shards[i].keys))*8 + int64(cap(v.shards[i].idx))*4
	}
	return b
}

// touch loads the home slot of each of fps and returns a value that
// depends on them: independent loads whose cache misses the processor
// overlaps, so that the probes that follow find the slots in cache.
func (v *visitedSet) touch(fps []uint64) (x uint64) {
	for _, fp := range fps {
		t := &v.shards[shardOf(fp)]
		x ^= t.keys[t.home(fp)]
	}
	return x
}

// prefetch starts loading the home slot of each of fps without waiting
// for them (see prefetch): for probes that come after more work than a
// load's wait would hold up, such as the single worker's pipelined
// insertion (search.keepHeld).
func (v *visitedSet) prefetch(fps []uint64) {
	for _, fp := range fps {
		t := &v.shards[shardOf(fp)]
		prefetch(unsafe.Pointer(&t.keys[t.home(fp)]))
	}
}

// prefetchShared is prefetch for a worker that reads the set while the
// first worker stores in it (see contains).
func (v *visitedSet) prefetchShared(fps []uint64) {
	for _, fp := range fps {
		h := mixFP(fp)
		keys, i := v.shards[h>>(64-visitedShardBits)].sharedHome(h)
		prefetch(unsafe.Pointer(&keys[i]))
	}
}

// sharedHome returns the shard's published table (shared) and the home
// slot in it of the fingerprint whose mixed bits are h.
func (t *visitedShard) sharedHome(h uint64) (keys []uint64, i int) {
	keys = *t.shared.Load()
	hi, _ := bits.Mul64(h<<visitedShardBits, uint64(len(keys)))
	return keys, int(hi)
}

// prefetchOne is prefetch for one fingerprint.
func (v *visitedSet) prefetchOne(fp uint64) {
	t := &v.shards[shardOf(fp)]
	prefetch(unsafe.Pointer(&t.keys[t.home(fp)]))
}

// contains reports whether fp is stored. It reads only the keys, through
// shared, and loads them atomically (on amd64 a plain load), so that it
// may run alongside insertShared: it may then miss a fingerprint being
// stored at that moment, or stored in a table grown since it loaded the
// shard's, which the insert phase then finds stored. insertShared never
// stores 0, which is kept out of band.
func (v *visitedSet) contains(fp uint64) bool {
	h := mixFP(fp)
	t := &v.shards[h>>(64-visitedShardBits)]
	if fp == 0 {
		return t.hasZero
	}
	keys, i := t.sharedHome(h)
	for {
		switch atomic.LoadUint64(&keys[i]) {
		case fp:
			return true
		case 0:
			return false
		}
		if i++; i == len(keys) {
			i = 0
		}
	}
}

// insertShared is insert for the one worker that stores while the others
// read (contains), without indices: it stores fp and reports true,
// reports false if fp is stored, or, when fp is 0 (stored out of band),
// reports deferred and leaves it to the insert phase. A shard that must
// grow grows here, keeping its old table for the readers (shared).
func (v *visitedSet) insertShared(fp uint64) (stored, deferred bool) {
	t := &v.shards[shardOf(fp)]
	if fp == 0 {
		return false, !t.hasZero
	}
	i := t.home(fp)
	for ; t.keys[i] != 0; i = t.after(i) {
		if t.keys[i] == fp {
			return false, false
		}
	}
	if t.full() {
		t.grow(v.withIdx, true)
		for i = t.home(fp); t.keys[i] != 0; i = t.after(i) {
		}
	}
	atomic.StoreUint64(&t.keys[i], fp)
	t.n++
	return true, false
}

// reserveShared is, for the first worker while the others read the set,
// growing ahead of need: it grows each shard that could not take room
// more fingerprints and stay below its own fill limit, between 65 % and
// 80 % by the shard's number, keeping the old tables for the readers
// (shared). The limits differ so that the shards, which fill at about the
// same pace, grow in different rounds: a round in which the first worker
// grew many would hold the others up at its end, as would a shard left
// to grow in the insert phase, where every worker waits for the last.
func (v *visitedSet) reserveShared(room int) {
	for i := range v.shards {
		t := &v.shards[i]
		for 100*(t.n+room) > (80-i%16)*len(t.keys) {
			t.grow(v.withIdx, true)
		}
	}
}

// freeRetired frees the tables that the shards i with i mod n = me
// replaced while others could read them: those a worker owns in the
// insert phase, where nothing reads the set.
func (v *visitedSet) freeRetired(me, n int) {
	for i := me; i < len(v.shards); i += n {
		t := &v.shards[i]
		for j, keys := range t.retired {
			freeWords(keys)
			t.retired[j] = nil
		}
		t.retired = t.retired[:0]
	}
}

// lookup returns fp's index (0 without withIdx) and whether it is stored.
func (v *visitedSet) lookup(fp uint64) (uint32, bool) {
	t := &v.shards[shardOf(fp)]
	if fp == 0 {
		return t.zeroIdx, t.hasZero
	}
	for i := t.home(fp); ; {
		switch t.keys[i] {
		case fp:
			if t.idx != nil {
				return t.idx[i], true
			}
			return 0, true
		case 0:
			return 0, false
		}
		if i++; i == len(t.keys) {
			i = 0
		}
	}
}

// insert stores fp with index idx and reports true, or reports false and
// leaves the set unchanged if fp is stored. Concurrent inserts must go to
// different shards.
func (v *visitedSet) insert(fp uint64, idx uint32) bool {
	t := &v.shards[shardOf(fp)]
	if fp == 0 {
		if t.hasZero {
			return false
		}
		t.hasZero, t.zeroIdx = true, idx
		t.n++
		return true
	}
	if t.full() {
		t.grow(v.withIdx, false)
	}
	i := t.home(fp)
	for ; t.keys[i] != 0; i = t.after(i) {
		if t.keys[i] == fp {
			return false
		}
	}
	t.keys[i] = fp
	if t.idx != nil {
		t.idx[i] = idx
	}
	t.n++
	return true
}

// setIdx changes the index stored with fp, which must be stored.
func (v *visitedSet) setIdx(fp uint64, idx uint32) {
	t := &v.shards[shardOf(fp)]
	if fp == 0 {
		t.zeroIdx = idx
		return
	}
	i := t.home(fp)
	for t.keys[i] != fp {
		i = t.after(i)
	}
	t.idx[i] = idx
}

// after returns the slot probed after i.
func (t *visitedShard) after(i int) int {
	if i++; i == len(t.keys) {
		return 0
	}
	return i
}

// grow makes the shard half as large again and rehashes its entries. With
// retire, it keeps its old table in retired, for readers that may still be
// reading it, instead of freeing it.
func (t *visitedShard) grow(withIdx, retire bool) {
	keys, idx := t.keys, t.idx
	t.alloc(len(keys)/16*24, withIdx)
	for j, fp := range keys {
		if fp == 0 {
			continue
		}
		i := t.home(fp)
		for t.keys[i] != 0 {
			i = t.after(i)
		}
		t.keys[i] = fp
		if withIdx {
			t.idx[i] = idx[j]
		}
	}
	t.publish()
	if retire {
		t.retired = append(t.retired, keys)
	} else {
		freeWords(keys)
	}
	freeUint32s(idx)
}

// release empties the set for another search and reports true, keeping
// the shards that live on the Go heap (fewer than mappedWords slots) and
// giving the mapped ones back to the operating system; or, when most
// shards are mapped (a large search), frees it all and reports false. A
// released set holds no mapped memory, so the garbage collector may drop
// it.
func (v *visitedSet) release() bool {
	v.freeRetired(0, 1)
	mapped := 0
	for i := range v.shards {
		if len(v.shards[i].keys) >= mappedWords {
			mapped++
		}
	}
	if mapped > len(v.shards)/2 {
		v.free()
		return false
	}
	for i := range v.shards {
		t := &v.shards[i]
		if len(t.keys) >= mappedWords || len(t.idx) >= 2*mappedWords {
			freeWords(t.keys)
			freeUint32s(t.idx)
			t.keys, t.idx = nil, nil
			t.shared.Store(nil)
		} else {
			clear(t.keys)
		}
		t.n, t.hasZero, t.zeroIdx = 0, false, 0
	}
	return true
}

// reuse readies a released set for a search, with indices when withIdx.
func (v *visitedSet) reuse(withIdx bool) {
	for i := range v.shards {
		t := &v.shards[i]
		switch {
		case t.keys == nil:
			t.alloc(visitedInitialSlots, withIdx)
			t.publish()
		case withIdx && t.idx == nil:
			t.idx = allocUint32s(len(t.keys))
		case !withIdx && t.idx != nil:
			freeUint32s(t.idx)
			t.idx = nil
		}
	}
	v.withIdx = withIdx
}

// free returns the tables' memory to the operating system; the set must
// not be used afterwards.
func (v *visitedSet) free() {
	v.freeRetired(0, 1)
	for i := range v.shards {
		t := &v.shards[i]
		freeWords(t.keys)
		freeUint32s(t.idx)
		t.keys, t.idx, t.n = nil, nil, 0
		t.shared.Store(nil)
	}
}

// allocUint32s returns n zeroed uint32s from allocWords.
func allocUint32s(n int) []uint32 {
	w := allocWords((n + 1) / 2)
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&w[0])), 2*len(w))[:n]
}

// freeUint32s frees what allocUint32s returned.
func freeUint32s(s []uint32) {
	if cap(s) == 0 {
		return
	}
	freeWords(unsafe.Slice((*uint64)(unsafe.Pointer(&s[:1][0])), cap(s)/2))
}
