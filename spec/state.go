package spec

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// CacheStatus mirrors _KVCache._Status, plus Absent for "no entry in
// kv_cache_map" (a closed cache is popped from the map).
type CacheStatus uint8

const (
	// Absent: the manager holds no cache under this request ID.
	Absent CacheStatus = iota
	// Suspended: born SUSPENDED, or suspend()ed; pages stay held on GPU
	// unless a lower tier exists and they are evicted.
	Suspended
	// Active: resumed; the only status in which resize and commit are legal.
	Active
)

func (s CacheStatus) String() string {
	return [...]string{"absent", "suspended", "active"}[s]
}

// Cache is one request's _KVCache in one pool as the explored state holds
// it: CacheOf with byte-wide counts.
type Cache = CacheOf[uint8]

// RequestState mirrors LlmRequestState as far as the manager reads it, plus
// the model's own "not arrived" and "freed" ends.
type RequestState uint8

const (
	// NotArrived: not yet in active_requests.
	NotArrived RequestState = iota
	// ContextInit: CONTEXT_INIT, prefill (possibly chunked) in progress.
	ContextInit
	// GenerationInProgress: GENERATION_IN_PROGRESS.
	GenerationInProgress
	// GenerationComplete: GENERATION_COMPLETE, waiting to be freed.
	GenerationComplete
	// Finished: terminated; all its resources freed.
	Finished
	// DisaggGenerationInit: DISAGG_GENERATION_INIT, waiting for the
	// scheduler's prepare_disagg_gen_init.
	DisaggGenerationInit
	// DisaggTransmission: DISAGG_GENERATION_TRANS_IN_PROGRESS, receiving KV:
	// active but not schedulable.
	DisaggTransmission
	// DisaggContextTransmission: DISAGG_CONTEXT_TRANS_IN_PROGRESS, a
	// context-only request sending its KV: out of active_requests, its
	// caches still held until the transfer completes.
	DisaggContextTransmission
	// DisaggTransComplete: DISAGG_GENERATION_TRANS_COMPLETE, a disaggregated
	// generation request whose KV has landed. It is inside the schedulable
	// range [CONTEXT_INIT, GENERATION_TO_COMPLETE) (llmRequest.h: 12), so
	// the V2 scheduler schedules it as a generation request; its first
	// token comes only when the batch is queued
	// (_prepare_disagg_gen_transmission_complete, disagg_gen.go).
	DisaggTransComplete
	// GenerationToComplete: GENERATION_TO_COMPLETE, set by the overlap loop
	// on a request whose token in flight is its last
	// (_update_generation_requests_that_will_complete_next_iteration):
	// active, outside the scheduler's range, counted by the attention-DP
	// pad.
	GenerationToComplete
)

func (s RequestState) String() string {
	return [...]string{"not-arrived", "context", "generation", "complete", "finished", "disagg-init", "receiving-kv", "sending-kv", "kv-landed", "to-complete"}[s]
}

// isActive reports whether a request in state s is in active_requests.
func (s RequestState) isActive() bool {
	switch s {
	case ContextInit, GenerationInProgress, GenerationComplete, DisaggGenerationInit, DisaggTransmission, DisaggTransComplete, GenerationToComplete:
		return true
	}
	return false
}

// isGenerationInProgress is LlmRequest::isGenerationInProgressState:
// GENERATION_IN_PROGRESS, GENERATION_TO_COMPLETE or
// DISAGG_GENERATION_TRANS_COMPLETE (llmRequest.h). The scheduler's
// _is_started_request and its eviction read it.
func (s RequestState) isGenerationInProgress() bool {
	return s == GenerationInProgress || s == GenerationToComplete || s == DisaggTransComplete
}

// isScheduledAsGeneration reports whether KVCacheV2Scheduler's phase 1
// sends a request in state s to _try_schedule_generation: every state in
// its range [CONTEXT_INIT, GENERATION_TO_COMPLETE) but CONTEXT_INIT
// (scheduler_v2.py at 00746ef), i.e. GENERATION_IN_PROGRESS and
// DISAGG_GENERATION_TRANS_COMPLETE.
func (s RequestState) isScheduledAsGeneration() bool {
	return s == GenerationInProgress || s == DisaggTransComplete
}

