package spec

import (
	"strings"
	"testing"
)

// walkUntil follows, from the initial state, the first enabled action whose
// successor does not crash until pred holds, and returns that state.
func walkUntil(t *testing.T, sp *Spec, pred func(s *State) bool) State {
	t.Helper()
	s := sp.Initial()
	for steps := 0; steps < 400; steps++ {
		if pred(&s) {
			return s
		}
		moved := false
		for _, a := range sp.Actions(&s, nil) {
			if next := sp.Next(&s, a); !next.Crash.Happened {
				s, moved = next, true
				break
			}
		}
		if !moved {
			break
		}
	}
	t.Fatalf("no state on the walk satisfies the predicate\n%s", sp.Dump(&s))
	return s
}

// firstGrownGeneration returns a generation entry of rank 0's batch whose
// target cache holds an _allocated_draft_lens record, or -1.
func firstGrownGeneration(s *State) int {
	b := &s.Ranks[0].Batch
	for i := 0; i < int(b.Count); i++ {
		if e := b.Entries[i]; e.Kind == GenerationStep && s.Ranks[0].Pools[Target].Caches[e.ID].AllocatedDraft != 0 {
			return i
		}
	}
	return -1
}

// failuresOf returns the names of the invariants s violates under sp.
func failuresOf(sp *Spec, s *State) map[string]string {
	out := map[string]string{}
	for _, inv := range sp.Invariants() {
		if f := inv.Check(s); f != nil {
			out[inv.Name] = f.Message
		}
	}
	return out
}

