package spec

import (
	"reflect"
	"strings"
	"testing"
)

// TestFieldKeys: every key the wording tables and the transcripts'
// summary rules use names a field of a state type, so a renamed field
// fails here instead of silently losing its words or its rule.
func TestFieldKeys(t *testing.T) {
	types := map[string]reflect.Type{}
	for _, v := range []any{State{}, Rank{}, Pool{}, Cache{}, Request{}, Batch{}, Crash{}, PipelineIteration{}} {
		types[typeName(reflect.TypeOf(v))] = reflect.TypeOf(v)
	}
	keys := []FieldKey{KeyArrived, KeyPipelineLen, KeyCrash, KeyPipelineBatch, KeyPhase, KeyBatch, KeyPrevious, KeyPipelinePos,
		KeyRequestIncarn, KeyPosition, KeyDraftPosition, KeyPreResizeCapacity, KeyRequestFlags, KeyCacheIncarn, KeyPoolTree}
	for k := range fieldWords {
		keys = append(keys, k)
	}
	for k := range fieldValues {
		keys = append(keys, k)
	}
	for k := range indexWords {
		keys = append(keys, k)
	}
	for _, k := range keys {
		typeName, field, _ := strings.Cut(string(k), ".")
		if typ, ok := types[typeName]; !ok {
			t.Errorf("%s: no state type %s", k, typeName)
		} else if _, ok := typ.FieldByName(field); !ok {
			t.Errorf("%s: %s has no field %s; rename the key in spec/describe.go\nreproduce: go test ./spec -run TestFieldKeys", k, typeName, field)
		}
	}
	for name := range entityArrays {
		found := false
		for _, typ := range types {
			_, ok := typ.FieldByName(name)
			found = found || ok
		}
		if !found {
			t.Errorf("entity array %s: no state type has that field", name)
		}
	}
	// The flag words follow their bits: TestFlagNamesFollowTheirBits.
}

// TestDumpWordsEveryEntity: Dump names each entity as the transcripts'
// summaries do and words its fields, encoded ones decoded.
func TestDumpWordsEveryEntity(t *testing.T) {
	sc, err := lookupTestScenario("draft-admission")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sc.Spec(0)
	if err != nil {
		t.Fatal(err)
	}
	s := sp.Initial()
	s.Arrived = 1
	s.Ranks[0].Requests[1] = Request{State: ContextInit, Incarnation: 1, Prompt: 12, PreResizeCapacity: 1}
	s.Ranks[0].Pools[Draft].Caches[1] = Cache{Status: Active, Incarnation: 1, Capacity: 8, Flags: flagStopCommitting, AllocatedDraft: 2}
	s.Ranks[0].Pools[Draft].Free = 6
	want := "arrived 1\n" +
		"rank 0: idle\n" +
		"rank 0 target pool: free pages 8\n" +
		"rank 0 draft pool: free pages 6\n" +
		"rank 0 draft cache 1: active, incarnation 1, capacity 8, flags stop-committing, _allocated_draft_lens 1\n" +
		"rank 0 req 1: context, incarnation 1, prompt 12, py_ctx_pre_resize_cap 0\n"
	if got := sp.Dump(&s); got != want {
		t.Errorf("Dump:\n%s\nwant:\n%s", got, want)
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string]string{"CanQueueThisRank": "can queue this rank", "NumTokens": "num tokens", "ID": "id", "PipelinePos": "pipeline pos"} {
		if got := splitWords(in); got != want {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFieldsWordFieldsTheTablesDoNotKnow: a field no table names is worded
// from its Go name and value, so a field the spec gains shows up in Dump
// and in the transcripts without a change to the wording.
func TestFieldsWordFieldsTheTablesDoNotKnow(t *testing.T) {
	type Gained struct {
		HostPages   uint8
		Evicting    bool
		Status      CacheStatus
		PerFamily   [2]uint8
		Unset       uint8
		NestedEntry BatchEntry
	}
	v := Gained{HostPages: 3, Evicting: true, Status: Suspended, PerFamily: [2]uint8{0, 4}, NestedEntry: BatchEntry{ID: 2, Chunk: 4}}
	got := listFields(fields(reflect.ValueOf(v)))
	want := "host pages 3, evicting yes, suspended, per family 1 4, nested entry (id 2, chunk 4)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestWordFieldAndActionKindNamed: the helpers the explain page uses word a
// raw value as Describe does (a stored plus-one as its number, "none" for
// zero; a plain count as itself) and find every action kind by its
// transcript name, and no other.
func TestWordFieldAndActionKindNamed(t *testing.T) {
	for _, tt := range []struct {
		key  FieldKey
		raw  uint64
		want string
	}{
		{KeyPreResizeCapacity, 0, "none"},
		{KeyPreResizeCapacity, 5, "4"},
		{KeyArrived, 5, "5"},
	} {
		if got := WordField(tt.key, tt.raw); got != tt.want {
			t.Errorf("WordField(%s, %d) = %q, want %q", tt.key, tt.raw, got, tt.want)
		}
	}
	for k := ActArrive; k < numActionKinds; k++ {
		if got, ok := ActionKindNamed(k.String()); !ok || got != k {
			t.Errorf("ActionKindNamed(%q) = %v, %v; want %v", k.String(), got, ok, k)
		}
	}
	for _, name := range []string{"launch", numActionKinds.String()} {
		if got, ok := ActionKindNamed(name); ok {
			t.Errorf("ActionKindNamed(%s) = %v, want none", name, got)
		}
	}
}

// TestBatchDescribe: Dump's rendering of a ScheduledRequests batch names
// each context chunk (and the last one), each generation entry, the ADP
// dummy by its incarnation, accepted draft tokens and an early finish.
func TestBatchDescribe(t *testing.T) {
	b := Batch{Count: 4}
	b.Entries[0] = BatchEntry{Kind: ContextChunk, ID: 1, Chunk: 8}
	b.Entries[1] = BatchEntry{Kind: ContextChunk, ID: 3, Chunk: 4, Last: true}
	b.Entries[2] = BatchEntry{Kind: GenerationStep, ID: 2, Accepted: 1, EOS: true}
	b.Entries[3] = BatchEntry{Kind: GenerationStep, ID: dummyID, Incarnation: 2}
	if got, want := b.describe(), "ctx 1 chunk 8, ctx 3 chunk 4 last, gen 2 accepted 1 eos, gen dummy#2"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
}
