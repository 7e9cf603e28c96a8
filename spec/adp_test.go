package spec

import "testing"

// adpFixture returns the adp-dummy-leak scenario's spec (with fixes) and
// its initial state.
func adpFixture(t *testing.T, fixes Fixes) (*Spec, *State) {
	t.Helper()
	sp, err := adpDummyLeak.Spec(fixes)
	if err != nil {
		t.Fatal(err)
	}
	s := sp.Initial()
	return sp, &s
}

// TestPadEmptyAttentionDPBatchRefusesAtCap covers
// _pad_empty_attention_dp_batch: an empty batch is padded with a
// py_skip_gen_alloc_revert, pending dummy, except at
// max_num_active_requests.
func TestPadEmptyAttentionDPBatchRefusesAtCap(t *testing.T) {
	for _, active := range []int{1, 2} {
		sp, s := adpFixture(t, 0)
		v := sp.view(s, 0)
		v.rank.ExpectedActive = 1
		for id := 1; id <= active; id++ {
			v.rank.Requests[id] = Request{State: DisaggTransmission, Incarnation: 1, Prompt: 4}
		}
		v.padEmptyAttentionDPBatch()
		padded := v.rank.Batch.Count == 1
		if padded != (active < 2) {
			t.Fatalf("%d active of cap 2: padded=%v", active, padded)
		}
		if !padded {
			continue
		}
		d := v.request(dummyID)
		if d.Flags&requestFlagSkipGenRevert == 0 || d.Flags&requestFlagPendingDummy == 0 || d.State != GenerationInProgress {
			t.Fatalf("dummy %+v, want a pending generation dummy with py_skip_gen_alloc_revert", *d)
		}
		// add_dummy_requests(is_gen=True): capacity 1+D then +D+1, history D;
		// the target pool only.
		if c := v.cache(Target, dummyID); c.Capacity != 4 || c.History != 1 || v.cache(Draft, dummyID).Status != Absent {
			t.Fatalf("dummy target cache %+v, draft %s", *c, v.cache(Draft, dummyID).Status)
		}
	}
}

// TestPreScheduleDummyPendingOnlyWhenDisaggregated covers
// _pad_attention_dp_dummy_request: the dummy is registered for rollback only
// with _enable_adp_dummy_fixes and a KV cache transceiver.
func TestPreScheduleDummyPendingOnlyWhenDisaggregated(t *testing.T) {
	for _, transceiver := range []bool{true, false} {
		sp, s := adpFixture(t, 0)
		sp.Config.KVTransceiver = transceiver
		v := sp.view(s, 1)
		v.rank.ExpectedActive = 2
		v.padAttentionDPDummyRequest()
		d := v.request(dummyID)
		if d.State != GenerationInProgress {
			t.Fatalf("transceiver=%v: no dummy padded", transceiver)
		}
		if pending := d.Flags&requestFlagPendingDummy != 0; pending != transceiver {
			t.Fatalf("transceiver=%v: pending=%v", transceiver, pending)
		}
	}
}

// TestCanQueueVeto covers _can_queue under attention DP: one empty rank
// vetoes the forward everywhere; can_queue_this_rank is each rank's own.
func TestCanQueueVeto(t *testing.T) {
	sp, s := adpFixture(t, 0)
	s.Ranks[1].Batch = Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 3, Kind: ContextChunk, Chunk: 4, Last: true}}}
	sp.canQueue(s, &Action{Kind: ActCanQueue, Collective: true})
	if s.Ranks[0].CanQueue || s.Ranks[1].CanQueue {
		t.Fatal("an empty rank did not veto")
	}
	if s.Ranks[0].CanQueueThisRank || !s.Ranks[1].CanQueueThisRank {
		t.Fatalf("can_queue_this_rank = %v, %v; want false, true", s.Ranks[0].CanQueueThisRank, s.Ranks[1].CanQueueThisRank)
	}
	if s.Ranks[0].shouldProcessPreviousBatch() != true || s.Ranks[1].shouldProcessPreviousBatch() != false {
		t.Fatal("should_process_previous_batch must be true on the vetoing rank and false on the vetoed busy rank")
	}
}

