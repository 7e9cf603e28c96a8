package spec

import "testing"

// ppFixture returns the pp-history-capacity spec (equal pools) after both
// requests arrived at rank 0.
func ppFixture(t *testing.T) (*Spec, *State) {
	t.Helper()
	cfg := ppHistoryCapacity.Config
	cfg.StageTargetBlocks = [MaxRanks]uint32{}
	sp, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := sp.Initial()
	sp.arrive(&s)
	sp.arrive(&s)
	return sp, &s
}

// step applies the one enabled action whose line is line.
func step(t *testing.T, sp *Spec, s *State, line string) {
	t.Helper()
	for _, a := range sp.Actions(s, nil) {
		if a.String() == line {
			*s = sp.Next(s, a)
			return
		}
	}
	t.Fatalf("%q is not enabled; enabled: %v\n%s", line, sp.Actions(s, nil), sp.Dump(s))
}

// TestPipelineArrivalAtRankZero: a request arrives at rank 0; a later
// stage activates it when it reaches the iteration rank 0 was in.
func TestPipelineArrivalAtRankZero(t *testing.T) {
	sp, s := ppFixture(t)
	if s.Ranks[1].Requests[1].State != NotArrived {
		t.Fatal("stage 1 saw the request before running an iteration")
	}
	step(t, sp, s, "schedule rank=0")
	step(t, sp, s, "forward rank=1")
	if s.Ranks[1].Requests[1].State != ContextInit || s.Ranks[1].Requests[1].Position != 8 {
		t.Fatalf("stage 1 request 1: %+v, want context at position 8", s.Ranks[1].Requests[1])
	}
}

// TestPipelineHandlesBatchFromPMinusOneIterations covers Stage 2 and 3 of
// _executor_loop_pp: rank 0 handles, at the end of iteration i, the batch
// of iteration i-(P-1), waiting for its sample state; the other stages
// repeat rank 0's count.
func TestPipelineHandlesBatchFromPMinusOneIterations(t *testing.T) {
	sp, s := ppFixture(t)
	step(t, sp, s, "schedule rank=0")
	step(t, sp, s, "handle rank=0 count=0") // iteration 0: nothing from iteration -1
	step(t, sp, s, "schedule rank=0")
	if count, ready := sp.rank0HandleCount(s); count != 1 || ready {
		t.Fatalf("rank 0 at iteration 1: count %d ready %v; want to wait for iteration 0's sample", count, ready)
	}
	step(t, sp, s, "forward rank=1")
	step(t, sp, s, "handle rank=0 count=1")
	step(t, sp, s, "handle rank=1 count=0")
	step(t, sp, s, "forward rank=1")
	step(t, sp, s, "handle rank=1 count=1")
	if s.PipelineLen != 1 {
		t.Fatalf("%d iterations still recorded, want 1 (iteration 0 retired)", s.PipelineLen)
	}
}

// TestPipelineFollowerUsesLocalChunkSize covers to_scheduler_result
// (scheduler.py) and copy_batch_block_offsets (correction 6): a later stage
// runs rank 0's request IDs with the context_chunk_size its own scheduler
// wrote on its own objects. At v1.3.0rc25 a stage whose scheduler wrote the
// chunk before failing to allocate it keeps the suspended (still mapped)
// cache and runs the chunk; at 00746ef PR #19202 dropped that cache, so the
// forward's block-offset copy meets an ID the IndexMapper does not map and
// the engine aborts (IndexMapper::getIndex TLLM_CHECK). A stage whose
// scheduler did not reach the request at all never created a cache and
// aborts the same way.
func TestPipelineFollowerUsesLocalChunkSize(t *testing.T) {
	for _, tt := range []struct {
		name         string
		version      CodeVersion
		setup        func(r *Rank)
		wantPosition uint8
		wantCache    CacheStatus
		wantCrash    ErrorText
	}{
		{"rc25: allocation fails on stage 1", VersionRC25, func(r *Rank) { r.Pools[Target].Free = 1 }, 8, Suspended, ErrNone},
		{"00746ef: allocation fails on stage 1", Version00746ef, func(r *Rank) { r.Pools[Target].Free = 1 }, 0, Absent, ErrUnmappedRequest},
		{"stage 1 does not reach it", VersionRC25, func(r *Rank) { r.Requests[1].Flags |= requestFlagInflight }, 0, Absent, ErrUnmappedRequest},
	} {
		sp, s := ppFixture(t)
		sp.Config.Version = tt.version
		step(t, sp, s, "schedule rank=0")
		s.Pipeline[0].Arrived = 1
		sp.activate(&s.Ranks[1], 1)
		tt.setup(&s.Ranks[1])
		*s = sp.Next(s, Action{Kind: ActForward, Rank: 1})
		r := &s.Ranks[1].Requests[1]
		if s.Pipeline[0].Batch.Entries[0].Chunk != 8 || r.Position != tt.wantPosition || s.Ranks[1].Pools[Target].Caches[1].Status != tt.wantCache {
			t.Fatalf("%s: rank 0 chunk %d, stage 1 position %d cache %s; want 8, %d, %s", tt.name,
				s.Pipeline[0].Batch.Entries[0].Chunk, r.Position, s.Ranks[1].Pools[Target].Caches[1].Status, tt.wantPosition, tt.wantCache)
		}
		if s.Crash.Error != tt.wantCrash || (tt.wantCrash != ErrNone && s.Crash.Function != FnCopyBatchBlockOffsets) {
			t.Fatalf("%s: crash %q, want %q", tt.name, s.Crash.Describe(), errorKind(tt.wantCrash))
		}
	}
}

