package spec

// This file models the V2 scheduler's deadlock detector: the check that
// turns scheduler passes which make no progress into a raise, so that some
// stalls the spec would otherwise report as silent livelocks are loud
// crashes in the real engine (Config.deadlockDetector says which check a
// version runs).

// deadlockMode is how a version's scheduler treats a stalled pass.
type deadlockMode uint8

const (
	// deadlockImmediate: the inline check at the end of _schedule_loop
	// (scheduler_v2.py at 9ba713c; the 2026-08-31 audit adds the
	// recompute-paused and inflight exemptions): raise on the first pass
	// that scheduled nothing while a generation request that is not in
	// flight waits, nothing was evicted or recompute-paused and no request
	// is in flight.
	deadlockImmediate deadlockMode = iota
	// deadlockRaises: _detect_deadlock (scheduler_v2.py at 00746ef) counts
	// stalled passes in _stalled_schedules and raises at
	// _DEADLOCK_STALL_ITERS = 1000 in a row.
	deadlockRaises
	// deadlockWarns: the same count after PR #19181, which logs a warning
	// instead of raising.
	deadlockWarns
)

// DefaultDeadlockStallPasses is the spec's scaled _DEADLOCK_STALL_ITERS
// (Config.DeadlockStallPasses 0): the real code's 1000 passes would make
// every stalled stretch a thousand states long. A stretch of stalled
// passes that can repeat forever (a stalled cycle) reaches any threshold,
// so the raise is found at 4 exactly when it is at 1000; a stretch that
// must end is bounded by the scheduler's structure (a pipeline's depth of
// in-flight micro-batches, the overlap loop's one deferred batch), which
// the built-in configurations keep below 4 (docs/liveness.md, "The
// deadlock detector").
const DefaultDeadlockStallPasses = 4

// stallThreshold is the number of stalled passes in a row at which the
// modelled _detect_deadlock raises.
func (c *Config) stallThreshold() int {
	if c.DeadlockStallPasses == 0 {
		return DefaultDeadlockStallPasses
	}
	return int(c.DeadlockStallPasses)
}

// passOutcome is what _detect_deadlock reads of one _schedule_loop pass.
type passOutcome struct {
	// scheduled: requests in scheduled_gen and scheduled_ctx.
	scheduled int
	// disagg: disaggregated gen-init requests prepare_disagg_gen_init
	// admitted (disagg_candidates).
	disagg int
	// suspended: requests the pass suspended (evicted, self-evictions
	// included); paused: recompute-paused or preempted victims.
	suspended, paused int
	// deferred: first chunks deferred behind a prefix contributor
	// (deferred_behind_contributor).
	deferred int
	// contextCandidates: pending_ctx less the preempted.
	contextCandidates int
}

// progressed is _detect_deadlock's made_progress.
func (o *passOutcome) progressed() bool {
	return o.scheduled > 0 || o.disagg > 0 || o.suspended > 0 || o.paused > 0 || o.deferred > 0
}

// generationCandidates is _detect_deadlock's num_gen_candidates: active
// requests in a generation-in-progress state but GENERATION_TO_COMPLETE,
// not in inflight_request_ids. It returns the count and the first such ID.
func (v rankView) generationCandidates() (n int, first uint8) {
	for id := uint8(0); id < MaxIDs; id++ {
		r := v.request(id)
		if r.State.isScheduledAsGeneration() && r.Flags&requestFlagInflight == 0 {
			if n == 0 {
				first = id
			}
			n++
		}
	}
	return n, first
}

// transferHolding is _detect_deadlock's exemption: a request of the rank
// in DISAGG_CONTEXT_TRANS_IN_PROGRESS, DISAGG_CONTEXT_COMPLETE or
// DISAGG_GENERATION_TRANS_IN_PROGRESS, or KV sends in flight in the async
// transfer manager (the spec's sending requests) resets the count.
func (v rankView) transferHolding() bool {
	for id := uint8(1); id < MaxIDs; id++ {
		switch v.request(id).State {
		case DisaggTransmission, DisaggContextTransmission:
			return true
		}
	}
	return false
}

// hasInflight reports whether some request of the rank is in
// inflight_request_ids.
func (v rankView) hasInflight() bool {
	for id := range v.rank.Requests {
		if v.rank.Requests[id].Flags&requestFlagInflight != 0 {
			return true
		}
	}
	return false
}

// detectDeadlock is the deadlock check after one _schedule_loop pass of
// this rank's scheduler (on every rank that runs schedule_request,
// pipeline stages' local passes included), as Config.deadlockDetector
// says the version runs it. A raise crashes the engine. Every pass is
// also classified for the livelock report (DetectorVerdict), whatever the
// version: progress as 00746ef counts it, idle, exempt, or stalled, and
// whether v1.3.0rc25's inline check would fire on it.
func (v rankView) detectDeadlock(o *passOutcome) {
	gen, first := v.generationCandidates()
	immediate := o.scheduled == 0 && o.suspended == 0 && o.paused == 0 && !v.hasInflight() && gen > 0
	if immediate {
		v.hit(brPassImmediate)
	}
	counted := false
	switch {
	case o.progressed():
		v.hit(brPassProgress)
	case gen+o.contextCandidates == 0:
		v.hit(brPassIdle)
	case v.transferHolding():
		v.hit(brPassExempt)
	default:
		counted = true
		v.hit(brDeadlockStall)
	}
	switch v.cfg.deadlockDetector() {
	case deadlockImmediate:
		if immediate {
			v.hit(brDeadlockImmediate)
			v.s.crash(v.r, Target, first, FnDetectDeadlock, ErrSchedulerDeadlockRC25, uint8(min(gen, 15)<<4))
		}
	case deadlockRaises:
		if !counted {
			v.rank.StalledPasses = 0
			return
		}
		v.rank.StalledPasses++
		if int(v.rank.StalledPasses) < v.cfg.stallThreshold() {
			return
		}
		if gen == 0 {
			first = v.firstContextCandidate()
		}
		v.s.crash(v.r, Target, first, FnDetectDeadlock, ErrSchedulerDeadlock, uint8(min(gen, 15)<<4|min(o.contextCandidates, 15)))
	case deadlockWarns:
		if counted {
			v.hit(brDeadlockWarns)
		}
	}
}

// firstContextCandidate returns the first active context request's ID.
func (v rankView) firstContextCandidate() uint8 {
	for id := uint8(1); id < MaxIDs; id++ {
		if v.request(id).State == ContextInit && v.request(id).Flags&requestFlagInflight == 0 {
			return id
		}
	}
	return 0
}
