package spec

// This file models the prefix-aware skip of KVCacheV2Scheduler's phase 2
// (scheduler_v2.py at 00746ef, PR #18195 "Admit one context per uncached
// prefix", with PR #18202's rule that a block is registered only once its
// request is scheduled): with enable_prefix_aware_scheduling, block reuse
// and the ALL_REUSABLE policy, a first chunk whose first new block is the
// block another request contributes in this iteration (an in-flight
// continuation, or a request scheduled earlier in the pass) is deferred,
// so that the shared prefix is prefilled once and then reused.

// contributedBlocks is _collect_contributed_blocks' set of first-new-block
// keys, per prompt family a bit set of block indices; active says the
// skip can fire this pass.
type contributedBlocks struct {
	active bool
	blocks [MaxFamilies]uint64
}

// prefixSkipEnabled is _prefix_skip_enabled: the knob, block reuse on the
// target manager and the ALL_REUSABLE policy.
func (c *Config) prefixSkipEnabled() bool {
	return c.PrefixAwareScheduling.On() && c.BlockReuse && c.ReusePolicy == AllReusable
}

// firstNewBlock is probe_first_new_block_key for request id: the first
// block of its prompt the target's reuse tree does not hold. Within its
// family's shared prefix the key is (family, that block), the same for
// every request of the family; past it the block is the request's own and
// matches nothing (ok false). Partial blocks and the draft lookahead of the
// real lookup are not modeled (INFER: keys of full shared blocks only).
func (v rankView) firstNewBlock(id uint8) (family uint8, block int, ok bool) {
	c := v.core(Target)
	f := c.family(id)
	if f == NoFamily {
		return 0, 0, false
	}
	next := int(v.pool(Target).Tree[f])
	if next >= int(v.cfg.template(id).SharedPrefix/v.cfg.TokensPerBlock) || next >= 64 {
		return 0, 0, false
	}
	return f, next, true
}

// collectContributedBlocks is _collect_contributed_blocks: nothing (the
// skip cannot fire) unless the skip is enabled and pending_ctx holds a
// first chunk, and there is an in-flight continuation, a second first
// chunk, or a continuation among the pending; the set starts with the
// in-flight continuations' keys.
func (v rankView) collectContributedBlocks(p *schedulerPass, pending []uint8) contributedBlocks {
	var set contributedBlocks
	if !v.cfg.prefixSkipEnabled() {
		return set
	}
	firsts, continuations := 0, 0
	for _, id := range pending {
		if v.request(id).State != ContextInit {
			continue
		}
		if v.isFirstContextChunk(id) {
			firsts++
		} else {
			continuations++
		}
	}
	inflight := 0
	for i := 0; i < p.count; i++ {
		id := p.order[i]
		r := v.request(id)
		if r.State == ContextInit && !v.isFirstContextChunk(id) && r.Flags&requestFlagInflight != 0 {
			inflight++
			set.add(v.firstNewBlock(id))
		}
	}
	if firsts == 0 || (inflight == 0 && firsts < 2 && continuations == 0) {
		return contributedBlocks{}
	}
	set.active = true
	return set
}

func (s *contributedBlocks) add(family uint8, block int, ok bool) {
	if ok {
		s.blocks[family] |= 1 << block
	}
}

func (s *contributedBlocks) has(family uint8, block int, ok bool) bool {
	return ok && s.blocks[family]&(1<<block) != 0
}
