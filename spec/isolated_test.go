package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// outcome is what a check of one variant shows: a fix that changes nothing
// of it is indistinguishable from no fix.
type outcome struct {
	states, transitions int
	complete            bool
	first               string
}

// checkOutcome checks sc under fixes with every invariant, or with
// crashOnly with no-crash-on-refusal alone (a fix may act only past a
// violation the full check stops at, e.g. the leak seed 003 reports first).
func checkOutcome(t *testing.T, sc *testScenario, fixes Fixes, crashOnly bool) outcome {
	t.Helper()
	key := fmt.Sprintf("%s/%d/%v", sc.Name, fixes, crashOnly)
	if o, ok := outcomes[key]; ok {
		return o
	}
	o := checkOutcomeOnce(t, sc, fixes, crashOnly)
	outcomes[key] = o
	return o
}

// outcomes caches checkOutcome: a variant appears in several comparisons.
var outcomes = map[string]outcome{}

func checkOutcomeOnce(t *testing.T, sc *testScenario, fixes Fixes, crashOnly bool) outcome {
	t.Helper()
	sp, err := sc.Spec(fixes)
	if err != nil {
		t.Fatal(err)
	}
	var checked model.Spec[State, Action] = sp
	if crashOnly {
		checked = model.OnlyInvariants(checked, []string{InvNoCrash})
	}
	res := model.Check(checked, model.Options{MaxDepth: sc.Depth, MaxStates: sc.MaxStates, Workers: 1})
	o := outcome{states: res.States, transitions: res.Transitions, complete: res.Complete}
	if len(res.Violations) > 0 {
		o.first = res.Violations[0].Invariant + ": " + res.Violations[0].Message
	}
	return o
}

// noOpFixes are the fixes the spec cannot tell from no fix, with why. A
// fix listed here that starts to matter fails the test too.
var noOpFixes = map[Fix]string{
	FixRecordDraftLens: "_prepare_draft_resources grows a mirror by 1 + max(draft, reserve) after " +
		"_handle_dynamic_draft_len padded the draft to max_draft_len, which is exactly the width " +
		"update_resources rewinds without a record; the record matters only when the runtime draft " +
		"width differs from max_draft_len (dynamic draft length), which the spec does not model",
}

// TestEveryFixMatters: each fix, alone and inside every fix set a scenario
// checks, changes what the checker finds in that scenario (states,
// transitions, completeness or the first violation), with every invariant
// or with no-crash-on-refusal alone. A fix whose code path became a no-op
// (a dropped Has check, a guard that never fires) fails here even when its
// scenario still passes.
func TestEveryFixMatters(t *testing.T) {
	matters := map[Fix]bool{}
	var lines []string
	for _, sc := range testScenarios() {
		for _, set := range sc.FixSets {
			full := FixSetOf(set...)
			for _, crashOnly := range []bool{false, true} {
				with := checkOutcome(t, sc, full, crashOnly)
				real := checkOutcome(t, sc, 0, crashOnly)
				for _, f := range set {
					inSet := with != checkOutcome(t, sc, full&^FixSetOf(f), crashOnly)
					byItself := checkOutcome(t, sc, FixSetOf(f), crashOnly) != real
					if inSet && byItself {
						matters[f] = true
					}
					lines = append(lines, fmt.Sprintf("%s [%s] %s (crash only %v): in the set %v, alone %v",
						sc.Name, strings.Join(full.Names(), "+"), f, crashOnly, inSet, byItself))
				}
			}
		}
	}
	for _, f := range AllFixes() {
		why, excused := noOpFixes[f]
		switch {
		case !matters[f] && !excused:
			t.Errorf("fix %s changes nothing, alone or in its set, in any scenario that checks it:\n  %s", f, strings.Join(lines, "\n  "))
		case matters[f] && excused:
			t.Errorf("fix %s matters now; drop it from noOpFixes (%s)", f, why)
		}
	}
}

