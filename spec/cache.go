package spec

// This file models one request's _KVCache in one pool: the core of
// tensorrt_llm/runtime/kv_cache_manager_v2 (Python backend
// _core/_kv_cache.py at 00f6bd6, C++ KvCache in kvCache.cpp), reference §1.

// createCache is KVCacheManagerV2._create_kv_cache: a new cache, born
// SUSPENDED, whose three lengths equal the reused prefix (reuseBlocks full
// blocks matched in the radix tree; 0 when tokens=None). It returns false,
// like the real None, when every IndexMapper slot of the pool is taken.
func (v rankView) createCache(p PoolKind, id uint8, reuseBlocks uint8) bool {
	if v.liveCaches(p) >= int(v.cfg.indexSlots(p)) {
		v.hit(brIndexMapperFull)
		return false
	}
	if reuseBlocks > 0 {
		v.hit(brCreateWithReuse)
	}
	tokens := reuseBlocks * v.cfg.TokensPerBlock
	*v.cache(p, id) = Cache{
		Status:      Suspended,
		Incarnation: v.rank.Requests[id].Incarnation,
		Capacity:    tokens,
		History:     tokens,
		Committed:   tokens,
		Shared:      reuseBlocks,
		Flags:       flagNeverResumed,
	}
	return true
}

// resumeCache is _KVCache.resume: SUSPENDED → ACTIVE. It refuses (False, no
// change) when the pool's utilization is above max_util_for_resume, or when
// pages evicted to the host tier cannot be brought back.
func (v rankView) resumeCache(p PoolKind, id uint8) bool {
	c := v.cache(p, id)
	if c.Status != Suspended {
		return c.Status == Active
	}
	if v.utilizationAbove(p) {
		v.hit(brResumeRefusedGate)
		return false
	}
	if c.Offloaded > 0 {
		if !v.allocatePages(p, int(c.Offloaded), id) {
			v.hit(brResumeHostRefused)
			return false
		}
		v.hit(brResumeFromHost)
		c.Offloaded = 0
	}
	c.Status = Active
	c.Flags &^= flagNeverResumed
	return true
}

// suspendCache is _KVCache.suspend: ACTIVE → SUSPENDED. Pages stay held on
// GPU; with a host tier they become evictable.
func (v rankView) suspendCache(p PoolKind, id uint8) {
	c := v.cache(p, id)
	if c.Status == Active {
		c.Status = Suspended
	}
}

// resizeCache is _KVCache.resize(capacity, history) (reference §1.3), with
// keepCapacity / keepHistory standing for None. It raises (returns an
// ErrorText) on "History length cannot be decreased" and "History length
// cannot exceed capacity" before any allocation, and returns false with no
// change when pages are short.
func (v rankView) resizeCache(p PoolKind, id uint8, capacity int, history int) (bool, ErrorText) {
	c := v.cache(p, id)
	if c.Status != Active {
		return false, ErrResizeNotActive
	}
	if capacity == keep {
		capacity = int(c.Capacity)
	}
	if history == keep {
		history = int(c.History)
	}
	if history < int(c.History) {
		return false, ErrHistoryDecreased
	}
	if capacity < history {
		return false, ErrHistoryExceedsCapacity
	}
	if capacity > MaxTokens {
		capacity = MaxTokens
	}
	oldBlocks := int(v.cfg.blocksFor(c.Capacity))
	newBlocks := int(v.cfg.blocksFor(uint8(capacity)))
	if newBlocks > oldBlocks {
		if !v.allocatePages(p, newBlocks-oldBlocks, id) {
			v.hit(brResizeOutOfPages)
			return false, ErrNone
		}
	} else if newBlocks < oldBlocks {
		v.hit(brResizeFreesPages)
		v.pool(p).Free += uint8(oldBlocks - newBlocks)
	}
	c.Capacity = uint8(capacity)
	c.History = uint8(history)
	return true, ErrNone
}

// keep stands for None in resize(capacity=None, history=None).
const keep = -1

// commitCache is _KVCache.commit up to upTo tokens followed by
// stop_committing when last: committed tokens grow, history is bumped to
// them, and each newly full block of the family's shared prefix is
// published in the radix tree when it extends the tree's chain (a block
// already in the tree enters VIRTUAL_STOP: the cache keeps its own copy).
func (v rankView) commitCache(p PoolKind, id uint8, upTo uint8, last bool) {
	c := v.cache(p, id)
	if c.Status != Active || c.Flags&flagStopCommitting != 0 {
		return
	}
	if upTo > c.Committed {
		c.Committed = upTo
	}
	if c.History < c.Committed {
		c.History = c.Committed
	}
	f := v.family(id)
	if f != NoFamily {
		pool := v.pool(p)
		full := min(c.Committed/v.cfg.TokensPerBlock, v.shareableBlocks(id))
		for c.Shared < full && pool.Tree[f] == c.Shared && c.Offloaded == 0 {
			v.hit(brCommitPublishes)
			pool.Tree[f]++
			c.Shared++
		}
		if c.Shared < full && pool.Tree[f] > c.Shared {
			v.hit(brCommitVirtualStop)
		}
	}
	if last {
		c.Flags |= flagStopCommitting
	}
}

// closeCache is _KVCache.close plus the IndexMapper slot release of
// KVCacheManagerV2.free_resources: private pages go back to the pool,
// published blocks stay in the tree (droppable once unreferenced), and the
// entry leaves kv_cache_map together with its _allocated_draft_lens entry.
func (v rankView) closeCache(p PoolKind, id uint8) {
	c := v.cache(p, id)
	if c.Status == Absent {
		return
	}
	v.pool(p).Free += v.heldBlocks(c)
	*c = Cache{}
}
