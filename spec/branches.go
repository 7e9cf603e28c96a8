package spec

// The registered branches (coverage.go), grouped by the file that marks
// them. Each names the TensorRT-LLM function and branch it models; the
// exceptions are counted separately, from the crash they record.

// cache.go: one _KVCache.
var (
	brIndexMapperFull   = newBranch("index-mapper-full", "KVCacheManagerV2._create_kv_cache: every IndexMapper slot taken, returns None")
	brCreateWithReuse   = newBranch("create-with-reuse", "KVCacheManagerV2._create_kv_cache: radix-tree match, the cache starts at the reused prefix")
	brResumeRefusedGate = newBranch("resume-refused-util", "_KVCache.resume: pool utilization above max_util_for_resume, returns False")
	brResumeFromHost    = newBranch("resume-from-host", "_KVCache.resume: pages evicted to the host tier come back to GPU")
	brResumeHostRefused = newBranch("resume-host-refused", "_KVCache.resume: evicted pages cannot come back (GPU full), returns False")
	brResizeOutOfPages  = newBranch("resize-out-of-pages", "_KVCache.resize: OutOfPagesError caught, returns False with no change")
	brResizeFreesPages  = newBranch("resize-frees-pages", "_KVCache.resize: a smaller capacity gives whole pages back")
	brCommitPublishes   = newBranch("commit-publishes-block", "_KVCache.commit: a newly full prefix block is published in the radix tree")
	brCommitVirtualStop = newBranch("commit-block-already-published", "_KVCache.commit: the tree already holds the block (VIRTUAL_STOP), the cache keeps its copy")
)

// pool.go: page allocation.
var (
	brDropTreeBlock = newBranch("evict-reuse-tree-block", "storage allocation: an unreferenced radix-tree block is dropped to free a page")
	brEvictToHost   = newBranch("evict-suspended-to-host", "storage allocation: pages of a suspended cache are evicted to the host tier")
)

// manager.go: the manager's per-request operations.
var (
	brReserveWidensDraft   = newBranch("reserve-widens-draft-slots", "KVCacheManagerV2._generation_draft_slots: _kv_reserve_draft_tokens > the request's draft length widens a draft pool's growth")
	brAllocGenResumes      = newBranch("allocate-generation-resumes", "KVCacheManagerV2.try_allocate_generation: a SUSPENDED cache is resumed before growing")
	brAllocGenRefused      = newBranch("allocate-generation-refused", "KVCacheManagerV2.try_allocate_generation: resume or growth refused, returns False")
	brRevertGeneration     = newBranch("revert-allocate-generation", "KVCacheManagerV2.revert_allocate_generation: shrink by the recorded 1 + draft slots")
	brRevertGenNotActive   = newBranch("revert-generation-not-active", "KVCacheManagerV2.revert_allocate_generation: entry popped but the cache is not ACTIVE, no shrink", "not yet reached: needs a veto or defer of a generation request whose cache was suspended")
	brSettleReusedCursor   = newBranch("settle-reused-cursor", "KVCacheManagerV2._settle_context_cursor: set_prepopulated_prompt_len moves the cursor to the reused depth")
	brDraftViewLags        = newBranch("draft-view-lags-settle", "LlmRequest::setPrepopulatedPromptLen moves only the target cursor (DraftViewLagByReuse)")
	brResizeContextRefused = newBranch("resize-context-refused", "KVCacheManagerV2.resize_context: growth refused, a first chunk is suspended")
	brRevertContextShrink  = newBranch("revert-context-shrink", "KVCacheManagerV2.revert_allocate_context: shrink back to py_ctx_pre_resize_cap")
	brRevertContextDrop    = newBranch("revert-context-drop", "KVCacheManagerV2.revert_allocate_context: history passed the old capacity, the cache is freed and the cursor rewound", "not yet reached: needs a context revert after the history passed the pre-resize capacity")
	brMirrorCreated        = newBranch("mirror-created", "KVCacheManagerV2._mirror_draft_kv_cache: a new draft mirror, tokens=None and stop_committing")
	brMirrorReuseLookup    = newBranch("mirror-reuse-lookup", "fix mirror-reuse: the mirror looks up the radix tree like the primary")
	brAdmitMirror          = newBranch("admit-mirror", "KVCacheManagerV2.admit_mirror (00746ef) from KVCacheV2Scheduler._admit_unpaired_draft")
	brRC25NoAdmission      = newBranch("rc25-mirror-outside-admission", "v1.3.0rc25: _prepare_context_pair leaves the unpaired mirror out of admission")
)