// Request is one LlmRequest as one rank sees it.
type Request struct {
	State RequestState
	// Incarnation counts the times this ID has been (re)created on the rank.
	Incarnation uint8
	// Prompt is the prompt length; a recompute-paused request re-prefills
	// all its tokens, so LlmRequest::pause makes them its new prompt.
	Prompt uint8
	// Position is context_current_position of the target view.
	Position uint8
	// DraftPosition is context_current_position of the draft view
	// (request_context(use_draft_model=True)), see DraftViewMode.
	DraftPosition uint8
	// Reused is the prefix length settled from block reuse
	// (set_prepopulated_prompt_len).
	Reused uint8
	// NumTokens is max_beam_num_tokens: prompt plus generated tokens.
	NumTokens uint8
	// DraftLen is len(py_draft_tokens).
	DraftLen uint8
	// Accepted is py_num_accepted_draft_tokens of the last forward.
	Accepted uint8
	// PreResizeCapacity is py_ctx_pre_resize_cap + 1 (0 = unset).
	PreResizeCapacity uint8
	// ChunkSize is the object's context_chunk_size as the scheduler last
	// wrote it (recorded under pipeline parallelism only, where later
	// stages run rank 0's batch with their own objects' chunk sizes);
	// moveToNextContextChunk resets it to 0.
	ChunkSize uint8
	// Flags holds requestFlag* bits.
	Flags uint8
	// Produced is a ghost count, not a field of the real object: the
	// tokens the forwards that ran this request produced (the first token
	// of a finished prompt, 1 + accepted drafts per generation step, the
	// context server's first token of a disaggregated request), counted
	// where the forward records its sample state, apart from the sampler's
	// update of NumTokens. tokens-accounted compares the two
	// (token_accounting.go).
	Produced uint8
}

const (
	// requestFlagAdpDummy: is_attention_dp_dummy (and is_dummy_request).
	requestFlagAdpDummy = 1 << iota
	// requestFlagSkipGenRevert: py_skip_gen_alloc_revert, set on the
	// post-schedule pad dummy whose capacity was never grown.
	requestFlagSkipGenRevert
	// requestFlagPendingDummy: this dummy is _pending_adp_dummy_request.
	requestFlagPendingDummy
	// requestFlagInflight: in inflight_request_ids (pipeline loop).
	requestFlagInflight
	// requestFlagKVSent: a context-only request's KV send has completed;
	// the executor's next completion poll releases it (ctx_transfer.go).
	requestFlagKVSent
)

// BatchKind says how a request was scheduled.
type BatchKind uint8

const (
	// ContextChunk: a (possibly chunked) prefill step.
	ContextChunk BatchKind = iota + 1
	// GenerationStep: one generation step with draft tokens.
	GenerationStep
)

// BatchEntry is one request of a ScheduledRequests batch, with the
// sampling outcome once the batch ran (its sample state).
type BatchEntry struct {
	ID   uint8
	Kind BatchKind
	// Chunk is context_chunk_size for a context entry.
	Chunk uint8
	// Last says the chunk finishes the prompt (is_last_context_chunk).
	Last bool
	// Incarnation is the incarnation of the request object the batch holds.
	Incarnation uint8
	// Accepted is the accepted draft tokens the forward produced.
	Accepted uint8
	// EOS says the environment ended the request at this step.
	EOS bool
}

// Batch is a ScheduledRequests value: context entries then generation
// entries, in scheduling order.
type Batch struct {
	Count   uint8
	Entries [MaxBatch]BatchEntry
	// Dummy is the batch's own copy of an attention-DP dummy request object
	// that was retired while the batch still referenced it: the dummy ID is
	// fixed, so a later dummy's object sits under the same ID.
	Dummy Request
}

// Phase is where a rank's executor loop stands between two actions.
type Phase uint8

const (
	// PhaseIdle: before _prepare_and_schedule_batch.
	PhaseIdle Phase = iota
	// PhaseScheduled: the scheduler ran and allocated; prepare_resources
	// next (or, with attention DP or the overlap loop, _can_queue).
	PhaseScheduled
	// PhasePrepared: resources prepared; the forward step next.
	PhasePrepared
	// PhaseForwarded: forward and sampling done; the update next.
	PhaseForwarded
	// PhaseFetched: attention DP fetched new requests and learned
	// expected_num_active_requests from the allgather; scheduling next.
	PhaseFetched
	// PhaseQueued: _can_queue decided; prepare_resources or the rollback
	// next.
	PhaseQueued
)

func (p Phase) String() string {
	return [...]string{"idle", "scheduled", "prepared", "forwarded", "fetched", "queued"}[p]
}

// Pool is one KV cache manager's page accounting on one rank as the
// explored state holds it: PoolOf with byte-wide counts.
type Pool = PoolOf[uint8]

// Rank is one rank's engine: its two pools, its view of the requests, and
// its executor loop.
type Rank struct {
	// PendingPause is, in the overlap loop, the recompute-paused victims of
	// this iteration's pass (a bit set of IDs) that the loop pauses after
	// the previous batch's _update_requests.
	PendingPause uint16
	Pools        [numPools]Pool
	Requests     [MaxIDs]Request
	Phase        Phase
	Batch        Batch
	// Previous is the overlap loop's previous_batch (Count 0: None).
	Previous Batch
	// CanQueue and CanQueueThisRank are _can_queue's answer this iteration.
	CanQueue, CanQueueThisRank bool
	// PreviousSampled says _update_requests(previous_batch) already ran this
	// iteration.
	PreviousSampled bool
	// ExpectedActive is expected_num_active_requests from the attention-DP
	// allgather at fetch.
	ExpectedActive uint8
	// PipelinePos is, under pipeline parallelism, the index in
	// State.Pipeline of the iteration this rank runs next (or is in).
	PipelinePos uint8
	// StalledPasses is KVCacheV2Scheduler._stalled_schedules: the passes in
	// a row that made no progress (deadlock.go).
	StalledPasses uint8
	// DummyAfter is, while an attention-DP dummy is active, the number of
	// the rank's requests that had arrived when it was padded:
	// active_requests holds the dummy after those and before any that
	// arrived later, and _update_request_states_tp removes it only when it
	// is last.
	DummyAfter uint8
	// AdpDummyRole holds adpRole* bits (attention DP with a KV cache
	// transceiver only): the pad dummy's role (_adp_dummy_is_gen) and the
	// kinds of request the rank's fetch has not yet seen arrive.
	AdpDummyRole uint8
}

