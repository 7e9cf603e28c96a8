package spec

// This file models one request's _KVCache in one pool: the core of
// tensorrt_llm/runtime/kv_cache_manager_v2 (Python backend
// _core/_kv_cache.py at 00f6bd6, C++ KvCache in kvCache.cpp), docs/reference.md, "The per-request cache",
// generic over the width of its counts (core.go).

// createSlot is KVCacheManagerV2._create_kv_cache: create, or false, like
// the real None, when every IndexMapper slot of the pool is taken.
func (c poolCore[T]) createSlot(id, incarnation uint8, reused T) bool {
	if c.liveCaches() >= int(c.cfg.indexSlots(c.p)) {
		c.hit(brIndexMapperFull)
		return false
	}
	c.create(id, incarnation, reused)
	return true
}

// create is the core's create_kv_cache: a new cache, born SUSPENDED, whose
// three lengths equal the reused prefix (reused tokens matched in the radix
// tree by reuse; 0 when tokens=None).
func (c poolCore[T]) create(id, incarnation uint8, reused T) {
	if reused > 0 {
		c.hit(brCreateWithReuse)
	}
	flags := uint8(flagNeverResumed)
	if reused%c.tpb() != 0 {
		flags |= flagPartialCopy
	}
	*c.cache(id) = CacheOf[T]{
		Status:      Suspended,
		Incarnation: incarnation,
		Capacity:    reused,
		History:     reused,
		Committed:   reused,
		Shared:      c.blocksFor(reused),
		Flags:       flags,
	}
}

// reuse is the radix-tree match of create_kv_cache(scope, tokens) for
// lookup tokens of request id's prompt (the manager's
// _context_reuse_tokens passes the prompt without its last token; the core
// drops the draft backoff), capped at limit tokens when limit >= 0 (the
// paired reuse claim). The match walks the family's published blocks: a
// block whose tokens equal the lookup's block (as many, all shared)
// matches whole and the walk goes on; otherwise, with enable_partial_reuse,
// the shared tokens of the first block that differs are reused too
// (KVCacheManagerConfig.enable_partial_reuse, _config.py at 0004396), and
// the walk stops.
func (c poolCore[T]) reuse(id uint8, lookup T, limit int) T {
	f := c.family(id)
	if f == NoFamily || lookup == 0 {
		return 0
	}
	tpb, shared := c.tpb(), c.sharedPrefix(id)
	nodes, tail := c.pool.Tree[f], c.pool.TreeTail[f]
	var matched T
	for i := T(0); i < nodes; i++ {
		start := i * tpb
		if start >= lookup {
			break
		}
		want := min(tpb, lookup-start)
		held := tpb
		if i == nodes-1 && tail > 0 {
			held = tail
		}
		var same T
		if shared > start {
			same = min(want, held, shared-start)
		}
		if same == want && want == held {
			matched = start + want
			continue
		}
		if c.cfg.PartialReuse {
			matched = start + same
		}
		break
	}
	if limit >= 0 && int(matched) > limit {
		matched = T(limit)
	}
	return matched
}

// resume is _KVCache.resume: SUSPENDED → ACTIVE. It refuses (False, no
// change) when the pool's utilization is above max_util_for_resume, or when
// the pages it needs cannot be had: evicted pages coming back from the host
// tier, and the fresh page a never-resumed cache copies its partially
// reused last block into.
func (c poolCore[T]) resume(id uint8) bool {
	x := c.cache(id)
	if x.Status != Suspended {
		return x.Status == Active
	}
	if c.utilizationAbove() {
		c.hit(brResumeRefusedGate)
		return false
	}
	copied := b2t[T](x.Flags&flagPartialCopy != 0)
	if need := x.Offloaded + copied; need > 0 {
		if !c.allocatePages(int(need), id) {
			if x.Offloaded > 0 {
				c.hit(brResumeHostRefused)
			}
			return false
		}
		if x.Offloaded > 0 {
			c.hit(brResumeFromHost)
		}
		x.Offloaded = 0
		x.Shared -= copied
	}
	x.Status = Active
	x.Flags &^= flagNeverResumed | flagPartialCopy
	return true
}

// suspend is _KVCache.suspend: ACTIVE → SUSPENDED. Pages stay held on GPU;
// with a host tier they become evictable.
func (c poolCore[T]) suspend(id uint8) {
	x := c.cache(id)
	if x.Status == Active {
		x.Status = Suspended
	}
}

// resize is _KVCache.resize(capacity, history) (docs/reference.md, "The per-request cache"), with keep
// standing for None. It raises (returns an ErrorText) on "History length
// cannot be decreased" and "History length cannot exceed capacity" before
// any allocation, and returns false with no change when pages are short.
func (c poolCore[T]) resize(id uint8, capacity int, history int) (bool, ErrorText) {
	x := c.cache(id)
	if x.Status != Active {
		return false, ErrResizeNotActive
	}
	if capacity == keep {
		capacity = int(x.Capacity)
	}
	if history == keep {
		history = int(x.History)
	}
	if history < int(x.History) {
		return false, ErrHistoryDecreased
	}
	if capacity < history {
		return false, ErrHistoryExceedsCapacity
	}
	capacity = min(capacity, maxTokens[T]())
	oldBlocks := int(c.blocksFor(x.Capacity))
	newBlocks := int(c.blocksFor(T(capacity)))
	if newBlocks > oldBlocks {
		if !c.allocatePages(newBlocks-oldBlocks, id) {
			c.hit(brResizeOutOfPages)
			return false, ErrNone
		}
	} else if newBlocks < oldBlocks {
		c.hit(brResizeFreesPages)
		c.pool.Free += T(oldBlocks - newBlocks)
	}
	x.Capacity = T(capacity)
	x.History = T(history)
	return true, ErrNone
}

