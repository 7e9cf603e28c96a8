package triage

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// found checks a configuration (text applied to the zero configuration)
// under fixes and returns its first violation as a finding of scenario
// sc: the planted findings below are configurations, their traces what
// the checker finds today.
func found(t *testing.T, name, text string, fixes ...string) Finding {
	t.Helper()
	sc, err := scenario.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := configtext.Parse(spec.Config{}, text)
	if err != nil {
		t.Fatal(err)
	}
	set, err := spec.ParseFixes(fixes)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := spec.New(cfg, set)
	if err != nil {
		t.Fatal(err)
	}
	sp.Scenario = sc.Info()
	res := model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: sc.Depth, MaxStates: 100_000, Workers: 1, Liveness: true})
	if len(res.Violations) == 0 {
		t.Fatalf("the planted configuration breaks nothing (%d states):\n%s", res.States, text)
	}
	v := res.Violations[0]
	return Finding{Scenario: sc, Config: cfg, Fixes: set, Invariant: v.Invariant, Message: v.Message, Group: v.Group, Trace: v.Trace, Cycle: v.Cycle}
}

// rowOf returns the scale row of knob and change.
func rowOf(t *testing.T, rep *Report, knob, change string) Row {
	t.Helper()
	for _, r := range rep.Scale {
		if r.Knob == knob && strings.HasPrefix(r.Change, change) {
			return r
		}
	}
	t.Fatalf("no scale row %s %s in %+v", knob, change, rep.Scale)
	return Row{}
}

// pageRow is one request of 4 tokens and max_draft_len 2 whose last
// generation step needs a capacity of its prompt and new tokens plus a
// fixed number of step tokens (the token generated and the extra KV
// tokens), against a page-index row of ceil(max_seq_len / tokens_per_block)
// pages (page-index-row-bounded).
const pageRow = "tokens_per_block=4 max_draft_len=2 max_batch_size=1 max_num_tokens=8 target_blocks=4 target_index_slots=2 max_util_for_resume=100 ranks=1 "