// Crash records the first raise inside the executor loop: the engine is
// down (the real engine hard-kills every rank).
type Crash struct {
	Happened bool
	Rank     uint8
	Pool     PoolKind
	ID       uint8
	Function Function
	Error    ErrorText
	// Value is the number the error text carries (tokens), if any.
	Value uint8
}

// PipelineIteration is one iteration of _executor_loop_pp as every stage
// sees it: the micro-batch rank 0 scheduled (possibly empty) and how many
// executed batches rank 0 handled at its end, which every stage repeats.
type PipelineIteration struct {
	// Batch is the micro-batch rank 0 scheduled. Under pipeline parallelism
	// with attention DP (2 stages of 2 ADP ranks) ADP rank 1's micro-batch
	// is kept in the Batch of the record stages places further on, which
	// the at most 2 live iterations leave unused (Spec.microBatch), so the
	// state does not grow for it.
	Batch Batch
	// Vetoed says _can_queue's allgather found an empty ADP batch: every
	// stage reverts its growth and skips the micro-batch
	// (micro_batches[id] = None), so nothing is executed or handled.
	Vetoed bool
	// Forwarded has bit s set once stage s ran the micro-batch.
	Forwarded uint8
	// Handled has bit s set once stage s handled the executed batch.
	Handled uint8
	// Done has bit s set once stage s finished the iteration.
	Done uint8
	// HandleCount is the number of executed batches handled at the end of
	// the iteration, plus one (0: rank 0 has not decided yet).
	HandleCount uint8
	// Arrived is how many requests had arrived when rank 0 started it.
	Arrived uint8
	// RecomputePaused is the recompute-paused victims of the first stage's
	// pass (a bit set of IDs), which SerializableSchedulerOutput carries
	// to the later stages (Config.PPPropagatesRecomputePause).
	RecomputePaused uint16
}

// State is the whole model state: a compact value with no pointers, maps or
// slices, so it copies and hashes fast.
type State struct {
	// Arrived is the number of request templates that have arrived.
	Arrived uint8
	// PipelineLen is the number of pipeline iterations not yet finished by
	// every stage; Pipeline[0] is the oldest.
	PipelineLen uint8
	Crash       Crash
	// Hazard is the first forward over a cache that was not ACTIVE (a
	// ghost: the real engine does not raise, hazard.go).
	Hazard   Hazard
	Pipeline [MaxRanks]PipelineIteration
	Ranks    [MaxRanks]Rank
}

// fingerprint hashes the state bytes of the first n ranks (ranks beyond the
// configuration are always zero).
func fingerprint(s *State, ranks int) uint64 {
	b := unsafe.Slice((*byte)(unsafe.Pointer(s)), stateSize(ranks))
	return hashBytes(b)
}

// stateSize is the number of leading bytes of a State that n ranks use.
func stateSize(ranks int) int {
	return int(unsafe.Offsetof(State{}.Ranks)) + ranks*int(unsafe.Sizeof(Rank{}))
}

// hashBytes is a fast 64-bit mix over 8-byte words (a wyhash-style
// multiply-fold) in four independent lanes of 32 bytes, so that the
// multiplications overlap, then the remaining words and the tail bytes.
func hashBytes(b []byte) uint64 {
	const (
		k0 = 0xa0761d6478bd642f
		k1 = 0xe7037ed1a0b428db
		k2 = 0x8ebc6af09c88c6e3
		k3 = 0x589965cc75374cc3
	)
	le := binary.LittleEndian
	h := uint64(len(b)) ^ k0
	if len(b) >= 32 {
		h1, h2, h3 := h^k1, h^k2, h^k3
		for len(b) >= 32 {
			h = mix(h^le.Uint64(b), k1)
			h1 = mix(h1^le.Uint64(b[8:]), k2)
			h2 = mix(h2^le.Uint64(b[16:]), k3)
			h3 = mix(h3^le.Uint64(b[24:]), k0)
			b = b[32:]
		}
		h = mix(h^h1, k1) ^ mix(h2^h3, k2)
	}
	for len(b) >= 8 {
		h = mix(h^le.Uint64(b), k1)
		b = b[8:]
	}
	var tail uint64
	for i, c := range b {
		tail |= uint64(c) << (8 * i)
	}
	return mix(h^tail, k0)
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
