// Package spec is kvcheck's executable specification of TensorRT-LLM's
// KVCacheManagerV2, its KVCacheV2Scheduler and the PyExecutor loops that drive
// them. It is pure and deterministic: no I/O, no clock, no randomness, no
// goroutines. Every source of nondeterminism in the real engine (request
// arrival, accepted draft tokens, a request finishing) is an explicit Action,
// so a trace of actions replays exactly.
//
// Read it top-down, one file per mechanism:
//
//   - config.go       the engine configuration and request templates;
//     configtext.go its text form (transcripts, shrunk scenarios)
//   - state.go        the compact state value and its fingerprint
//   - cache.go        one request's cache in one pool (_KVCache: resume,
//     suspend, resize with its raises, commit, close)
//   - pool.go         page accounting of one pool: free pages, the reuse
//     tree of published prefix blocks, eviction, utilization
//   - manager.go      KVCacheManagerV2's per-request operations called by the
//     scheduler (try_allocate_generation, prepare_context, resize_context,
//     admit_mirror, ...)
//   - draft_resources.go  KVCacheManagerV2._prepare_draft_resources
//   - update.go       update_context_resources, update_resources and
//     free_resources
//   - scheduler.go    KVCacheV2Scheduler._schedule_loop and its eviction
//     ladder
//   - sample.go       what a loop does with a batch that ran: request
//     states, the sampler's update, terminations
//   - executor.go     PyExecutor._executor_loop (non-overlap), one action
//     per phase
//   - adp.go          attention DP: pad dummies, the _can_queue veto, the
//     dummy rollback
//   - overlap.go      PyExecutor._executor_loop_overlap and its deferred
//     previous batch
//   - pipeline.go     PyExecutor._executor_loop_pp: stages, rank 0's
//     micro-batches, the handled batches
//   - crash.go        a raise inside the loop: the crashed engine state
//   - actions.go      the Action value, its transcript line and its parser
//   - invariants.go, goals.go   the named properties checked in every state
//   - fixes.go        the named fix variants
//   - scenarios.go    the Scenario type; scenariofiles.go reads the built-in
//     scenarios from the files in scenarios/ (scenariofile.go: their format)
//   - spec.go         the model.Spec the checker explores; dump.go renders
//     a state
//
// Citations name the TensorRT-LLM function and the commit it was read at;
// docs/reference.md summarizes that code and spec/reading-notes.md lists
// what was read, with the commits.
package spec
