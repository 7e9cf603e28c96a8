package space

import (
	"math/rand/v2"

	"github.com/kvcheck/kvcheck/spec"
)

// The built-in scenarios the tests of this package start from (as spec's
// own tests name them, in spec/scenariofiles_test.go).
var (
	draftAdmission    = *mustScenario("draft-admission")
	adpDummyLeak      = *mustScenario("adp-dummy-leak")
	ppHistoryCapacity = *mustScenario("pp-history-capacity")
)

func mustScenario(name string) *spec.Scenario {
	sc, err := spec.LookupScenario(name)
	if err != nil {
		panic(err)
	}
	return sc
}

// randomConfig draws a configuration from the whole space Validate
// accepts (or reports false): spec's own (spec/robust_test.go), for the
// canonical-form test here.
func randomConfig(rng *rand.Rand) (spec.Config, bool) {
	cfg := spec.Config{
		TokensPerBlock:          uint32(1 + rng.IntN(8)),
		MaxDraftLen:             uint32(rng.IntN(4)),
		ExtraKVTokens:           uint32(rng.IntN(3)),
		ReserveDraftTokens:      uint32(rng.IntN(4)),
		MaxBatchSize:            uint8(1 + rng.IntN(spec.MaxBatch)),
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
		DraftPool:               spec.DraftPoolMode(rng.IntN(3)),
		DraftView:               spec.DraftViewMode(rng.IntN(2)),
		Version:                 spec.CodeVersion(rng.IntN(2)),
		EarlyFinish:             rng.IntN(3) == 0,
		Ranks:                   uint8(1 + rng.IntN(spec.MaxRanks)),
		Loop:                    spec.LoopKind(rng.IntN(3)),
		AttentionDP:             rng.IntN(2) == 0,
		MaxNumActiveRequests:    uint8(rng.IntN(4)),
		KVTransceiver:           rng.IntN(2) == 0,
		AdpDummyFixes:           rng.IntN(2) == 0,
		PadDraftAfterAllocation: rng.IntN(4) == 0,
	}
	if cfg.Loop == spec.PipelineLoop && rng.IntN(2) == 0 {
		cfg.StageTargetBlocks[rng.IntN(int(cfg.Ranks))] = uint32(1 + rng.IntN(24))
	}
	cfg.PreFixes = spec.PreFixes(rng.Uint32()) & (1<<len(spec.AllPreFixes()) - 1)
	if cfg.HostTier && rng.IntN(2) == 0 {
		cfg.HostBlocks = uint32(rng.IntN(6))
	}
	for range 1 + rng.IntN(4) {
		r := spec.RequestTemplate{
			PromptLen:    uint32(1 + rng.IntN(20)),
			MaxNewTokens: uint32(1 + rng.IntN(5)),
			Family:       spec.NoFamily,
			ReceivingKV:  rng.IntN(5) == 0,
			SendingKV:    rng.IntN(8) == 0,
		}
		if rng.IntN(2) == 0 {
			r.Family = uint8(rng.IntN(2))
			r.SharedPrefix = uint32(rng.IntN(int(r.PromptLen) + 1))
		}
		if cfg.Loop != spec.PipelineLoop {
			r.Rank = uint8(rng.IntN(int(cfg.Ranks)))
		}
		cfg.Requests = append(cfg.Requests, r)
	}
	return cfg, cfg.Validate() == nil
}

// TestRandomConfigurationsNeverPanic walks many random valid