// TestDummyRollbackLeaksUnpairedMirror covers _revert_gen_alloc and
// _finalize_adp_dummy_allocation(False): the scheduler admitted the
// pre-schedule dummy (admit_mirror created a capacity-0 mirror); the
// rollback frees the target only, leaving the mirror under the dummy ID;
// free-unpaired-mirror frees it.
func TestDummyRollbackLeaksUnpairedMirror(t *testing.T) {
	for _, fix := range []bool{false, true} {
		var fixes Fixes
		if fix {
			fixes = fixes.With(FixFreeUnpairedMirror)
		}
		sp, s := adpFixture(t, fixes)
		v := sp.view(s, 1)
		v.rank.ExpectedActive = 2
		v.padAttentionDPDummyRequest()
		v.scheduleRequest(fixes)
		if v.rank.Batch.Count != 1 || v.cache(Draft, dummyID).Status != Active || v.cache(Draft, dummyID).Capacity != 0 {
			t.Fatalf("fix=%v: batch %s, mirror %+v; want the dummy scheduled with an ACTIVE capacity-0 mirror", fix, v.rank.Batch.describe(), *v.cache(Draft, dummyID))
		}
		if c := v.cache(Target, dummyID); c.Capacity != 6 || c.AllocatedDraft != 2 {
			t.Fatalf("fix=%v: target %+v, want grown by 1 + 1", fix, *c)
		}
		v.rank.CanQueue, v.rank.CanQueueThisRank = false, true
		v.revertGenAlloc()
		if c := v.cache(Target, dummyID); c.Capacity != 4 {
			t.Fatalf("fix=%v: target capacity %d after revert, want 4", fix, c.Capacity)
		}
		v.finalizeAdpDummyAllocation()
		if v.request(dummyID).State != Finished || v.cache(Target, dummyID).Status != Absent {
			t.Fatalf("fix=%v: dummy %s, target %s; want finished and freed", fix, v.request(dummyID).State, v.cache(Target, dummyID).Status)
		}
		if leaked := v.cache(Draft, dummyID).Status != Absent; leaked == fix {
			t.Fatalf("fix=%v: mirror leaked=%v", fix, leaked)
		}
		if f := sp.checkNoLeakedCache(s, sp.allRanks()); (f != nil) == fix {
			t.Fatalf("fix=%v: no-leaked-cache reports %v", fix, f)
		}
	}
}

// TestDeferredUpdateHitsLeakedMirror covers update_resources' lookup by ID
// in the overlap loop's deferred _process_previous_batch: the previous
// batch holds an older dummy (retired, GENERATION_COMPLETE, history hint 1)
// and the draft pool holds the leaked capacity-0 mirror of a newer one
// under the same ID, so resize(None, 1) raises.
func TestDeferredUpdateHitsLeakedMirror(t *testing.T) {
	for _, fixes := range []Fixes{0, FixSetOf(FixSkipDummyUpdate)} {
		sp, s := adpFixture(t, fixes)
		v := sp.view(s, 1)
		old := Request{State: GenerationComplete, Incarnation: 1, Prompt: 1, NumTokens: 2, DraftLen: 1, Flags: requestFlagAdpDummy}
		v.rank.Previous = Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: dummyID, Kind: GenerationStep, Incarnation: 1}}, Dummy: old}
		*v.request(dummyID) = Request{State: Finished, Incarnation: 2}
		*v.cache(Draft, dummyID) = Cache{Status: Active, Incarnation: 2}
		v.pool(Draft).Free--
		v.rank.CanQueue, v.rank.CanQueueThisRank = true, true
		v.rank.Phase = PhaseForwarded
		sp.updateResourcesOverlap(s, 1)
		crashed := s.Crash.Happened
		if crashed != (fixes == 0) {
			t.Fatalf("fixes %v: crashed=%v (%s)", fixes.Names(), crashed, s.Crash.Describe())
		}
		if crashed && s.Crash.Describe() != "rank 1 draft pool request 0: update_resources raised ValueError: History length cannot exceed capacity" {
			t.Fatalf("crash %q", s.Crash.Describe())
		}
	}
}

