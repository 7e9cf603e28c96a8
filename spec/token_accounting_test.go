package spec

import (
	"strings"
	"testing"
)

// TestTokenAccountingCatchesPlantedBugs plants the sampler mistakes
// tokens-accounted exists for, in states fixed scenarios reach: an update
// applied twice (non-overlap forward; the overlap loop's previous batch
// updated both in the forward and in update_resources), and a forward's
// sample never applied. The real steps from the same states break nothing.
func TestTokenAccountingCatchesPlantedBugs(t *testing.T) {
	// generationWithRoom: batch b of rank 0 holds a generation step of a
	// request more than room tokens away from max_tokens (the walk accepts
	// no draft token).
	generationWithRoom := func(sp *Spec, s *State, b *Batch, room int) (uint8, bool) {
		for i := 0; i < int(b.Count); i++ {
			e := b.Entries[i]
			if e.Kind != GenerationStep || e.ID == dummyID {
				continue
			}
			r := &s.Ranks[0].Requests[e.ID]
			if int(r.NumTokens)+room < sp.view(s, 0).maxTokens(e.ID) {
				return e.ID, true
			}
		}
		return 0, false
	}
	nonOverlap := func(t *testing.T) (*Spec, State, []Action) {
		// eviction-ladder with num_extra_kv_tokens=2 (and a page to hold it):
		// the slack lets an
		// update applied twice pass update_resources without a raise.
		sc, err := lookupTestScenario("eviction-ladder")
		if err != nil {
			t.Fatal(err)
		}
		cfg := sc.Config
		cfg.ExtraKVTokens = 2
		cfg.TargetBlocks++
		sp, err := New(cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		s := walkUntil(t, sp, func(s *State) bool {
			_, ok := generationWithRoom(sp, s, &s.Ranks[0].Batch, 2)
			return s.Ranks[0].Phase == PhasePrepared && ok
		})
		return sp, s, []Action{sp.Actions(&s, nil)[0], {Kind: ActUpdate}}
	}
	// overlap stands where the overlap loop's forward has already applied
	// the previous batch's sample; update_resources must not apply it again.
	overlap := func(t *testing.T) (*Spec, State, []Action) {
		sp := scenarioSpec(t, "overlap-two-ranks", FixDeferDraftMirror)
		s := walkUntil(t, sp, func(s *State) bool {
			_, ok := generationWithRoom(sp, s, &s.Ranks[0].Previous, 1)
			return s.Ranks[0].Phase == PhaseForwarded && s.Ranks[0].PreviousSampled && ok
		})
		return sp, s, []Action{sp.updateResourcesAction(&s.Ranks[0], 0)}
	}
	tests := []struct {
		name  string
		setup func(t *testing.T) (*Spec, State, []Action)
		// plant runs between the first real step and the rest; it may
		// replace the first step's outcome.
		plant func(sp *Spec, before, after *State)
		want  string
	}{
		{
			name:  "the forward's sample applied twice",
			setup: nonOverlap,
			plant: func(sp *Spec, _, after *State) {
				sp.view(after, 0).applySample(&after.Ranks[0].Batch)
			},
			want: "tokens its forwards produced",
		},
		{
			name:  "the forward's sample never applied",
			setup: nonOverlap,
			plant: func(sp *Spec, before, after *State) {
				id, _ := generationWithRoom(sp, before, &before.Ranks[0].Batch, 2)
				after.Ranks[0].Requests[id].NumTokens = before.Ranks[0].Requests[id].NumTokens
			},
			want: "tokens its forwards produced",
		},
		{
			name:  "the previous batch updated in the forward and again in update_resources",
			setup: overlap,
			plant: func(sp *Spec, before, after *State) {
				*after = *before
				after.Ranks[0].PreviousSampled = false // the guard lost
				*after = sp.Next(after, sp.updateResourcesAction(&after.Ranks[0], 0))
			},
			want: "tokens its forwards produced",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, s, steps := tt.setup(t)
			if got := failuresOf(sp, &s)[InvTokenAccounting]; got != "" {
				t.Fatalf("the state before the planted bug already fails: %s", got)
			}
			run := func(plant bool) State {
				cur := sp.Next(&s, steps[0])
				if plant {
					tt.plant(sp, &s, &cur)
				}
				for _, a := range steps[1:] {
					cur = sp.Next(&cur, a)
				}
				// Walk on until no batch awaiting update_resources holds a
				// request of rank 0, so the invariant reads them all.
				for i := 0; i < 40 && sp.pendingIDs(&cur, 0) != 0 && !cur.Crash.Happened; i++ {
					actions := sp.Actions(&cur, nil)
					if len(actions) == 0 {
						break
					}
					cur = sp.Next(&cur, actions[0])
				}
				return cur
			}
			healthy := run(false)
			if healthy.Crash.Happened {
				t.Fatalf("the real steps crash\n%s", sp.Dump(&healthy))
			}
			if got := failuresOf(sp, &healthy)[InvTokenAccounting]; got != "" {
				t.Fatalf("the real steps already break %s: %s", InvTokenAccounting, got)
			}
			buggy := run(true)
			got := failuresOf(sp, &buggy)[InvTokenAccounting]
			if !strings.Contains(got, tt.want) {
				t.Fatalf("%s: %q, want it to contain %q\n%s", InvTokenAccounting, got, tt.want, sp.Dump(&buggy))
			}
		})
	}
}
