package spec

import (
	"fmt"
	"strings"
)

// This file exports the sequential model of one pool of one rank, for
// checking histories recorded from a running engine or encoded from
// TensorRT-LLM's unit tests for linearizability (package
// counterexamples/lin). It runs the spec's own core and manager steps
// (core.go, cache.go, manager_core.go) at real sizes, on a PoolModel whose
// counts are 32 bits wide, and adds no behaviour to the executable spec.

// PoolModel is the sequential model's state of one pool of one rank.
type PoolModel = PoolOf[uint32]

// CacheOpKind names one operation an engine performs on one request's KV
// cache in one pool: a _KVCache call, or a KVCacheManagerV2 step that
// calls them.
type CacheOpKind uint8

const (
	// CacheCreate is KVCacheManagerV2._create_kv_cache as prepare_context_cache
	// and _mirror_draft_kv_cache call it: a cache born SUSPENDED at the reused
	// prefix of the prompt without its last token, or None when every
	// IndexMapper slot is taken.
	CacheCreate CacheOpKind = iota + 1
	// CacheCoreCreate is the core's KVCacheManager.create_kv_cache(scope,
	// input_tokens): a lookup of exactly the tokens given (or none), no
	// IndexMapper slot.
	CacheCoreCreate
	// CacheResume is _KVCache.resume: False when the pool is above
	// max_util_for_resume or the pages it needs cannot be had.
	CacheResume
	// CacheSuspend is _KVCache.suspend.
	CacheSuspend
	// CacheResize is _KVCache.resize(capacity, history): False when pages
	// are short; raises on a decreasing history, a history above capacity or
	// a cache that is not ACTIVE.
	CacheResize
	// CacheCommit is _KVCache.commit up to a token count, optionally followed
	// by stop_committing.
	CacheCommit
	// CacheClose is _KVCache.close with the manager's slot release
	// (KVCacheManagerV2.free_resources).
	CacheClose
	// CacheProbeReuse is the core's probe_reuse(scope, input_tokens): the
	// reusable depth of a lookup, read-only.
	CacheProbeReuse
	// CacheUpdateResources is KVCacheManagerV2.update_resources on one
	// generation request: the resize it calls, or none for a cache that is
	// not ACTIVE (or, with skip-dummy-update, for the attention-DP dummy);
	// clamp-capacity raises a new capacity below the history to it.
	CacheUpdateResources
	// CacheTryAllocateGeneration is KVCacheManagerV2.try_allocate_generation.
	CacheTryAllocateGeneration
	// CacheRevertAllocateGeneration is
	// KVCacheManagerV2.revert_allocate_generation.
	CacheRevertAllocateGeneration
	// CachePrepareDraftResources is _prepare_draft_resources on one batch
	// entry of a draft pool; record-draft-lens records the generation
	// growth, defer-draft-mirror turns a refusal's raise into {"ok": false}.
	CachePrepareDraftResources
	// CacheAdmitMirror is KVCacheManagerV2.admit_mirror on a draft pool.
	CacheAdmitMirror
	// CacheAllocatedDraftLen reads _allocated_draft_lens.get(id).
	CacheAllocatedDraftLen
	numCacheOpKinds
)

var cacheOpNames = [numCacheOpKinds]string{
	CacheCreate:                   "create",
	CacheCoreCreate:               "create_kv_cache",
	CacheResume:                   "resume",
	CacheSuspend:                  "suspend",
	CacheResize:                   "resize",
	CacheCommit:                   "commit",
	CacheClose:                    "close",
	CacheProbeReuse:               "probe_reuse",
	CacheUpdateResources:          "update_resources",
	CacheTryAllocateGeneration:    "try_allocate_generation",
	CacheRevertAllocateGeneration: "revert_allocate_generation",
	CachePrepareDraftResources:    "prepare_draft_resources",
	CacheAdmitMirror:              "admit_mirror",
	CacheAllocatedDraftLen:        "allocated_draft_len",
}

func (k CacheOpKind) String() string {
	if k == 0 || k >= numCacheOpKinds {
		return fmt.Sprintf("cache-op(%d)", k)
	}
	return cacheOpNames[k]
}

