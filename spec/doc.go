// Package spec is kvcheck's executable specification of TensorRT-LLM's
// KVCacheManagerV2, its KVCacheV2Scheduler and the PyExecutor loops that drive
// them. It is pure and deterministic: no I/O, no clock, no randomness, no
// goroutines. Every source of nondeterminism in the real engine (request
// arrival, accepted draft tokens, a request finishing) is an explicit Action,
// so a trace of actions replays exactly.
//
// Read it top-down, one file per mechanism. The engine, what a
// TensorRT-LLM reader checks against the code:
//
//   - config.go       the engine configuration and request templates
//   - state.go        the compact state value and its fingerprint
//   - core.go         KVCacheManagerV2's pool core, generic over the
//     integer width; manager_core.go its per-request steps on one cache
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
//     ladder; prefix_skip.go its prefix-aware skip; deadlock.go its
//     deadlock detector
//   - sample.go       what a loop does with a batch that ran: request
//     states, the sampler's update, terminations
//   - executor.go     PyExecutor._executor_loop (non-overlap), one action
//     per phase; block_offsets.go, disagg_gen.go, ctx_transfer.go the
//     steps it calls
//   - adp.go          attention DP: pad dummies, the _can_queue veto, the
//     dummy rollback; adp_role.go the pad dummy's role (_update_adp_dummy_role)
//   - overlap.go      PyExecutor._executor_loop_overlap and its deferred
//     previous batch
//   - pipeline.go     PyExecutor._executor_loop_pp: stages, rank 0's
//     micro-batches, the handled batches
//   - crash.go        a raise inside the loop: the crashed engine state;
//     hazard.go a forward over a cache that was not active
//   - versions.go     what depends on the code version; fixes.go,
//     prefixes.go and prefix_*.go the fix variants and the historical bugs
//     put back
//   - actions.go      the Action value, its transcript line and its parser
//   - spec.go         the model.Spec the checker explores
//
// What is checked in every state: invariants.go, bookkeeping.go,
// token_accounting.go, page_index.go (invariants), goals.go, goalnames.go,
// goals_coverage.go, goals_pressure.go (goals), liveness.go and
// deadlock_verdict.go (progress, and what the detector made of a
// livelock), branches.go and coverage.go (the branches a run reaches).
//
// kvcheck's machinery that stays in this package because it is methods of
// the engine's types: verdicts.go (fix set labels and the verdicts a
// variant can have), scenarioinfo.go (what a Spec keeps of its scenario:
// goals, invariants checked elsewhere), describe.go and dump.go (a state
// in words), symmetry.go and por.go (the checker's reductions), api_*.go
// (what the lin, fuzz, transcript and triage tools read), sourcehash.go.
//
// The configuration types (config.go) are the engine's parameters and stay
// here, with their methods in the mechanisms' files; the enumerations'
// Names, which their String reads, are what the text form writes.
//
// The packages under spec/ build on it, one way (spec/layout_test.go), and
// spec imports none of them: spec/configtext (the configuration's text
// form: Parse, Format and the keys, one per tagged field of Config)
// imports spec alone; spec/scenario (the built-in scenarios, their file
// format, fix sets and expected verdicts) imports spec, spec/configtext
// and spec/yamlconf (the YAML reader of scenario files, a leaf);
// spec/space (configuration spaces, their enumeration, random
// configurations, default sweep ranges, value classes) imports spec,
// spec/configtext and spec/scenario. docs/development.md ("Layout")
// describes them.
//
// Citations name the TensorRT-LLM function and the commit it was read at;
// docs/reference.md summarizes that code and spec/reading-notes.md lists
// what was read, with the commits.
package spec
