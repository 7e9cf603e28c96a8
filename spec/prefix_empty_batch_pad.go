package spec

// PreFixEmptyBatchPad puts back the code before TensorRT-LLM PR #17379
// ("Pad an empty attention-DP scheduled batch so the fleet can make forward
// progress", merged 2026-08-06): _prepare_and_schedule_batch had no
// _pad_empty_attention_dp_batch, so only _pad_attention_dp_dummy_request
// padded, before _schedule(). That guarantees every rank an active request,
// not a scheduled one: a rank whose only active request does not fit the
// free KV cache gets no dummy, schedules an empty batch, and _can_queue's
// allgather (can_queue = 0 not in tp_batch_sizes) vetoes every rank's
// forward; _update_request_states, the only caller of
// move_to_next_context_chunk, runs under `if can_queue`, so no peer's
// chunk advances. The PR's docstring of _pad_empty_attention_dp_batch
// (py_executor.py at 0004396) states this livelock. FixPadEmptyADPBatch is
// the PR: the post-schedule pad of padEmptyAttentionDPBatch.
var PreFixEmptyBatchPad, FixPadEmptyADPBatch = defineHistoricalBug(PreFixInfo{
	Name:   "no-empty-batch-pad",
	PR:     "PR #17379",
	Before: "only the pre-schedule pad: a rank whose only request does not fit schedules an empty batch and vetoes every forward",
	Fix:    "pad-empty-adp-batch",
	After:  "pad an empty attention-DP scheduled batch with a generation dummy after scheduling",
})
