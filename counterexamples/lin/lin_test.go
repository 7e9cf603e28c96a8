package lin

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// roundTrip writes records as a history file and parses it back, so every
// test goes through the documented format.
func roundTrip(t testing.TB, scenario string, records []Record) *History {
	t.Helper()
	return roundTripFixes(t, scenario, nil, records)
}

// roundTripFixes is roundTrip with the fixes the history ran under in its
// header (a fix may change the configuration, as a historical bug's fix
// turns its pre-fix switch off).
func roundTripFixes(t testing.TB, scenario string, fixes []string, records []Record) *History {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, &Header{Version: HeaderVersion, Scenario: scenario, Fixes: fixes}, records); err != nil {
		t.Fatal(err)
	}
	h, err := Parse("history.jsonl", &buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	return h
}

func check(t testing.TB, h *History) *Outcome {
	t.Helper()
	sp, err := SpecFor(h, "")
	if err != nil {
		t.Fatal(err)
	}
	return Check(sp, h.Records, time.Minute)
}

// specTraces returns, for every built-in scenario under the real code and
// each fix set, its shortest counterexample (if any) and a few random
// walks.
func specTraces(t testing.TB) map[string][][]spec.Action {
	out := map[string][][]spec.Action{}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sc := range scenario.All() {
		for _, fixes := range sc.Variants() {
			sp, err := sc.Spec(fixes)
			if err != nil {
				t.Fatal(err)
			}
			key := sc.Name + "/" + strings.Join(fixes.Names(), "+")
			res := model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: sc.Depth, Workers: 1})
			for _, v := range res.Violations {
				out[key] = append(out[key], v.Trace)
			}
			for range 5 {
				out[key] = append(out[key], Walk(sp, rng, 300))
			}
		}
	}
	return out
}

// TestSpecEmittedHistoriesAreLinearizable: the cache operations of every
// scenario's counterexample and of random walks, with operations in
// sequence or overlapping, and with several runs merged as engines, check
// as linearizable against the sequential model.
func TestSpecEmittedHistoriesAreLinearizable(t *testing.T) {
	for key, traces := range specTraces(t) {
		name, fixNames, _ := strings.Cut(key, "/")
		sc, _ := scenario.Lookup(name)
		var fixes spec.Fixes
		var fixList []string
		if fixNames != "" {
			fixList = strings.Split(fixNames, "+")
			fixes, _ = spec.ParseFixes(fixList)
		}
		sp, err := sc.Spec(fixes)
		if err != nil {
			t.Fatal(err)
		}
		var merged [][]Record
		for i, trace := range traces {
			for _, overlap := range []bool{false, true} {
				records, err := FromTrace(sp, trace, EmitOptions{Overlap: overlap})
				if err != nil {
					t.Fatalf("%s trace %d: %v", key, i, err)
				}
				if len(records) == 0 {
					t.Fatalf("%s trace %d: no operation", key, i)
				}
				if out := check(t, roundTripFixes(t, name, fixList, records)); out.Result != porcupine.Ok {
					t.Errorf("%s trace %d (overlap %v): %s", key, i, overlap, out.Describe("history.jsonl"))
				}
			}
			records, _ := FromTrace(sp, trace, EmitOptions{Engine: i, Overlap: true})
			merged = append(merged, records)
		}
		if out := check(t, roundTripFixes(t, name, fixList, Merge(merged...))); out.Result != porcupine.Ok || out.Partitions < len(traces) {
			t.Errorf("%s merged: %s (%d partitions)", key, out.Describe("history.jsonl"), out.Partitions)
		}
	}
}

// seedHistory is the draft-admission counterexample's operations, in
// sequence: the last is the draft resize _prepare_draft_resources saw
// return False.
func seedHistory(t testing.TB) []Record {
	t.Helper()
	sc, _ := scenario.Lookup("draft-admission")
	sp, _ := sc.Spec(0)
	res := model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: sc.Depth, Workers: 1})
	if len(res.Violations) == 0 {
		t.Fatal("draft-admission has no counterexample")
	}
	records, err := FromTrace(sp, res.Violations[0].Trace, EmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return records
}

func find(records []Record, pred func(r *Record) bool) int {
	for i := range records {
		if pred(&records[i]) {
			return i
		}
	}
	return -1
}

