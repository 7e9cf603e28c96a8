package model

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// fibInverse is the inverse of the Fibonacci hashing multiplier modulo
// 2^64: fp = x*fibInverse gives fp*0x9e3779b97f4a7c15 = x, so fingerprints
// can be chosen by their hash.
var fibInverse = func() uint64 {
	const k = 0x9e3779b97f4a7c15
	inv := uint64(k) // correct to 3 bits; each step doubles them
	for range 5 {
		inv *= 2 - k*inv
	}
	return inv
}()

// colliding returns n distinct nonzero fingerprints whose hashes share their
// top 60 bits, so they have the same home slot in any table of up to 2^60
// slots.
func colliding(n int) []uint64 {
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = (0xabc<<52 | uint64(i)) * fibInverse
	}
	return fps
}

// checkTable compares t with the reference map want and checks that t is at
// most half full.
func checkTable(t *testing.T, tab *FingerprintTable[int], want map[uint64]int) {
	t.Helper()
	if tab.Len() != len(want) {
		t.Fatalf("Len() = %d, want %d", tab.Len(), len(want))
	}
	if 2*tab.Len() > len(tab.keys) {
		t.Fatalf("%d entries in %d slots: more than half full", tab.Len(), len(tab.keys))
	}
	for fp, v := range want {
		if !tab.Contains(fp) {
			t.Fatalf("Contains(%#x) = false", fp)
		}
		if got, ok := tab.Lookup(fp); !ok || got != v {
			t.Fatalf("Lookup(%#x) = %d, %v; want %d, true", fp, got, ok, v)
		}
		if got := tab.Get(fp); got != v {
			t.Fatalf("Get(%#x) = %d, want %d", fp, got, v)
		}
	}
	seen := make(map[uint64]bool)
	for fp, v := range tab.All() {
		if seen[fp] {
			t.Fatalf("All yields %#x twice", fp)
		}
		seen[fp] = true
		if w, ok := want[fp]; !ok || w != v {
			t.Fatalf("All yields %#x, %d; want %d (stored: %v)", fp, v, w, ok)
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("All yields %d entries, want %d", len(seen), len(want))
	}
}

// TestFingerprintTableHome checks the test's fingerprint generators: the
// colliding ones share their home slot, and the wrapping ones' home is the
// last slot.
func TestFingerprintTableHome(t *testing.T) {
	for _, capacity := range []int{0, 1000, 1 << 20} {
		tab := NewFingerprintTable[int](capacity)
		fps := colliding(10)
		for _, fp := range fps {
			if fp == 0 || tab.home(fp) != tab.home(fps[0]) {
				t.Fatalf("%d slots: colliding fingerprints %#x and %#x have homes %d and %d", len(tab.keys), fps[0], fp, tab.home(fps[0]), tab.home(fp))
			}
		}
		if last := ^uint64(0) * fibInverse; tab.home(last) != tab.mask {
			t.Fatalf("%d slots: home(%#x) = %d, want the last slot", len(tab.keys), last, tab.home(last))
		}
	}
}

func TestFingerprintTable(t *testing.T) {
	tests := []struct {
		name     string
		capacity int
		fps      []uint64
	}{
		{"empty", 0, nil},
		{"zero only", 0, []uint64{0}},
		{"small integers", 4, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"zero among others", 4, []uint64{5, 0, 1, 1 << 63, ^uint64(0)}},
		{"collisions", 100, colliding(40)},
		{"collisions with growth", 0, append(colliding(300), 0)},
		{"wrapping probes", 0, func() []uint64 {
			// hashes at the top of the hash space: their home is the last
			// slot, so probing wraps to slot 0.
			fps := make([]uint64, 12)
			for i := range fps {
				fps[i] = (^uint64(0) - uint64(i)) * fibInverse
			}
			return fps
		}()},
		{"growth", 0, func() []uint64 {
			r := rand.New(rand.NewPCG(1, 2))
			fps := make([]uint64, 5000)
			for i := range fps {
				fps[i] = r.Uint64()
			}
			return fps
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := NewFingerprintTable[int](tt.capacity)
			slots := len(tab.keys)
			want := make(map[uint64]int)
			for i, fp := range tt.fps {
				if tab.Contains(fp) {
					t.Fatalf("Contains(%#x) before Insert", fp)
				}
				if _, ok := tab.Lookup(fp); ok {
					t.Fatalf("Lookup(%#x) finds it before Insert", fp)
				}
				if !tab.Insert(fp, i+1) {
					t.Fatalf("Insert(%#x) = false for a new fingerprint", fp)
				}
				want[fp] = i + 1
				if tab.Insert(fp, -1) {
					t.Fatalf("Insert(%#x) = true for a stored fingerprint", fp)
				}
			}
			checkTable(t, tab, want)
			if len(tt.fps) <= tt.capacity && len(tab.keys) != slots {
				t.Errorf("grew from %d to %d slots below its capacity %d", slots, len(tab.keys), tt.capacity)
			}
			for _, fp := range []uint64{0, 11, 1 << 62, colliding(301)[300]} {
				if _, ok := want[fp]; ok {
					continue
				}
				if tab.Contains(fp) || tab.Get(fp) != 0 {
					t.Errorf("absent %#x: Contains = %v, Get = %d", fp, tab.Contains(fp), tab.Get(fp))
				}
			}

			tab.Reset()
			checkTable(t, tab, map[uint64]int{})
			clear(want)
			for i, fp := range tt.fps[len(tt.fps)/2:] {
				if !tab.Insert(fp, -i) {
					t.Fatalf("Insert(%#x) = false after Reset", fp)
				}
				want[fp] = -i
			}
			checkTable(t, tab, want)
		})
	}
}

// TestFingerprintTableAllOrder checks that All yields fingerprint 0 first
// and stops when asked.
func TestFingerprintTableAllOrder(t *testing.T) {
	tab := NewFingerprintTable[string](0)
	tab.Insert(7, "seven")
	tab.Insert(0, "zero")
	tab.Insert(9, "nine")
	var got []uint64
	for fp := range tab.All() {
		got = append(got, fp)
		if len(got) == 2 {
			break
		}
	}
	if len(got) != 2 || got[0] != 0 {
		t.Errorf("All yields %v, want 0 first and stop after two", got)
	}
}

// TestFingerprintTableReset checks that Reset keeps a small table's memory
// and gives a large one's back.
func TestFingerprintTableReset(t *testing.T) {
	small := NewFingerprintTable[int](100)
	slots := len(small.keys)
	small.Insert(1, 1)
	small.Reset()
	if len(small.keys) != slots || small.Contains(1) {
		t.Errorf("small table after Reset: %d slots (want %d), Contains(1) = %v", len(small.keys), slots, small.Contains(1))
	}
	large := NewFingerprintTable[int](1 << 17)
	large.Insert(0, 1)
	large.Reset()
	if len(large.keys) > 1<<16 || large.Contains(0) || large.Len() != 0 {
		t.Errorf("large table after Reset: %d slots, Contains(0) = %v, Len() = %d", len(large.keys), large.Contains(0), large.Len())
	}
}

// TestFingerprintTableParallelReads reads a table from several goroutines
// at once between sequential insertion phases, as Check and the fuzz
// workers do; run it with -race.
func TestFingerprintTableParallelReads(t *testing.T) {
	tab := NewFingerprintTable[uint64](0)
	fps := append([]uint64{0}, colliding(50)...)
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		fps = append(fps, r.Uint64())
	}
	stored := 0
	for phase := 1; stored < len(fps); phase++ {
		for ; stored < min(len(fps), phase*phase*40); stored++ {
			tab.Insert(fps[stored], ^fps[stored])
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := g; i < len(fps); i += 4 {
					fp := fps[i]
					v, ok := tab.Lookup(fp)
					if ok != (i < stored) || ok != tab.Contains(fp) || (ok && v != ^fp) || tab.Get(fp) != v {
						t.Errorf("phase %d, fingerprint %d of %d stored: Lookup = %#x, %v", phase, i, stored, v, ok)
						return
					}
				}
				n := 0
				for range tab.All() {
					n++
				}
				if n != tab.Len() || n != stored {
					t.Errorf("phase %d: All yields %d, Len() = %d, want %d", phase, n, tab.Len(), stored)
				}
			})
		}
		wg.Wait()
	}
}
