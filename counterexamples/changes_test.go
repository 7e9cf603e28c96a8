package counterexamples

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
)

// cacheSpec is a one-rank spec with an unpaired draft pool, for driving
// cache operations directly.
func cacheSpec(t *testing.T) *spec.Spec {
	t.Helper()
	sc, err := spec.LookupScenario("draft-admission")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sc.Spec(0)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func apply(t *testing.T, sp *spec.Spec, s *spec.State, p spec.PoolKind, op spec.CacheOp) {
	t.Helper()
	if _, ok := sp.ApplyCacheOp(s, 0, p, op); !ok {
		t.Fatalf("%v not applicable", op)
	}
}

func changeLines(before, after *spec.State) []string {
	var out []string
	for _, c := range Changes(before, after) {
		out = append(out, c.String())
	}
	return out
}

func TestChangesNameTheCacheAndPool(t *testing.T) {
	sp := cacheSpec(t)
	s0 := sp.Initial()
	s1 := s0
	apply(t, sp, &s1, spec.Draft, spec.CacheOp{Kind: spec.CacheCreate, ID: 3})
	apply(t, sp, &s1, spec.Draft, spec.CacheOp{Kind: spec.CacheResume, ID: 3})
	apply(t, sp, &s1, spec.Draft, spec.CacheOp{Kind: spec.CacheResize, ID: 3, Capacity: 12, History: spec.CacheKeep})
	want := []string{
		"rank 0 draft cache 3: created active, capacity 12, flags stop-committing",
		"rank 0 draft pool: free pages 8 → 5",
	}
	if got := changeLines(&s0, &s1); !reflect.DeepEqual(got, want) {
		t.Errorf("created:\n got %q\nwant %q", got, want)
	}
	s2 := s1
	apply(t, sp, &s2, spec.Draft, spec.CacheOp{Kind: spec.CacheResize, ID: 3, Capacity: 14, History: 9})
	want = []string{"rank 0 draft cache 3: capacity 12 → 14, history 0 → 9", "rank 0 draft pool: free pages 5 → 4"}
	if got := changeLines(&s1, &s2); !reflect.DeepEqual(got, want) {
		t.Errorf("resized:\n got %q\nwant %q", got, want)
	}
	s3 := s2
	apply(t, sp, &s3, spec.Draft, spec.CacheOp{Kind: spec.CacheClose, ID: 3})
	want = []string{"rank 0 draft cache 3: closed (was active, capacity 14, history 9, flags stop-committing)", "rank 0 draft pool: free pages 4 → 8"}
	if got := changeLines(&s2, &s3); !reflect.DeepEqual(got, want) {
		t.Errorf("closed:\n got %q\nwant %q", got, want)
	}
	if got := changeLines(&s3, &s3); len(got) != 0 {
		t.Errorf("no change gives %q", got)
	}
}

// TestChangesBatchWholeCrashLastPhaseImplied: a batch shows whole, the
// phase an action implies is left out, and a crash comes last.
func TestChangesBatchWholeCrashLastPhaseImplied(t *testing.T) {
	sp := cacheSpec(t)
	s0 := sp.Initial()
	s1 := s0
	s1.Ranks[0].Phase = spec.PhaseScheduled
	s1.Ranks[0].Batch.Count = 1
	s1.Ranks[0].Batch.Entries[0] = spec.BatchEntry{ID: 1, Kind: spec.ContextChunk, Chunk: 8}
	s1.Crash = spec.Crash{Happened: true, Pool: spec.Draft, ID: 1, Function: spec.FnPrepareDraftResources, Error: spec.ErrDraftResume}
	apply(t, sp, &s1, spec.Target, spec.CacheOp{Kind: spec.CacheCreate, ID: 1})
	got := changeLines(&s0, &s1)
	if len(got) != 3 {
		t.Fatalf("got %q", got)
	}
	if !strings.HasPrefix(got[0], "rank 0: batch [ctx 1 chunk 8") || strings.Contains(got[0], "phase") {
		t.Errorf("rank line %q", got[0])
	}
	if got[1] != "rank 0 target cache 1: created suspended, flags stop-committing+never-resumed" {
		t.Errorf("cache line %q", got[1])
	}
	if got[2] != "crashed: rank 0 draft pool request 1: _prepare_draft_resources raised RuntimeError: Failed to resume draft KV cache for request 1" {
		t.Errorf("crash line %q", got[2])
	}
}

// TestFieldWordingsExist keeps the wording tables in step with the spec's
// types: a renamed field fails here instead of silently losing its words.
func TestFieldWordingsExist(t *testing.T) {
	types := map[string]reflect.Type{}
	for _, v := range []any{spec.State{}, spec.Rank{}, spec.Pool{}, spec.Cache{}, spec.Request{}, spec.Batch{}, spec.BatchEntry{}, spec.Crash{}, spec.PipelineIteration{}} {
		types[reflect.TypeOf(v).Name()] = reflect.TypeOf(v)
	}
	keys := []string{}
	for k := range fieldWordings {
		keys = append(keys, k)
	}
	for k := range indexedFieldWordings {
		keys = append(keys, k)
	}
	for k := range impliedFields {
		keys = append(keys, k)
	}
	for _, k := range keys {
		typeName, field, _ := strings.Cut(k, ".")
		typ, ok := types[typeName]
		if !ok {
			t.Errorf("%s: no spec type %s", k, typeName)
			continue
		}
		if _, ok := typ.FieldByName(field); !ok {
			t.Errorf("%s: spec.%s has no field %s", k, typeName, field)
		}
	}
	for name := range entityWordings {
		if _, ok := types["Rank"].FieldByName(name); ok {
			continue
		}
		found := false
		for _, typ := range types {
			if _, ok := typ.FieldByName(name); ok {
				found = true
			}
		}
		if !found {
			t.Errorf("entity %s: no spec type has that field", name)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string]string{"CanQueueThisRank": "can queue this rank", "NumTokens": "num tokens", "ID": "id", "PipelinePos": "pipeline pos"} {
		if got := splitWords(in); got != want {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}
