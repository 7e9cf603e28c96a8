package spec

import (
	"fmt"
	"strings"
)

// This file exports the sequential model of one pool of one rank at the
// level of _KVCache operations, for checking histories recorded from a
// running engine for linearizability (package counterexamples/lin). It
// reuses the spec's own cache and pool mechanics (cache.go, pool.go) and
// adds no behaviour to the executable spec.

// CacheOpKind names one operation an engine performs on one request's KV
// cache in one pool.
type CacheOpKind uint8

const (
	// CacheCreate is KVCacheManagerV2._create_kv_cache as prepare_context_cache
	// and _mirror_draft_kv_cache call it: a cache born SUSPENDED at the reused
	// prefix, or None when every IndexMapper slot is taken.
	CacheCreate CacheOpKind = iota + 1
	// CacheResume is _KVCache.resume: False when the pool is above
	// max_util_for_resume or evicted pages cannot come back.
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
	numCacheOpKinds
)

var cacheOpNames = [numCacheOpKinds]string{
	CacheCreate:  "create",
	CacheResume:  "resume",
	CacheSuspend: "suspend",
	CacheResize:  "resize",
	CacheCommit:  "commit",
	CacheClose:   "close",
}

func (k CacheOpKind) String() string {
	if k == 0 || k >= numCacheOpKinds {
		return fmt.Sprintf("cache-op(%d)", k)
	}
	return cacheOpNames[k]
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

// CacheKeep stands for None in resize(capacity=None, history=None).
const CacheKeep = keep

// CacheOp is one operation on the cache of request ID in one pool.
type CacheOp struct {
	Kind CacheOpKind
	ID   uint8
	// Reuse (create) says the creation looked the prompt up in the reuse
	// tree; without it the cache is created with tokens=None and
	// stop_committing, as an unpaired mirror is.
	Reuse bool
	// Prompt (create with Reuse) is the prompt length of the lookup.
	Prompt uint8
	// Capacity and History (resize) are the arguments, CacheKeep for None.
	Capacity, History int
	// Tokens (commit) is the token count committed up to.
	Tokens uint8
	// Last (commit) says stop_committing follows.
	Last bool
}

// CacheResult is what a CacheOp returned.
type CacheResult struct {
	// OK is True for resume and resize, "a cache, not None" for create; it
	// is true for suspend, commit and close, which return nothing.
	OK bool
	// Reused is num_committed_tokens of a created cache: the reused prefix.
	Reused uint8
	// Raise is the text of the exception raised, "" when none.
	Raise string
}

// ApplyCacheOp applies op to pool p of rank r of s, the sequential model of
// one (rank, pool) of an engine, and returns what the real call returns.
// It reports false when the model has no such step at all: a create under
// an ID whose cache is still open, a rank the configuration does not have,
// or a token count beyond the state's MaxTokens.
func (sp *Spec) ApplyCacheOp(s *State, r uint8, p PoolKind, op CacheOp) (CacheResult, bool) {
	if r >= sp.Config.Ranks || op.ID >= MaxIDs || p >= numPools || op.Capacity > MaxTokens || op.History > MaxTokens ||
		op.Capacity < keep || op.History < keep || op.Tokens > MaxTokens {
		return CacheResult{}, false
	}
	v := s.view(&sp.Config, r)
	switch op.Kind {
	case CacheCreate:
		if v.cache(p, op.ID).Status != Absent {
			return CacheResult{}, false
		}
		var blocks uint8
		if op.Reuse && op.Prompt > 0 {
			v.request(op.ID).Prompt = op.Prompt
			blocks = v.reuseBlocks(p, op.ID, -1)
		}
		if !v.createCache(p, op.ID, blocks) {
			return CacheResult{}, true
		}
		if !op.Reuse {
			v.cache(p, op.ID).Flags |= flagStopCommitting
		}
		return CacheResult{OK: true, Reused: v.cache(p, op.ID).Committed}, true
	case CacheResume:
		return CacheResult{OK: v.resumeCache(p, op.ID)}, true
	case CacheSuspend:
		v.suspendCache(p, op.ID)
	case CacheResize:
		ok, raise := v.resizeCache(p, op.ID, op.Capacity, op.History)
		if raise != ErrNone {
			return CacheResult{Raise: formatError(raise, op.ID, 0)}, true
		}
		return CacheResult{OK: ok}, true
	case CacheCommit:
		v.commitCache(p, op.ID, op.Tokens, op.Last)
	case CacheClose:
		v.closeCache(p, op.ID)
	default:
		return CacheResult{}, false
	}
	return CacheResult{OK: true}, true
}

// DescribePool renders pool p of rank r as Dump does: the page accounting
// line, then one line per open cache.
func (sp *Spec) DescribePool(s *State, r uint8, p PoolKind) string {
	v := s.view(&sp.Config, r)
	var b strings.Builder
	b.WriteString(v.describePool(p))
	for id := uint8(0); id < MaxIDs; id++ {
		if c := v.cache(p, id); c.Status != Absent {
			fmt.Fprintf(&b, "\n  %s", v.describeCache(id, c))
		}
	}
	return b.String()
}
