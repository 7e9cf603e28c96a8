package spec

import (
	"fmt"
	"strings"
)

// Limits of the compact state. Scenarios are scaled-down versions of the
// production configurations, so token counts fit in a byte.
const (
	// MaxRanks is the largest number of ranks (ADP ranks or PP stages).
	MaxRanks = 4
	// MaxRequests is the largest number of real requests per scenario.
	// Request IDs run from 1 to MaxRequests; ID 0 is reserved for the
	// attention-DP dummy (ATTENTION_DP_DUMMY_REQUEST_ID).
	MaxRequests = 8
	// MaxIDs is the number of request IDs a pool can hold a cache for.
	MaxIDs = MaxRequests + 1
	// MaxFamilies is the largest number of prompt families (groups of
	// requests sharing a prefix).
	MaxFamilies = 4
	// MaxPoolGroups is the largest number of pool groups of one pool.
	MaxPoolGroups = 4
	// MaxBatch is the largest number of requests in one scheduled batch.
	MaxBatch = 8
	// MaxTokens bounds every token count and cursor.
	MaxTokens = 250
	// NoFamily marks a request whose prompt shares no prefix.
	NoFamily = 0xff
	// maxForwardChoices bounds the environment's choices for one forward
	// (accepted tokens and early finishes of every generation request), so
	// no configuration makes the explorer enumerate millions of actions.
	maxForwardChoices = 4096
)

// PoolKind names one of the two pools of a rank.
type PoolKind uint8

const (
	// Target is the primary KV cache pool (KVCacheManagerV2, is_draft=False).
	Target PoolKind = iota
	// Draft is the draft (mirror) pool: a KVCacheManagerV2 built with
	// is_draft=True, e.g. the DSA indexer cache of an MTP layer.
	Draft
	numPools
)

func (p PoolKind) String() string {
	if p == Target {
		return "target"
	}
	return "draft"
}

// DraftPoolMode says whether a draft pool exists and whether it is paired
// with the target (enable_joint_kv_cache_reuse).
type DraftPoolMode uint8

const (
	// NoDraftPool: no draft KV cache manager.
	NoDraftPool DraftPoolMode = iota
	// UnpairedDraftPool: the mirror never publishes (stop_committing), never
	// reuses, and the V2 scheduler leaves it out of admission
	// (KVCacheV2Scheduler._try_allocate_context consults only the target).
	UnpairedDraftPool
	// PairedDraftPool: enable_joint_kv_cache_reuse; the scheduler allocates
	// both pools and reuse claims are coordinated.
	PairedDraftPool
)

func (m DraftPoolMode) String() string {
	return m.Names()[m]
}

// Names are the modes' names by value, as the configuration text writes
// them (draft_pool=unpaired).
func (DraftPoolMode) Names() []string { return []string{"none", "unpaired", "paired"} }

// DraftViewMode says which context cursor an unpaired mirror reads inside
// KVCacheManagerV2.request_context(use_draft_model=True). The C++ LlmRequest
// keeps a target and a draft context cursor (mContextCurrentPositionTarget /
// Draft); which one the mirror sees after a prefix-reuse settle is marked
// INFER in the reference, so it is a switch (docs/reference.md, "The manager").
type DraftViewMode uint8

const (
	// DraftViewSameAsTarget: both cursors move together, including the
	// settle to the reused depth; the mirror sizes [0, pos+chunk).
	DraftViewSameAsTarget DraftViewMode = iota
	// DraftViewLagByReuse: setPrepopulatedPromptLen moves only the target
	// cursor; the draft view lags by the reused prefix.
	DraftViewLagByReuse
)

func (m DraftViewMode) String() string {
	return m.Names()[m]
}

// Names are the modes' names by value, as the configuration text writes
// them (draft_view=lag-by-reuse).
func (DraftViewMode) Names() []string { return []string{"same-as-target", "lag-by-reuse"} }

// Switch is a setting whose default is on: its zero value is "true".
type Switch uint8

const (
	// SwitchOn is the default.
	SwitchOn Switch = iota
	// SwitchOff turns the setting off.
	SwitchOff
)

// On reports whether the setting is on.
func (s Switch) On() bool { return s == SwitchOn }

func (s Switch) String() string { return s.Names()[s] }

// Names are the switch's values by value, as the configuration text writes
// them: "true" is the zero value, the default.
func (Switch) Names() []string { return []string{"true", "false"} }

// BlockReusePolicy mirrors kv_cache_config's block reuse policy
// (BlockReusePolicy in kv_cache_manager_v2.py at 00746ef).
type BlockReusePolicy uint8

const (
	// AllReusable is ALL_REUSABLE, the default ("all_reusable"): a
	// publishing cache commits its blocks after every context chunk.
	AllReusable BlockReusePolicy = iota
	// PerRequest is PER_REQUEST: blocks are committed when the prompt is
	// done (Mamba hybrids are downgraded to it).
	PerRequest
)

