package spec

// This file gathers the behaviour that depends on Config.Version: the seed
// reports were taken on different versions of the real code, and a change
// merged between them is modeled where it landed, not everywhere.

// versionRegistry declares each modelled version once: its name (the
// configuration value version=) and the TensorRT-LLM code read for it
// (spec/reading-notes.md), which `kvcheck version` lists.
var versionRegistry = [numVersions]struct{ name, code string }{
	VersionRC25: {"v1.3.0rc25", "tag v1.3.0rc25 (785c948), kv_cache_manager_v2.py at 0004396: the code of seed reports 000 and 001; " +
		"its scheduler_v2.py is not stored, so its deadlock check is the inline one of 9ba713c and a 2026-08-31 main (INFER)"},
	Version00746ef: {"00746ef", "kv_cache_manager_v2.py and scheduler_v2.py at 00746ef9992943a9bb604dbf1ecf00c64af58c32 (admit_mirror, " +
		"_detect_deadlock), py_executor.py at 2829508, llmRequest.h at 00e9b8a, _kv_cache.py and _storage_manager.py at 00f6bd6: " +
		"the code of seed report 003, and the newest of these files the search tools store"},
	Version00746efPR19181: {"00746ef+pr19181", "00746ef with PR #19181 (merged; no stored commit has it, read in its PR text): " +
		"_detect_deadlock warns instead of raising"},
}

// Code says which TensorRT-LLM code version v models.
func (v CodeVersion) Code() string { return versionRegistry[v].code }

// Names are the versions' names by value (versionRegistry's), as the
// configuration text writes them (version=00746ef).
func (CodeVersion) Names() []string {
	out := make([]string, numVersions)
	for v := range versionRegistry {
		out[v] = versionRegistry[v].name
	}
	return out
}

// Versions lists the modelled versions, oldest first.
func Versions() []CodeVersion {
	out := make([]CodeVersion, numVersions)
	for v := range out {
		out[v] = CodeVersion(v)
	}
	return out
}

// dropsUnscheduledFirstChunk reports whether a first context chunk that
// the scheduler does not schedule, for any reason, has its caches freed in
// every manager and its cursor rewound (KVCacheV2Scheduler._schedule_loop
// at 00746ef: free_resources on the target, draft and cross managers, then
// rewind_context_after_cache_drop). That is TensorRT-LLM PR #19202, merged
// 2026-09-15, after v1.3.0rc25 (785c948, at the latest 2026-09-03); the
// PR's text says what the code did before it: "When prepare, resize, or
// the token-budget check fails, suspending that cache retains its holds".
// At v1.3.0rc25 the failed first chunk is therefore only suspended
// (KVCacheV2Scheduler._suspend_request, target and draft), keeping its
// pages and its settled reuse cursor.
func (c *Config) dropsUnscheduledFirstChunk() bool {
	return c.Version >= Version00746ef
}

// hasAdmitMirror reports whether KVCacheManagerV2.admit_mirror exists
// (kv_cache_manager_v2.py at 00746ef; not at 0004396, whose draft manager
// v1.3.0rc25 runs): the scheduler's _admit_unpaired_draft creates and
// resumes an unpaired mirror, and _pending_ctx_certainly_blocked previews
// it (mirror_admission_certainly_blocked).
func (c *Config) hasAdmitMirror() bool {
	return c.Version >= Version00746ef
}

// deadlockDetector says how KVCacheV2Scheduler turns passes that make no
// progress into a raise (deadlock.go):
//   - v1.3.0rc25: the inline check at the end of _schedule_loop, which
//     raises on the first such pass with a generation candidate and
//     nothing evicted or recompute-paused. Read in scheduler_v2.py at
//     9ba713c and in an audit of a 2026-08-31 main branch (4716843), both
//     before rc25's 2026-09-03; rc25's own scheduler_v2.py is not stored
//     (INFER).
//   - 00746ef: _detect_deadlock counts stalled passes and raises at the
//     1000th in a row (PR #19235's detector).
//   - 00746ef with PR #19181: the same count, but a warning, no raise.
func (c *Config) deadlockDetector() deadlockMode {
	switch c.Version {
	case VersionRC25:
		return deadlockImmediate
	case Version00746ef:
		return deadlockRaises
	}
	return deadlockWarns
}

// CountsStalledPasses says whether c's scheduler has the counting detector
// that raises (PR #19235's _detect_deadlock), the only one that reads
// DeadlockStallPasses: configuration spaces (spec/space) drop the setting
// where nothing reads it.
func (c *Config) CountsStalledPasses() bool { return c.deadlockDetector() == deadlockRaises }