// scheduler.go: KVCacheV2Scheduler._schedule_loop and its ladder.
var (
	brDisaggGenInit             = newBranch("disagg-gen-init", "_try_schedule_disagg_gen_init: prepare_disagg_gen_init allocated, the request receives KV")
	brDisaggGenInitRetry        = newBranch("disagg-gen-init-retry", "_try_schedule_disagg_gen_init: allocation failed, the cache is released and retried next pass")
	brMaxBatchSize              = newBranch("max-batch-size-reached", "_schedule_loop: BudgetTracker at max_batch_size ends the pass")
	brGenTokenBudgetStop        = newBranch("generation-token-budget-stop", "_try_schedule_generation: 1 + draft tokens exceed max_num_tokens, STOP")
	brEvictForGeneration        = newBranch("evict-for-generation", "_try_evict_for_gen: a started ACTIVE victim from the tail is suspended")
	brRecomputePauseVictim      = newBranch("recompute-pause-for-generation", "_try_recompute_pause_for_gen: a started victim's caches are freed (_recompute_pause_request)")
	brRecomputePauseEvicted     = newBranch("recompute-pause-evicted-fallback", "_try_recompute_pause_for_gen: no candidate left, an evicted request is paused (can_evict)", "unreachable in the modeled scheduler: with can_evict the scan already takes every evicted request that is a candidate, and an evicted request at or past the recompute frontier would have been taken before the victim that set the frontier (evictable requests are started, so candidates); the fallback can only fire for candidates the spec does not model (multimodal generation requests)")
	brRecomputePauseEvictedScan = newBranch("recompute-pause-evicted-victim", "_try_recompute_pause_for_gen: with can_evict the scan pauses a request this pass evicted")
	brGenerationSuspends        = newBranch("generation-suspends-itself", "_try_schedule_generation: the request cannot grow, suspends itself and stops the phase")
	brNoChunkBudget             = newBranch("context-chunk-budget-exhausted", "_has_context_chunk_budget: less than a chunk unit of token budget left")
	brCertainlyBlocked          = newBranch("pending-context-certainly-blocked", "_pending_ctx_certainly_blocked (00746ef): the suspended mirror's pool is above the resume gate", "not yet reached by a built-in scenario or sweep: the random pipeline configuration of docs/soundness.md (00746ef, joint-admission) reaches it only past an in-flight-caches-active violation after 11 steps (rank 0 suspends a request whose first chunk is still in flight); with --skip-invariant in-flight-caches-active the search is complete and reaches it")
	brContextPrepareFailed      = newBranch("context-prepare-failed", "_prepare_context_pair returned False")
	brNonFinalChunk             = newBranch("context-non-final-chunk", "_try_schedule_context_chunked: a chunk short of the prompt, rounded down to chunk_unit_size")
	brChunkRoundsToZero         = newBranch("context-chunk-rounds-to-zero", "_try_schedule_context_chunked: the rounded chunk is 0, SKIP", "the scenarios' max_num_tokens leaves either nothing or a whole chunk unit")
	brUnchunkedOverBudget       = newBranch("context-unchunked-over-budget", "_try_schedule_context without chunking: the prompt exceeds the token budget, STOP")
	brContextAllocFailed        = newBranch("context-allocation-failed", "_try_allocate_context returned False")
	brPreemptForPages           = newBranch("preempt-for-pages", "_try_preempt_for_pages: a started request not in this pass is freed and recompute-paused")
	brFirstChunkDropped         = newBranch("first-chunk-dropped", "_try_schedule_context (PR #19202, 00746ef): an unscheduled first chunk frees its caches and rewinds its cursor")
	brFirstChunkSuspended       = newBranch("first-chunk-suspended", "_try_schedule_context (v1.3.0rc25, before PR #19202): an unscheduled first chunk is only suspended")
	brReusedThenChunks          = newBranch("reused-prefix-then-chunks", "_try_schedule_context_chunked: a later chunk of a request that reused a prefix")
	brPairedReuseCapped         = newBranch("paired-reuse-claim-capped", "_prepare_context_pair (paired): the shallower pool's match caps the other's claim", "reachable (paired-draft-reuse with a fourth request of family 1 sharing request 1's two blocks: the draft pool drops a tree block the target keeps, so the joint claim is capped) but kept out of the built-in scenarios: kvcheck lin's sequential pool model creates a cache at the whole prompt's reuse depth, so it cannot reproduce a capped claim and TestSpecEmittedHistoriesAreLinearizable fails on it (spec.ApplyPoolOp's CacheCreate would need the claim limit)")
	brPairedDraftFailed         = newBranch("paired-draft-prepare-failed", "_prepare_context_pair (paired): prepare_context_cache on the draft failed, both suspended")
	brContextDraftReverted      = newBranch("context-draft-refusal-reverts", "_try_allocate_context: the draft side refused, the target growth is reverted")
	brGenerationPairRevert      = newBranch("generation-draft-refusal-reverts", "_try_allocate_generation: the draft side refused, the target growth is reverted")
	brJointGrowsMirrorGen       = newBranch("joint-admission-generation", "fix joint-admission: _try_allocate_generation grows the unpaired mirror")
	brJointGrowsMirrorCtx       = newBranch("joint-admission-context", "fix joint-admission: _try_allocate_context grows the unpaired mirror")
	brPauseRequest              = newBranch("recompute-pause-request", "_pause_recompute_paused_requests: LlmRequest::pause, back to CONTEXT_INIT")
	brPauseKeepsGenerated       = newBranch("pause-keeps-generated-tokens", "LlmRequest::pause: generated tokens become part of the new prompt")
)