func (p BlockReusePolicy) String() string { return p.Names()[p] }

// Names are the policies' names by value, as the configuration text writes
// them (block_reuse_policy=per_request).
func (BlockReusePolicy) Names() []string {
	return []string{"all_reusable", "per_request"}
}

// CodeVersion selects which version of the real code's admission of the
// mirror is modeled, because the seed reports were taken on different
// versions.
type CodeVersion uint8

const (
	// VersionRC25 is v1.3.0rc25 (785c948) / kv_cache_manager_v2.py at
	// 0004396: no admit_mirror; the mirror is created and resumed only in
	// _prepare_draft_resources.
	VersionRC25 CodeVersion = iota
	// Version00746ef adds KVCacheManagerV2.admit_mirror, called from
	// KVCacheV2Scheduler._admit_unpaired_draft: the scheduler creates and
	// resumes the mirror (no growth) before admitting a request. It is the
	// newest kv_cache_manager_v2.py and scheduler_v2.py the search tools
	// store (py_executor.py: 2829508).
	Version00746ef
	// Version00746efPR19181 is 00746ef with TensorRT-LLM PR #19181
	// ("Replace scheduler exception with a warning", merged after
	// 2026-09-15; no stored commit carries it): _detect_deadlock warns
	// instead of raising.
	Version00746efPR19181
	numVersions
)

func (v CodeVersion) String() string {
	return v.Names()[v]
}

// RequestTemplate describes one request a scenario may send.
type RequestTemplate struct {
	// PromptLen is the prompt length in tokens.
	PromptLen uint32 `unit:"tokens"`
	// MaxNewTokens is max_tokens: the request completes once it has
	// generated this many tokens (GENERATION_COMPLETE).
	MaxNewTokens uint32 `unit:"tokens"`
	// Family groups requests whose prompts share a prefix; NoFamily for
	// none.
	Family uint8
	// SharedPrefix is the number of leading prompt tokens the family shares.
	SharedPrefix uint32 `unit:"tokens"`
	// Rank is the attention-DP rank the request is routed to (0 without ADP;
	// under pipeline parallelism a request lives on every stage).
	Rank uint8
	// ReceivingKV marks a disaggregated-generation request: it arrives in
	// DISAGG_GENERATION_INIT, the scheduler allocates its prompt
	// (prepare_disagg_gen_init), and it then receives KV
	// (DISAGG_GENERATION_TRANS_IN_PROGRESS), active but not schedulable,
	// until the environment completes the transfer (kv-received).
	ReceivingKV bool
	// SendingKV marks a context-only request of a disaggregated context
	// worker: once its prompt is done it leaves active_requests and sends
	// its KV (DISAGG_CONTEXT_TRANS_IN_PROGRESS, _send_kv_async), keeping
	// its caches and IndexMapper slot until the environment completes the
	// transfer (kv-received), which frees them. It produces only its first
	// token (Validate requires new=1).
	SendingKV bool
}

// LoopKind is the PyExecutor loop a configuration runs.
type LoopKind uint8

const (
	// NonOverlapLoop is PyExecutor._executor_loop.
	NonOverlapLoop LoopKind = iota
	// OverlapLoop is PyExecutor._executor_loop_overlap: a batch's sampling
	// results and update_resources are processed in the next iteration.
	OverlapLoop
	// PipelineLoop is PyExecutor._executor_loop_pp: ranks are pipeline
	// stages, rank 0 schedules micro-batches and the others follow.
	PipelineLoop
)

func (k LoopKind) String() string {
	return k.Names()[k]
}

// Names are the loops' names by value, as the configuration text writes
// them (loop=overlap).
func (LoopKind) Names() []string { return []string{"non-overlap", "overlap", "pipeline"} }