// TestOverlapDeferralKeepsPreviousBatch covers the end of
// _executor_loop_overlap: a vetoed rank with work keeps previous_batch; a
// rank with nothing drops it; a queued rank replaces it.
func TestOverlapDeferralKeepsPreviousBatch(t *testing.T) {
	prev := Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 3, Kind: GenerationStep, Incarnation: 1}}}
	cur := Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 3, Kind: GenerationStep, Incarnation: 1}, {}}}
	cur.Entries[0].Accepted = 1
	for _, tt := range []struct {
		canQueue, thisRank bool
		fate               string
		want               Batch
	}{
		{false, true, "deferred", prev},
		{false, false, "previous", Batch{}},
		{true, true, "previous", cur},
	} {
		sp, s := adpFixture(t, 0)
		rank := &s.Ranks[1]
		rank.Requests[3] = Request{State: GenerationInProgress, Incarnation: 1, Prompt: 4, NumTokens: 6, DraftLen: 1}
		rank.Previous, rank.Batch = prev, cur
		rank.CanQueue, rank.CanQueueThisRank = tt.canQueue, tt.thisRank
		if got := rank.previousBatchFate(); got != tt.fate {
			t.Fatalf("can_queue=%v this_rank=%v: fate %q, want %q", tt.canQueue, tt.thisRank, got, tt.fate)
		}
		sp.updateResourcesOverlap(s, 1)
		if rank.Previous != tt.want {
			t.Fatalf("can_queue=%v this_rank=%v: previous_batch %s, want %s", tt.canQueue, tt.thisRank, rank.Previous.describe(), tt.want.describe())
		}
	}
}

// TestDummyIncarnationsStayCanonical: renumbering keeps order and equality
// of the dummy incarnations still referenced, and drops stale snapshots.
func TestDummyIncarnationsStayCanonical(t *testing.T) {
	sp, s := adpFixture(t, 0)
	rank := &s.Ranks[1]
	rank.Requests[dummyID] = Request{State: Finished, Incarnation: 9}
	rank.Pools[Draft].Caches[dummyID] = Cache{Status: Active, Incarnation: 9}
	rank.Previous = Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: dummyID, Kind: GenerationStep, Incarnation: 7}}, Dummy: Request{State: GenerationComplete, Incarnation: 7}}
	rank.Batch = Batch{Dummy: Request{Incarnation: 3}}
	sp.canonicalizeDummyIncarnations(s)
	if rank.Requests[dummyID].Incarnation != 2 || rank.Pools[Draft].Caches[dummyID].Incarnation != 2 {
		t.Fatalf("live incarnation %d, cache %d; want 2, 2", rank.Requests[dummyID].Incarnation, rank.Pools[Draft].Caches[dummyID].Incarnation)
	}
	if rank.Previous.Entries[0].Incarnation != 1 || rank.Previous.Dummy.Incarnation != 1 {
		t.Fatalf("previous batch dummy %d / snapshot %d, want 1, 1", rank.Previous.Entries[0].Incarnation, rank.Previous.Dummy.Incarnation)
	}
	if rank.Batch.Dummy != (Request{}) {
		t.Fatal("a snapshot no entry references was kept")
	}
}

// TestPadAttentionDPDummyRequestCount covers correction 5
// (_pad_attention_dp_dummy_request, _count_schedulable_active_requests and
// _has_adp_dummy_kv_capacity in py_executor.py at 2829508): with a KV cache
// transceiver, requests in DISAGG_GENERATION_INIT or receiving KV do not
// count, so a rank holding only those pads a dummy; without one, every
// active request counts; and no dummy is added when the pool cannot hold
// its 1 + max_total_draft_tokens tokens (plus the draft reserve).
func TestPadAttentionDPDummyRequestCount(t *testing.T) {
	for _, tt := range []struct {
		name        string
		transceiver bool
		state       RequestState
		free        uint8
		padded      bool
	}{
		{"disagg-init excluded", true, DisaggGenerationInit, 8, true},
		{"receiving excluded", true, DisaggTransmission, 8, true},
		{"context counts", true, ContextInit, 8, false},
		{"no transceiver: everything counts", false, DisaggTransmission, 8, false},
		{"no KV capacity for the dummy", true, DisaggGenerationInit, 0, false},
	} {
		sp, s := adpFixture(t, 0)
		sp.Config.KVTransceiver = tt.transceiver
		v := sp.view(s, 0)
		v.rank.ExpectedActive = 1
		v.rank.Requests[1] = Request{State: tt.state, Incarnation: 1, Prompt: 4}
		v.pool(Target).Free = tt.free
		v.padAttentionDPDummyRequest()
		if got := v.liveDummy(); got != tt.padded {
			t.Errorf("%s: padded=%v, want %v", tt.name, got, tt.padded)
		}
	}
}
