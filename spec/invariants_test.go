package spec

import (
	"strings"
	"testing"
)

// TestInvariantsFire breaks each invariant in an otherwise healthy state and
// checks that exactly that invariant reports it, naming rank, pool and
// request.
func TestInvariantsFire(t *testing.T) {
	tests := []struct {
		invariant string
		breakIt   func(s *State, v rankView)
		want      string
	}{
		{InvNoCrash, func(s *State, v rankView) {
			s.crash(0, Draft, 2, FnPrepareDraftResources, ErrDraftContextResize, 12)
		}, "rank 0 draft pool request 2: _prepare_draft_resources raised RuntimeError: Draft KV cache context resize failed for request 2: could not resize to 12 tokens"},
		{InvHistoryWithinCapacity, func(s *State, v rankView) {
			v.cache(Target, 1).History = 9
		}, "rank 0 target pool request 1: committed 0, history 9, capacity 8"},
		{InvPoolConservation, func(s *State, v rankView) {
			v.pool(Draft).Free++
		}, "rank 0 draft pool: free 6 + held + tree blocks = 9, pool has 8"},
		{InvNoLeakedCache, func(s *State, v rankView) {
			v.request(1).State = Finished
		}, "rank 0 target pool holds a cache under request ID 1 (incarnation 1, capacity 8) but no live request"},
		{InvMirrorWithinTargetLife, func(s *State, v rankView) {
			v.closeCache(Target, 1)
		}, "rank 0 draft pool holds a mirror for request 1 (incarnation 1) whose target cache is gone"},
		{InvIndexSlots, func(s *State, v rankView) {
			for _, id := range []uint8{0, 2, 3} {
				v.cache(Draft, id).Status = Suspended
				v.cache(Draft, id).Incarnation = 1
			}
		}, "rank 0 draft pool: 4 live caches, IndexMapper has 3 slots"},
	}
	for _, tt := range tests {
		t.Run(tt.invariant, func(t *testing.T) {
			sp, s, v := fixture(t, testConfig())
			activeCache(t, v, Target, 1, 8, 0)
			activeCache(t, v, Draft, 1, 12, 0)
			for _, inv := range sp.Invariants() {
				if f := inv.Check(s); f != nil {
					t.Fatalf("healthy state breaks %s: %s", inv.Name, f.Message)
				}
			}
			tt.breakIt(s, v)
			for _, inv := range sp.Invariants() {
				f := inv.Check(s)
				if inv.Name != tt.invariant {
					continue
				}
				if f == nil {
					t.Fatalf("%s did not fire", tt.invariant)
				}
				if !strings.Contains(f.Message, tt.want) {
					t.Fatalf("%s message %q, want %q", tt.invariant, f.Message, tt.want)
				}
			}
		})
	}
}