// Config is one engine configuration: the KV cache managers, the scheduler
// budgets and the executor loop, scaled down. It is not part of the state.
//
// The `unit` tag of a field says what its value counts, so a tool can scale
// a configuration up to real page sizes without a second list of keys
// (kvcheck triage, docs/triage.md): "tokens" scales with tokens_per_block
// (sizes a real deployment has many pages of: prompts, budgets, the chunk
// unit, max_seq_len); "step-tokens" is a token count fixed by the model's
// architecture that does not grow with the page (the draft width of one
// step, extra KV tokens); "pages" counts pages of a pool. The `class` tag
// declares the setting's value classes, those a sweep should reach
// (spec/space/valueclasses.go: on/off, each enumeration value, bounded or not, a whole
// number of pages or not, the minimum or other), judged under an optional
// "if KEY=VALUE"; `kvcheck sweep --cover` reports them.
type Config struct {
	// TokensPerBlock is tokens_per_block (a page).
	TokensPerBlock uint32 `kv:"tokens_per_block" doc:"tokens per KV block (page)" unit:"tokens" class:"size at=1"`
	// MaxDraftLen is max_total_draft_tokens D (MTP max_draft_len).
	MaxDraftLen uint32 `kv:"max_draft_len" doc:"max_total_draft_tokens D" unit:"step-tokens" class:"size at=0"`
	// ExtraKVTokens is num_extra_kv_tokens (0 for MTP with D = 1).
	ExtraKVTokens uint32 `kv:"num_extra_kv_tokens" doc:"num_extra_kv_tokens" unit:"step-tokens" class:"size at=0"`
	// ReserveDraftTokens is _kv_reserve_draft_tokens R of a draft pool.
	ReserveDraftTokens uint32 `kv:"kv_reserve_draft_tokens" doc:"_kv_reserve_draft_tokens of a draft pool" unit:"step-tokens" class:"size at=0"`
	// MaxBatchSize is max_batch_size (the scheduler's max_num_requests).
	MaxBatchSize uint8 `kv:"max_batch_size" doc:"max_batch_size" class:"size at=1"`
	// MaxNumTokens is max_num_tokens, the per-iteration token budget and the
	// max_context_length of a chunk.
	MaxNumTokens uint32 `kv:"max_num_tokens" doc:"max_num_tokens" unit:"tokens" class:"page"`
	// ChunkedPrefill is enable_chunked_prefill.
	ChunkedPrefill bool `kv:"enable_chunked_prefill" doc:"chunked prefill" class:"bool"`
	// ChunkUnitSize is the chunk unit a non-final chunk is rounded down to
	// (typically tokens_per_block).
	ChunkUnitSize uint32 `kv:"chunk_unit_size" doc:"chunk unit size" unit:"tokens" class:"page if enable_chunked_prefill=true"`
	// TargetBlocks and DraftBlocks are the GPU pages of each pool per rank
	// (per stage: see StageTargetBlocks).
	TargetBlocks uint32 `kv:"target_blocks" doc:"GPU pages of the target pool per rank" unit:"pages" class:"size at=1"`
	DraftBlocks  uint32 `kv:"draft_blocks" doc:"GPU pages of the draft pool per rank" unit:"pages" class:"size at=1"`
	// TargetIndexSlots and DraftIndexSlots are each manager's IndexMapper
	// capacity, as the code of the seed reports sizes it (max_batch_size
	// plus the slots reserved for dummies, see dummyIndexSlots);
	// _create_kv_cache returns None when all are taken. indexSlots is what
	// is left for kv_cache_map entries.
	TargetIndexSlots uint32 `kv:"target_index_slots" doc:"IndexMapper slots of the target manager" class:"size at=1"`
	DraftIndexSlots  uint32 `kv:"draft_index_slots" doc:"IndexMapper slots of the draft manager" class:"size at=1"`
	// ResumeGatePercent is max_util_for_resume in percent: _KVCache.resume
	// refuses while the pool's utilization exceeds it.
	ResumeGatePercent uint8 `kv:"max_util_for_resume" doc:"resume gate in percent" class:"size at=100"`
	// HostTier says a cache tier below GPU exists (the host tier), so pages
	// of suspended caches can be evicted to it to make room on GPU. The real
	// manager provisions one automatically unless host_cache_size is set or
	// a KV connector is attached (KVCacheManagerV2.__init__,
	// _compute_auto_host_tier_quota, kv_cache_manager_v2.py at 00746ef).
	HostTier bool `kv:"host_tier" doc:"a cache tier below GPU exists (auto-provisioned unless host_cache_size is set)" class:"bool"`
	// HostBlocks is the host tier's pages per pool and rank (0: as many as
	// the pool has on GPU, the auto-provisioned size). StageHostBlocks
	// sets a pipeline stage's own (0: HostBlocks): the host quota is
	// MIN-reduced across ranks in bytes, not tokens
	// (_sync_host_tier_quota), so stages whose bytes per token differ get
	// different host page counts.
	HostBlocks      uint32           `kv:"host_blocks" doc:"host-tier pages per pool and rank (0 = as many as on GPU)" unit:"pages" class:"cap zero=as-on-gpu if host_tier=true"`
	StageHostBlocks [MaxRanks]uint32 `kv:"stage_host_blocks" doc:"host-tier pages per pipeline stage, stage 0 first (0 = host_blocks)" unit:"pages" class:"set zero=host_blocks if host_tier=true"`
	// RecomputePause is the scheduler's enable_recompute_pause (default True
	// in the real code): the eviction ladder may free a started victim's
	// caches so it re-prefills later.
	RecomputePause bool `kv:"enable_recompute_pause" doc:"the scheduler may recompute-pause victims" class:"bool"`
	// BlockReuse is kv_cache_config.enable_block_reuse.
	BlockReuse bool `kv:"enable_block_reuse" doc:"kv_cache_config.enable_block_reuse" class:"bool"`
	// PartialReuse is KVCacheManagerConfig.enable_partial_reuse
	// (kv_cache_config.enable_partial_reuse; _config.py at 0004396, default
	// True there, off here unless set): a reuse match may end inside a
	// block, whose tokens the cache copies into a fresh page at its first
	// resume. Off, a partial block in the tree (a closed cache's
	// stop_committing publishes one) matches only a lookup that ends with
	// exactly its tokens.
	PartialReuse bool `kv:"enable_partial_reuse" doc:"kv_cache_config.enable_partial_reuse: a reuse match may end inside a block" class:"bool if enable_block_reuse=true"`
	// ReusePolicy is kv_cache_config's block_reuse_policy (default
	// all_reusable): when a publishing cache commits its context blocks
	// (update_context_resources).
	ReusePolicy BlockReusePolicy `kv:"block_reuse_policy" doc:"all_reusable (commit after every chunk, the default) or per_request (commit when the prompt is done)" class:"enum if enable_block_reuse=true"`
	// PrefixAwareScheduling is the scheduler's
	// enable_prefix_aware_scheduling (scheduler_config; default True,
	// PR #18195): the token budget of a context request is its length after
	// the reuse lookup, and, with block reuse under ALL_REUSABLE, a first
	// chunk whose first new block another request contributes this
	// iteration is deferred (prefix_skip.go).
	PrefixAwareScheduling Switch `kv:"enable_prefix_aware_scheduling" doc:"the V2 scheduler budgets context after reuse and defers duplicate prefixes (default true)" class:"bool"`
	// DraftPool is the draft pool's mode.
	DraftPool DraftPoolMode `kv:"draft_pool" doc:"none, unpaired or paired (enable_joint_kv_cache_reuse)" class:"enum"`
	// DraftView is the unpaired mirror's context cursor (docs/reference.md, "The manager").
	DraftView DraftViewMode `kv:"draft_view" doc:"the unpaired mirror's context cursor" class:"enum if draft_pool=unpaired"`
	// Version is the modeled version of the real code.
	Version CodeVersion `kv:"version" doc:"modeled version of the real code" class:"enum"`
	// EarlyFinish lets the environment end a generating request early (EOS)
	// at any forward, not only at MaxNewTokens.
	EarlyFinish bool `kv:"early_finish" doc:"the environment may end a request at EOS" class:"bool"`
	// Ranks is the number of ranks: attention-DP ranks, pipeline stages, or
	// independent ranks.
	Ranks uint8 `kv:"ranks" doc:"number of ranks" class:"size at=1"`
	// Loop is the executor loop every rank runs.
	Loop LoopKind `kv:"loop" doc:"executor loop" class:"enum"`
	// AttentionDP is enable_attention_dp: ranks pad empty batches with
	// dummies and vote with _can_queue's allgather.
	AttentionDP bool `kv:"enable_attention_dp" doc:"attention data parallelism" class:"bool"`
	// StageADPRanks is, under pipeline parallelism with attention DP, the
	// attention-DP ranks of each stage (tp_size with enable_attention_dp):
	// rank r is ADP rank r % StageADPRanks of stage r / StageADPRanks, and
	// Ranks counts them all. 0 means 1 (one rank per stage).
	StageADPRanks uint8 `kv:"stage_adp_ranks" doc:"attention-DP ranks per pipeline stage (pipeline loop with enable_attention_dp; ranks = stages x this)" class:"set zero=one-per-stage if loop=pipeline"`
	// MaxNumActiveRequests is max_num_active_requests, the cap at which
	// _pad_empty_attention_dp_batch refuses to pad (0 = no cap).
	MaxNumActiveRequests uint8 `kv:"max_num_active_requests" doc:"pad cap of _pad_empty_attention_dp_batch (0 = none)" class:"cap zero=no-cap if enable_attention_dp=true"`
	// KVTransceiver says a kv_cache_transceiver exists (disaggregated
	// serving); with AdpDummyFixes it registers pre-schedule dummies for
	// rollback (_pending_adp_dummy_request).
	KVTransceiver bool `kv:"kv_cache_transceiver" doc:"disaggregated serving (a KV cache transceiver exists)" class:"bool"`
	// AdpDummyFixes is _enable_adp_dummy_fixes.
	AdpDummyFixes bool `kv:"enable_adp_dummy_fixes" doc:"_enable_adp_dummy_fixes" class:"bool if enable_attention_dp=true"`
	// PadDraftAfterAllocation models MTP padding py_draft_tokens to the
	// runtime draft length after try_allocate_generation (TensorRT-LLM
	// PR #19120, root cause 1): a request's first generation step is
	// allocated with no draft tokens and padded to max_draft_len before the
	// forward. Off, the placeholder drafts exist at allocation.
	PadDraftAfterAllocation bool `kv:"pad_draft_after_allocation" doc:"MTP pads py_draft_tokens after try_allocate_generation" class:"bool"`
	// StageTargetBlocks and StageDraftBlocks are each pipeline stage's own
	// GPU pages of the target and draft pool, stage 0 first (0: the
	// uniform TargetBlocks / DraftBlocks). KVCacheManagerV2.__init__ takes
	// the MIN of every rank's token capacity, so stages differ only by the
	// storage layer's rounding of that quota to whole pages, in either
	// direction (see reading-notes.md, "per-stage pool sizes").
	StageTargetBlocks [MaxRanks]uint32 `kv:"stage_target_blocks" doc:"target pages per pipeline stage, stage 0 first (0 = target_blocks)" unit:"pages" class:"set zero=target_blocks if loop=pipeline"`
	StageDraftBlocks  [MaxRanks]uint32 `kv:"stage_draft_blocks" doc:"draft pages per pipeline stage, stage 0 first (0 = draft_blocks)" unit:"pages" class:"set zero=draft_blocks if loop=pipeline"`
	// TargetPoolGroups and DraftPoolGroups are the GPU slots of each pool
	// group of a pool when its layers form several (KVCacheManagerConfig
	// coalesces buffers by life cycle and size into pool groups, each with
	// its own slots; docs/reference.md, "The per-request cache"). A full-attention cache holds a page
	// per block in every group, so a group with fewer slots runs out first
	// and is the first above max_util_for_resume, which _KVCache.resume
	// checks over every group: the pool has the smallest group's pages.
	// Unset (all 0), the pool is one group of target_blocks / draft_blocks.
	TargetPoolGroups [MaxPoolGroups]uint32 `kv:"target_pool_groups" doc:"slots of each pool group of the target pool (the smallest binds; 0 = one group of target_blocks)" unit:"pages" class:"set zero=one-group"`
	DraftPoolGroups  [MaxPoolGroups]uint32 `kv:"draft_pool_groups" doc:"slots of each pool group of the draft pool (the smallest binds; 0 = one group of draft_blocks)" unit:"pages" class:"set zero=one-group"`
	// CudaGraphPaddingDummies is the number of CUDA-graph padding dummies
	// (CUDA_GRAPH_DUMMY_REQUEST_ID, created with add_dummy_requests and
	// retained per draft length) live for the whole run: each holds an
	// IndexMapper slot in the target and the draft manager.
	CudaGraphPaddingDummies uint8 `kv:"cuda_graph_padding_dummies" doc:"CUDA-graph padding dummies held for the whole run, one IndexMapper slot each in every manager" class:"size at=0"`
	// MaxSeqLen is max_seq_len: the host page-index buffer of
	// KVCacheManagerV2 holds max_blocks_per_seq page indices per request,
	// ceil(max_seq_len / tokens_per_block) (0: the longest request of the
	// configuration as pools are sized, see maxBlocksPerSeq). A capacity
	// beyond it overflows the request's row (the _revert_gen_alloc
	// docstring, py_executor.py at 2829508).
	MaxSeqLen uint32 `kv:"max_seq_len" doc:"max_seq_len; the page-index buffer row holds its pages (0 = the longest request)" unit:"tokens" class:"page zero=longest-request"`
	// PPPropagatesRecomputePause says whether SerializableSchedulerOutput
	// carries the first stage's recompute-paused requests to the later
	// pipeline stages, which then free and pause them
	// (_terminate_recompute_paused_requests and
	// _pause_recompute_paused_requests on the propagated batch,
	// py_executor.py at 2829508). PR #15252 says it tracks recompute-paused
	// requests in "pipeline-parallel handling, serialization"; no stored
	// scheduler.py of that time shows the field (INFER, default true). Off,
	// a later stage pauses nobody and keeps rank 0's victims' caches.
	PPPropagatesRecomputePause Switch `kv:"pp_propagates_recompute_pause" doc:"SerializableSchedulerOutput carries rank 0's recompute-paused requests to later pipeline stages (INFER from PR #15252; default true)" class:"bool if loop=pipeline"`
	// DeadlockStallPasses is the scaled _DEADLOCK_STALL_ITERS of the V2
	// scheduler's deadlock detector (deadlock.go): the stalled passes in a
	// row at which it raises (0: DefaultDeadlockStallPasses).
	DeadlockStallPasses uint8 `kv:"deadlock_stall_passes" doc:"stalled scheduler passes in a row at which _detect_deadlock raises, scaled from the real 1000 (0 = 4)" class:"set zero=default"`
	// PreFixes are the historical bugs put back (see PreFix): the default,
	// none, is the code of the seed reports.
	PreFixes PreFixes `kv:"pre_fix" doc:"historical bugs put back, comma-separated (none = the code of the seed reports)" class:"set zero=none"`
	// Requests are the requests that arrive, in arrival order.
	Requests []RequestTemplate
}

