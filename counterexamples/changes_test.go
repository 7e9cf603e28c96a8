package counterexamples

import (
	"reflect"
	"testing"

	"github.com/kvcheck/kvcheck/spec"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// cacheSpec is a one-rank spec with an unpaired draft pool, for driving
// cache operations directly.
func cacheSpec(t *testing.T) *spec.Spec {
	t.Helper()
	sc, err := scenario.Lookup("draft-admission")
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

func changeLines(sp *spec.Spec, before, after *spec.State) []string {
	var out []string
	for _, c := range Changes(sp, before, after) {
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
		"rank 0 draft pool: free pages 8 → 5",
		"rank 0 draft cache 3: created active, capacity 12, flags stop-committing",
	}
	if got := changeLines(sp, &s0, &s1); !reflect.DeepEqual(got, want) {
		t.Errorf("created:\n got %q\nwant %q", got, want)
	}
	s2 := s1
	apply(t, sp, &s2, spec.Draft, spec.CacheOp{Kind: spec.CacheResize, ID: 3, Capacity: 14, History: 9})
	want = []string{"rank 0 draft pool: free pages 5 → 4", "rank 0 draft cache 3: capacity 12 → 14, history 0 → 9"}
	if got := changeLines(sp, &s1, &s2); !reflect.DeepEqual(got, want) {
		t.Errorf("resized:\n got %q\nwant %q", got, want)
	}
	s3 := s2
	apply(t, sp, &s3, spec.Draft, spec.CacheOp{Kind: spec.CacheClose, ID: 3})
	want = []string{"rank 0 draft pool: free pages 4 → 8", "rank 0 draft cache 3: closed (was active, capacity 14, history 9, flags stop-committing)"}
	if got := changeLines(sp, &s2, &s3); !reflect.DeepEqual(got, want) {
		t.Errorf("closed:\n got %q\nwant %q", got, want)
	}
	if got := changeLines(sp, &s3, &s3); len(got) != 0 {
		t.Errorf("no change gives %q", got)
	}
}

// TestSummaryBatchWholeCrashLastPhaseImplied: a batch shows whole, the
// phase an action implies is left out, and a crash comes last.
func TestSummaryBatchWholeCrashLastPhaseImplied(t *testing.T) {
	sp := cacheSpec(t)
	s0 := sp.Initial()
	s1 := s0
	s1.Ranks[0].Phase = spec.PhaseScheduled
	s1.Ranks[0].Batch.Count = 1
	s1.Ranks[0].Batch.Entries[0] = spec.BatchEntry{ID: 1, Kind: spec.ContextChunk, Chunk: 8}
	s1.Crash = spec.Crash{Happened: true, Pool: spec.Draft, ID: 1, Function: spec.FnPrepareDraftResources, Error: spec.ErrDraftResume}
	apply(t, sp, &s1, spec.Target, spec.CacheOp{Kind: spec.CacheCreate, ID: 1})
	step := Step{Text: "schedule rank=0", Enabled: true, Before: s0, After: s1, Changes: Changes(sp, &s0, &s1)}
	var got []string
	for _, l := range summarize(sp, []Step{step}, 1) {
		got = append(got, l.String(1))
	}
	want := []string{
		"batch [ctx 1 chunk 8]",
		"req 1: target created suspended, flags stop-committing+never-resumed",
		"crashed: rank 0 draft pool request 1: _prepare_draft_resources raised RuntimeError: Failed to resume draft KV cache for request 1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary:\n got %q\nwant %q", got, want)
	}
}

// TestSummaryRulesApply: every field key a summary rule singles out still
// changes in some step of the repository's transcripts, so a renamed
// spec field fails here instead of silently switching its rule off.
func TestSummaryRulesApply(t *testing.T) {
	changed := map[spec.FieldKey]bool{}
	for _, path := range transcriptFiles(t) {
		res, err := ReplayFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Replayer.Steps {
			for _, c := range s.Changes {
				for _, f := range c.Fields {
					changed[f.Key] = true
				}
			}
		}
	}
	for _, key := range summaryKeys {
		if !changed[key] {
			t.Errorf("no step of the transcripts changes %s, which a summary rule singles out: rename the rule's key (spec/describe.go) or drop the rule\nreproduce: go test ./counterexamples -run TestSummaryRulesApply", key)
		}
	}
}
