package spec

import "unsafe"

// This file holds the core of tensorrt_llm/runtime/kv_cache_manager_v2 as
// one implementation generic over the integer width of its token and page
// counts: uint8 in the explored state (State stays a compact value), uint32
// in the sequential model of one pool that `kvcheck lin` checks recorded
// histories against at their real sizes (tokens up to 2^31, pages up to
// 2^20). cache.go and pool.go give the explored spec's rankView the same
// operations at uint8.

// tokenCount is the integer width of a pool's token and page counts.
type tokenCount interface{ ~uint8 | ~uint32 }

// CacheOf is one request's _KVCache in one pool, with the manager's
// per-request bookkeeping for it (_allocated_draft_lens, the IndexMapper
// slot). Token counts are the three lengths of docs/reference.md, "The per-request cache".
type CacheOf[T tokenCount] struct {
	Status CacheStatus
	// Incarnation is the incarnation of the request that created the cache,
	// so a lookup by ID that reaches another incarnation's cache (the fixed
	// ADP dummy ID) is visible.
	Incarnation uint8
	Capacity    T
	History     T
	Committed   T
	// Shared is the number of leading blocks that are blocks of the pool's
	// reuse tree (matched at creation, or published by commit). A cache
	// that reused a prefix ending inside a block references that block too
	// until its first resume copies it (flagPartialCopy).
	Shared T
	// Offloaded is the number of private blocks evicted to the host tier.
	Offloaded T
	// Flags holds flagStopCommitting, flagNeverResumed, flagPartialCopy and
	// flagHistoryLags.
	Flags uint8
	// AllocatedDraft is _allocated_draft_lens[id] + 1; 0 means no entry.
	AllocatedDraft T
}

// PoolOf is one KV cache manager's page accounting on one rank.
type PoolOf[T tokenCount] struct {
	// Free is the number of GPU pages held by nobody.
	Free T
	// Tree is, per prompt family, the number of leading prefix blocks
	// published in the reuse radix tree (each held once by the tree).
	Tree [MaxFamilies]T
	// TreeTail is, per family, the token count of the tree's last block
	// when that block is partial (a closed cache's stop_committing published
	// it), 0 when the last block is full.
	TreeTail [MaxFamilies]T
	// Caches is kv_cache_map, indexed by request ID.
	Caches [MaxIDs]CacheOf[T]
}

const (
	flagStopCommitting = 1 << iota
	flagNeverResumed
	// flagPartialCopy: the cache reused a prefix ending inside a tree block
	// and has not been resumed yet; _KVCache.resume copies that block into
	// a fresh page (docs/reference.md, "The per-request cache").
	flagPartialCopy
	// flagHistoryLags: update_context_resources skipped this context
	// cache while it was suspended, so its history lags the context cursor
	// until its next update (a ghost of the spec's, for
	// cursor-history-agree; the real cache does not record it).
	flagHistoryLags
)

// poolCore is the core's view of one pool of one rank: the configuration
// it reads (tokens per block, pages, IndexMapper slots, the resume gate,
// the host tier, partial reuse, the request templates' prompt families)
// and the pool it changes.
type poolCore[T tokenCount] struct {
	cfg  *Config
	r    uint8
	p    PoolKind
	pool *PoolOf[T]
	cov  *Coverage // nil: no coverage collected
}

// hit counts branch b in the coverage sink, if any.
func (c poolCore[T]) hit(b Branch) { c.cov.hit(b) }

// maxTokens is the largest token count the width holds: MaxTokens in the
// compact state, 2^31 in the wide one.
func maxTokens[T tokenCount]() int {
	var zero T
	if unsafe.Sizeof(zero) == 1 {
		return MaxTokens
	}
	return MaxRealTokens
}

// MaxRealTokens bounds token counts of histories checked by `kvcheck lin`
// and of configurations (a 32-bit token count, as the core's C++
// SizeType32); MaxRealPages bounds page counts.
const (
	MaxRealTokens = 1 << 31
	MaxRealPages  = 1 << 20
)

func (c poolCore[T]) tpb() T { return T(c.cfg.TokensPerBlock) }

// blocksFor is ceil(tokens / tokens_per_block): the block count the core
// asserts at entry of _KVCache.resize.
func (c poolCore[T]) blocksFor(tokens T) T {
	tpb := c.tpb()
	return tokens/tpb + b2t[T](tokens%tpb != 0)
}

func b2t[T tokenCount](b bool) T {
	if b {
		return 1
	}
	return 0
}

func (c poolCore[T]) cache(id uint8) *CacheOf[T] { return &c.pool.Caches[id] }

// family returns the prompt family of request id; the ADP dummy has none.
func (c poolCore[T]) family(id uint8) uint8 {
	if id == 0 || int(id) > len(c.cfg.Requests) {
		return NoFamily
	}
	return c.cfg.template(id).Family
}

// sharedPrefix is the number of leading prompt tokens request id shares
// with its family.
func (c poolCore[T]) sharedPrefix(id uint8) T {
	if c.family(id) == NoFamily {
		return 0
	}
	return T(c.cfg.template(id).SharedPrefix)
}