// Validate reports the first field outside the limits of the compact state
// the explorer holds (token and page counts up to MaxTokens, a bounded
// environment) or outside the real code's preconditions.
func (c *Config) Validate() error { return c.validate(true) }

// ValidateReal reports the first field outside the real code's
// preconditions or the real sizes the sequential model of `kvcheck lin`
// holds: tokens up to MaxRealTokens, pages up to MaxRealPages.
func (c *Config) ValidateReal() error { return c.validate(false) }

func (c *Config) validate(compact bool) error {
	tokenLimit, pageLimit, where := MaxRealTokens, MaxRealPages, "a real configuration"
	if compact {
		tokenLimit, pageLimit, where = MaxTokens, MaxTokens, "the explored state (kvcheck lin checks histories at real sizes)"
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if c.TokensPerBlock == 0 {
		bad("tokens_per_block must be at least 1")
	}
	if c.Ranks == 0 || c.Ranks > MaxRanks {
		bad("ranks must be 1..%d, got %d", MaxRanks, c.Ranks)
	}
	if len(c.Requests) == 0 || len(c.Requests) > MaxRequests {
		bad("requests must number 1..%d, got %d", MaxRequests, len(c.Requests))
	}
	if c.MaxBatchSize == 0 || c.MaxBatchSize > MaxBatch {
		bad("max_batch_size must be 1..%d, got %d", MaxBatch, c.MaxBatchSize)
	}
	if c.MaxNumTokens == 0 {
		bad("max_num_tokens must be at least 1")
	}
	if c.ChunkedPrefill && c.ChunkUnitSize == 0 {
		bad("chunk_unit_size must be at least 1 with chunked prefill")
	}
	if c.ResumeGatePercent > 100 {
		bad("resume gate must be 0..100 percent, got %d", c.ResumeGatePercent)
	}
	for _, f := range []struct {
		key   string
		n     uint32
		limit int
		what  string
	}{
		{"tokens_per_block", c.TokensPerBlock, tokenLimit, "tokens"},
		{"max_draft_len", c.MaxDraftLen, tokenLimit, "tokens"},
		{"num_extra_kv_tokens", c.ExtraKVTokens, tokenLimit, "tokens"},
		{"kv_reserve_draft_tokens", c.ReserveDraftTokens, tokenLimit - 1, "tokens"},
		{"max_num_tokens", c.MaxNumTokens, tokenLimit, "tokens"},
		{"chunk_unit_size", c.ChunkUnitSize, tokenLimit, "tokens"},
		{"target_blocks", c.TargetBlocks, pageLimit, "pages"},
		{"draft_blocks", c.DraftBlocks, pageLimit, "pages"},
		{"target_index_slots", c.TargetIndexSlots, pageLimit, "slots"},
		{"draft_index_slots", c.DraftIndexSlots, pageLimit, "slots"},
		{"host_blocks", c.HostBlocks, pageLimit, "pages"},
	} {
		if int(f.n) > f.limit {
			bad("%s is %d %s, more than %s holds (%d)", f.key, f.n, f.what, where, f.limit)
		}
	}
	for g := 0; g < MaxPoolGroups; g++ {
		if n := max(c.TargetPoolGroups[g], c.DraftPoolGroups[g]); int(n) > pageLimit {
			bad("pool group %d has %d pages, more than %s holds (%d)", g, n, where, pageLimit)
		}
	}
	for r := 0; r < MaxRanks; r++ {
		if n := max(c.StageTargetBlocks[r], c.StageDraftBlocks[r], c.StageHostBlocks[r]); int(n) > pageLimit {
			bad("stage %d has %d pages, more than %s holds (%d)", r, n, where, pageLimit)
		}
	}
	if compact && c.MaxDraftLen > 3 {
		bad("max_draft_len must be 0..3, got %d", c.MaxDraftLen)
	}
	if compact && c.MaxDraftLen <= 3 && c.MaxBatchSize <= MaxBatch {
		choices := int(c.MaxDraftLen) + 1
		if c.EarlyFinish {
			choices *= 2
		}
		total := 1
		for i := 0; i < c.maxNumRequests() && total <= maxForwardChoices; i++ {
			total *= choices
		}
		if total > maxForwardChoices {
			bad("a forward of max_batch_size %d generation requests has more than %d environment choices (accepted tokens 0..%d%s each); lower max_batch_size or max_draft_len",
				c.MaxBatchSize, maxForwardChoices, c.MaxDraftLen, map[bool]string{true: ", or EOS", false: ""}[c.EarlyFinish])
		}
	}
	if c.DraftPool != NoDraftPool && c.MaxDraftLen == 0 {
		bad("a draft pool needs max_draft_len >= 1")
	}
	if c.RecomputePause && c.KVTransceiver {
		bad("enable_recompute_pause=true with kv_cache_transceiver=true is not a configuration TensorRT-LLM runs: a disaggregated worker " +
			"gets KVCacheV2Scheduler(enable_recompute_pause=not is_disagg) (_util.py; the gate of PR #15252, \"a disaggregated generation " +
			"worker must not replay context locally\"); set enable_recompute_pause=false")
	}
	for i, r := range c.Requests {
		id := i + 1
		if r.PromptLen == 0 || r.MaxNewTokens == 0 {
			bad("request %d: prompt and max new tokens must be at least 1", id)
		}
		if int(r.PromptLen)+int(r.MaxNewTokens)+2*int(c.MaxDraftLen)+int(c.ExtraKVTokens)+2 > tokenLimit {
			bad("request %d: prompt + new tokens exceed the %d-token limit of %s", id, tokenLimit, where)
		}
		if r.Family != NoFamily && int(r.Family) >= MaxFamilies {
			bad("request %d: family must be below %d", id, MaxFamilies)
		}
		if r.SharedPrefix > r.PromptLen {
			bad("request %d: shared prefix longer than the prompt", id)
		}
		if int(r.Rank) >= int(c.Ranks) {
			bad("request %d: routed to rank %d of %d", id, r.Rank, c.Ranks)
		}
		if c.MaxSeqLen != 0 && int(r.PromptLen)+int(r.MaxNewTokens) > int(c.MaxSeqLen) {
			bad("request %d: prompt + new tokens exceed max_seq_len %d", id, c.MaxSeqLen)
		}
		if r.SendingKV && c.Loop != OverlapLoop {
			bad("request %d: sending_kv is modeled with the overlap loop (where the completion poll that frees a sent request runs)", id)
		}
		if r.ReceivingKV && r.SendingKV {
			bad("request %d: a request cannot both receive and send its KV", id)
		}
		if r.SendingKV && r.MaxNewTokens != 1 {
			bad("request %d: sending_kv=true with new=%d: a context-only request produces only its first token on the context worker, with which it turns DISAGG_CONTEXT_TRANS_IN_PROGRESS (_send_kv_async); the tokens after it are the generation worker's (a receiving_kv request there); set new=1", id, r.MaxNewTokens)
		}
		if c.Loop == PipelineLoop && r.Rank >= c.adpWidth() {
			if c.adpWidth() == 1 {
				bad("request %d: under pipeline parallelism requests enter at rank 0", id)
			} else {
				bad("request %d: under pipeline parallelism with attention DP requests enter at an ADP rank of stage 0 (rank below %d), got %d", id, c.adpWidth(), r.Rank)
			}
		}
	}
	// A pool must hold one request at its longest, as the engine's KV cache
	// creator requires max_seq_len to fit; smaller pools are not a
	// configuration the real engine starts with.
	if c.TokensPerBlock > 0 {
		need := c.longestRequestBlocks()
		for _, pool := range []struct {
			name   string
			blocks uint32
			used   bool
		}{
			{"target_blocks", c.poolBlocks(Target), true},
			{"draft_blocks", c.poolBlocks(Draft), c.DraftPool != NoDraftPool},
		} {
			if pool.used && int(pool.blocks) < need {
				bad("%s must hold the longest request (%d blocks of %d tokens), got %d", pool.name, need, c.TokensPerBlock, pool.blocks)
			}
		}
		for r := 0; r < MaxRanks; r++ {
			for _, stage := range []struct {
				name   string
				blocks uint32
			}{{"stage_target_blocks", c.StageTargetBlocks[r]}, {"stage_draft_blocks", c.StageDraftBlocks[r]}, {"stage_host_blocks", c.StageHostBlocks[r]}} {
				switch {
				case stage.blocks == 0:
				case r >= int(c.stages()) || c.Loop != PipelineLoop:
					bad("%s: stage %d set, but the configuration has %d pipeline stage(s)", stage.name, r, map[bool]uint8{true: c.stages(), false: 0}[c.Loop == PipelineLoop])
				case int(stage.blocks) < need && stage.name != "stage_host_blocks":
					bad("%s: stage %d must hold the longest request (%d blocks of %d tokens), got %d", stage.name, r, need, c.TokensPerBlock, stage.blocks)
				}
			}
		}
	}
	switch w := c.StageADPRanks; {
	case w > 1 && (c.Loop != PipelineLoop || !c.AttentionDP):
		bad("stage_adp_ranks %d needs loop=pipeline and enable_attention_dp=true", w)
	case c.Loop == PipelineLoop && c.AttentionDP && w < 2:
		bad("attention DP inside pipeline stages needs stage_adp_ranks of at least 2 (ranks = stages x stage_adp_ranks)")
	case w > 1 && (c.Ranks%w != 0 || c.Ranks/w < 2):
		bad("stage_adp_ranks %d must divide ranks %d into at least 2 pipeline stages", w, c.Ranks)
	}
	if c.AttentionDP && c.Loop == NonOverlapLoop && c.Ranks > 1 {
		bad("attention DP is modeled with the overlap loop")
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid configuration: %s", strings.Join(problems, "; "))
	}
	return nil
}

// longestRequestBlocks is the pages the longest request needs at its
// longest (prompt, new tokens, twice the draft width, extra tokens and the
// token being generated): every pool must hold it, as the engine's KV cache
// creator requires max_seq_len to fit.
func (c *Config) longestRequestBlocks() int {
	longest := 0
	for i := range c.Requests {
		longest = max(longest, c.RequestBlocks(uint8(i+1)))
	}
	return longest
}

// maxBlocksPerSeq is the row length of the host page-index buffer:
// ceil(max_seq_len / tokens_per_block), or the longest request's pages
// when max_seq_len is not set.
func (c *Config) maxBlocksPerSeq() int {
	if c.MaxSeqLen != 0 {
		return (int(c.MaxSeqLen) + int(c.TokensPerBlock) - 1) / int(c.TokensPerBlock)
	}
	return c.longestRequestBlocks()
}

// blocksFor is ceil(tokens / tokens_per_block): the block count the core
// asserts at entry of _KVCache.resize.
func (c *Config) blocksFor(tokens uint8) uint8 {
	tpb := int(c.TokensPerBlock)
	return uint8((int(tokens) + tpb - 1) / tpb)
}

// hasPool reports whether rank r has pool p. Under pipeline parallelism
// the MTP layers live on the last stage (get_pp_layers appends the spec
// layers there), but the draft KV cache manager is built on every rank,
// with a one-layer placeholder pool where a stage has no draft layer, and
// all the draft bookkeeping runs against it (py_executor / _util.py,
// spec/reading-notes.md); kvcheck gives every stage the same draft pool.
func (c *Config) hasPool(r uint8, p PoolKind) bool {
	return p == Target || c.DraftPool != NoDraftPool
}

// poolBlocksOn is the GPU page count of pool p on rank r: a pipeline
// stage's own size (StageTargetBlocks, StageDraftBlocks) where set, else
// the uniform one.
func (c *Config) poolBlocksOn(r uint8, p PoolKind) uint32 {
	stage := &c.StageTargetBlocks
	if p == Draft {
		stage = &c.StageDraftBlocks
	}
	if c.Loop == PipelineLoop && stage[c.stageOf(r)] != 0 {
		return stage[c.stageOf(r)]
	}
	return c.poolBlocks(p)
}

// hostBlocksOn is the host-tier page count of pool p on rank r (0 without
// a host tier).
func (c *Config) hostBlocksOn(r uint8, p PoolKind) uint32 {
	switch {
	case !c.HostTier:
		return 0
	case c.Loop == PipelineLoop && c.StageHostBlocks[c.stageOf(r)] != 0:
		return c.StageHostBlocks[c.stageOf(r)]
	case c.HostBlocks != 0:
		return c.HostBlocks
	}
	return c.poolBlocksOn(r, p)
}

// equalizeStagePools sizes every stage's pools like the smallest stage's
// (FixEqualStagePools).
func (c *Config) equalizeStagePools() {
	for _, p := range []PoolKind{Target, Draft} {
		smallest := c.poolBlocks(p)
		for r := uint8(0); r < c.Ranks; r++ {
			smallest = min(smallest, c.poolBlocksOn(r, p))
		}
		if p == Target {
			c.TargetBlocks, c.StageTargetBlocks = smallest, [MaxRanks]uint32{}
		} else {
			c.DraftBlocks, c.StageDraftBlocks = smallest, [MaxRanks]uint32{}
		}
	}
}

// poolBlocks is the GPU page count of pool p.
func (c *Config) poolBlocks(p PoolKind) uint32 {
	blocks, groups := c.TargetBlocks, &c.TargetPoolGroups
	if p == Draft {
		blocks, groups = c.DraftBlocks, &c.DraftPoolGroups
	}
	smallest := uint32(0)
	for _, n := range groups {
		if n != 0 && (smallest == 0 || n < smallest) {
			smallest = n
		}
	}
	if smallest != 0 {
		return smallest
	}
	return blocks
}

// indexSlots is the IndexMapper capacity of pool p.
func (c *Config) indexSlots(p PoolKind) uint32 {
	slots := int(c.TargetIndexSlots)
	if p == Draft {
		slots = int(c.DraftIndexSlots)
		if c.PreFixes.Has(PreFixDraftOneDummySlot) {
			slots -= c.dummyIndexSlots() - 1
		}
	}
	return uint32(max(slots-int(c.CudaGraphPaddingDummies), 0))
}

// dummyIndexSlots is the IndexMapper slots a manager reserves for dummies
// (KVCacheManagerV2, PR #17347): num_cuda_graph_padding_dummy_slots +
// int(enable_attention_dp).
func (c *Config) dummyIndexSlots() int {
	n := int(c.CudaGraphPaddingDummies)
	if c.AttentionDP {
		n++
	}
	return max(n, 1)
}

// template returns the template of request id (1-based).
func (c *Config) template(id uint8) *RequestTemplate {
	return &c.Requests[id-1]
}

// ConfigPages counts every GPU page of every pool on every rank: the
// "pages" a smallest counterexample has fewest of.
func ConfigPages(c *Config) int {
	pages := 0
	for r := uint8(0); r < c.Ranks; r++ {
		for p := Target; p < numPools; p++ {
			if c.hasPool(r, p) {
				pages += int(c.poolBlocksOn(r, p))
			}
		}
	}
	return pages
}
