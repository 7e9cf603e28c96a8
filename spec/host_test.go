package spec

import "testing"

// hostFixture is a one-rank spec with a host tier of hostBlocks pages
// (0: as many as on GPU) and a target pool of 8 pages: request 1 holds 4
// pages suspended, request 2 is active with 4.
func hostFixture(t *testing.T, hostTier bool, hostBlocks uint32) (rankView, *State) {
	t.Helper()
	cfg := testConfig()
	cfg.HostTier, cfg.HostBlocks = hostTier, hostBlocks
	_, s, v := fixture(t, cfg)
	v.rank.Requests[1].State, v.rank.Requests[2].State = ContextInit, ContextInit
	*v.cache(Target, 1) = Cache{Status: Suspended, Incarnation: 1, Capacity: 16, History: 16}
	*v.cache(Target, 2) = Cache{Status: Active, Incarnation: 1, Capacity: 16, History: 16}
	v.pool(Target).Free = 0
	return v, s
}

// TestBoundedHostTier covers correction 2: the host tier has a size
// (auto-provisioned like the GPU pool, KVCacheManagerV2.__init__ at
// 00746ef, or host_blocks), eviction of a suspended cache's held pages to
// it stops when it is full, and the resume gate (get_utilization,
// _storage_manager.py at 00f6bd6) counts the pages that could still be
// evicted as not in use.
func TestBoundedHostTier(t *testing.T) {
	for _, tt := range []struct {
		name       string
		hostTier   bool
		hostBlocks uint32
		grow       int // pages request 2 asks for
		ok         bool
		offloaded  uint8
		gateAt50   bool // utilization above 50 % after the attempt
	}{
		{"no host tier: nothing to evict", false, 0, 2, false, 0, true},
		{"auto-sized host tier takes all 4 pages", true, 0, 4, true, 4, true},
		{"2-page host tier takes 2", true, 2, 2, true, 2, true},
		{"2-page host tier cannot take 3", true, 2, 3, false, 0, true},
	} {
		v, _ := hostFixture(t, tt.hostTier, tt.hostBlocks)
		ok := v.core(Target).allocatePages(tt.grow, 2)
		if ok != tt.ok || v.cache(Target, 1).Offloaded != tt.offloaded {
			t.Errorf("%s: allocate %d pages = %v with %d offloaded; want %v, %d", tt.name, tt.grow, ok, v.cache(Target, 1).Offloaded, tt.ok, tt.offloaded)
		}
		v.cfg.ResumeGatePercent = 50
		if got := v.utilizationAbove(Target); got != tt.gateAt50 {
			t.Errorf("%s: utilization above 50%% = %v, want %v", tt.name, got, tt.gateAt50)
		}
	}
}

// TestResumeGateCountsEvictablePages: with a host tier, a suspended
// cache's held pages count as evictable in the resume gate, so a pool
// whose only use is suspended caches is not "full" (correction 2).
func TestResumeGateCountsEvictablePages(t *testing.T) {
	for _, hostTier := range []bool{false, true} {
		v, _ := hostFixture(t, hostTier, 0)
		v.closeCache(Target, 2)
		v.pool(Target).Free = 4
		v.cfg.ResumeGatePercent = 40
		if got := v.utilizationAbove(Target); got != !hostTier {
			t.Errorf("host tier %v: utilization above 40%% = %v, want %v", hostTier, got, !hostTier)
		}
	}
}