// IsManagerStep reports whether k is a KVCacheManagerV2 step whose result
// includes the resize it called.
func (k CacheOpKind) IsManagerStep() bool {
	switch k {
	case CacheUpdateResources, CacheTryAllocateGeneration, CacheRevertAllocateGeneration, CachePrepareDraftResources:
		return true
	}
	return false
}

// ParseCacheOpKind returns the operation named name, or an error listing
// the valid names.
func ParseCacheOpKind(name string) (CacheOpKind, error) {
	for k := CacheCreate; k < numCacheOpKinds; k++ {
		if cacheOpNames[k] == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown operation %q; expected one of: %s", name, strings.Join(cacheOpNames[CacheCreate:], ", "))
}

// CacheKeep stands for None in resize(capacity=None, history=None) and in
// create_kv_cache(input_tokens=None).
const CacheKeep = keep

// CacheOp is one operation on the cache of request ID in one pool.
type CacheOp struct {
	Kind CacheOpKind
	ID   uint8
	// Reuse (create) says the creation looked the prompt up in the reuse
	// tree; without it the cache is created with tokens=None and
	// stop_committing, as an unpaired mirror is.
	Reuse bool
	// Prompt (create with Reuse) is the prompt length; the lookup is the
	// prompt without its last token.
	Prompt int
	// Tokens is the token count looked up (create_kv_cache, CacheKeep for
	// None; probe_reuse) or committed up to (commit).
	Tokens int
	// Capacity and History (resize) are the arguments, CacheKeep for None.
	Capacity, History int
	// Last (commit) says stop_committing follows.
	Last bool
	// Update (update_resources) is what the step reads of the request.
	Update GenerationUpdate
	// DraftLen (try_allocate_generation) is len(py_draft_tokens).
	DraftLen int
	// Draft (prepare_draft_resources) is the batch entry.
	Draft DraftEntry
}

// CacheResult is what a CacheOp returned.
type CacheResult struct {
	// OK is True for resume, resize, try_allocate_generation and
	// admit_mirror, "a cache, not None" for create, "an entry exists" for
	// allocated_draft_len; it is true for the steps that return nothing.
	OK bool
	// Reused is num_committed_tokens of a created cache: the reused prefix.
	Reused int
	// Value is what probe_reuse and allocated_draft_len return.
	Value int
	// Resize is the resize a manager step called.
	Resize ResizeCall
	// Raise is the text of the exception raised, "" when none.
	Raise string
}

// NeverResumed reports whether the cache was born SUSPENDED and has not been
// resumed since.
func (c *CacheOf[T]) NeverResumed() bool { return c.Flags&flagNeverResumed != 0 }

// InitialPool is pool p of rank r before any operation: every page free.
func (sp *Spec) InitialPool(r uint8, p PoolKind) PoolModel {
	return PoolModel{Free: uint32(sp.Config.poolBlocksOn(r, p))}
}

// ApplyPoolOp applies op to m, the sequential model of pool p of rank r,
// and returns what the real call returns. It reports false when the model
// has no such step at all: a create under an ID whose cache is still open,
// a rank or pool the configuration does not have, or a count outside
// 0..MaxRealTokens. The fixes of sp that change a step it models apply
// here (clamp-capacity, skip-dummy-update, record-draft-lens,
// defer-draft-mirror); those that change a size (draft-dummy-slots,
// equal-stage-pools) apply through sp's configuration.
func (sp *Spec) ApplyPoolOp(m *PoolModel, r uint8, p PoolKind, op CacheOp) (CacheResult, bool) {
	if r >= sp.Config.Ranks || op.ID >= MaxIDs || p >= numPools || !sp.Config.hasPool(r, p) || !op.inRange() {
		return CacheResult{}, false
	}
	c := poolCore[uint32]{cfg: &sp.Config, r: r, p: p, pool: m}
	// The model tracks no request incarnations.
	const incarnation = 0
	switch op.Kind {
	case CacheCreate, CacheCoreCreate:
		if c.cache(op.ID).Status != Absent {
			return CacheResult{}, false
		}
		if op.Kind == CacheCoreCreate {
			var reused uint32
			if op.Tokens != keep {
				reused = c.reuse(op.ID, uint32(op.Tokens), -1)
			}
			c.create(op.ID, incarnation, reused)
			return CacheResult{OK: true, Reused: int(reused)}, true
		}
		var reused uint32
		if op.Reuse && op.Prompt > 0 {
			reused = c.reuse(op.ID, uint32(op.Prompt-1), -1)
		}
		if !c.mirror(op.ID, incarnation, op.Reuse, reused) {
			return CacheResult{}, true
		}
		return CacheResult{OK: true, Reused: int(reused)}, true
	case CacheResume:
		return CacheResult{OK: c.resume(op.ID)}, true
	case CacheSuspend:
		c.suspend(op.ID)
	case CacheResize:
		ok, raise := c.resize(op.ID, op.Capacity, op.History)
		return CacheResult{OK: ok, Raise: formatError(raise, op.ID, 0)}, true
	case CacheCommit:
		c.commit(op.ID, uint32(op.Tokens), op.Last)
	case CacheClose:
		c.close(op.ID)
	case CacheProbeReuse:
		return CacheResult{OK: true, Value: int(c.reuse(op.ID, uint32(op.Tokens), -1))}, true
	case CacheUpdateResources:
		if op.ID == dummyID && sp.Fixes.Has(FixSkipDummyUpdate) {
			// FixSkipDummyUpdate: update_resources skips the attention-DP
			// dummy (ATTENTION_DP_DUMMY_REQUEST_ID) and calls no resize.
			return CacheResult{OK: true}, true
		}
		u := op.Update
		u.Clamp = sp.Fixes.Has(FixClampCapacity)
		call, raise := c.updateGeneration(op.ID, u)
		return CacheResult{OK: raise == ErrNone, Resize: call, Raise: formatError(raise, op.ID, 0)}, true
	case CacheTryAllocateGeneration:
		ok, call, raise := c.tryAllocateGeneration(op.ID, c.draftSlots(uint32(op.DraftLen)))
		return CacheResult{OK: ok, Resize: call, Raise: formatError(raise, op.ID, 0)}, true
	case CacheRevertAllocateGeneration:
		call, raise := c.revertAllocateGeneration(op.ID)
		return CacheResult{OK: raise == ErrNone, Resize: call, Raise: formatError(raise, op.ID, 0)}, true
	case CachePrepareDraftResources:
		e := op.Draft
		e.Record = sp.Fixes.Has(FixRecordDraftLens)
		made := c.mirror(op.ID, incarnation, false, 0)
		out := c.prepareDraftEntry(op.ID, made, e)
		if out.Refusal && sp.Fixes.Has(FixDeferDraftMirror) {
			// FixDeferDraftMirror (PR #19231): the refusal defers the
			// request instead of raising; the mirror stays as the refused
			// resume or resize left it, and the target's revert is an
			// operation on the target pool.
			return CacheResult{Resize: out.Resize}, true
		}
		return CacheResult{OK: out.Raise == ErrNone, Resize: out.Resize, Raise: formatError(out.Raise, op.ID, out.Value)}, true
	case CacheAdmitMirror:
		return CacheResult{OK: c.mirror(op.ID, incarnation, false, 0) && c.resume(op.ID)}, true
	case CacheAllocatedDraftLen:
		if n := c.cache(op.ID).AllocatedDraft; n > 0 {
			return CacheResult{OK: true, Value: int(n) - 1}, true
		}
		return CacheResult{}, true
	default:
		return CacheResult{}, false
	}
	return CacheResult{OK: true}, true
}

// inRange reports whether every count of op is within 0..MaxRealTokens (or
// None where None is allowed).
func (op *CacheOp) inRange() bool {
	for _, n := range []int{op.Prompt, op.DraftLen, op.Update.Runtime, op.Update.Accepted,
		op.Draft.Position, op.Draft.Chunk, op.Draft.DraftLen} {
		if n < 0 || n > MaxRealTokens {
			return false
		}
	}
	for _, n := range []int{op.Tokens, op.Capacity, op.History, op.Update.History} {
		if n < keep || n > MaxRealTokens {
			return false
		}
	}
	return op.Draft.Position+op.Draft.Chunk+op.Draft.DraftLen <= MaxRealTokens
}

// DescribePool renders pool m of rank r as Dump does: the page accounting
// line, then one line per open cache.
func (sp *Spec) DescribePool(m *PoolModel, r uint8, p PoolKind) string {
	c := poolCore[uint32]{cfg: &sp.Config, r: r, p: p, pool: m}
	var b strings.Builder
	b.WriteString(c.describe())
	for id := uint8(0); id < MaxIDs; id++ {
		if x := c.cache(id); x.Status != Absent {
			fmt.Fprintf(&b, "\n  %s", c.describeCache(id, x))
		}
	}
	return b.String()
}

// FingerprintPool hashes a pool model, field by field.
func FingerprintPool(m *PoolModel) uint64 {
	h := uint64(m.Free) ^ 0x9e3779b97f4a7c15
	for f := 0; f < MaxFamilies; f++ {
		h = mix(h^uint64(m.Tree[f])<<32^uint64(m.TreeTail[f]), 0xe7037ed1a0b428db)
	}
	for id := range m.Caches {
		x := &m.Caches[id]
		if x.Status == Absent {
			continue
		}
		h = mix(h^uint64(id)<<56^uint64(x.Status)<<48^uint64(x.Flags)<<40^uint64(x.Capacity), 0xa0761d6478bd642f)
		h = mix(h^uint64(x.History)<<32^uint64(x.Committed), 0xe7037ed1a0b428db)
		h = mix(h^uint64(x.Shared)<<32^uint64(x.Offloaded)^uint64(x.AllocatedDraft)<<48, 0xa0761d6478bd642f)
	}
	return h
}

// FromPool widens a pool of the explored state into a pool model.
func FromPool(p *Pool) PoolModel {
	m := PoolModel{Free: uint32(p.Free)}
	for f := range p.Tree {
		m.Tree[f], m.TreeTail[f] = uint32(p.Tree[f]), uint32(p.TreeTail[f])
	}
	for id := range p.Caches {
		x := &p.Caches[id]
		m.Caches[id] = CacheOf[uint32]{Status: x.Status, Incarnation: x.Incarnation, Capacity: uint32(x.Capacity),
			History: uint32(x.History), Committed: uint32(x.Committed), Shared: uint32(x.Shared),
			Offloaded: uint32(x.Offloaded), Flags: x.Flags, AllocatedDraft: uint32(x.AllocatedDraft)}
	}
	return m
}

// ApplyCacheOp applies op to pool p of rank r of the explored state s
// through the pool model (ApplyPoolOp); it reports false also when a count
// of the result does not fit the compact state.
func (sp *Spec) ApplyCacheOp(s *State, r uint8, p PoolKind, op CacheOp) (CacheResult, bool) {
	if r >= MaxRanks || p >= numPools {
		return CacheResult{}, false
	}
	m := FromPool(&s.Ranks[r].Pools[p])
	res, ok := sp.ApplyPoolOp(&m, r, p, op)
	if !ok {
		return res, false
	}
	narrow, fits := toPool(&m)
	if !fits {
		return CacheResult{}, false
	}
	if c := &narrow.Caches[op.ID]; c.Status != Absent && s.Ranks[r].Pools[p].Caches[op.ID].Status == Absent {
		c.Incarnation = s.Ranks[r].Requests[op.ID].Incarnation
	}
	s.Ranks[r].Pools[p] = narrow
	return res, true
}

// toPool narrows a pool model into the explored state's pool, reporting
// whether every count fits.
func toPool(m *PoolModel) (Pool, bool) {
	fits := true
	n := func(v uint32) uint8 {
		if v > MaxTokens {
			fits = false
		}
		return uint8(v)
	}
	p := Pool{Free: n(m.Free)}
	for f := range m.Tree {
		p.Tree[f], p.TreeTail[f] = n(m.Tree[f]), n(m.TreeTail[f])
	}
	for id := range m.Caches {
		x := &m.Caches[id]
		p.Caches[id] = Cache{Status: x.Status, Incarnation: x.Incarnation, Capacity: n(x.Capacity), History: n(x.History),
			Committed: n(x.Committed), Shared: n(x.Shared), Offloaded: n(x.Offloaded), Flags: x.Flags, AllocatedDraft: n(x.AllocatedDraft)}
	}
	return p, fits
}
