// Package lin checks histories of KV-cache operations recorded from a
// running engine, or encoded from TensorRT-LLM's unit tests
// (../conformance, docs/conformance.md), for linearizability against the
// spec's sequential model of one pool (spec.Spec.ApplyPoolOp: the spec's
// own core and manager steps at 32-bit counts), with anishathalye/porcupine,
// partitioned per (engine, rank, pool): requests share a pool's pages, so
// a per-request partition would accept histories no order explains.
//
// A history is JSON lines. An optional first line names the configuration
// the engine ran:
//
//	{"kvcheck_history": 1, "scenario": "draft-admission"}
//	{"kvcheck_history": 1, "config": "tokens_per_block=4\ntarget_blocks=8\n..."}
//
// Every other line is one operation on the cache of one request in one
// pool of one rank, what it returned, and when it was called and returned:
//
//	{"rank":0,"pool":"draft","request":3,"op":"create","args":{"reuse":false,"prompt":12},"result":{"ok":true,"reused":0},"call":460,"return":465}
//	{"rank":0,"pool":"draft","request":3,"op":"resume","result":{"ok":true},"call":470,"return":475}
//	{"rank":0,"pool":"draft","request":3,"op":"resize","args":{"capacity":12,"history":null},"result":{"ok":false},"call":480,"return":485}
//	{"rank":0,"pool":"draft","request":2,"op":"resize","args":{"capacity":5,"history":13},"result":{"raise":"ValueError: History length cannot exceed capacity"},"call":500,"return":505}
//
// Operations: create {reuse, prompt} (_create_kv_cache: with reuse the
// prompt without its last token is looked up in the reuse tree; without it
// the cache is created with tokens=None and stop_committing),
// create_kv_cache {tokens} (the core's own lookup of exactly that many
// tokens, null for None), resume, suspend, resize {capacity, history}
// (null is None), commit {tokens, last}, close, probe_reuse {tokens}, and
// the manager steps update_resources {rewind, accepted, num_tokens, state,
// kv_compression_manages_history}, try_allocate_generation {draft_len},
// revert_allocate_generation, prepare_draft_resources {phase, position,
// chunk, last, draft_len}, admit_mirror and allocated_draft_len. A manager
// step's result adds "resize": [capacity, history], the resize it called.
// Token counts go up to 2^31. The header may also name "fixes", "source"
// (the unit test a history encodes) and "expect" (agree or disagree).
// Results: {"ok": true|false} (create adds "reused": the reused prefix;
// suspend, commit and close return {"ok": true}) or {"raise": "text"} with
// the exception text. Every field is required except "args" of operations
// that take none and "engine", which tells apart engine instances merged
// into one history. Request IDs are the configuration's (1..8, 0 the
// attention-DP dummy): a recorder maps engine request IDs onto them.
//
// FromTrace emits the cache operations of a spec trace (what each step did
// to each pool), so histories from the spec itself are tested to check as
// linearizable and corrupted ones not to.
package lin
