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
)

// functionNames is the registry of Function: the functions above, then
// every defineFunction, in package initialization order.
var functionNames = []string{
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

// defineFunction declares a real function a new raise comes out of, in
// the file of the mechanism that raises it (a historical bug's, for
// instance), and returns it. The name is the real function's.
func defineFunction(name string) Function {
	for _, n := range functionNames {
		if n == name {
			panic("spec: function " + name + " declared twice")
		}
	}
	functionNames = append(functionNames, name)
	return Function(len(functionNames) - 1)
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

// raiseDef is one exception of the real code: its short stable name
// (coverage rows, reaches:) and its text, with {id} for the request ID and
// {n} for a token count (for the deadlock raise, the candidates: {gen}
// generation and {ctx} context requests). Unreached, when set, says why no
// built-in scenario raises it (the coverage tests want it exactly when
// none does).
type raiseDef struct{ name, template, unreached string }

// RaiseInfo declares a new raise with defineRaise: Name its short stable
// name, Template its text (placeholders as raiseDef's), Unreached why no
// built-in scenario reaches it ("" when one does).
type RaiseInfo struct{ Name, Template, Unreached string }

// defineRaise declares an exception the real code raises, in the file of
// the mechanism that raises it, and returns it: the coverage rows, reaches:
// and the transcripts read its name and text from here.
func defineRaise(info RaiseInfo) ErrorText {
	for _, d := range errorRegistry {
		if d.name == info.Name {
			panic("spec: raise " + info.Name + " declared twice")
		}
	}
	if len(errorRegistry) > 255 {
		panic("spec: more raises than an ErrorText holds")
	}
	errorRegistry = append(errorRegistry, raiseDef{info.Name, info.Template, info.Unreached})
	return ErrorText(len(errorRegistry) - 1)
}

// errorRegistry declares each exception of the real code once (raiseDef):
// the ErrorText constants above, then every defineRaise.
var errorRegistry = []raiseDef{
	ErrNone:                   {"", "", ""},
	ErrHistoryDecreased:       {"history-decreased", "ValueError: History length cannot be decreased", "no modeled path lowers a history in the built-in scenarios"},
	ErrHistoryExceedsCapacity: {"history-exceeds-capacity", "ValueError: History length cannot exceed capacity", ""},
	ErrDraftResume:            {"draft-resume-failed", "RuntimeError: Failed to resume draft KV cache for request {id}", ""},
	ErrDraftContextResize:     {"draft-context-resize-failed", "RuntimeError: Draft KV cache context resize failed for request {id}: could not resize to {n} tokens", ""},
	ErrDraftGenerationResize:  {"draft-generation-resize-failed", "RuntimeError: Draft KV cache generation resize failed for request {id}: could not resize to {n} tokens", ""},
	ErrDraftMirrorExhausted:   {"draft-mirror-exhausted", "RuntimeError: Draft KV cache mirror exhausted its IndexMapper on generation request {id}", ""},
	ErrMirrorMissing:          {"mirror-missing", "AssertionError: copy_batch_block_offsets: no draft KV cache for request {id} (the mirror could not be created)", "needs an unpaired draft pool whose IndexMapper is smaller than the target's; no built-in scenario has one"},
	ErrGenerationUpdate:       {"generation-update-failed", "ValueError: Failed to resize KV cache for request {id} at generation update", "only clamp-capacity can make update_resources grow a cache, and no scenario under that fix runs out of pages at the update"},
	ErrContextUpdate:          {"context-update-failed", "ValueError: Failed to resize history length of KV cache for request {id} at context update", "unreachable by construction: _resize_context_history keeps the capacity, so the resize allocates nothing and never returns False; kept to mirror the real ValueError"},
	ErrRevertGeneration:       {"revert-generation-failed", "RuntimeError: Failed to revert KV cache capacity for request {id}", "unreachable by construction: revert_allocate_generation only shrinks, and a shrinking resize allocates nothing so never returns False; kept to mirror the real RuntimeError"},
	ErrResizeNotActive:        {"resize-not-active", "AssertionError: resize of request {id} whose KV cache is not ACTIVE", "unreachable by construction: every modeled caller resumes the cache or checks ACTIVE before resizing; kept to mirror the real assert"},
	ErrUnmappedRequest:        {"request-not-in-index-mapper", "RuntimeError: Request ID not found in IndexMapper (request {id})", "at v1.3.0rc25 a later stage keeps a failed first chunk's cache (suspended, still mapped); the default sweeps of pp-history-capacity and pp-stage-divergence reach it at 00746ef (kvcheck sweep --cover)"},
	ErrDummyNone:              {"dummy-none-indexed", "TypeError: 'NoneType' object is not subscriptable (add_dummy_requests returned None for request {id})", ""},
	ErrSchedulerDeadlock:      {"scheduler-deadlock", "RuntimeError: V2 scheduler deadlock: {gen} generation and {ctx} context request(s) active but none could be scheduled, suspended or preempted in 1000 consecutive attempts. The KV cache pool is likely exhausted.", "a designed raise with no fix to check against: eviction-ladder without the recompute pause at max_util_for_resume 0.95 and 00746ef (two requests suspend themselves in a full four-page pool, the gate refuses both resumes, _detect_deadlock raises at the fourth stalled pass) reaches it with kvcheck check --config, but a built-in scenario whose real code breaks an invariant needs a fix set (TestEveryScenarioHasItsFixes) and no modeled fix closes it"},
	ErrSchedulerDeadlockRC25:  {"scheduler-deadlock-immediate", "RuntimeError: V2 scheduler deadlock: {gen} generation request(s) active but none could be scheduled or evicted. KV cache pool is likely exhausted with no secondary cache tier for suspend/resume offload.", "see branch scheduler-deadlock-immediate (overlap-eviction-ladder's configuration at v1.3.0rc25 raises it, kvcheck check --config)"},
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
