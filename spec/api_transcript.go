package spec

// This file exports the few read-only helpers the counterexample
// transcripts (package counterexamples) need besides Describe. It adds no
// behaviour to the spec.

// StopCommitting reports whether _KVCache.stop_committing was called on
// the cache: it publishes no more blocks.
func (c *CacheOf[T]) StopCommitting() bool { return c.Flags&flagStopCommitting != 0 }

// PoolBlocks is the GPU page count of pool p on rank r.
func (c *Config) PoolBlocks(r uint8, p PoolKind) uint8 { return uint8(c.poolBlocksOn(r, p)) }

// RealFunctions names the TensorRT-LLM functions one action of kind k runs,
// for the legend of a transcript; "" for a kind it does not know.
func (k ActionKind) RealFunctions() string {
	switch k {
	case ActArrive:
		return "a request joins active_requests"
	case ActSchedule:
		return "_prepare_and_schedule_batch (KVCacheV2Scheduler allocates the target)"
	case ActPrepareResources:
		return "prepare_resources (_prepare_draft_resources sizes the draft mirror)"
	case ActForward:
		return "forward and sampling (accept=ID:N accepted draft tokens, eos=ID early finish)"
	case ActUpdate:
		return "update_context_resources, free_resources of finished requests, update_resources"
	case ActFetch:
		return "_fetch_and_activate_new_requests (attention-DP allgather of active-request counts)"
	case ActCanQueue:
		return "_can_queue (with attention DP one empty rank vetoes the forward everywhere)"
	case ActUpdateResources:
		return "overlap loop: update of the previous batch (batch=previous), or its deferral (batch=deferred)"
	case ActReceiveKV:
		return "a disaggregated request's KV transfer completes"
	case ActHandle:
		return "pipeline loop: _handle_executed_batch count times at the end of a stage's iteration"
	}
	return ""
}

// HasPool reports whether rank r has pool p.
func (c *Config) HasPool(r uint8, p PoolKind) bool { return c.hasPool(r, p) }
