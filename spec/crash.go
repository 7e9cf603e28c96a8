package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// Function names the real function a raise comes out of.
type Function uint8

const (
	FnNone Function = iota
	FnPrepareDraftResources
	FnUpdateResources
	FnUpdateContextResources
	FnRevertAllocateGeneration
	FnResize
	FnCopyBatchBlockOffsets
	FnAddDummyRequests
	FnDetectDeadlock
	numFunctions
)

var functionNames = [numFunctions]string{
	FnNone:                     "",
	FnPrepareDraftResources:    "_prepare_draft_resources",
	FnUpdateResources:          "update_resources",
	FnUpdateContextResources:   "update_context_resources",
	FnRevertAllocateGeneration: "revert_allocate_generation",
	FnResize:                   "resize",
	FnCopyBatchBlockOffsets:    "copy_batch_block_offsets",
	FnAddDummyRequests:         "_pad_attention_dp_dummy_request",
	FnDetectDeadlock:           "_detect_deadlock",
}

func (f Function) String() string { return functionNames[f] }

// ErrorText is one exception the real code raises, with its exact text.
type ErrorText uint8

const (
	ErrNone ErrorText = iota
	// ErrHistoryDecreased is the core's std::invalid_argument from
	// KvCache::resize (kvCache.cpp), surfacing as ValueError.
	ErrHistoryDecreased
	// ErrHistoryExceedsCapacity is the core's other resize precondition
	// (the C++ text; the Python backend says "cannot be greater than").
	ErrHistoryExceedsCapacity
	// ErrDraftResume is _prepare_draft_resources' RuntimeError when the
	// mirror's resume is refused.
	ErrDraftResume
	// ErrDraftContextResize is _prepare_draft_resources' RuntimeError when
	// the mirror's context resize returns False.
	ErrDraftContextResize
	// ErrDraftGenerationResize is _prepare_draft_resources' RuntimeError when
	// the mirror's generation resize returns False.
	ErrDraftGenerationResize
	// ErrDraftMirrorExhausted is _prepare_draft_resources' RuntimeError when a
	// generation request's mirror cannot be created (IndexMapper full).
	ErrDraftMirrorExhausted
	// ErrMirrorMissing is the assertion copy_batch_block_offsets hits when
	// a context request's mirror could not be created (the context path
	// only logs a warning and continues).
	ErrMirrorMissing
	// ErrGenerationUpdate is update_resources' ValueError when a resize
	// returns False.
	ErrGenerationUpdate
	// ErrContextUpdate is update_context_resources' ValueError when the
	// history resize returns False.
	ErrContextUpdate
	// ErrRevertGeneration is revert_allocate_generation's RuntimeError when
	// its shrinking resize fails.
	ErrRevertGeneration
	// ErrResizeNotActive is a resize of a cache that is not ACTIVE (C++
	// TLLM_CHECK_DEBUG; an assert in the Python backend).
	ErrResizeNotActive
	// ErrUnmappedRequest is the TLLM_CHECK of IndexMapper::getIndex
	// (kvCacheManagerV2Utils.cpp) that copy_batch_block_offsets reaches for
	// a batch request ID the manager holds no cache for.
	ErrUnmappedRequest
	// ErrDummyNone is the TypeError of indexing add_dummy_requests' None
	// result (before TensorRT-LLM PR #14286).
	ErrDummyNone
	// ErrSchedulerDeadlock is KVCacheV2Scheduler._detect_deadlock's
	// RuntimeError after _DEADLOCK_STALL_ITERS (1000) stalled passes in a
	// row (scheduler_v2.py at 00746ef; deadlock.go).
	ErrSchedulerDeadlock
	// ErrSchedulerDeadlockRC25 is the earlier inline check at the end of
	// _schedule_loop, which raised on the first stalled pass (deadlock.go).
	ErrSchedulerDeadlockRC25
	numErrorTexts
)

// String returns the error text as the real code formats it for request id
// and value.
func (c *Crash) String() string {
	return formatError(c.Error, c.ID, int(c.Value))
}

