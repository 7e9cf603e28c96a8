package spec

import (
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// ppADPTrace is the shortest pp-adp-veto-growth counterexample (kvcheck
// check --scenario pp-adp-veto-growth --fix none).
var ppADPTrace = strings.Split("arrive req=1|arrive req=2|arrive req=3|schedule rank=0|handle rank=0 count=0|schedule rank=0|forward rank=2|handle rank=0 count=1|handle rank=2 count=0|forward rank=2|handle rank=2 count=1|schedule rank=0|handle rank=0 count=1|forward rank=2 accept=2:0|handle rank=2 count=1|schedule rank=0|handle rank=0 count=1|forward rank=2|handle rank=2 count=1|schedule rank=0|handle rank=0 count=0|schedule rank=0|forward rank=2 accept=1:0,2:0|handle rank=0 count=1|handle rank=2 count=0|forward rank=2|handle rank=2 count=1|schedule rank=0|handle rank=0 count=0|schedule rank=0|forward rank=2 accept=3:0|handle rank=0 count=1|handle rank=2 count=0|forward rank=2|handle rank=2 count=1|schedule rank=0", "|")

// TestPipelineAttentionDPVeto covers correction 7 and PR #13104 under
// pipeline parallelism: _executor_loop_pp at 2829508 (py_executor.py)
// takes _can_queue after _pp_schedule_and_propagate on every rank and,
// when an ADP rank's micro-batch is empty, calls
// _revert_gen_alloc(scheduled_batch) and sets micro_batches[id] = None.
// Each stage's ADP rank 1 (ranks 1 and 3) grew request 3 for a vetoed
// micro-batch: with the revert its capacity is back where it was before
// the stage's iteration; before PR #13104 (no-veto-revert) it keeps the
// growth, on the first stage and on the later one.
func TestPipelineAttentionDPVeto(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fixes  Fixes
		keeps  bool
		vetoes int // vetoed stage iterations with request 3 in ADP rank 1's micro-batch
	}{
		{"no-veto-revert", 0, true, 4},
		{"revert-on-veto", fixSet([]Fix{FixRevertOnVeto}), false, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := lookupTestScenario("pp-adp-veto-growth")
			if err != nil {
				t.Fatal(err)
			}
			sp, err := sc.Spec(tc.fixes)
			if err != nil {
				t.Fatal(err)
			}
			s := sp.Initial()
			vetoes := 0
			for _, line := range ppADPTrace {
				a, err := sp.ParseAction(line)
				if err != nil {
					t.Fatal(err)
				}
				stage := sp.Config.stageOf(a.Rank)
				peer := stage*2 + 1
				before := s.Ranks[peer].Pools[Target].Caches[3].Capacity
				step(t, sp, &s, line)
				if a.Kind != ActSchedule && a.Kind != ActForward {
					continue
				}
				it := &s.Pipeline[s.Ranks[peer].PipelinePos]
				if s.Ranks[peer].Phase != PhaseForwarded || !it.Vetoed || !batchHolds(sp.microBatch(&s, s.Ranks[peer].PipelinePos, 1), 3, GenerationStep) {
					continue
				}
				vetoes++
				after := s.Ranks[peer].Pools[Target].Caches[3].Capacity
				if kept := after > before; kept != tc.keeps {
					t.Errorf("%s: rank %d's request 3 went from capacity %d to %d across a vetoed micro-batch; growth kept %v, want %v", line, peer, before, after, kept, tc.keeps)
				}
			}
			if vetoes != tc.vetoes {
				t.Errorf("%d vetoed stage iterations grew request 3, want %d", vetoes, tc.vetoes)
			}
		})
	}
}

// batchHolds reports whether b holds request id as an entry of kind k.
func batchHolds(b *Batch, id uint8, k BatchKind) bool {
	for i := 0; i < int(b.Count); i++ {
		if b.Entries[i].ID == id && b.Entries[i].Kind == k {
			return true
		}
	}
	return false
}

