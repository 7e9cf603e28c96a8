package spec

import (
	"fmt"

	"github.com/kvcheck/kvcheck/model"
)

// InvPageIndexRow is the bound of the host page-index buffer: each request
// has a row of max_blocks_per_seq page indices, so a cache whose capacity
// needs more pages overflows it. The _revert_gen_alloc docstring
// (py_executor.py at 2829508) names this as what unreverted generation
// growth across vetoed iterations leads to (TensorRT-LLM PR #13104).
const InvPageIndexRow = "page-index-row-bounded"

// checkPageIndexRow checks every live cache against maxBlocksPerSeq.
func (sp *Spec) checkPageIndexRow(s *State, rs rankRange) *model.Failure {
	row := sp.Config.maxBlocksPerSeq()
	return sp.eachCache(s, rs, func(v rankView, p PoolKind, id uint8, c *Cache) *model.Failure {
		if blocks := int(sp.Config.blocksFor(c.Capacity)); blocks > row {
			return &model.Failure{Message: fmt.Sprintf("rank %d %s pool request %d: capacity %d tokens needs %d pages, a page-index row holds %d",
				v.r, p, id, c.Capacity, blocks, row)}
		}
		return nil
	})
}