// TestFragileByConstruction: max_seq_len 6 with 4-token pages leaves a row
// of 2 pages 2 tokens of slack, and the last step's capacity is 3 step
// tokens over max_seq_len (num_extra_kv_tokens 2 and the token generated):
// the row overflows. The slack scales with the page (4 tokens at
// tokens_per_block 8), the step tokens do not: from tokens_per_block 6 on
// the row holds it. Triage must call it fragile, gone at ×2, needing
// tokens_per_block < 6.
func TestFragileByConstruction(t *testing.T) {
	f := found(t, "adp-veto-growth", pageRow+"num_extra_kv_tokens=2 max_seq_len=6\nrequest prompt=4 new=2")
	if f.Invariant != "page-index-row-bounded" {
		t.Fatalf("the planted configuration breaks %s (%s), not page-index-row-bounded", f.Invariant, f.Message)
	}
	rep, err := Triage(f, Options{MaxStates: 50_000, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Label != Fragile {
		t.Errorf("label %s, want fragile; scale %s", rep.Label, rowsWords(rep.Scale))
	}
	if r := rowOf(t, rep, "tokens_per_block", "4 "); r.Verdict != Same {
		t.Errorf("at the finding's page size: %s", r.Verdict)
	}
	for _, change := range []string{"×2", "×4", "×8"} {
		if r := rowOf(t, rep, "tokens_per_block", change); r.Verdict != Gone {
			t.Errorf("tokens_per_block %s: %s, want gone", change, r.Verdict)
		}
	}
	if !strings.HasPrefix(rep.Condition, "needs tokens_per_block < 6") {
		t.Errorf("condition %q, want it to start with %q", rep.Condition, "needs tokens_per_block < 6")
	}
	if !strings.HasPrefix(rep.Story, "fragile: page-index-row-bounded") || !strings.Contains(rep.Story, rep.Condition) {
		t.Errorf("story %q", rep.Story)
	}
	// Neither the version nor the batch size touches the row.
	if !contains(rep.IndifferentTo, "version") || !contains(rep.IndifferentTo, "max_batch_size") {
		t.Errorf("indifferent to %q, want the version and max_batch_size in it", rep.IndifferentTo)
	}
}

// TestRobustByConstruction: max_seq_len 8, a whole number of pages, is the
// prompt and new tokens exactly; the last step's capacity is a step token
// more, a page more than the row at any page size. Robust.
func TestRobustByConstruction(t *testing.T) {
	f := found(t, "adp-veto-growth", pageRow+"max_seq_len=8\nrequest prompt=4 new=4")
	rep, err := Triage(f, Options{MaxStates: 50_000, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Label != Robust || rep.Condition != "" {
		t.Errorf("label %s (%q), want robust; scale %s", rep.Label, rep.Condition, rowsWords(rep.Scale))
	}
	if len(rep.Scale) != 1+len(Scales)+len(Growths) {
		t.Errorf("%d scale rows, want %d: %s", len(rep.Scale), 1+len(Scales)+len(Growths), rowsWords(rep.Scale))
	}
	for _, r := range rep.Scale {
		if r.Verdict != Same || r.Steps == 0 {
			t.Errorf("%s %s: %s in %d steps", r.Knob, r.Change, r.Verdict, r.Steps)
		}
	}
	// A larger page makes the trace longer (more generation steps), never
	// shorter.
	if a, b := rowOf(t, rep, "tokens_per_block", "4 ").Steps, rowOf(t, rep, "tokens_per_block", "×8").Steps; b < a {
		t.Errorf("%d steps at ×8, %d at the finding's page", b, a)
	}
	if !contains(rep.IndifferentTo, "max_batch_size") || !contains(rep.IndifferentTo, "target_blocks") {
		t.Errorf("indifferent to %v: one request depends neither on max_batch_size nor on a larger pool", rep.IndifferentTo)
	}
	if !rep.CapacityEdge || !strings.Contains(rep.CapacityNote, "request 1 needs all 4 pages of rank 0's target pool") {
		t.Errorf("capacity edge %v %q: the request needs the whole 4-page pool at its longest", rep.CapacityEdge, rep.CapacityNote)
	}
}

// TestSeed000FromAnotherScenario: seed 003's attention-DP shape
// (adp-dummy-leak, two ranks, the overlap loop, free-unpaired-mirror) with
// two 2-page prompts and a draft pool of 4 pages, smaller than the
// target's 6: the unpaired mirrors, left out of admission, fill the draft
// pool and _prepare_draft_resources raises seed 000's "context resize
// failed". Attribution must name seed 000.
func TestSeed000FromAnotherScenario(t *testing.T) {
	text := `tokens_per_block=4 max_draft_len=1 kv_reserve_draft_tokens=1 max_batch_size=2 max_num_tokens=8 enable_chunked_prefill=true
chunk_unit_size=4 target_blocks=6 draft_blocks=4 target_index_slots=4 draft_index_slots=4 max_util_for_resume=100
enable_recompute_pause=false draft_pool=unpaired version=00746ef ranks=2 loop=overlap enable_attention_dp=true
max_num_active_requests=2 kv_cache_transceiver=true enable_adp_dummy_fixes=true
request prompt=8 new=2
request prompt=8 new=2`
	f := found(t, "adp-dummy-leak", text, "free-unpaired-mirror")
	rep, err := Triage(f, Options{MaxStates: 50_000, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Signature.Function != "_prepare_draft_resources" {
		t.Fatalf("the planted configuration raises %q, not in _prepare_draft_resources", rep.Signature.Group)
	}
	if !rep.Known || len(rep.SameAs) == 0 || !strings.HasPrefix(rep.SameAs[0], "same as seed 000 (draft-admission): the same raise") {
		t.Errorf("attribution %q, want same as seed 000 (draft-admission)", rep.SameAs)
	}
	if !contains(rep.SameAs, "also with --fix none: not the fix's failure") {
		t.Errorf("attribution %q: free-unpaired-mirror does not touch this raise", rep.SameAs)
	}
	if !contains(rep.Needs, "draft_pool=unpaired") || !contains(rep.ClosedBy, "joint-admission") {
		t.Errorf("needs %q, closed by %q: seed 000's mechanism needs the unpaired pool outside admission", rep.Needs, rep.ClosedBy)
	}
}

// TestAPlantedBugIsNew: a finding that matches no built-in scenario's
// violation is new.
func TestAPlantedBugIsNew(t *testing.T) {
	f := found(t, "adp-veto-growth", pageRow+"max_seq_len=8\nrequest prompt=4 new=4")
	rep, err := Triage(f, Options{MaxStates: 50_000, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Known || !strings.HasPrefix(rep.SameAs[0], "new") {
		t.Errorf("attribution %q (known %v), want new: no built-in scenario overflows a row without a veto", rep.SameAs, rep.Known)
	}
}

// TestSecondTriageComesFromTheCache: every re-check goes through the
// sweep's cache; a second triage of the same finding runs none and says
// the same.
func TestSecondTriageComesFromTheCache(t *testing.T) {
	cache, err := sweep.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := found(t, "adp-veto-growth", pageRow+"num_extra_kv_tokens=2 max_seq_len=6\nrequest prompt=4 new=2")
	opts := Options{MaxStates: 50_000, Workers: 2, Cache: cache}
	first, err := Triage(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Triage(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if second.Cached != second.Checks || second.States != 0 {
		t.Errorf("second triage: %s, want every re-check from the cache", second.Cost())
	}
	if first.Cached == first.Checks {
		t.Errorf("first triage: %s, want re-checks run", first.Cost())
	}
	if strings.Join(first.Lines(), "\n") != strings.Join(second.Lines(), "\n") {
		t.Errorf("the cached triage differs:\n%s\n--\n%s", strings.Join(first.Lines(), "\n"), strings.Join(second.Lines(), "\n"))
	}
}

// TestScaleTokens: scaling keeps every ratio to the page: token keys
// scale, step tokens and pages do not, a partial page stays partial.
func TestScaleTokens(t *testing.T) {
	cfg, err := configtext.Parse(spec.Config{}, "tokens_per_block=4 max_draft_len=1 num_extra_kv_tokens=1 kv_reserve_draft_tokens=1 max_num_tokens=8 enable_chunked_prefill=true chunk_unit_size=4 target_blocks=9 draft_blocks=8 max_seq_len=14 max_batch_size=2 target_index_slots=2 draft_index_slots=2 draft_pool=unpaired ranks=1 loop=overlap\nrequest prompt=6 new=3 family=0 shared=4\nrequest prompt=4 new=1 sending_kv=true")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		t                                      uint32
		prompt, newTokens, shared, budget, seq uint32
		chunk, otherPrompt, otherNew           uint32
	}{
		{8, 12, 6, 8, 16, 28, 8, 8, 1},
		{6, 9, 5, 6, 12, 21, 6, 6, 1}, // 6 = 1 page + 2 → 6 + 3; 3 → 4.5 rounds to 5; 14 = 3 pages + 2 → 18 + 3
		{32, 48, 24, 32, 64, 112, 32, 32, 1},
	} {
		got := scaleTokens(cfg, tc.t)
		r := got.Requests[0]
		if got.TokensPerBlock != tc.t || r.PromptLen != tc.prompt || r.MaxNewTokens != tc.newTokens || r.SharedPrefix != tc.shared ||
			got.MaxNumTokens != tc.budget || got.MaxSeqLen != tc.seq || got.ChunkUnitSize != tc.chunk {
			t.Errorf("tokens_per_block %d: %+v", tc.t, got)
		}
		if o := got.Requests[1]; o.PromptLen != tc.otherPrompt || o.MaxNewTokens != tc.otherNew {
			t.Errorf("tokens_per_block %d: the context-only request %+v, want prompt %d and its max_tokens %d", tc.t, o, tc.otherPrompt, tc.otherNew)
		}
		if got.MaxDraftLen != 1 || got.ExtraKVTokens != 1 || got.ReserveDraftTokens != 1 || got.TargetBlocks != 9 || got.DraftBlocks != 8 {
			t.Errorf("tokens_per_block %d: step tokens or pages changed: %+v", tc.t, got)
		}
		if cfg.Requests[0].PromptLen != 6 {
			t.Fatal("scaleTokens changed its argument's requests")
		}
	}
	grown := growPools(cfg, 3)
	if grown.TargetBlocks != 12 || grown.DraftBlocks != 11 || grown.HostBlocks != 0 || grown.MaxNumTokens != 8 {
		t.Errorf("pools +3: %+v", grown)
	}
}

// TestEveryCountIsUnitTagged: every integer setting of spec.Config and
// spec.RequestTemplate either says its unit (tokens that scale with the
// page, step tokens, pages) or is a count of something else, named here:
// a new token-valued setting without a unit tag would not scale and would
// make every scale re-check a different configuration than it says.
func TestEveryCountIsUnitTagged(t *testing.T) {
	counts := map[string]bool{
		"MaxBatchSize": true, "TargetIndexSlots": true, "DraftIndexSlots": true, "ResumeGatePercent": true, "Ranks": true,
		"StageADPRanks": true, "MaxNumActiveRequests": true, "CudaGraphPaddingDummies": true, "Family": true, "Rank": true, "DeadlockStallPasses": true,
	}
	for _, typ := range []reflect.Type{reflect.TypeOf(spec.Config{}), reflect.TypeOf(spec.RequestTemplate{})} {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			kind := f.Type.Kind()
			if kind == reflect.Array {
				kind = f.Type.Elem().Kind()
			}
			if kind != reflect.Uint8 && kind != reflect.Uint16 && kind != reflect.Uint32 {
				continue
			}
			switch reflect.New(f.Type).Elem().Interface().(type) {
			case fmt.Stringer, encoding.TextMarshaler: // an enumeration or a set
				continue
			}
			unit := f.Tag.Get("unit")
			switch {
			case unit == "" && !counts[f.Name]:
				t.Errorf("%s.%s has no unit tag: say whether it counts tokens, step-tokens or pages (spec/config.go), or add it to this test's counts", typ.Name(), f.Name)
			case unit != "" && unit != "tokens" && unit != "step-tokens" && unit != "pages":
				t.Errorf("%s.%s: unknown unit %q", typ.Name(), f.Name, unit)
			}
		}
	}
}

// TestDependencies: how knob rows become needs, indifferences and
// undetermined knobs.
func TestDependencies(t *testing.T) {
	joint, _ := spec.ParseFix("joint-admission")
	revert, _ := spec.ParseFix("revert-on-veto")
	rows := []Row{
		{Knob: "fix joint-admission", Change: "with joint-admission", Verdict: Gone, fixRow: 1, fix: joint},
		{Knob: "fix revert-on-veto", Change: "with revert-on-veto", Verdict: Gone, fixRow: 1, fix: revert},
		{Knob: "version", from: "00746ef", to: "v1.3.0rc25", Verdict: Gone},
		{Knob: "draft_pool", from: "unpaired", to: "none", Verdict: Gone},
		{Knob: "draft_pool", from: "unpaired", to: "paired", Verdict: Same},
		{Knob: "target_blocks", from: "8", to: "7", Verdict: Same},
		{Knob: "target_blocks", from: "8", to: "9", Verdict: Gone},
		{Knob: "draft_blocks", from: "5", to: "4", Verdict: Gone},
		{Knob: "draft_blocks", from: "5", to: "6", Verdict: Gone},
		{Knob: "max_batch_size", from: "2", to: "1", Verdict: Same},
		{Knob: "max_batch_size", from: "2", to: "3", Verdict: Same},
		{Knob: "host_blocks", from: "1", to: "0", Verdict: NA, Note: "invalid"},
		{Knob: "host_blocks", from: "1", to: "2", Verdict: Same},
		{Knob: "enable_block_reuse", from: "true", to: "false", Verdict: Cut},
	}
	needs, closedBy, indifferent, undetermined := dependencies(rows)
	if strings.Join(closedBy, ",") != "joint-admission" {
		t.Errorf("closed by %q, want joint-admission", closedBy)
	}
	want := []string{
		"pre_fix no-veto-revert (the bug before PR #13104; revert-on-veto closes it)",
		"version=00746ef (gone at v1.3.0rc25)",
		"draft_pool=unpaired (gone at none; there at paired)",
		"target_blocks ≤ 8 (gone at 9)",
		"draft_blocks = 5 exactly (gone at 4 and 6)",
	}
	if strings.Join(needs, "\n") != strings.Join(want, "\n") {
		t.Errorf("needs\n  %s\nwant\n  %s", strings.Join(needs, "\n  "), strings.Join(want, "\n  "))
	}
	if got := strings.Join(indifferent, "; "); got != "max_batch_size ±1; host_blocks 2" {
		t.Errorf("indifferent to %q", got)
	}
	if got := strings.Join(undetermined, "; "); got != "enable_block_reuse=false (search cut)" {
		t.Errorf("undetermined %q", got)
	}
}

// TestCapacityEdge: one request at its longest filling a pool, or a pool
// less the pad dummy's page under attention DP, is an edge; a page more
// is not.
func TestCapacityEdge(t *testing.T) {
	base := "tokens_per_block=4 max_draft_len=1 max_batch_size=2 max_num_tokens=8 target_index_slots=4 max_util_for_resume=100 "
	for _, tc := range []struct {
		text string
		edge bool
		note string
	}{
		{base + "target_blocks=3 ranks=1\nrequest prompt=6 new=1", true, "request 1 needs all 3 pages of rank 0's target pool"},
		{base + "target_blocks=4 ranks=1\nrequest prompt=6 new=1", false, ""},
		{base + "target_blocks=4 ranks=2 loop=overlap enable_attention_dp=true\nrequest prompt=6 new=1", true, "the pad dummy holds 1 page: the whole pool"},
		{base + "target_blocks=5 ranks=2 loop=overlap enable_attention_dp=true\nrequest prompt=6 new=1", false, ""},
	} {
		cfg, err := configtext.Parse(spec.Config{}, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		edge, note := capacityEdge(&cfg)
		if edge != tc.edge || !strings.Contains(note, tc.note) {
			t.Errorf("%s: edge %v %q, want %v %q", tc.text, edge, note, tc.edge, tc.note)
		}
	}
}

func contains(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