// TestPipelineInflightOnlyForLastChunks covers _add_inflight_ids and
// _remove_inflight_ids: non-final context chunks stay schedulable.
func TestPipelineInflightOnlyForLastChunks(t *testing.T) {
	sp, s := ppFixture(t)
	step(t, sp, s, "schedule rank=0")
	if s.Ranks[0].Requests[1].Flags&requestFlagInflight != 0 {
		t.Fatal("a non-final chunk marked its request inflight")
	}
	b := Batch{Count: 1, Entries: [MaxBatch]BatchEntry{{ID: 1, Kind: ContextChunk, Chunk: 8, Last: true, Incarnation: 1}}}
	v := sp.view(s, 0)
	v.rank.Batch = b
	v.rank.Phase = PhaseIdle
	sp.pipelineForward(s, 0, 0, nil)
	if s.Ranks[0].Requests[1].Flags&requestFlagInflight == 0 {
		t.Fatal("a last chunk did not mark its request inflight")
	}
}

// TestLaterStageDoesNotPauseItsVictims covers correction 4
// (_executor_loop_pp at 2829508): every stage's scheduler frees a
// recompute-pause victim's caches (KVCacheV2Scheduler._recompute_pause_request
// → _free_kv_caches), but only rank 0 pauses it
// (_pause_recompute_paused_requests on its own batch); a later stage runs
// _pause_recompute_paused_requests on the batch rebuilt from
// SerializableSchedulerOutput, which carries no recompute-paused IDs, so
// its victim keeps its state and cursor with no cache.
func TestLaterStageDoesNotPauseItsVictims(t *testing.T) {
	for _, tt := range []struct {
		rank         uint8
		wantPosition uint8
	}{
		{0, 0}, // rank 0: paused, cursor rewound (LlmRequest::pause)
		{1, 4}, // later stage: caches freed, request untouched
	} {
		sp, s := ppFixture(t)
		*s = State{}
		s.Arrived = 2
		s.PipelineLen = 1
		s.Pipeline[0] = PipelineIteration{Arrived: 2}
		rank := &s.Ranks[tt.rank]
		rank.Requests[1] = Request{State: GenerationInProgress, Incarnation: 1, Prompt: 16, Position: 16, NumTokens: 17, DraftLen: 1}
		rank.Requests[2] = Request{State: ContextInit, Incarnation: 1, Prompt: 16, Position: 4}
		rank.Pools[Target].Caches[1] = Cache{Status: Active, Incarnation: 1, Capacity: 36, History: 16}
		rank.Pools[Target].Caches[2] = Cache{Status: Suspended, Incarnation: 1, Capacity: 4, History: 4}
		rank.Pools[Draft].Free = 10
		if tt.rank == 0 {
			sp.pipelineStart(s)
		} else {
			sp.pipelineFollow(s, &Action{Kind: ActForward, Rank: 1})
		}
		victim := &s.Ranks[tt.rank].Requests[2]
		if s.Ranks[tt.rank].Pools[Target].Caches[2].Status != Absent {
			t.Fatalf("rank %d: the victim's cache was not freed", tt.rank)
		}
		if victim.State != ContextInit || victim.Position != tt.wantPosition {
			t.Fatalf("rank %d: victim %s at %d, want context at %d", tt.rank, victim.State, victim.Position, tt.wantPosition)
		}
	}
}