// TestIsTerminal: a crashed engine and a run where every request finished
// on every rank it lives on are legitimate ends; anything else is not
// (the checker reports a deadlock there).
func TestIsTerminal(t *testing.T) {
	sp, s, _ := fixture(t, testConfig())
	if sp.IsTerminal(s) {
		t.Fatal("three active requests: terminal")
	}
	for id := 1; id <= 3; id++ {
		s.Ranks[0].Requests[id].State = Finished
	}
	if !sp.IsTerminal(s) {
		t.Fatal("every request finished: not terminal")
	}
	s.Ranks[0].Requests[2].State = GenerationComplete
	if sp.IsTerminal(s) {
		t.Fatal("a request complete but not freed: terminal")
	}
	s.Ranks[0].Requests[2].State = Finished
	s.Arrived = 2
	if sp.IsTerminal(s) {
		t.Fatal("a request still to arrive: terminal")
	}
	s.Arrived = 3
	s.crash(0, Target, 1, FnUpdateResources, ErrGenerationUpdate, 0)
	s.Ranks[0].Requests[1].State = ContextInit
	if !sp.IsTerminal(s) {
		t.Fatal("a crashed engine: not terminal")
	}

	// Attention DP: a request lives on its own rank only.
	adp := adpDummyLeak.Config
	asp, err := New(adp, 0)
	if err != nil {
		t.Fatal(err)
	}
	var a State
	a.Arrived = uint8(len(adp.Requests))
	for id, tmpl := range adp.Requests {
		a.Ranks[tmpl.Rank].Requests[id+1].State = Finished
	}
	if !asp.IsTerminal(&a) {
		t.Fatal("ADP: every request finished on its rank: not terminal")
	}
	// Pipeline: a request lives on every stage.
	pp := ppHistoryCapacity.Config
	psp, err := New(pp, 0)
	if err != nil {
		t.Fatal(err)
	}
	var p State
	p.Arrived = uint8(len(pp.Requests))
	for id := range pp.Requests {
		p.Ranks[0].Requests[id+1].State = Finished
	}
	if psp.IsTerminal(&p) {
		t.Fatal("pipeline: requests finished on stage 0 only: terminal")
	}
	for id := range pp.Requests {
		p.Ranks[1].Requests[id+1].State = Finished
	}
	if !psp.IsTerminal(&p) {
		t.Fatal("pipeline: finished on every stage: not terminal")
	}
}

