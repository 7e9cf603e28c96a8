package spec

// rankView bundles what every operation on one rank needs: the
// configuration, the state being changed and the rank index.
type rankView struct {
	cfg   *Config
	fixes Fixes
	s     *State
	r     uint8
	rank  *Rank
	cov   *Coverage // nil: no coverage collected
}

// view returns the rank view of rank r with no fix applied (tests and
// invariants read through it).
func (s *State) view(cfg *Config, r uint8) rankView {
	return rankView{cfg: cfg, s: s, r: r, rank: &s.Ranks[r]}
}

// view returns the rank view of rank r of s under the spec's fixes.
func (sp *Spec) view(s *State, r uint8) rankView {
	return rankView{cfg: &sp.Config, fixes: sp.Fixes, s: s, r: r, rank: &s.Ranks[r], cov: sp.Cover}
}

// draftPool is the draft pool mode as this rank sees it: NoDraftPool on a
// pipeline stage that hosts no draft layer.
func (v rankView) draftPool() DraftPoolMode {
	if !v.cfg.hasPool(v.r, Draft) {
		return NoDraftPool
	}
	return v.cfg.DraftPool
}

// pool returns pool p of the rank.
func (v rankView) pool(p PoolKind) *Pool { return &v.rank.Pools[p] }

// cache returns the kv_cache_map entry of id in pool p (Status Absent if
// none).
func (v rankView) cache(p PoolKind, id uint8) *Cache { return &v.rank.Pools[p].Caches[id] }

// family returns the prompt family of request id; the ADP dummy has none.
func (v rankView) family(id uint8) uint8 {
	if id == 0 || int(id) > len(v.cfg.Requests) {
		return NoFamily
	}
	return v.cfg.template(id).Family
}

// shareableBlocks is the number of leading prompt blocks of request id that
// other requests of its family can reuse: full blocks of the shared prefix.
func (v rankView) shareableBlocks(id uint8) uint8 {
	if id == 0 || v.family(id) == NoFamily {
		return 0
	}
	return v.cfg.template(id).SharedPrefix / v.cfg.TokensPerBlock
}

// heldBlocks is the number of GPU pages cache c holds privately: its blocks
// minus the reuse-tree blocks it references minus those evicted to host.
func (v rankView) heldBlocks(c *Cache) uint8 {
	return v.cfg.blocksFor(c.Capacity) - c.Shared - c.Offloaded
}

// referencedTreeBlocks is the number of leading tree blocks of family f that
// some live cache of pool p references.
func (v rankView) referencedTreeBlocks(p PoolKind, f uint8) uint8 {
	var most uint8
	pool := v.pool(p)
	for id := range pool.Caches {
		c := &pool.Caches[id]
		if c.Status != Absent && v.family(uint8(id)) == f && c.Shared > most {
			most = c.Shared
		}
	}
	return most
}

// droppableBlocks counts tree blocks no live cache references: the radix
// tree keeps them for reuse but drops them when pages run short.
func (v rankView) droppableBlocks(p PoolKind) int {
	n := 0
	pool := v.pool(p)
	for f := uint8(0); f < MaxFamilies; f++ {
		n += int(pool.Tree[f]) - int(v.referencedTreeBlocks(p, f))
	}
	return n
}

// evictableBlocks counts GPU pages of suspended caches other than except
// that can move to the host tier now: their held pages, up to the host
// tier's free pages (none without a tier below GPU). A full host tier
// takes nothing more (the spec models no tier below host).
func (v rankView) evictableBlocks(p PoolKind, except uint8) int {
	hostFree := v.hostFreeBlocks(p)
	if hostFree == 0 {
		return 0
	}
	n := 0
	pool := v.pool(p)
	for id := range pool.Caches {
		c := &pool.Caches[id]
		if uint8(id) != except && c.Status == Suspended {
			n += int(v.heldBlocks(c))
		}
	}
	return min(n, hostFree)
}

// hostFreeBlocks is the host tier's free pages for pool p: its size
// (Config.hostBlocksOn) less the pages caches have offloaded to it.
func (v rankView) hostFreeBlocks(p PoolKind) int {
	free := int(v.cfg.hostBlocksOn(v.r, p))
	pool := v.pool(p)
	for id := range pool.Caches {
		free -= int(pool.Caches[id].Offloaded)
	}
	return max(free, 0)
}

// noCache is an ID no cache has, for "no exception" in evictableBlocks.
const noCache = 0xff

// allocatePages takes n GPU pages in pool p for request except, the way the
// storage manager does: free pages first, then unreferenced reuse-tree
// blocks (dropped from the tail), then pages of suspended caches evicted to
// the host tier (lowest request ID first, standing in for LRU). It fails
// with no change when even that is not enough (OutOfPagesError caught by the
// caller, reference §1.3 step 6).
func (v rankView) allocatePages(p PoolKind, n int, except uint8) bool {
	pool := v.pool(p)
	if int(pool.Free) >= n {
		pool.Free -= uint8(n)
		return true
	}
	need := n - int(pool.Free)
	if v.droppableBlocks(p)+v.evictableBlocks(p, except) < need {
		return false
	}
	for f := uint8(0); f < MaxFamilies && need > 0; f++ {
		ref := v.referencedTreeBlocks(p, f)
		for pool.Tree[f] > ref && need > 0 {
			v.hit(brDropTreeBlock)
			pool.Tree[f]--
			pool.Free++
			need--
		}
	}
	for id := range pool.Caches {
		if need == 0 {
			break
		}
		c := &pool.Caches[id]
		if uint8(id) == except || c.Status != Suspended || !v.cfg.HostTier {
			continue
		}
		take := min(int(v.heldBlocks(c)), need, v.hostFreeBlocks(p))
		if take > 0 {
			v.hit(brEvictToHost)
		}
		c.Offloaded += uint8(take)
		pool.Free += uint8(take)
		need -= take
	}
	pool.Free -= uint8(n)
	return true
}

// utilizationAbove reports whether pool p's GPU utilization exceeds
// max_util_for_resume (the resume gate, _KVCache.resume via the storage
// manager's get_utilization, _storage_manager.py at 00f6bd6): (total − free
// − evictable) / total, where evictable pages are unreferenced reuse-tree
// blocks and, with a tier below GPU, the held pages of suspended caches
// (as many as the host tier can take).
func (v rankView) utilizationAbove(p PoolKind) bool {
	total := int(v.cfg.poolBlocksOn(v.r, p))
	used := total - int(v.pool(p).Free) - v.droppableBlocks(p) - v.evictableBlocks(p, noCache)
	return used*100 > int(v.cfg.ResumeGatePercent)*total
}

// liveCaches counts kv_cache_map entries of pool p: each holds an
// IndexMapper slot.
func (v rankView) liveCaches(p PoolKind) int {
	n := 0
	for id := range v.pool(p).Caches {
		if v.pool(p).Caches[id].Status != Absent {
			n++
		}
	}
	return n
}
