package spec

import (
	"strings"
	"testing"
)

// linSpec is a one-rank spec with room for caches past the explored
// state's token limit (MaxTokens) and block reuse: requests 1, 3 and 4
// share a 16-token prefix (family 0), request 2 is of family 3.
func linSpec(t *testing.T) *Spec {
	t.Helper()
	cfg, err := parseConfigText(Config{}, "tokens_per_block=8 target_blocks=40 target_index_slots=8 max_util_for_resume=100\n"+
		"max_batch_size=2 max_num_tokens=64 enable_block_reuse=true ranks=1\n"+
		"request prompt=24 new=2 family=0 shared=16\nrequest prompt=24 new=2 family=3 shared=16\n"+
		"request prompt=24 new=2 family=0 shared=16\nrequest prompt=24 new=2 family=0 shared=16\n")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func mustApply(t *testing.T, sp *Spec, s *State, op CacheOp) CacheResult {
	t.Helper()
	res, ok := sp.ApplyCacheOp(s, 0, Target, op)
	if !ok {
		t.Fatalf("%s on request %d: not applicable", op.Kind, op.ID)
	}
	return res
}

// TestApplyCacheOpOnTheExploredState: kvcheck lin's bridge to the explored
// state creates a cache under the request's incarnation, refuses ranks and
// pools past the state's arrays (instead of indexing out of them) and
// results that do not fit its 8-bit counts, leaving the state as it was.
func TestApplyCacheOpOnTheExploredState(t *testing.T) {
	sp := linSpec(t)
	s := sp.Initial()
	s.Ranks[0].Requests[1].Incarnation = 2
	mustApply(t, sp, &s, CacheOp{Kind: CacheCoreCreate, ID: 1, Tokens: CacheKeep})
	if c := s.Ranks[0].Pools[Target].Caches[1]; c.Status == Absent || c.Incarnation != 2 {
		t.Fatalf("created cache %+v, want the request's incarnation 2", c)
	}
	if !mustApply(t, sp, &s, CacheOp{Kind: CacheResume, ID: 1}).OK {
		t.Fatal("resume refused")
	}
	s.Ranks[0].Requests[1].Incarnation = 3 // an existing cache keeps its own
	if !mustApply(t, sp, &s, CacheOp{Kind: CacheResize, ID: 1, Capacity: MaxTokens, History: CacheKeep}).OK {
		t.Fatal("resize to MaxTokens refused")
	}
	if c := s.Ranks[0].Pools[Target].Caches[1]; c.Capacity != MaxTokens || c.Incarnation != 2 {
		t.Fatalf("after resize: %+v", c)
	}
	before := s
	if _, ok := sp.ApplyCacheOp(&s, 0, Target, CacheOp{Kind: CacheResize, ID: 1, Capacity: MaxTokens + 1, History: CacheKeep}); ok {
		t.Error("a capacity past MaxTokens was applied to the explored state")
	}
	if s != before {
		t.Error("a refused op changed the state")
	}
	for _, bad := range []struct {
		r uint8
		p PoolKind
	}{{MaxRanks, Target}, {0, numPools}, {1, Target}} {
		if _, ok := sp.ApplyCacheOp(&s, bad.r, bad.p, CacheOp{Kind: CacheResume, ID: 1}); ok {
			t.Errorf("rank %d pool %d: applied", bad.r, bad.p)
		}
	}
}

// TestCreateLooksUpThePromptButItsLastToken: create_kv_cache with reuse
// looks up the prompt without its last token, and an empty prompt looks
// up nothing (not every token of the tree).
func TestCreateLooksUpThePromptButItsLastToken(t *testing.T) {
	sp := linSpec(t)
	m := sp.InitialPool(0, Target)
	apply := func(op CacheOp) CacheResult {
		res, ok := sp.ApplyPoolOp(&m, 0, Target, op)
		if !ok {
			t.Fatalf("%s: not applicable", op.Kind)
		}
		return res
	}
	apply(CacheOp{Kind: CacheCoreCreate, ID: 1, Tokens: 0})
	apply(CacheOp{Kind: CacheResume, ID: 1})
	apply(CacheOp{Kind: CacheResize, ID: 1, Capacity: 24, History: 24})
	apply(CacheOp{Kind: CacheCommit, ID: 1, Tokens: 24, Last: true})
	if got := apply(CacheOp{Kind: CacheCreate, ID: 3, Reuse: true, Prompt: 16}).Reused; got != 8 {
		t.Errorf("a prompt of 16 reuses %d tokens, want 8 (the lookup is 15 tokens: one whole block)", got)
	}
	if got := apply(CacheOp{Kind: CacheCreate, ID: 4, Reuse: true, Prompt: 0}).Reused; got != 0 {
		t.Errorf("an empty prompt reuses %d tokens, want 0", got)
	}
}

// TestDescribeAndFingerprintPool: DescribePool lists every open cache (the
// last ID too) and no absent one; FingerprintPool tells apart pools that
// differ in any family's tree, in an open cache, or in which caches are
// open.
func TestDescribeAndFingerprintPool(t *testing.T) {
	sp := linSpec(t)
	m := sp.InitialPool(0, Target)
	for _, id := range []uint8{1, MaxIDs - 1} {
		if _, ok := sp.ApplyPoolOp(&m, 0, Target, CacheOp{Kind: CacheCoreCreate, ID: id, Tokens: CacheKeep}); !ok {
			t.Fatalf("create %d", id)
		}
	}
	text := sp.DescribePool(&m, 0, Target)
	if got := strings.Count(text, "\n  "); got != 2 {
		t.Errorf("DescribePool lists %d caches, want 2:\n%s", got, text)
	}
	base := FingerprintPool(&m)
	if FingerprintPool(&m) != base {
		t.Fatal("FingerprintPool is not deterministic")
	}
	for f := 0; f < MaxFamilies; f++ {
		changed := m
		changed.Tree[f]++
		if FingerprintPool(&changed) == base {
			t.Errorf("family %d's tree does not change the fingerprint", f)
		}
	}
	open := m
	open.Caches[2] = CacheOf[uint32]{Status: Suspended}
	if FingerprintPool(&open) == base {
		t.Error("opening a cache does not change the fingerprint")
	}
	stale := m
	stale.Caches[2] = CacheOf[uint32]{Status: Absent, Capacity: 8}
	if FingerprintPool(&stale) != base {
		t.Error("an absent cache's leftover fields change the fingerprint")
	}
}

// TestUpdateResourcesResultSaysWhetherItRaised: update_resources through
// the pool model returns OK when the resize holds and not OK, with the
// real error text, when the history passes the capacity.
func TestUpdateResourcesResultSaysWhetherItRaised(t *testing.T) {
	sp := linSpec(t)
	m := sp.InitialPool(0, Target)
	for _, op := range []CacheOp{
		{Kind: CacheCoreCreate, ID: 1, Tokens: CacheKeep},
		{Kind: CacheResume, ID: 1},
		{Kind: CacheResize, ID: 1, Capacity: 24, History: 20},
	} {
		if _, ok := sp.ApplyPoolOp(&m, 0, Target, op); !ok {
			t.Fatalf("%s: not applicable", op.Kind)
		}
	}
	fits, _ := sp.ApplyPoolOp(&m, 0, Target, CacheOp{Kind: CacheUpdateResources, ID: 1, Update: GenerationUpdate{History: 22}})
	if !fits.OK || fits.Raise != "" {
		t.Errorf("history 22 in capacity 24: %+v, want OK", fits)
	}
	over, _ := sp.ApplyPoolOp(&m, 0, Target, CacheOp{Kind: CacheUpdateResources, ID: 1, Update: GenerationUpdate{History: 30}})
	if over.OK || !strings.Contains(over.Raise, "History length cannot exceed capacity") {
		t.Errorf("history 30 in capacity 24: %+v, want the raise", over)
	}
}
