package spec

import "fmt"

// Hazard records the first forward that ran over a request whose KV cache
// was not ACTIVE on the rank running it. The real engine raises nothing
// there: KVCacheManagerV2's _restore_page_index_bufs docstring
// (kv_cache_manager_v2.py at 00746ef) says suspend() cuts the cache's
// page-index buffers, so such a forward reads stale page indices ("illegal
// memory accesses"); the spec keeps it as a ghost of the state that
// forward-over-active-caches reads, and the run goes on.
type Hazard struct {
	Happened bool
	Rank     uint8
	Pool     PoolKind
	ID       uint8
	Status   CacheStatus
}

// Describe renders the hazard as "rank R P pool request N: ...".
func (h *Hazard) Describe() string {
	return fmt.Sprintf("rank %d %s pool request %d: the forward ran over its %s KV cache (suspend cut its page-index buffers; the forward reads stale page indices)",
		h.Rank, h.Pool, h.ID, h.Status)
}

// checkForwardCaches records a Hazard when an entry of batch b, which the
// forward is about to run, has a suspended cache in a pool of the rank
// (the target, or a draft mirror that exists). An absent target cache is
// a raise instead (copyBatchBlockOffsets).
func (v rankView) checkForwardCaches(b *Batch) {
	if v.s.Hazard.Happened {
		return
	}
	for i := 0; i < int(b.Count); i++ {
		id := b.Entries[i].ID
		for p := Target; p < numPools; p++ {
			if !v.cfg.hasPool(v.r, p) {
				continue
			}
			if st := v.cache(p, id).Status; st == Suspended {
				v.hit(brForwardOverSuspended)
				v.s.Hazard = Hazard{Happened: true, Rank: v.r, Pool: p, ID: id, Status: st}
				return
			}
		}
	}
}
