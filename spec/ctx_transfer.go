package spec

// This file models when a disaggregated context server releases the KV of
// a context-only request (RequestTemplate.SendingKV) whose send completed
// (kv-received): not at once, but at the executor's completion poll.

// pollContextTransfers is the executor's nonblocking completion poll of
// context KV sends (_check_disagg_ctx_cache_transfer_status(0)): it frees
// the context-only requests whose send has completed. It runs at the end
// of an iteration whose forward ran, or in which the whole fleet was idle
// (no active request: the loop waits for requests and polls its sends);
// not in an iteration vetoed while requests wait. TensorRT-LLM PR #17343
// (2026-08-06) describes this code path: "When a context worker
// subsequently exhausted available KV capacity while sends were still in
// flight, no forward could run, so the normal nonblocking completion poll
// became unreachable. The completed sends continued pinning their KV
// blocks." (PR #17104 had removed the blocking poll of an iteration where
// no request fits; #17343, which restores it, was closed unmerged.)
func (v rankView) pollContextTransfers() {
	for id := 1; id < MaxIDs; id++ {
		r := &v.rank.Requests[id]
		if r.State != DisaggContextTransmission || r.Flags&requestFlagKVSent == 0 {
			continue
		}
		v.hit(brContextSendPolled)
		v.freeResources(uint8(id))
		r.State = Finished
		r.Flags &^= requestFlagKVSent
	}
}

// idle reports whether this iteration found no active request: with
// attention DP anywhere in the fleet (expected_num_active_requests 0), else
// on this rank.
func (v rankView) idle() bool {
	if v.cfg.AttentionDP {
		return v.rank.ExpectedActive == 0
	}
	for id := range v.rank.Requests {
		if v.rank.Requests[id].State.isActive() {
			return false
		}
	}
	return true
}

// hasPendingSends reports whether, with PreFixSendPollAfterForward, a
// context-only request's KV is still pinned on the rank, so the loop keeps
// iterating to poll it (without the switch the send's completion frees
// it).
func (sp *Spec) hasPendingSends(rank *Rank) bool {
	if !sp.Config.PreFixes.Has(PreFixSendPollAfterForward) {
		return false
	}
	for id := 1; id < MaxIDs; id++ {
		if rank.Requests[id].State == DisaggContextTransmission {
			return true
		}
	}
	return false
}

// brContextSendPolled is the branch of this file (see coverage.go).
var brContextSendPolled = newBranch("context-send-polled", "_check_disagg_ctx_cache_transfer_status: a completion poll frees a sent context-only request's KV")
