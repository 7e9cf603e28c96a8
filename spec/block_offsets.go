package spec

// copyBatchBlockOffsets is the block-offset copy at the start of the
// forward (ModelEngine._forward_step → KVCacheManagerV2
// copy_batch_block_offsets), which feeds every request ID of the batch to
// the IndexMapper's getIndex; getIndex TLLM_CHECKs on an ID with no mapping
// (kvCacheManagerV2Utils.cpp, cited by the _mirror_draft_kv_cache docstring
// in kv_cache_manager_v2.py at 00746ef). A cache that is only suspended is
// still mapped. The only way a batch reaches the forward with an ID the
// target manager does not hold is a later pipeline stage running rank 0's
// IDs (to_scheduler_result) for a request its own scheduler dropped or
// never allocated: the real engine aborts there, which the spec records
// as a raise. The draft side is checked where the mirror is created
// (_prepare_draft_resources, ErrMirrorMissing).
func (v rankView) copyBatchBlockOffsets(b *Batch) bool {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if v.cache(Target, e.ID).Status == Absent {
			v.s.crash(v.r, Target, e.ID, FnCopyBatchBlockOffsets, ErrUnmappedRequest, 0)
			return false
		}
	}
	v.checkForwardCaches(b)
	return true
}