func formatError(e ErrorText, id uint8, value int) string {
	text := errorRegistry[e].template
	text = strings.ReplaceAll(text, "{id}", strconv.Itoa(int(id)))
	text = strings.ReplaceAll(text, "{gen}", strconv.Itoa(value>>4))
	text = strings.ReplaceAll(text, "{ctx}", strconv.Itoa(value&15))
	return strings.ReplaceAll(text, "{n}", strconv.Itoa(value))
}

// errorKind is the error text with its placeholders left in, so distinct
// mechanisms group apart and the same mechanism on different requests
// groups together.
func errorKind(e ErrorText) string { return errorRegistry[e].template }

// raiseName is the short stable name of an exception, for coverage rows.
func raiseName(e ErrorText) string { return errorRegistry[e].name }

// errorRegistry declares each exception of the real code once: its short
// stable name (coverage rows, reaches:) and its text, with {id} for the
// request ID and {n} for a token count (for the deadlock raise, the
// candidates: {gen} generation and {ctx} context requests).
var errorRegistry = [numErrorTexts]struct{ name, template string }{
	ErrNone:                   {"", ""},
	ErrHistoryDecreased:       {"history-decreased", "ValueError: History length cannot be decreased"},
	ErrHistoryExceedsCapacity: {"history-exceeds-capacity", "ValueError: History length cannot exceed capacity"},
	ErrDraftResume:            {"draft-resume-failed", "RuntimeError: Failed to resume draft KV cache for request {id}"},
	ErrDraftContextResize:     {"draft-context-resize-failed", "RuntimeError: Draft KV cache context resize failed for request {id}: could not resize to {n} tokens"},
	ErrDraftGenerationResize:  {"draft-generation-resize-failed", "RuntimeError: Draft KV cache generation resize failed for request {id}: could not resize to {n} tokens"},
	ErrDraftMirrorExhausted:   {"draft-mirror-exhausted", "RuntimeError: Draft KV cache mirror exhausted its IndexMapper on generation request {id}"},
	ErrMirrorMissing:          {"mirror-missing", "AssertionError: copy_batch_block_offsets: no draft KV cache for request {id} (the mirror could not be created)"},
	ErrGenerationUpdate:       {"generation-update-failed", "ValueError: Failed to resize KV cache for request {id} at generation update"},
	ErrContextUpdate:          {"context-update-failed", "ValueError: Failed to resize history length of KV cache for request {id} at context update"},
	ErrRevertGeneration:       {"revert-generation-failed", "RuntimeError: Failed to revert KV cache capacity for request {id}"},
	ErrResizeNotActive:        {"resize-not-active", "AssertionError: resize of request {id} whose KV cache is not ACTIVE"},
	ErrUnmappedRequest:        {"request-not-in-index-mapper", "RuntimeError: Request ID not found in IndexMapper (request {id})"},
	ErrDummyNone:              {"dummy-none-indexed", "TypeError: 'NoneType' object is not subscriptable (add_dummy_requests returned None for request {id})"},
	ErrSchedulerDeadlock:      {"scheduler-deadlock", "RuntimeError: V2 scheduler deadlock: {gen} generation and {ctx} context request(s) active but none could be scheduled, suspended or preempted in 1000 consecutive attempts. The KV cache pool is likely exhausted."},
	ErrSchedulerDeadlockRC25:  {"scheduler-deadlock-immediate", "RuntimeError: V2 scheduler deadlock: {gen} generation request(s) active but none could be scheduled or evicted. KV cache pool is likely exhausted with no secondary cache tier for suspend/resume offload."},
}

// crash moves the engine to the crashed state unless it already crashed:
// a raise inside the executor loop is not a Go panic but a recorded state.
func (s *State) crash(rank uint8, pool PoolKind, id uint8, fn Function, err ErrorText, value uint8) {
	if s.Crash.Happened {
		return
	}
	s.Crash = Crash{Happened: true, Rank: rank, Pool: pool, ID: id, Function: fn, Error: err, Value: value}
}

// Describe renders the crash as "rank R pool P request N: function: text".
func (c *Crash) Describe() string {
	text := fmt.Sprintf("rank %d %s pool request %d: %s raised %s", c.Rank, c.Pool, c.ID, c.Function, c.String())
	if c.Error == ErrSchedulerDeadlock {
		text += " (kvcheck counts deadlock_stall_passes stalled passes for the real 1000)"
	}
	return text
}
