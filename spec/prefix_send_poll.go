package spec

// PreFixSendPollAfterForward puts back the code between TensorRT-LLM PR
// #17104 (which removed the disaggregated transfer admission limit and its
// per-iteration idle-progress collectives) and PR #17343 ("Restore CTX
// transfer progress when scheduling stalls", 2026-08-06): a context
// worker sees a context-only request's KV send complete only at the
// executor's nonblocking completion poll, which runs after a forward (or
// in an idle iteration); "when a context worker subsequently exhausted
// available KV capacity while sends were still in flight, no forward
// could run, so the normal nonblocking completion poll became
// unreachable. The completed sends continued pinning their KV blocks"
// (the PR's description). Without the switch a completed send frees its
// KV at once (kv-received). FixBlockingSendPoll is PR #17343: an
// iteration where no request fits waits for a send to complete and
// releases its KV, which the model takes as the release at completion.
var PreFixSendPollAfterForward, FixBlockingSendPoll = defineHistoricalBug(PreFixInfo{
	Name:   "send-poll-after-forward",
	PR:     "PR #17343",
	Before: "a completed context KV send is released only by the completion poll after a forward: a vetoed fleet keeps it pinned",
	Fix:    "blocking-send-poll",
	After:  "an iteration where no request fits waits for a context KV send to complete and releases its KV",
})