// shareableBlocks is the number of leading blocks of request id that hold
// tokens its family shares: full blocks of the shared prefix, plus the
// block the prefix ends inside when partial reuse can match part of it.
func (c poolCore[T]) shareableBlocks(id uint8) T {
	s := c.sharedPrefix(id)
	if c.cfg.PartialReuse {
		return c.blocksFor(s)
	}
	return s / c.tpb()
}

// heldBlocks is the number of GPU pages cache x holds privately: its blocks
// minus the reuse-tree blocks it references minus those evicted to host.
func (c poolCore[T]) heldBlocks(x *CacheOf[T]) T {
	return c.blocksFor(x.Capacity) - x.Shared - x.Offloaded
}

// referencedTreeBlocks is the number of leading tree blocks of family f that
// some live cache references.
func (c poolCore[T]) referencedTreeBlocks(f uint8) T {
	var most T
	for id := range c.pool.Caches {
		x := &c.pool.Caches[id]
		if x.Status != Absent && c.family(uint8(id)) == f && x.Shared > most {
			most = x.Shared
		}
	}
	return most
}

// droppableBlocks counts tree blocks no live cache references: the radix
// tree keeps them for reuse but drops them when pages run short.
func (c poolCore[T]) droppableBlocks() int {
	// referencedTreeBlocks of every family, in one pass over the caches.
	var most [MaxFamilies]T
	for id := range c.pool.Caches {
		x := &c.pool.Caches[id]
		if x.Status == Absent {
			continue
		}
		if f := c.family(uint8(id)); f < MaxFamilies && x.Shared > most[f] {
			most[f] = x.Shared
		}
	}
	n := 0
	for f := range MaxFamilies {
		n += int(c.pool.Tree[f]) - int(most[f])
	}
	return n
}

// evictableBlocks counts GPU pages of suspended caches other than except
// that can move to the host tier now: their held pages, up to the host
// tier's free pages (none without a tier below GPU). A full host tier
// takes nothing more (the spec models no tier below host).
func (c poolCore[T]) evictableBlocks(except uint8) int {
	hostFree := c.hostFreeBlocks()
	if hostFree == 0 {
		return 0
	}
	n := 0
	for id := range c.pool.Caches {
		x := &c.pool.Caches[id]
		if uint8(id) != except && x.Status == Suspended {
			n += int(c.heldBlocks(x))
		}
	}
	return min(n, hostFree)
}

// hostFreeBlocks is the host tier's free pages for the pool: its size
// (Config.hostBlocksOn) less the pages caches have offloaded to it.
func (c poolCore[T]) hostFreeBlocks() int {
	free := int(c.cfg.hostBlocksOn(c.r, c.p))
	for id := range c.pool.Caches {
		free -= int(c.pool.Caches[id].Offloaded)
	}
	return max(free, 0)
}

// noCache is an ID no cache has, for "no exception" in evictableBlocks.
const noCache = 0xff

// allocatePages takes n GPU pages for request except, the way the storage
// manager does: free pages first, then unreferenced reuse-tree blocks
// (dropped from the tail), then pages of suspended caches evicted to the
// host tier (lowest request ID first, standing in for LRU). It fails with
// no change when even that is not enough (OutOfPagesError caught by the
// caller, docs/reference.md, "The per-request cache" step 6).
func (c poolCore[T]) allocatePages(n int, except uint8) bool {
	pool := c.pool
	if int(pool.Free) >= n {
		pool.Free -= T(n)
		return true
	}
	need := n - int(pool.Free)
	if c.droppableBlocks()+c.evictableBlocks(except) < need {
		return false
	}
	for f := uint8(0); f < MaxFamilies && need > 0; f++ {
		ref := c.referencedTreeBlocks(f)
		for pool.Tree[f] > ref && need > 0 {
			c.hit(brDropTreeBlock)
			pool.Tree[f]--
			pool.TreeTail[f] = 0
			pool.Free++
			need--
		}
	}
	for id := range pool.Caches {
		if need == 0 {
			break
		}
		x := &pool.Caches[id]
		if uint8(id) == except || x.Status != Suspended || !c.cfg.HostTier {
			continue
		}
		take := min(int(c.heldBlocks(x)), need, c.hostFreeBlocks())
		if take > 0 {
			c.hit(brEvictToHost)
		}
		x.Offloaded += T(take)
		pool.Free += T(take)
		need -= take
	}
	pool.Free -= T(n)
	return true
}

// utilizationAbove reports whether the pool's GPU utilization exceeds
// max_util_for_resume (the resume gate, _KVCache.resume via the storage
// manager's get_utilization, _storage_manager.py at 00f6bd6): (total − free
// − evictable) / total, where evictable pages are unreferenced reuse-tree
// blocks and, with a tier below GPU, the held pages of suspended caches
// (as many as the host tier can take).
func (c poolCore[T]) utilizationAbove() bool {
	total := int(c.cfg.poolBlocksOn(c.r, c.p))
	used := total - int(c.pool.Free) - c.droppableBlocks() - c.evictableBlocks(noCache)
	return used*100 > int(c.cfg.ResumeGatePercent)*total
}

// liveCaches counts kv_cache_map entries: each holds an IndexMapper slot.
func (c poolCore[T]) liveCaches() int {
	n := 0
	for id := range c.pool.Caches {
		if c.pool.Caches[id].Status != Absent {
			n++
		}
	}
	return n
}