// TestCorruptedHistoriesAreNot: each corruption of the seed history makes
// it non-linearizable, and the report names the corrupted operation (its
// file line) and what the model does instead.
func TestCorruptedHistoriesAreNot(t *testing.T) {
	base := seedHistory(t)
	last := len(base) - 1
	if base[last].Op != "resize" || base[last].Pool != "draft" || *base[last].Result.OK {
		t.Fatalf("the seed history does not end in the refused draft resize: %s", describeRecord(&base[last]))
	}
	truth, falsity := true, false
	for _, tc := range []struct {
		name string
		// corrupt returns the corrupted history and the index of the
		// operation to blame.
		corrupt  func(rs []Record) ([]Record, int)
		modelSay string
	}{
		{"refused resize reported as done", func(rs []Record) ([]Record, int) {
			rs[last].Result.OK = &truth
			return rs, last
		}, "returns False"},
		{"successful resize reported as refused", func(rs []Record) ([]Record, int) {
			i := find(rs, func(r *Record) bool { return r.Op == "resize" && r.Pool == "target" && *r.Result.OK })
			rs[i].Result.OK = &falsity
			return rs, i
		}, "returns True"},
		{"create reports the wrong reused prefix", func(rs []Record) ([]Record, int) {
			i := find(rs, func(r *Record) bool { return r.Op == "create" && r.Result.Reused != nil && *r.Result.Reused > 0 })
			wrong := *rs[i].Result.Reused + 4
			rs[i].Result.Reused = &wrong
			return rs, i
		}, "tokens reused"},
		{"a resize reported to raise", func(rs []Record) ([]Record, int) {
			i := find(rs, func(r *Record) bool { return r.Op == "resize" && r.Pool == "draft" && *r.Result.OK })
			text := "ValueError: History length cannot exceed capacity"
			rs[i].Result = ResultRecord{Raise: &text}
			return rs, i
		}, "returns True"},
		{"a resize after its cache was closed", func(rs []Record) ([]Record, int) {
			i := find(rs, func(r *Record) bool { return r.Op == "resize" && r.Pool == "target" && r.Request == 1 && *r.Result.OK })
			closed := Record{Rank: 0, Pool: "target", Request: 1, Op: "close", Result: ResultRecord{OK: &truth},
				Call: rs[i].Call - 2, Return: rs[i].Call - 1}
			return append(rs[:i:i], append([]Record{closed}, rs[i:]...)...), i + 1
		}, "raises AssertionError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			records, blame := tc.corrupt(append([]Record(nil), base...))
			h := roundTrip(t, "draft-admission", records)
			out := check(t, h)
			if out.Result != porcupine.Illegal {
				t.Fatalf("result %s, want Illegal", out.Result)
			}
			report := out.Describe("history.jsonl")
			if out.First == nil || out.First.Line != h.Records[blame].Line {
				t.Errorf("blames %v, want line %d (%s):\n%s", out.First, h.Records[blame].Line, describeRecord(&h.Records[blame]), report)
			}
			if !strings.Contains(report, tc.modelSay) || !strings.Contains(report, fmt.Sprintf("history.jsonl:%d:", h.Records[blame].Line)) {
				t.Errorf("report lacks %q or the line:\n%s", tc.modelSay, report)
			}
		})
	}
}

