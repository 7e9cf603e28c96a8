package model

import (
	"slices"
	"testing"
)

// TestVisitedSetReleaseAndReuse: a released set is empty, holds no mapped
// shard, and works again after reuse with or without indices; a set whose
// shards are mostly mapped is freed instead.
func TestVisitedSetReleaseAndReuse(t *testing.T) {
	fp := func(i int) uint64 { return uint64(i) * 0x9e3779b97f4a7c15 }
	fill := func(v *visitedSet, n int) {
		for i := 1; i <= n; i++ {
			if !v.insert(fp(i), uint32(i)) {
				t.Fatalf("fingerprint %d stored twice", i)
			}
		}
	}
	v := newVisitedSet(true)
	fill(v, 20000) // some shards grow past the initial size, none is mapped
	if !v.release() {
		t.Fatal("a set of heap shards was freed, not released")
	}
	if v.len() != 0 {
		t.Fatalf("a released set holds %d fingerprints", v.len())
	}
	for _, withIdx := range []bool{false, true, false} {
		v.reuse(withIdx)
		if (v.shards[0].idx != nil) != withIdx {
			t.Fatalf("reuse(%v): indices %v", withIdx, v.shards[0].idx != nil)
		}
		if v.contains(fp(5)) {
			t.Fatal("a released set still holds a fingerprint")
		}
		fill(v, 3000)
		if withIdx {
			if idx, ok := v.lookup(fp(7)); !ok || idx != 7 {
				t.Fatalf("lookup after reuse: %d %v, want 7 true", idx, ok)
			}
		}
		if !v.release() {
			t.Fatal("freed, not released")
		}
	}
	// Past 64 × mappedWords × 4/5 fingerprints every shard is mapped.
	v.reuse(false)
	fill(v, 64*mappedWords)
	if v.release() {
		t.Fatal("a set of mapped shards was released, not freed")
	}
}

// TestInsertSharedGrows: the first worker's insertShared grows a full
// shard, publishing the grown table for the readers and keeping the old
// one, which still answers for what it held, until freeRetired; and
// reserveShared grows each shard below its own fill limit (65–80 % by its
// number), so shards 0 and 15 grow at different fills.
func TestInsertSharedGrows(t *testing.T) {
	v := newVisitedSet(false)
	var fps []uint64
	for i := uint64(1); len(fps) < 4*mappedWords; i++ {
		if fp := i * 0xff51afd7ed558ccd; shardOf(fp) == 0 {
			fps = append(fps, fp)
		}
	}
	sh := &v.shards[0]
	for i, fp := range fps {
		before := *sh.shared.Load()
		if stored, deferred := v.insertShared(fp); !stored || deferred {
			t.Fatalf("fingerprint %d: stored %v, deferred %v", i, stored, deferred)
		}
		if len(*sh.shared.Load()) != len(before) {
			if len(sh.retired) == 0 || &sh.retired[len(sh.retired)-1][0] != &before[0] {
				t.Fatalf("after %d stores the shard grew without keeping its old table", i+1)
			}
			for _, old := range fps[:i] {
				if !slices.Contains(before, old) {
					t.Fatalf("the retired table lost fingerprint %x", old)
				}
			}
		}
		if !v.contains(fp) {
			t.Fatalf("fingerprint %d not found after it was stored", i)
		}
	}
	if len(sh.retired) < 3 {
		t.Fatalf("%d tables retired after %d stores from %d slots; want several", len(sh.retired), len(fps), visitedInitialSlots)
	}
	v.freeRetired(0, len(v.shards))
	if len(sh.retired) != 0 {
		t.Fatalf("%d retired tables left after freeRetired", len(sh.retired))
	}
	for _, fp := range fps {
		if stored, _ := v.insertShared(fp); stored || !v.contains(fp) {
			t.Fatalf("fingerprint %x stored again or lost", fp)
		}
	}

	w := newVisitedSet(false)
	w.shards[0].n, w.shards[15].n = 40, 40 // 62.5 % of 64 slots
	w.reserveShared(10)                    // 78 %: above shard 15's 65 %, below shard 0's 80 %
	if len(w.shards[0].keys) != visitedInitialSlots || len(w.shards[15].keys) == visitedInitialSlots {
		t.Fatalf("reserveShared(10) at 40 of 64: shard 0 has %d slots, shard 15 %d; want 64 and more", len(w.shards[0].keys), len(w.shards[15].keys))
	}
}