// TestPipelineAttentionDPOverflow: the scenario's first symptom is the
// stale _allocated_draft_lens record (iteration-records-cleared); checked
// for page-index-row-bounded alone, the missing revert in _executor_loop_pp
// lets the growth overflow the page-index row in 36 steps (ppADPTrace),
// and with _revert_gen_alloc (2829508) the row holds on every reachable
// state.
func TestPipelineAttentionDPOverflow(t *testing.T) {
	sc, err := lookupTestScenario("pp-adp-veto-growth")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		fixes Fixes
		steps int
	}{{0, len(ppADPTrace)}, {fixSet([]Fix{FixRevertOnVeto}), 0}} {
		sp, err := sc.Spec(tc.fixes)
		if err != nil {
			t.Fatal(err)
		}
		res := model.Check[State, Action](model.OnlyInvariants[State, Action](sp, []string{InvPageIndexRow}), model.Options{MaxDepth: sc.Depth, Workers: 1})
		switch {
		case tc.steps == 0 && (len(res.Violations) > 0 || !res.Complete):
			t.Errorf("fixes %v: page-index-row-bounded broken or search incomplete: %+v", tc.fixes.Names(), res.Violations)
		case tc.steps > 0 && (len(res.Violations) == 0 || len(res.Violations[0].Trace) != tc.steps):
			t.Errorf("fixes %v: want page-index-row-bounded broken in %d steps, got %+v", tc.fixes.Names(), tc.steps, res.Violations)
		}
	}
}

