package model

import "testing"

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