// draft_resources.go: KVCacheManagerV2._prepare_draft_resources.
var (
	brDraftContextResize  = newBranch("draft-context-resize", "_prepare_draft_resources: plain resize of a context request's mirror")
	brDraftViewMissesLast = newBranch("draft-view-misses-last-chunk", "_prepare_draft_resources: the lagging draft view does not see the last chunk")
	brDraftGenRecorded    = newBranch("draft-generation-already-allocated", "_prepare_draft_resources: _allocated_draft_lens holds the request, no growth")
	brDraftGenGrowth      = newBranch("draft-generation-growth", "_prepare_draft_resources: grow the mirror by 1 + max(draft, reserve)")
	brRecordDraftLens     = newBranch("record-draft-lens", "fix record-draft-lens (PR #19120): the mirror's growth is recorded in _allocated_draft_lens")
	brDeferDraftMirror    = newBranch("defer-draft-mirror", "fix defer-draft-mirror (PR #19231): a refused mirror defers the request")
	brDeferFromMiddle     = newBranch("defer-from-middle-of-batch", "fix defer-draft-mirror: the deferred entry is followed by others in the batch")
	brDeferDropsMirror    = newBranch("defer-drops-mirror", "fix defer-draft-mirror: revert_allocate_context freed the target, so the mirror goes too", "not yet reached: needs a deferred context request whose history passed its pre-resize capacity")
)

// update.go: update_context_resources and update_resources.
var (
	brContextEndCommit   = newBranch("context-end-commit", "update_context_resources: the prompt is done, try_commit_blocks and stop_committing")
	brUpdateRecorded     = newBranch("update-rewinds-recorded-width", "update_resources: _allocated_draft_lens holds the width to rewind")
	brUpdateRewinds      = newBranch("update-rewinds-unused-drafts", "update_resources: capacity - (allocated - accepted) shrinks the cache")
	brUpdateKeepCapacity = newBranch("update-keeps-capacity", "update_resources: GENERATION_COMPLETE or CONTEXT_INIT, capacity=None", "unreachable in the modeled loops: every loop terminates GENERATION_COMPLETE requests before update_resources, and a recompute-paused request's caches are freed in the pass that picks it, before LlmRequest::pause makes it CONTEXT_INIT (in the overlap loop too, which defers only the pause)")
	brUpdateClamp        = newBranch("clamp-capacity", "fix clamp-capacity (PR #19120): new_capacity raised to the history")
	brUpdateSkipDummy    = newBranch("skip-dummy-update", "fix skip-dummy-update: update_resources skips a dummy request", "only adp-dummy-leak runs skip-dummy-update, and its leak is reported before a dummy reaches update_resources")
)

