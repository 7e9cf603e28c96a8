package spec

// rankView bundles what every operation on one rank needs: the
// configuration, the state being changed and the rank index.
type rankView struct {
	cfg   *Config
	fixes Fixes
	s     *State
	r     uint8
	rank  *Rank
	cov   *Coverage // nil: no coverage collected
}

// view returns the rank view of rank r with no fix applied (tests and
// invariants read through it).
func (s *State) view(cfg *Config, r uint8) rankView {
	return rankView{cfg: cfg, s: s, r: r, rank: &s.Ranks[r]}
}

// view returns the rank view of rank r of s under the spec's fixes.
func (sp *Spec) view(s *State, r uint8) rankView {
	return rankView{cfg: &sp.Config, fixes: sp.Fixes, s: s, r: r, rank: &s.Ranks[r], cov: sp.Cover}
}

// draftPool is the draft pool mode as this rank sees it: NoDraftPool on a
// pipeline stage that hosts no draft layer.
func (v rankView) draftPool() DraftPoolMode {
	if !v.cfg.hasPool(v.r, Draft) {
		return NoDraftPool
	}
	return v.cfg.DraftPool
}

// pool returns pool p of the rank.
func (v rankView) pool(p PoolKind) *Pool { return &v.rank.Pools[p] }

// cache returns the kv_cache_map entry of id in pool p (Status Absent if
// none).
func (v rankView) cache(p PoolKind, id uint8) *Cache { return &v.rank.Pools[p].Caches[id] }

// family returns the prompt family of request id; the ADP dummy has none.
func (v rankView) family(id uint8) uint8 { return v.core(Target).family(id) }

// droppableBlocks counts tree blocks of pool p no live cache references
// (poolCore.droppableBlocks).
func (v rankView) droppableBlocks(p PoolKind) int { return v.core(p).droppableBlocks() }

// utilizationAbove is the resume gate of pool p (poolCore.utilizationAbove).
func (v rankView) utilizationAbove(p PoolKind) bool { return v.core(p).utilizationAbove() }

// liveCaches counts kv_cache_map entries of pool p.
func (v rankView) liveCaches(p PoolKind) int { return v.core(p).liveCaches() }