// TestPipelineAttentionDPLayout covers correction 7's rank layout and
// configuration rules: ranks are stage x ADP rank (tp_size with
// enable_attention_dp in _pp_schedule_and_propagate at 2829508, where each
// first-stage ADP rank schedules its own batch under is_dp_broadcast), a
// stage's pool sizes apply to all its ADP ranks, requests enter at an ADP
// rank of stage 0, and the combination needs stage_adp_ranks.
func TestPipelineAttentionDPLayout(t *testing.T) {
	base := "tokens_per_block=4 max_batch_size=1 max_num_tokens=4 target_blocks=4 target_index_slots=4 enable_attention_dp=true\n"
	for _, tc := range []struct {
		text    string
		problem string
		stage   [MaxRanks]uint8
		blocks  [MaxRanks]uint32
	}{
		{text: "ranks=4 stage_adp_ranks=2 loop=pipeline stage_target_blocks=4,6\nrequest prompt=2 new=1 rank=1\n",
			stage: [MaxRanks]uint8{0, 0, 1, 1}, blocks: [MaxRanks]uint32{4, 4, 6, 6}},
		{text: "ranks=4 loop=pipeline\nrequest prompt=2 new=1\n", problem: "needs stage_adp_ranks of at least 2"},
		{text: "ranks=2 stage_adp_ranks=2 loop=pipeline\nrequest prompt=2 new=1\n", problem: "into at least 2 pipeline stages"},
		{text: "ranks=2 stage_adp_ranks=2 loop=overlap\nrequest prompt=2 new=1\n", problem: "needs loop=pipeline"},
		{text: "ranks=4 stage_adp_ranks=2 loop=pipeline\nrequest prompt=2 new=1 rank=2\n", problem: "enter at an ADP rank of stage 0"},
		{text: "ranks=4 stage_adp_ranks=2 loop=pipeline stage_target_blocks=4,4,4\nrequest prompt=2 new=1\n", problem: "stage 2 set, but the configuration has 2 pipeline stage(s)"},
	} {
		cfg, err := parseConfigText(Config{}, base+tc.text)
		if err == nil {
			err = cfg.Validate()
		}
		if tc.problem != "" {
			if err == nil || !strings.Contains(err.Error(), tc.problem) {
				t.Errorf("%q: error %v, want one saying %q", tc.text, err, tc.problem)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		for r := uint8(0); r < cfg.Ranks; r++ {
			if got := cfg.stageOf(r); got != tc.stage[r] {
				t.Errorf("rank %d on stage %d, want %d", r, got, tc.stage[r])
			}
			if got := cfg.poolBlocksOn(r, Target); got != tc.blocks[r] {
				t.Errorf("rank %d has %d target pages, want %d", r, got, tc.blocks[r])
			}
			if got, want := cfg.isLastStage(r), tc.stage[r] == 1; got != want {
				t.Errorf("rank %d last stage %v, want %v", r, got, want)
			}
			if got, want := cfg.servesRequest(r, 1), r%2 == 1; got != want {
				t.Errorf("rank %d holds request 1 (routed to ADP rank 1): %v, want %v", r, got, want)
			}
		}
	}
}

// TestPipelineAttentionDPPad covers the pads of _executor_loop_pp at
// 2829508: every rank runs _pad_attention_dp_dummy_request before
// _pp_schedule_and_propagate, so an ADP rank with no request gets a
// generation dummy on every stage, each stage its own (the micro-batch
// travels as IDs; to_scheduler_result takes the local object); there is
// no _pad_empty_attention_dp_batch, so an ADP rank whose only request is
// inflight schedules an empty batch and the stage is vetoed; and there is
// no _finalize_adp_dummy_allocation, so a vetoed dummy stays active.
func TestPipelineAttentionDPPad(t *testing.T) {
	cfg, err := parseConfigText(Config{}, `tokens_per_block=4 max_draft_len=1 max_batch_size=1 max_num_tokens=4 target_blocks=4 target_index_slots=4
ranks=4 stage_adp_ranks=2 loop=pipeline enable_attention_dp=true
request prompt=2 new=2
`)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := sp.Initial()
	for _, line := range []string{"arrive req=1", "schedule rank=0"} {
		step(t, sp, &s, line)
	}
	// Iteration 0: ADP rank 1 has nothing, pads a dummy and schedules it;
	// the forward's _update_request_states terminates it.
	it, peer := &s.Pipeline[0], sp.microBatch(&s, 0, 1)
	if it.Vetoed || !batchHolds(peer, dummyID, GenerationStep) || peer.Entries[0].Incarnation != 0 {
		t.Fatalf("iteration 0: want a queued micro-batch whose ADP rank 1 part is the dummy, recorded with incarnation 0 (rebuilt by ID on each stage)\n%s", sp.Dump(&s))
	}
	// Iteration 1: request 1's last chunk is inflight, so ADP rank 0
	// schedules nothing and nothing pads after scheduling; ADP rank 1 pads
	// a new dummy; the stage is vetoed and the dummy stays active.
	for _, line := range []string{"handle rank=0 count=0", "schedule rank=0"} {
		step(t, sp, &s, line)
	}
	if it := &s.Pipeline[1]; !it.Vetoed || it.Batch.Count != 0 || !batchHolds(sp.microBatch(&s, 1, 1), dummyID, GenerationStep) {
		t.Fatalf("iteration 1: want a vetoed micro-batch, empty on ADP rank 0\n%s", sp.Dump(&s))
	}
	if !s.Ranks[1].Requests[dummyID].State.isActive() {
		t.Fatalf("a veto retired the dummy, but _executor_loop_pp has no _finalize_adp_dummy_allocation\n%s", sp.Dump(&s))
	}
	// Stage 1 runs both iterations; its ADP rank 1 pads its own dummy.
	for _, line := range []string{"forward rank=2", "handle rank=2 count=0", "forward rank=2"} {
		step(t, sp, &s, line)
	}
	if d := s.Ranks[3].Requests[dummyID]; !d.State.isActive() || d.Incarnation == 0 {
		t.Fatalf("stage 1's ADP rank 1 holds no dummy of its own after the vetoed iteration\n%s", sp.Dump(&s))
	}
}