func scenarioSpec(t *testing.T, name string, fixes ...Fix) *Spec {
	t.Helper()
	sc, err := lookupTestScenario(name)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sc.Spec(FixSetOf(fixes...))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestBookkeepingInvariantsCatchPlantedBugs plants, in a state a fixed
// scenario reaches, the one-line mistake each bookkeeping invariant exists
// for (the real step with one piece of bookkeeping left out) and checks the
// invariant reports it, while the state before the mistake breaks none.
func TestBookkeepingInvariantsCatchPlantedBugs(t *testing.T) {
	atGenerationForwarded := func(s *State) bool {
		return s.Ranks[0].Phase == PhaseForwarded && firstGrownGeneration(s) >= 0
	}
	atGenerationScheduled := func(s *State) bool {
		return s.Ranks[0].Phase == PhaseScheduled && firstGrownGeneration(s) >= 0
	}
	tests := []struct {
		name      string
		invariant string
		pick      func(s *State) bool
		// plant returns the buggy successor of s.
		plant func(sp *Spec, s *State) State
		want  string
	}{
		{
			name:      "update_resources leaves _allocated_draft_lens behind",
			invariant: InvRecordsCleared,
			pick:      atGenerationForwarded,
			plant: func(sp *Spec, s *State) State {
				id := s.Ranks[0].Batch.Entries[firstGrownGeneration(s)].ID
				next := sp.Next(s, Action{Kind: ActUpdate})
				if c := &next.Ranks[0].Pools[Target].Caches[id]; c.Status != Absent {
					c.AllocatedDraft = s.Ranks[0].Pools[Target].Caches[id].AllocatedDraft
				}
				return next
			},
			want: "_allocated_draft_lens holds 1 draft slots, but no batch awaiting update_resources holds the request",
		},
		{
			name:      "a vetoed iteration keeps the generation growth (no _revert_gen_alloc)",
			invariant: InvReservation,
			pick:      atGenerationScheduled,
			plant: func(sp *Spec, s *State) State {
				next := *s
				next.Ranks[0].Batch = Batch{}
				next.Ranks[0].Phase = PhaseIdle
				return next
			},
			want: "after its iteration, more than",
		},
		{
			name:      "update_resources forgets to rewind the unused draft slots",
			invariant: InvReservation,
			pick: func(s *State) bool {
				i := firstGrownGeneration(s)
				return atGenerationForwarded(s) && s.Ranks[0].Batch.Entries[i].Accepted == 0
			},
			plant: func(sp *Spec, s *State) State {
				id := s.Ranks[0].Batch.Entries[firstGrownGeneration(s)].ID
				next := sp.Next(s, Action{Kind: ActUpdate})
				c := &next.Ranks[0].Pools[Target].Caches[id]
				grown := s.Ranks[0].Pools[Target].Caches[id].Capacity
				next.Ranks[0].Pools[Target].Free -= sp.Config.blocksFor(grown) - sp.Config.blocksFor(c.Capacity)
				c.Capacity = grown
				return next
			},
			want: "after its iteration, more than",
		},
		{
			name:      "free_resources without rewind_context_after_cache_drop",
			invariant: InvCursorAgreement,
			pick: func(s *State) bool {
				r := &s.Ranks[0]
				return r.Phase == PhaseIdle && r.Requests[1].State == ContextInit && r.Requests[1].Position > 0
			},
			plant: func(sp *Spec, s *State) State {
				next := *s
				sp.view(&next, 0).freeResources(1)
				return next
			},
			want: "has no target cache but its cursors stand at",
		},
		{
			name:      "update_context_resources leaves the history behind the cursor",
			invariant: InvCursorAgreement,
			pick: func(s *State) bool {
				r := &s.Ranks[0]
				return r.Phase == PhaseForwarded && r.Batch.Count > 0 && r.Batch.Entries[0].Kind == ContextChunk && !r.Batch.Entries[0].Last
			},
			plant: func(sp *Spec, s *State) State {
				id := s.Ranks[0].Batch.Entries[0].ID
				next := sp.Next(s, Action{Kind: ActUpdate})
				next.Ranks[0].Pools[Target].Caches[id].History = s.Ranks[0].Pools[Target].Caches[id].History
				return next
			},
			want: "context cursor",
		},
		{
			name:      "update_resources skips the history of a generation step",
			invariant: InvCursorAgreement,
			pick:      atGenerationForwarded,
			plant: func(sp *Spec, s *State) State {
				id := s.Ranks[0].Batch.Entries[firstGrownGeneration(s)].ID
				next := sp.Next(s, Action{Kind: ActUpdate})
				if c := &next.Ranks[0].Pools[Target].Caches[id]; c.Status == Active {
					c.History = s.Ranks[0].Pools[Target].Caches[id].History
				}
				return next
			},
			want: "target history",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := scenarioSpec(t, "draft-admission", FixJointAdmission)
			s := walkUntil(t, sp, tt.pick)
			if got := failuresOf(sp, &s); len(got) > 0 {
				t.Fatalf("the state before the planted bug already fails: %v", got)
			}
			if healthy := failuresOf(sp, ptr(sp.Next(&s, sp.Actions(&s, nil)[0]))); healthy[tt.invariant] != "" {
				t.Fatalf("the real step already breaks %s: %s", tt.invariant, healthy[tt.invariant])
			}
			buggy := tt.plant(sp, &s)
			got := failuresOf(sp, &buggy)[tt.invariant]
			if got == "" {
				t.Fatalf("%s did not fire on the planted bug\n%s", tt.invariant, sp.Dump(&buggy))
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("%s: %q, want it to contain %q", tt.invariant, got, tt.want)
			}
		})
	}
}

func ptr(s State) *State { return &s }

