package spec

// This file exports the few read-only helpers the counterexample
// transcripts (package counterexamples) need to put a state change into
// words. It adds no behaviour to the spec.

// Describe renders the batch as Dump does ("ctx 1 chunk 8 last, gen 2"), or
// "" for an empty batch. Transcripts show a changed batch whole with it.
func (b Batch) Describe() string { return b.describe() }

// CacheFlagNames names the flags set in a Cache's Flags: "stop-committing"
// (_KVCache.stop_committing was called) and "never-resumed" (born
// SUSPENDED, not resumed yet), in that order.
func CacheFlagNames(flags uint8) []string {
	var names []string
	if flags&flagStopCommitting != 0 {
		names = append(names, "stop-committing")
	}
	if flags&flagNeverResumed != 0 {
		names = append(names, "never-resumed")
	}
	return names
}

// StopCommitting reports whether _KVCache.stop_committing was called on
// the cache: it publishes no more blocks.
func (c *Cache) StopCommitting() bool { return c.Flags&flagStopCommitting != 0 }

// PoolBlocks is the GPU page count of pool p on every rank.
func (c *Config) PoolBlocks(p PoolKind) uint8 { return c.poolBlocks(p) }

// HasDraftPool reports whether the configuration has a draft pool at all.
func (c *Config) HasDraftPool() bool { return c.DraftPool != NoDraftPool }

// RealFunctions names the TensorRT-LLM functions one action of kind k runs,
// for the legend of a transcript; "" for a kind it does not know.
func (k ActionKind) RealFunctions() string {
	switch k {
	case ActArrive:
		return "a request joins active_requests (environment)"
	case ActSchedule:
		return "PyExecutor._prepare_and_schedule_batch: KVCacheV2Scheduler._schedule_loop allocates the target pool"
	case ActPrepareResources:
		return "ResourceManager.prepare_resources: KVCacheManagerV2._prepare_draft_resources sizes the draft mirror"
	case ActForward:
		return "forward and sampling; accept=ID:N is py_num_accepted_draft_tokens, eos=ID an early finish (environment)"
	case ActUpdate:
		return "_update_v2_context_resources, _handle_responses (free_resources), ResourceManager.update_resources"
	}
	return ""
}