// sample.go, executor.go: the sampler, terminations, environment.
var (
	brEarlyFinish                 = newBranch("early-finish-eos", "handle_stop_criteria: the environment ends a request at EOS")
	brMaxTokens                   = newBranch("complete-at-max-tokens", "handle_stop_criteria: the request reaches max_tokens")
	brContextOnlySends            = newBranch("context-only-sends-kv", "_send_kv_async: a context-only request sends its KV, out of active_requests with its caches held")
	brAcceptedDrafts              = newBranch("accepted-draft-tokens", "SpecSampler.update_requests: accepted draft tokens extend the request")
	brRetiredDummyObject          = newBranch("batch-reads-retired-dummy", "a batch holds an attention-DP dummy object whose ID moved on to a newer dummy")
	brDisaggReceived              = newBranch("disagg-kv-received", "KV transfer done: the request leaves DISAGG_GENERATION_TRANS_IN_PROGRESS for DISAGG_GENERATION_TRANS_COMPLETE")
	brDisaggGenInitSuspends       = newBranch("disagg-gen-init-suspends", "prepare_disagg_gen_init: a failed resize suspends the cache, which keeps its IndexMapper slot and pages")
	brChunkCommit                 = newBranch("context-chunk-commit", "update_context_resources under ALL_REUSABLE: a publishing cache commits its blocks after a chunk that does not end the prompt")
	brContextUpdateSkipsSuspended = newBranch("context-update-skips-suspended", "update_context_resources skips a context entry whose cache was suspended after it was scheduled; its history lags the cursor", "reached by no built-in scenario: the skip needs a cache suspended after its chunk was scheduled and before update_context_resources sees it, a window only the pipeline loop has (the overlap loop updates the current batch's context in its forward, the other loop right after it); docs/examples/pp-cursor-history.txt reaches it under joint-admission with no violation (kvcheck check --config docs/examples/pp-cursor-history.txt --fix joint-admission --cover); with a host tier the same suspension is what in-flight-caches-active reports")
	brBudgetAfterReuse            = newBranch("context-budget-after-reuse", "_try_schedule_context: the reuse lookup shortened what the chunk's token budget counts")
	brPrefixSkip                  = newBranch("prefix-aware-skip", "phase 2: a first chunk whose first new block another request contributes this iteration is deferred (deferred_behind_contributor)")
	brForwardOverSuspended        = newBranch("forward-over-suspended-cache", "a forward runs a request whose KV cache on this rank is suspended (stale page indices)")
	brPauseAfterPrevious          = newBranch("overlap-pause-after-previous", "overlap loop: the pass's recompute-paused victims are paused after the previous batch's _update_requests")
	brStagePausesVictims          = newBranch("stage-pauses-rank0-victims", "pipeline: a later stage frees and pauses rank 0's recompute-paused victims (SerializableSchedulerOutput carries them)")
	brPassProgress                = newBranch("scheduler-pass-progress", "_detect_deadlock: the pass made progress as it counts it (a request scheduled, a disagg candidate, an eviction, a recompute pause, a prefix deferral)")
	brPassIdle                    = newBranch("scheduler-pass-idle", "_detect_deadlock: no generation or context candidate; the count resets")
	brPassExempt                  = newBranch("scheduler-pass-exempt", "_detect_deadlock: a KV transfer holds pages (receiving or sending); the count resets")
	brPassImmediate               = newBranch("scheduler-pass-immediate-check", "v1.3.0rc25's inline check holds on this pass: nothing scheduled, evicted or paused, none in flight, a generation candidate")
	brDeadlockStall               = newBranch("scheduler-stalled-pass", "_detect_deadlock: a pass with candidates made no progress and nothing exempts it (_stalled_schedules += 1)")
	brDeadlockWarns               = newBranch("scheduler-stall-warning", "_detect_deadlock after PR #19181: a stalled pass is only counted and warned about")
	brDeadlockImmediate           = newBranch("scheduler-deadlock-immediate", "v1.3.0rc25's inline check: a pass scheduled nothing while a generation request waits", "v1.3.0rc25's inline check raises on the pass it fires in, and no modeled fix closes it: overlap-eviction-ladder's configuration at v1.3.0rc25 reaches it (kvcheck check --config: at step 43 a pass stalls while request 1's last token is in flight, a stall 00746ef's count outlives), and so does the configuration of raise scheduler-deadlock at v1.3.0rc25; a built-in scenario whose real code breaks an invariant needs a fix set (TestEveryScenarioHasItsFixes), and the check's successor is a version, not a fix")
	brContextDummy                = newBranch("adp-context-dummy", "_pad_attention_dp_dummy_request: a context-only arrival made the pad dummy a one-token context dummy (_update_adp_dummy_role)")
	brDummyNotLast                = newBranch("adp-dummy-not-last", "_update_request_states_tp: a request arrived after the dummy, so it is not active_requests[-1] and stays")
	brArrivalWaits                = newBranch("adp-arrival-waits", "the ADP router holds an arrival while its rank is at max_num_active_requests (get_from_waiting_queue)")
	brDisaggFirstToken            = newBranch("disagg-first-token", "_prepare_disagg_gen_transmission_complete: a queued TRANS_COMPLETE request gets the context server's first token")
	brDisaggTransVetoed           = newBranch("disagg-trans-complete-vetoed", "_revert_gen_alloc: a vetoed batch gives back a TRANS_COMPLETE request's growth; it stays TRANS_COMPLETE")
	brWillComplete                = newBranch("will-complete-next-iteration", "overlap loop: the token in flight is the request's last, it turns GENERATION_TO_COMPLETE")
	brEmptyBatch                  = newBranch("empty-batch", "_executor_loop: the scheduler built an empty batch, nothing is queued")
)