// TestForwardChoicesExploreTheEnvironment: a forward offers every
// combination of accepted draft tokens (0..max_draft_len) and, with early
// finishes, EOS, for each real generation entry, and none for context
// entries or the attention-DP dummy.
func TestForwardChoicesExploreTheEnvironment(t *testing.T) {
	for _, tt := range []struct {
		draft uint32
		eos   bool
		want  int
	}{
		{1, false, 4}, {2, false, 9}, {1, true, 16}, {0, false, 1},
	} {
		cfg := testConfig()
		cfg.MaxDraftLen, cfg.EarlyFinish = tt.draft, tt.eos
		if tt.draft == 0 {
			cfg.DraftPool = NoDraftPool
		}
		sp, err := New(cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := Batch{Count: 4, Entries: [MaxBatch]BatchEntry{
			{ID: 1, Kind: GenerationStep}, {ID: 2, Kind: ContextChunk, Chunk: 4},
			{ID: 3, Kind: GenerationStep}, {ID: dummyID, Kind: GenerationStep},
		}}
		acts := sp.forwardChoices(&b, 0, nil)
		if len(acts) != tt.want {
			t.Fatalf("draft %d eos %v: %d choices, want %d", tt.draft, tt.eos, len(acts), tt.want)
		}
		seen := map[string]bool{}
		for _, a := range acts {
			if a.Requests != 1<<1|1<<3 {
				t.Fatalf("choices carried for requests %b, want 1 and 3", a.Requests)
			}
			if a.Accepted[2] != 0 || a.Accepted[0] != 0 || a.EOS&(1<<2|1) != 0 {
				t.Fatalf("a context entry or the dummy got a choice: %s", a)
			}
			seen[a.String()] = true
		}
		if len(seen) != tt.want {
			t.Fatalf("draft %d eos %v: %d distinct choices of %d", tt.draft, tt.eos, len(seen), tt.want)
		}
		last := fmt.Sprintf("forward rank=0 accept=1:%d,3:%d", tt.draft, tt.draft)
		if tt.eos {
			last += " eos=1,3"
		}
		if !seen[last] {
			t.Fatalf("the most generous choice %q is missing from %v", last, seen)
		}
	}
}

// TestRanksAgreeClauses: each clause of ranks-agree fires on its own
// disagreement and on nothing else.
func TestRanksAgreeClauses(t *testing.T) {
	adp, err := New(adpDummyLeak.Config, 0)
	if err != nil {
		t.Fatal(err)
	}
	pp, err := New(ppHistoryCapacity.Config, 0)
	if err != nil {
		t.Fatal(err)
	}
	queued := func(s *State) {
		for r := range s.Ranks[:2] {
			s.Ranks[r].Phase = PhaseQueued
			s.Ranks[r].CanQueue = true
		}
	}
	for _, tt := range []struct {
		name  string
		sp    *Spec
		setUp func(s *State)
		want  string // "" for agreement
	}{
		{"ADP agreement", adp, queued, ""},
		{"ADP expected_num_active_requests", adp, func(s *State) { s.Ranks[1].ExpectedActive = 2 }, "rank 1 expects 2 active requests, rank 0 0"},
		{"ADP can_queue after the allgather", adp, func(s *State) { queued(s); s.Ranks[1].CanQueue = false }, "rank 1 took can_queue=false, rank 0 can_queue=true"},
		{"ADP can_queue before the allgather", adp, func(s *State) { queued(s); s.Ranks[1].Phase = PhaseFetched; s.Ranks[1].CanQueue = false }, ""},
		{"pipeline agreement", pp, func(s *State) {
			s.PipelineLen = 2
			s.Pipeline[0] = PipelineIteration{Batch: Batch{Count: 1}, Handled: 3}
			s.Pipeline[1] = PipelineIteration{Batch: Batch{Count: 1}, Handled: 1}
		}, ""},
		{"pipeline handled before rank 0", pp, func(s *State) {
			s.PipelineLen = 1
			s.Pipeline[0] = PipelineIteration{Batch: Batch{Count: 1}, Handled: 2}
		}, "pipeline iteration 0 was handled by ranks {1} before rank 0"},
		{"pipeline handled out of order", pp, func(s *State) {
			s.PipelineLen = 2
			s.Pipeline[0] = PipelineIteration{Batch: Batch{Count: 1}, Handled: 1}
			s.Pipeline[1] = PipelineIteration{Batch: Batch{Count: 1}, Handled: 3}
		}, "ranks {1} handled pipeline iteration 1 before iteration 0"},
		{"pipeline: an empty older iteration orders nothing", pp, func(s *State) {
			s.PipelineLen = 2
			s.Pipeline[0] = PipelineIteration{Handled: 0}
			s.Pipeline[1] = PipelineIteration{Batch: Batch{Count: 1}, Handled: 3}
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.sp.Initial()
			tt.setUp(&s)
			f := tt.sp.checkRanksAgree(&s)
			switch {
			case tt.want == "" && f != nil:
				t.Fatalf("fires: %s", f.Message)
			case tt.want != "" && f == nil:
				t.Fatalf("does not fire, want %q", tt.want)
			case tt.want != "" && f.Message != tt.want:
				t.Fatalf("%q, want %q", f.Message, tt.want)
			}
		})
	}
}

// TestEveryRequestSlot: a configuration with MaxRequests requests has a
// slot for each: every one arrives into its own ID.
func TestEveryRequestSlot(t *testing.T) {
	cfg := testConfig()
	for len(cfg.Requests) < MaxRequests {
		cfg.Requests = append(cfg.Requests, cfg.Requests[2])
	}
	_, s, _ := fixture(t, cfg)
	for id := 1; id <= MaxRequests; id++ {
		if st := s.Ranks[0].Requests[id].State; st != ContextInit {
			t.Errorf("request %d is %v after every arrival, want %v", id, st, ContextInit)
		}
	}
}

// TestValidateBoundaries: each limit of Validate accepts its boundary
// value and rejects the next one, naming the field.
func TestValidateBoundaries(t *testing.T) {
	for _, tt := range []struct {
		name        string
		ok, invalid func(c *Config)
		want        string
	}{
		{"ranks", func(c *Config) { c.Ranks = MaxRanks }, func(c *Config) { c.Ranks = MaxRanks + 1 }, "ranks must be 1.."},
		{"no ranks", func(c *Config) { c.Ranks = 1 }, func(c *Config) { c.Ranks = 0 }, "ranks must be 1.."},
		{"max_batch_size", func(c *Config) { c.MaxBatchSize = 1 }, func(c *Config) { c.MaxBatchSize = 0 }, "max_batch_size must be 1.."},
		{"max_batch_size high", func(c *Config) { c.MaxBatchSize = 6 }, func(c *Config) { c.MaxBatchSize = MaxBatch + 1 }, "max_batch_size must be 1.."},
		{"max_num_tokens", func(c *Config) { c.MaxNumTokens = 1 }, func(c *Config) { c.MaxNumTokens = 0 }, "max_num_tokens must be at least 1"},
		{"chunk_unit_size", func(c *Config) { c.ChunkUnitSize = 1 }, func(c *Config) { c.ChunkUnitSize = 0 }, "chunk_unit_size must be at least 1"},
		{"resume gate", func(c *Config) { c.ResumeGatePercent = 100 }, func(c *Config) { c.ResumeGatePercent = 101 }, "resume gate must be 0..100"},
		{"max_draft_len", func(c *Config) { c.MaxDraftLen, c.MaxBatchSize = 3, 4 }, func(c *Config) { c.MaxDraftLen, c.MaxBatchSize = 4, 4 }, "max_draft_len must be 0..3"},
		{"forward choices", func(c *Config) { c.MaxDraftLen, c.MaxBatchSize = 3, 6 }, func(c *Config) { c.MaxDraftLen, c.MaxBatchSize = 3, 7 }, "environment choices"},
		{"draft pool needs drafts", func(c *Config) { c.MaxDraftLen = 1 }, func(c *Config) { c.MaxDraftLen = 0 }, "a draft pool needs max_draft_len >= 1"},
		{"shared prefix", func(c *Config) { c.Requests[0].SharedPrefix = c.Requests[0].PromptLen }, func(c *Config) { c.Requests[0].SharedPrefix = c.Requests[0].PromptLen + 1 }, "shared prefix longer than the prompt"},
		{"family", func(c *Config) { c.Requests[0].Family = MaxFamilies - 1 }, func(c *Config) { c.Requests[0].Family = MaxFamilies }, "family must be below"},
		{"request rank", func(c *Config) { c.Ranks = 2; c.Requests[0].Rank = 1 }, func(c *Config) { c.Ranks = 2; c.Requests[0].Rank = 2 }, "routed to rank 2 of 2"},
		{"pool holds the longest request", func(c *Config) { c.TargetBlocks = 5 }, func(c *Config) { c.TargetBlocks = 4 }, "target_blocks must hold the longest request (5 blocks"},
		{"token limit", func(c *Config) {
			c.Requests[0].PromptLen, c.Requests[0].MaxNewTokens, c.TargetBlocks, c.DraftBlocks = 200, 46, 63, 63
		}, func(c *Config) {
			c.Requests[0].PromptLen, c.Requests[0].MaxNewTokens, c.TargetBlocks, c.DraftBlocks = 200, 47, 63, 63
		}, "exceed the 250-token limit"},
		{"requests", func(c *Config) {
			for len(c.Requests) < MaxRequests {
				c.Requests = append(c.Requests, c.Requests[2])
			}
		}, func(c *Config) {
			for len(c.Requests) <= MaxRequests {
				c.Requests = append(c.Requests, c.Requests[2])
			}
		}, "requests must number 1.."},
		{"stage_adp_ranks", func(c *Config) { c.StageADPRanks = 1 }, func(c *Config) { c.StageADPRanks = 2 }, "stage_adp_ranks 2 needs loop=pipeline"},
		{"stage pool holds the longest request", func(c *Config) {
			c.Loop, c.Ranks, c.StageTargetBlocks[1] = PipelineLoop, 2, 5
		}, func(c *Config) {
			c.Loop, c.Ranks, c.StageTargetBlocks[1] = PipelineLoop, 2, 4
		}, "stage_target_blocks: stage 1 must hold the longest request (5 blocks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			good, bad := testConfig(), testConfig()
			good.Requests = append([]RequestTemplate(nil), good.Requests...)
			bad.Requests = append([]RequestTemplate(nil), bad.Requests...)
			tt.ok(&good)
			tt.invalid(&bad)
			if err := good.Validate(); err != nil {
				t.Fatalf("boundary rejected: %v", err)
			}
			err := bad.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("past the boundary: %v, want %q", err, tt.want)
			}
		})
	}
}
