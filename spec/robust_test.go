package spec

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// randomConfig draws a configuration from the whole space Validate
// accepts (or reports false).
func randomConfig(rng *rand.Rand) (Config, bool) {
	cfg := Config{
		TokensPerBlock:          uint32(1 + rng.IntN(8)),
		MaxDraftLen:             uint32(rng.IntN(4)),
		ExtraKVTokens:           uint32(rng.IntN(3)),
		ReserveDraftTokens:      uint32(rng.IntN(4)),
		MaxBatchSize:            uint8(1 + rng.IntN(MaxBatch)),
		MaxNumTokens:            uint32(1 + rng.IntN(32)),
		ChunkedPrefill:          rng.IntN(2) == 0,
		ChunkUnitSize:           uint32(1 + rng.IntN(8)),
		TargetBlocks:            uint32(1 + rng.IntN(24)),
		DraftBlocks:             uint32(1 + rng.IntN(24)),
		TargetIndexSlots:        uint32(1 + rng.IntN(8)),
		DraftIndexSlots:         uint32(1 + rng.IntN(8)),
		ResumeGatePercent:       uint8(rng.IntN(101)),
		HostTier:                rng.IntN(2) == 0,
		RecomputePause:          rng.IntN(2) == 0,
		BlockReuse:              rng.IntN(2) == 0,
		DraftPool:               DraftPoolMode(rng.IntN(3)),
		DraftView:               DraftViewMode(rng.IntN(2)),
		Version:                 CodeVersion(rng.IntN(2)),
		EarlyFinish:             rng.IntN(3) == 0,
		Ranks:                   uint8(1 + rng.IntN(MaxRanks)),
		Loop:                    LoopKind(rng.IntN(3)),
		AttentionDP:             rng.IntN(2) == 0,
		MaxNumActiveRequests:    uint8(rng.IntN(4)),
		KVTransceiver:           rng.IntN(2) == 0,
		AdpDummyFixes:           rng.IntN(2) == 0,
		PadDraftAfterAllocation: rng.IntN(4) == 0,
	}
	if cfg.Loop == PipelineLoop && rng.IntN(2) == 0 {
		cfg.StageTargetBlocks[rng.IntN(int(cfg.Ranks))] = uint32(1 + rng.IntN(24))
	}
	cfg.PreFixes = PreFixes(rng.Uint32()) & (1<<len(preFixRegistry) - 1)
	if cfg.HostTier && rng.IntN(2) == 0 {
		cfg.HostBlocks = uint32(rng.IntN(6))
	}
	for range 1 + rng.IntN(4) {
		r := RequestTemplate{
			PromptLen:    uint32(1 + rng.IntN(20)),
			MaxNewTokens: uint32(1 + rng.IntN(5)),
			Family:       NoFamily,
			ReceivingKV:  rng.IntN(5) == 0,
			SendingKV:    rng.IntN(8) == 0,
		}
		if rng.IntN(2) == 0 {
			r.Family = uint8(rng.IntN(2))
			r.SharedPrefix = uint32(rng.IntN(int(r.PromptLen) + 1))
		}
		if cfg.Loop != PipelineLoop {
			r.Rank = uint8(rng.IntN(int(cfg.Ranks)))
		}
		cfg.Requests = append(cfg.Requests, r)
	}
	return cfg, cfg.Validate() == nil
}

// TestRandomConfigurationsNeverPanic walks many random valid
// configurations under random fixes: every reached state must keep the
// spec's own bookkeeping sound (no Go panic, actions that print and parse
// back, pool conservation, history within capacity, IndexMapper bounds,
// ranks agreeing), whatever the engine's bugs do: those show as raises and
// leaks, never as a broken model.
func TestRandomConfigurationsNeverPanic(t *testing.T) {
	if os.Getenv("KVCHECK_MUTATE") != "" {
		t.Skip("a minute of random walks per mutant: skipped by make mutate (KVCHECK_MUTATE)")
	}
	rng := rand.New(rand.NewPCG(7, 11))
	valid := 0
	for i := 0; i < 4000 && valid < 600; i++ {
		cfg, ok := randomConfig(rng)
		if !ok {
			continue
		}
		valid++
		fixes := Fixes(rng.Uint32()) & AllFixSet()
		sp, err := New(cfg, fixes)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("panic %v on configuration %d:\n%sfixes %v", p, i, formatConfigText(&cfg), fixes.Names())
				}
			}()
			for walk := 0; walk < 4; walk++ {
				s := sp.Initial()
				for step := 0; step < 120; step++ {
					acts := sp.Actions(&s, nil)
					if len(acts) == 0 {
						break
					}
					a := acts[rng.IntN(len(acts))]
					if back, err := sp.ParseAction(a.String()); err != nil || back != a {
						t.Fatalf("%q does not parse back (%v) on configuration %d", a.String(), err, i)
					}
					s = sp.Next(&s, a)
					all := sp.allRanks()
					for _, check := range []func(*State) *model.Failure{
						func(s *State) *model.Failure { return sp.checkPoolConservation(s, all) },
						func(s *State) *model.Failure { return sp.checkHistoryWithinCapacity(s, all) },
						func(s *State) *model.Failure { return sp.checkIndexSlots(s, all) },
						sp.checkRanksAgree,
					} {
						if f := check(&s); f != nil {
							t.Fatalf("configuration %d after %s: %s\n%sfixes %v", i, a, f.Message, formatConfigText(&cfg), fixes.Names())
						}
					}
					_ = sp.Dump(&s)
				}
			}
		}()
	}
	if valid < 200 {
		t.Fatalf("only %d valid random configurations", valid)
	}
}