// TestBatchLimitsCatchAnOverfullBatch: a scheduler that budgets with a
// larger max_batch_size or max_num_tokens than configured (planted as the
// same scenario scheduled under the larger limit) builds a batch the
// invariant rejects under the real limit.
func TestBatchLimitsCatchAnOverfullBatch(t *testing.T) {
	for _, tt := range []struct {
		name   string
		batch  uint8  // max_batch_size the real code enforces
		tokens uint32 // max_num_tokens the real code enforces
		loosen func(c *Config)
		want   string
	}{
		{"max_batch_size", 2, 36, func(c *Config) { c.MaxBatchSize = 3 }, "3 requests and"},
		{"max_num_tokens", 4, 8, func(c *Config) { c.MaxNumTokens = 12 }, "12 tokens"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := draftAdmission.Config
			cfg.MaxBatchSize, cfg.MaxNumTokens = tt.batch, tt.tokens
			cfg.BlockReuse = false
			cfg.TargetBlocks, cfg.DraftBlocks = 16, 16
			strict, err := New(cfg, 0)
			if err != nil {
				t.Fatal(err)
			}
			tt.loosen(&cfg)
			loose, err := New(cfg, 0)
			if err != nil {
				t.Fatal(err)
			}
			s := loose.Initial()
			for _, line := range []string{"arrive req=1", "arrive req=2", "arrive req=3", "schedule rank=0"} {
				step(t, loose, &s, line)
			}
			if f := failuresOf(loose, &s)[InvBatchLimits]; f != "" {
				t.Fatalf("the loose scheduler's own limits fail: %s", f)
			}
			got := failuresOf(strict, &s)[InvBatchLimits]
			if !strings.Contains(got, tt.want) {
				t.Fatalf("under the real limits: %q, want %q\n%s", got, tt.want, strict.Dump(&s))
			}
		})
	}
}

// TestBookkeepingSkipsCrashedStates: a crashed engine is reported by
// no-crash-on-refusal alone, whatever bookkeeping the raise interrupted.
func TestBookkeepingSkipsCrashedStates(t *testing.T) {
	sp := scenarioSpec(t, "draft-admission", FixJointAdmission)
	s := walkUntil(t, sp, func(s *State) bool { return s.Ranks[0].Phase == PhaseScheduled && firstGrownGeneration(s) >= 0 })
	s.Ranks[0].Batch = Batch{}
	s.Ranks[0].Phase = PhaseIdle
	if failuresOf(sp, &s)[InvReservation] == "" {
		t.Fatal("setup: the abandoned growth does not break the reservation")
	}
	s.crash(0, Target, 1, FnUpdateResources, ErrGenerationUpdate, 0)
	for _, name := range []string{InvBatchLimits, InvRecordsCleared, InvReservation, InvCursorAgreement, InvTokenAccounting} {
		if f := failuresOf(sp, &s)[name]; f != "" {
			t.Errorf("%s reports a crashed state: %s", name, f)
		}
	}
}

// TestReservationSparesSuspendedCaches: update_resources serves ACTIVE
// caches only (kv_cache_manager_v2.py at 00746ef), so a generation growth
// whose update found the cache suspended stays until the scheduler resumes
// and resizes it; reservation-released flags the same growth on an ACTIVE
// cache.
func TestReservationSparesSuspendedCaches(t *testing.T) {
	sp := scenarioSpec(t, "draft-admission", FixJointAdmission)
	s := walkUntil(t, sp, func(s *State) bool { return s.Ranks[0].Phase == PhaseScheduled && firstGrownGeneration(s) >= 0 })
	b := s.Ranks[0].Batch
	s.Ranks[0].Batch = Batch{}
	s.Ranks[0].Phase = PhaseIdle
	if failuresOf(sp, &s)[InvReservation] == "" {
		t.Fatal("setup: the abandoned growth on an ACTIVE cache does not break the reservation")
	}
	for i := 0; i < int(b.Count); i++ {
		if e := b.Entries[i]; e.Kind == GenerationStep {
			for p := Target; p < numPools; p++ {
				if c := &s.Ranks[0].Pools[p].Caches[e.ID]; c.Status == Active {
					c.Status = Suspended
				}
			}
		}
	}
	if f := failuresOf(sp, &s)[InvReservation]; f != "" {
		t.Errorf("a suspended cache's growth is reported: %s", f)
	}
}
