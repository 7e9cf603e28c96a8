package spec

// This file gathers the behaviour that depends on Config.Version: the seed
// reports were taken on different versions of the real code, and a change
// merged between them is modeled where it landed, not everywhere.

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
	return c.Version != VersionRC25
}