// adp.go, overlap.go: attention DP and the overlap loop.
var (
	brPadPreSchedule   = newBranch("adp-pre-schedule-dummy", "_pad_attention_dp_dummy_request: a rank with no schedulable request adds a dummy")
	brPadPending       = newBranch("adp-dummy-pending", "_pad_attention_dp_dummy_request: with _enable_adp_dummy_fixes and a transceiver the dummy is pending rollback")
	brPadPostSchedule  = newBranch("adp-post-schedule-dummy", "_pad_empty_attention_dp_batch: an empty batch is padded with a dummy")
	brPadAtMaxActive   = newBranch("adp-pad-refused-max-active", "_pad_empty_attention_dp_batch: at max_num_active_requests, no pad")
	brAddDummyFailed   = newBranch("adp-add-dummy-failed", "KVCacheManagerV2.add_dummy_requests returned None")
	brPadNoKVCapacity  = newBranch("adp-pad-no-kv-capacity", "_has_adp_dummy_kv_capacity: the pool cannot hold the dummy, no pad", "unreachable in a configuration whose pool can hold any request: _has_adp_dummy_kv_capacity is static at 00746ef (clamp_max_seq_len_for_mem of the whole GPU pool), so it refuses only a pool of fewer tokens than the dummy's 1 + max_draft_len plus extra and reserve; a full pool is found by add_dummy_requests (adp-add-dummy-failed). Kept to mirror the real check; adp-veto-growth's default sweep no longer reaches it")
	brVeto             = newBranch("can-queue-veto", "_can_queue: an empty rank vetoes the forward of a rank with work")
	brVetoRevertsGrown = newBranch("veto-reverts-generation-growth", "_revert_gen_alloc: a vetoed generation request gives back its grown capacity")
	brDummyRollback    = newBranch("adp-dummy-rollback", "_finalize_adp_dummy_allocation: the vetoed pending dummy is freed")
	brRollbackMirror   = newBranch("free-unpaired-mirror", "fix free-unpaired-mirror: the rollback frees the dummy's draft mirror")
	brDummyTerminated  = newBranch("adp-dummy-terminated", "_update_request_states_tp: the live dummy is terminated after the forward")
	brPreviousDone     = newBranch("overlap-previous-processed", "_executor_loop_overlap: _process_previous_batch runs")
	brPreviousInFwd    = newBranch("overlap-previous-sampled-in-forward", "_executor_loop_overlap: _update_requests(previous_batch) runs after the forward")
	brPreviousDeferred = newBranch("overlap-previous-deferred", "_executor_loop_overlap: vetoed with work, the previous batch is deferred")
)

// pipeline.go: the pipeline loop.
var (
	brStageActivates    = newBranch("pp-stage-activates-requests", "_executor_loop_pp: a later stage activates the requests rank 0 had fetched")
	brStageChunkDiffers = newBranch("pp-stage-local-chunk-differs", "_executor_loop_pp: a later stage's own context_chunk_size differs from rank 0's", "pp-stage-divergence's real code fails before a stage's chunk size differs; pp-forward-over-suspended's configuration at max_util_for_resume=50 reaches it under equal-stage-pools (kvcheck check --config --cover)")
	brStageHandles      = newBranch("pp-handle-executed-batch", "_executor_loop_pp: _handle_executed_batch on an executed micro-batch")
)