// TestPartitionIsPerPoolNotPerRequest: two requests each granted the
// whole pool is fine request by request, but no order of the pool's
// operations explains it; the check must say so.
func TestPartitionIsPerPoolNotPerRequest(t *testing.T) {
	text := `{"kvcheck_history": 1, "scenario": "draft-admission"}
{"rank":0,"pool":"draft","request":1,"op":"create","args":{"reuse":false,"prompt":12},"result":{"ok":true,"reused":0},"call":1,"return":2}
{"rank":0,"pool":"draft","request":2,"op":"create","args":{"reuse":false,"prompt":12},"result":{"ok":true,"reused":0},"call":1,"return":2}
{"rank":0,"pool":"draft","request":1,"op":"resume","result":{"ok":true},"call":3,"return":4}
{"rank":0,"pool":"draft","request":2,"op":"resume","result":{"ok":true},"call":3,"return":4}
{"rank":0,"pool":"draft","request":1,"op":"resize","args":{"capacity":32,"history":null},"result":{"ok":true},"call":5,"return":8}
{"rank":0,"pool":"draft","request":2,"op":"resize","args":{"capacity":32,"history":null},"result":{"ok":true},"call":6,"return":7}
`
	h, err := Parse("two.jsonl", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	out := check(t, h)
	if out.Result != porcupine.Illegal {
		t.Fatalf("result %s: two 8-page grants from one 8-page pool were accepted", out.Result)
	}
	if out.First == nil || out.First.Op != "resize" || !strings.Contains(out.ModelSays, "returns False") {
		t.Errorf("report: %s", out.Describe("two.jsonl"))
	}
	for _, id := range []int{1, 2} {
		var alone []Record
		for _, r := range h.Records {
			if r.Request == id {
				alone = append(alone, r)
			}
		}
		if got := check(t, &History{File: "one.jsonl", Header: h.Header, Records: alone}); got.Result != porcupine.Ok {
			t.Errorf("request %d alone: %s", id, got.Describe("one.jsonl"))
		}
	}
}

// TestMalformedHistories: each malformed line is an *InputError at its
// line saying what was expected.
func TestMalformedHistories(t *testing.T) {
	good := `{"rank":0,"pool":"target","request":1,"op":"resume","result":{"ok":true},"call":1,"return":2}`
	for _, tc := range []struct{ name, line, want string }{
		{"not json", `rank=0`, "expected one JSON object per line"},
		{"missing call", `{"rank":0,"pool":"target","request":1,"op":"resume","result":{"ok":true},"return":2}`, `missing "call"`},
		{"missing result", `{"rank":0,"pool":"target","request":1,"op":"resume","call":1,"return":2}`, `missing "result"`},
		{"unknown field", strings.Replace(good, `"call"`, `"colour":1,"call"`, 1), `unknown field "colour"`},
		{"bad pool", strings.Replace(good, `"target"`, `"gpu"`, 1), `"target" or "draft"`},
		{"bad op", strings.Replace(good, `"resume"`, `"evict"`, 1), `unknown operation "evict"`},
		{"request out of range", strings.Replace(good, `"request":1`, `"request":42`, 1), "request 42"},
		{"negative rank", strings.Replace(good, `"rank":0`, `"rank":-1`, 1), "rank -1"},
		{"call after return", strings.Replace(good, `"call":1`, `"call":5`, 1), "call 5 after return 2"},
		{"string timestamp", strings.Replace(good, `"call":1`, `"call":"1"`, 1), "call:"},
		{"args on resume", strings.Replace(good, `"result"`, `"args":{"capacity":4},"result"`, 1), "resume takes no arguments"},
		{"resize without history", `{"rank":0,"pool":"target","request":1,"op":"resize","args":{"capacity":4},"result":{"ok":true},"call":1,"return":2}`, `resize needs "history"`},
		{"capacity too big", `{"rank":0,"pool":"target","request":1,"op":"resize","args":{"capacity":4294967296,"history":null},"result":{"ok":true},"call":1,"return":2}`, "token count 0..2147483648"},
		{"ok and raise", strings.Replace(good, `{"ok":true}`, `{"ok":true,"raise":"x"}`, 1), `"raise" comes alone`},
		{"empty result", strings.Replace(good, `{"ok":true}`, `{}`, 1), `expected {"ok": true|false}`},
		{"create without reused", `{"rank":0,"pool":"target","request":1,"op":"create","args":{"reuse":true,"prompt":12},"result":{"ok":true},"call":1,"return":2}`, `needs "reused"`},
		{"header later", `{"kvcheck_history": 1}`, "header line after the first line"},
		{"unknown result field", strings.Replace(good, `{"ok":true}`, `{"ok":true,"why":1}`, 1), "result:"},
		{"context entry without position", `{"rank":0,"pool":"draft","request":1,"op":"prepare_draft_resources","args":{"phase":"context","draft_len":1},"result":{"ok":true},"call":1,"return":2}`, `needs "position"`},
		{"generation entry with a chunk", `{"rank":0,"pool":"draft","request":1,"op":"prepare_draft_resources","args":{"phase":"generation","chunk":4,"draft_len":1},"result":{"ok":true},"call":1,"return":2}`, `takes "chunk"`},
		{"unknown request state", `{"rank":0,"pool":"target","request":1,"op":"update_resources","args":{"rewind":1,"accepted":0,"num_tokens":9,"state":"running"},"result":{"ok":true},"call":1,"return":2}`, `expected one of ["generation" "complete" "context"]`},
		{"no max_beam_num_tokens", `{"rank":0,"pool":"target","request":1,"op":"update_resources","args":{"rewind":1,"accepted":0,"num_tokens":0,"state":"generation"},"result":{"ok":true},"call":1,"return":2}`, "num_tokens is 0"},
		{"resize in a core result", strings.Replace(good, `{"ok":true}`, `{"ok":true,"resize":[4,null]}`, 1), `"resize" belongs only to the manager steps`},
		{"probe without its value", `{"rank":0,"pool":"target","request":1,"op":"probe_reuse","args":{"tokens":9},"result":{"ok":true},"call":1,"return":2}`, `needs "value"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("h.jsonl", strings.NewReader(good+"\n\n"+tc.line+"\n"))
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want an *InputError", err, err)
			}
			if ie.Line != 3 || !strings.Contains(ie.Msg, tc.want) {
				t.Errorf("got %q, want h.jsonl:3: ...%s...", err, tc.want)
			}
		})
	}
	h, err := Parse("h.jsonl", strings.NewReader(good+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SpecFor(h, ""); err == nil || !strings.Contains(err.Error(), "no configuration") {
		t.Errorf("a history without header or --scenario: %v", err)
	}
	h.Records[0].Rank = 3
	if _, err := SpecFor(h, "draft-admission"); err == nil || !strings.Contains(err.Error(), "h.jsonl:1: rank 3, but the configuration has 1 rank") {
		t.Errorf("a rank the configuration lacks: %v", err)
	}
}

// FuzzParseHistory: any input parses or is an *InputError at a line of
// it; a parsed history checks without panicking.
func FuzzParseHistory(f *testing.F) {
	var buf bytes.Buffer
	Write(&buf, &Header{Version: HeaderVersion, Scenario: "draft-admission"}, seedHistory(f))
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Parse("fuzz.jsonl", bytes.NewReader(data))
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is a %T, want *InputError", err, err)
			}
			if lines := bytes.Count(data, []byte("\n")) + 1; ie.Line < 1 || ie.Line > lines+1 {
				t.Fatalf("error at line %d of %d: %v", ie.Line, lines, err)
			}
			return
		}
		sp, err := SpecFor(h, "draft-admission")
		if err != nil {
			return
		}
		if len(h.Records) <= 200 {
			Check(sp, h.Records, time.Second).Describe("fuzz.jsonl")
		}
	})
}

// bigHistory is about n operations: random walks of the first scenarios'
// fixed variants, each as its own engine, overlapping in time, with each
// operation overlapping the next on its pool.
func bigHistory(b testing.TB, n int) (*spec.Spec, []byte) {
	rng := rand.New(rand.NewPCG(7, 8))
	var runs [][]Record
	total := 0
	for k := 0; total < n; k++ {
		sc := scenario.All()[k%3]
		fixes := spec.FixSetOf(sc.FixSets[0]...)
		sp, err := sc.Spec(fixes)
		if err != nil {
			b.Fatal(err)
		}
		records, err := FromTrace(sp, Walk(sp, rng, 300), EmitOptions{Engine: k, Overlap: true})
		if err != nil {
			b.Fatal(err)
		}
		total += len(records)
		runs = append(runs, records)
	}
	var buf bytes.Buffer
	Write(&buf, &Header{Version: HeaderVersion, Scenario: "draft-admission"}, Merge(runs...))
	sp, _ := scenario.All()[0].Spec(0)
	return sp, buf.Bytes()
}

// BenchmarkLin10kSpecWalks measures `kvcheck lin` on about 10,000
// spec-emitted operations (parse, partition, check): the target is under
// 10 s per operation of the benchmark.
func BenchmarkLin10kSpecWalks(b *testing.B) {
	_, data := bigHistory(b, 10_000)
	b.ResetTimer()
	for b.Loop() {
		h, err := Parse("big.jsonl", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		sp, err := SpecFor(h, "")
		if err != nil {
			b.Fatal(err)
		}
		if out := Check(sp, h.Records, 0); out.Result != porcupine.Ok {
			b.Fatal(out.Describe("big.jsonl"))
		}
		b.ReportMetric(float64(len(h.Records)), "ops")
	}
}

// BenchmarkLin10kOnePool measures 10,000 operations on two (rank, pool)
// pairs, up to four in flight at once on each: one long partition is the
// hard case for the search.
func BenchmarkLin10kOnePool(b *testing.B) {
	sc, _ := scenario.Lookup("draft-admission")
	sp, _ := sc.Spec(0)
	rng := rand.New(rand.NewPCG(3, 4))
	records := Merge(CacheWalk(sp, rng, spec.Target, 5_000), CacheWalk(sp, rng, spec.Draft, 5_000))
	Overlap(records, 3)
	var buf bytes.Buffer
	Write(&buf, &Header{Version: HeaderVersion, Scenario: "draft-admission"}, records)
	data := buf.Bytes()
	b.ResetTimer()
	for b.Loop() {
		h, err := Parse("pool.jsonl", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if out := Check(sp, h.Records, 0); out.Result != porcupine.Ok {
			b.Fatal(out.Describe("pool.jsonl"))
		}
		b.ReportMetric(float64(len(h.Records)), "ops")
	}
}
