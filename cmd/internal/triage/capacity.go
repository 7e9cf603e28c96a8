package triage

import (
	"fmt"

	"github.com/kvcheck/kvcheck/spec"
)

// capacityEdge reports whether one request needs a whole pool at its
// longest, less the pages an attention-DP pad dummy holds on the target
// (spec.Config.RequestBlocks, DummyBlocks): a configuration the scaled-down
// model allows (Validate asks only that the pool hold the longest request)
// but a real deployment, with thousands of pages, hardly runs at. The note
// names the first such request and pool.
func capacityEdge(c *spec.Config) (bool, string) {
	for r := uint8(0); r < c.Ranks; r++ {
		for _, p := range []spec.PoolKind{spec.Target, spec.Draft} {
			if !c.HasPool(r, p) {
				continue
			}
			pool := int(c.PoolBlocks(r, p))
			dummy := 0
			if p == spec.Target {
				dummy = c.DummyBlocks()
			}
			for i, req := range c.Requests {
				if c.Loop != spec.PipelineLoop && req.Rank != r {
					continue
				}
				need := c.RequestBlocks(uint8(i + 1))
				switch {
				case need >= pool:
					return true, fmt.Sprintf("request %d needs all %d pages of rank %d's %s pool at its longest", i+1, pool, r, p)
				case dummy > 0 && need+dummy >= pool:
					return true, fmt.Sprintf("request %d needs %d of rank %d's %d %s pages at its longest, the pad dummy holds %s: the whole pool",
						i+1, need, r, pool, p, plural(dummy, "page"))
				}
			}
		}
	}
	return false, ""
}