// keep stands for None in resize(capacity=None, history=None).
const keep = -1

// commit is _KVCache.commit up to upTo tokens followed by stop_committing
// when last: committed tokens grow, history is bumped to them, and each
// newly full block of the family's shared prefix is published in the radix
// tree when it extends the tree's chain (a block already in the tree
// enters VIRTUAL_STOP: the cache keeps its own copy). A full block
// replaces the tree's partial last block, whose page is dropped, unless a
// cache still references it.
func (c poolCore[T]) commit(id uint8, upTo T, last bool) {
	x := c.cache(id)
	if x.Status != Active || x.Flags&flagStopCommitting != 0 {
		return
	}
	if upTo > x.Committed {
		x.Committed = upTo
	}
	if x.History < x.Committed {
		x.History = x.Committed
	}
	if f := c.family(id); f != NoFamily {
		pool := c.pool
		full := min(x.Committed/c.tpb(), c.shareableBlocks(id))
		for x.Shared < full && x.Offloaded == 0 {
			if pool.Tree[f] == x.Shared && pool.TreeTail[f] == 0 {
				c.hit(brCommitPublishes)
				pool.Tree[f]++
				x.Shared++
				continue
			}
			if pool.Tree[f] == x.Shared+1 && pool.TreeTail[f] > 0 && c.referencedTreeBlocks(f) <= x.Shared {
				pool.TreeTail[f] = 0
				pool.Free++
				x.Shared++
				continue
			}
			break
		}
		if x.Shared < full && pool.Tree[f] > x.Shared {
			c.hit(brCommitVirtualStop)
		}
	}
	if last {
		x.Flags |= flagStopCommitting
	}
}

// close is _KVCache.close plus the IndexMapper slot release of
// KVCacheManagerV2.free_resources: private pages go back to the pool,
// published blocks stay in the tree (droppable once unreferenced), and the
// entry leaves kv_cache_map together with its _allocated_draft_lens entry.
// Close's stop_committing publishes the committed tokens of a partial last
// block of the shared prefix: its page moves into the tree, replacing a
// narrower unreferenced partial block ("a slot keeps only the widest
// page"). Without partial reuse only a lookup that ends with exactly those
// tokens matches it.
func (c poolCore[T]) close(id uint8) {
	x := c.cache(id)
	if x.Status == Absent {
		return
	}
	held := c.heldBlocks(x)
	if moved := c.publishTail(id, x); moved {
		held--
	}
	c.pool.Free += held
	*x = CacheOf[T]{}
}

// publishTail publishes cache x's committed tokens past its shared blocks
// as the tree's partial last block, and reports whether x's page moved
// into the tree.
func (c poolCore[T]) publishTail(id uint8, x *CacheOf[T]) bool {
	f := c.family(id)
	if f == NoFamily || x.Offloaded > 0 || x.Shared >= c.shareableBlocks(id) {
		return false
	}
	tpb := c.tpb()
	tokens := min(x.Committed-min(x.Committed, x.Shared*tpb), tpb)
	if tokens == 0 || tokens == tpb || c.heldBlocks(x) == 0 {
		return false
	}
	pool := c.pool
	switch {
	case pool.Tree[f] == x.Shared && pool.TreeTail[f] == 0:
		pool.Tree[f]++
	case pool.Tree[f] == x.Shared+1 && pool.TreeTail[f] > 0 && pool.TreeTail[f] < tokens &&
		c.referencedTreeBlocks(f) <= x.Shared:
		// Equivalent mutant: "<= tokens" swaps in a page of the same width,
		// one page freed either way (pages have no identity here).
		pool.Free++
	default:
		return false
	}
	pool.TreeTail[f] = tokens
	return true
}

// Below, the explored spec's rankView reaches the core at uint8.

// core returns the core of pool p of the rank.
func (v rankView) core(p PoolKind) poolCore[uint8] {
	return poolCore[uint8]{cfg: v.cfg, r: v.r, p: p, pool: &v.rank.Pools[p], cov: v.cov}
}

// createCache creates request id's cache in pool p with reused tokens
// (poolCore.createSlot).
func (v rankView) createCache(p PoolKind, id uint8, reused uint8) bool {
	return v.core(p).createSlot(id, v.rank.Requests[id].Incarnation, reused)
}

func (v rankView) resumeCache(p PoolKind, id uint8) bool { return v.core(p).resume(id) }
func (v rankView) suspendCache(p PoolKind, id uint8)     { v.core(p).suspend(id) }
func (v rankView) closeCache(p PoolKind, id uint8)       { v.core(p).close(id) }

func (v rankView) resizeCache(p PoolKind, id uint8, capacity int, history int) (bool, ErrorText) {
	return v.core(p).resize(id, capacity, history)
}

func (v rankView) commitCache(p PoolKind, id uint8, upTo uint8, last bool) {
	v.core(p).commit(id, upTo, last)
}
