package space

import (
	"math/rand/v2"

	"github.com/kvcheck/kvcheck/spec"
)

// RandomConfig draws a configuration around base, beyond any sweep's
// bounds: it keeps base's shape (executor loop, attention DP, the draft
// pool's mode, the disaggregated-serving settings) and draws the sizes,
// budgets, switches and up to six requests at random. The caller's rng is
// the only source of randomness, so a seed reproduces the draw. The result
// may be invalid (see Config.Validate): callers draw again. Each coin flip
// rng.IntN(2) == 0 has the odds of its mutant != 0 (equivalent mutants).
func RandomConfig(rng *rand.Rand, base spec.Config) spec.Config {
	c := base
	c.TokensPerBlock = uint32(1 + rng.IntN(8))
	c.MaxDraftLen = base.MaxDraftLen
	if c.DraftPool != spec.NoDraftPool || rng.IntN(2) == 0 {
		c.MaxDraftLen = uint32(1 + rng.IntN(3))
	}
	c.ReserveDraftTokens = uint32(rng.IntN(int(c.MaxDraftLen) + 1))
	c.MaxBatchSize = uint8(1 + rng.IntN(6))
	c.MaxNumTokens = uint32(4 + rng.IntN(29))
	c.ChunkedPrefill = rng.IntN(4) != 0
	c.ChunkUnitSize = uint32(1 + rng.IntN(8))
	c.TargetBlocks = uint32(2 + rng.IntN(23))
	c.DraftBlocks = uint32(2 + rng.IntN(23))
	c.TargetIndexSlots = uint32(1 + rng.IntN(8))
	c.DraftIndexSlots = uint32(1 + rng.IntN(8))
	c.ResumeGatePercent = []uint8{100, 100, 90, 75, 50}[rng.IntN(5)]
	c.HostTier = rng.IntN(3) == 0
	c.RecomputePause = rng.IntN(4) != 0
	c.BlockReuse = rng.IntN(2) == 0
	c.Version = spec.CodeVersion(rng.IntN(len(spec.CodeVersion(0).Names())))
	c.EarlyFinish = rng.IntN(4) == 0
	if c.Loop == spec.PipelineLoop || c.AttentionDP || c.Ranks > 1 {
		c.Ranks = uint8(2 + rng.IntN(spec.MaxRanks-1))
	}
	if c.AttentionDP {
		c.MaxNumActiveRequests = uint8(rng.IntN(5))
	}
	c.StageTargetBlocks, c.StageDraftBlocks, c.StageHostBlocks = [spec.MaxRanks]uint32{}, [spec.MaxRanks]uint32{}, [spec.MaxRanks]uint32{}
	if c.Loop == spec.PipelineLoop && rng.IntN(2) == 0 {
		c.StageTargetBlocks[rng.IntN(int(c.Ranks))] = uint32(2 + rng.IntN(23))
	}
	receiving := false
	for _, r := range base.Requests {
		receiving = receiving || r.ReceivingKV
	}
	c.Requests = nil
	for range 1 + rng.IntN(6) {
		r := spec.RequestTemplate{
			PromptLen:    uint32(1 + rng.IntN(24)),
			MaxNewTokens: uint32(1 + rng.IntN(6)),
			Family:       spec.NoFamily,
			ReceivingKV:  receiving && rng.IntN(2) == 0,
		}
		if rng.IntN(2) == 0 {
			r.Family = uint8(rng.IntN(2))
			r.SharedPrefix = uint32(rng.IntN(int(r.PromptLen) + 1))
		}
		if c.Loop != spec.PipelineLoop {
			r.Rank = uint8(rng.IntN(int(c.Ranks)))
		}
		c.Requests = append(c.Requests, r)
	}
	return c
}
