package spec

import (
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// scenarioPins pins the exhaustive result of every built-in scenario and
// fix set: distinct states, transitions, completeness and the shortest
// counterexample. A silent change of the model shows here first; update a
// pin only for a change you meant and can explain.
var scenarioPins = []struct {
	scenario    string
	fixes       []Fix
	states      int
	transitions int
	complete    bool
	invariant   string
	steps       int
	message     string
}{
	{"draft-admission", nil, 97, 103, false, InvNoCrash, 17, "rank 0 draft pool request 3: _prepare_draft_resources raised RuntimeError: Draft KV cache context resize failed for request 3: could not resize to 12 tokens"},
	{"draft-admission", []Fix{FixJointAdmission}, 687, 888, true, "", 0, ""},
	{"draft-admission", []Fix{FixDeferDraftMirror}, 699, 900, true, "", 0, ""},
	{"draft-admission", []Fix{FixMirrorReuse}, 697, 912, true, "", 0, ""},
	{"draft-admission-resume", nil, 97, 103, false, InvNoCrash, 17, "rank 0 draft pool request 3: _prepare_draft_resources raised RuntimeError: Failed to resume draft KV cache for request 3"},
	{"draft-admission-resume", []Fix{FixJointAdmission}, 687, 888, true, "", 0, ""},
	{"draft-admission-resume", []Fix{FixDeferDraftMirror}, 699, 900, true, "", 0, ""},
	{"draft-admission-resume", []Fix{FixMirrorReuse}, 697, 912, true, "", 0, ""},
	{"draft-view-lag", nil, 131, 139, false, InvNoCrash, 18, "rank 0 draft pool request 2: update_resources raised ValueError: History length cannot exceed capacity"},
	{"draft-view-lag", []Fix{FixDeferDraftMirror}, 683, 884, true, "", 0, ""},
	{"draft-view-lag", []Fix{FixJointAdmission}, 131, 139, false, InvNoCrash, 18, "rank 0 draft pool request 2: update_resources raised ValueError: History length cannot exceed capacity"},
	{"adp-dummy-leak", nil, 197, 296, false, InvNoLeakedCache, 18, "rank 1 draft pool holds a cache under request ID 0 (incarnation 2, capacity 0) but no live request"},
	{"adp-dummy-leak", []Fix{FixFreeUnpairedMirror}, 6198, 10199, true, "", 0, ""},
	{"adp-dummy-leak", []Fix{FixSkipDummyUpdate}, 197, 296, false, InvNoLeakedCache, 18, "rank 1 draft pool holds a cache under request ID 0 (incarnation 2, capacity 0) but no live request"},
	{"pp-history-capacity", nil, 908, 1298, false, InvNoCrash, 42, "rank 1 target pool request 2: update_resources raised ValueError: History length cannot exceed capacity"},
	{"pp-history-capacity", []Fix{FixRecordDraftLens, FixClampCapacity}, 1213, 1779, true, "", 0, ""},
	{"pp-history-capacity", []Fix{FixClampCapacity}, 1213, 1779, true, "", 0, ""},
	{"pp-history-capacity", []Fix{FixEqualStagePools}, 961, 1422, true, "", 0, ""},
	{"pp-stage-divergence", nil, 583, 855, false, InvNoCrash, 27, "rank 1 target pool request 3: update_context_resources raised ValueError: History length cannot exceed capacity"},
	{"pp-stage-divergence", []Fix{FixRecordDraftLens, FixClampCapacity}, 583, 855, false, InvNoCrash, 27, "rank 1 target pool request 3: update_context_resources raised ValueError: History length cannot exceed capacity"},
	{"pp-stage-divergence", []Fix{FixEqualStagePools}, 5418, 8186, true, "", 0, ""},
	{"adp-veto-growth", nil, 513, 794, false, InvPageIndexRow, 32, "rank 1 target pool request 2: capacity 10 tokens needs 3 pages, a page-index row holds 2"},
	{"adp-veto-growth", []Fix{FixRevertOnVeto}, 1032, 1640, true, "", 0, ""},
	{"pp-adp-veto-growth", nil, 181, 259, false, InvRecordsCleared, 16, "rank 1 target pool request 3: _allocated_draft_lens holds 1 draft slots, but no batch awaiting update_resources holds the request"},
	{"pp-adp-veto-growth", []Fix{FixRevertOnVeto}, 5877, 8819, true, "", 0, ""},
	{"adp-dummy-none", nil, 198, 307, false, InvNoCrash, 24, "rank 0 target pool request 0: _pad_attention_dp_dummy_request raised TypeError: 'NoneType' object is not subscriptable (add_dummy_requests returned None for request 0)"},
	{"adp-dummy-none", []Fix{FixCheckDummyNone}, 1416, 2294, true, "", 0, ""},
	{"adp-draft-dummy-slot", nil, 278, 407, false, InvNoCrash, 27, "rank 0 draft pool request 0: _prepare_draft_resources raised RuntimeError: Draft KV cache mirror exhausted its IndexMapper on generation request 0"},
	{"adp-draft-dummy-slot", []Fix{FixDraftDummySlots}, 1497, 2557, true, "", 0, ""},
	{"eviction-ladder", nil, 705, 847, true, "", 0, ""},
	{"host-tier-eviction", nil, 485, 609, true, "", 0, ""},
	{"paired-draft-reuse", nil, 1913, 2348, true, "", 0, ""},
	{"overlap-two-ranks", nil, 61, 89, false, InvNoCrash, 10, "rank 0 draft pool request 2: _prepare_draft_resources raised RuntimeError: Draft KV cache generation resize failed for request 2: could not resize to 6 tokens"},
	{"overlap-two-ranks", []Fix{FixDeferDraftMirror}, 24864, 54316, true, "", 0, ""},
	{"adp-veto-generation", nil, 14852, 26409, true, "", 0, ""},
	{"unchunked-prefill", nil, 559, 789, true, "", 0, ""},
	{"preempt-for-pages", nil, 1077, 1237, true, "", 0, ""},
	{"disagg-gen-retry", nil, 1751, 2919, true, "", 0, ""},
	{"generation-token-budget", nil, 1230, 1827, true, "", 0, ""},
	{"host-recompute-fallback", nil, 43, 42, false, InvNoCrash, 9, "rank 0 draft pool request 3: _prepare_draft_resources raised RuntimeError: Draft KV cache generation resize failed for request 3: could not resize to 14 tokens"},
	{"host-recompute-fallback", []Fix{FixJointAdmission}, 28932, 53249, true, "", 0, ""},
	{"adp-empty-batch-veto", nil, 2924, 4710, true, model.LivelockInvariant, 39, "rank 0 schedules an empty batch though request 3 (context 0/8) waits (1 target pages free) and vetoes every forward; rank 0's sent KV of request 1 stays pinned (no forward runs, so no completion poll); rank 1's sent KV of request 2 stays pinned (no forward runs, so no completion poll); no request progresses and nothing raises"},
	{"adp-empty-batch-veto", []Fix{FixPadEmptyADPBatch}, 3555, 5758, true, "", 0, ""},
	{"adp-empty-batch-veto", []Fix{FixBlockingSendPoll}, 2346, 3835, true, "", 0, ""},
}

func fixSet(fixes []Fix) Fixes { return FixSetOf(fixes...) }

func TestScenarioPins(t *testing.T) {
	pinned := map[string]bool{}
	for _, pin := range scenarioPins {
		pinned[pin.scenario+"/"+strings.Join(fixSet(pin.fixes).Names(), "+")] = true
	}
	for _, sc := range Scenarios() {
		for _, fixes := range sc.Variants() {
			if key := sc.Name + "/" + strings.Join(fixes.Names(), "+"); !pinned[key] {
				t.Errorf("scenario %s under fixes [%s] has no pin in scenarioPins: every variant `kvcheck check` runs is pinned", sc.Name, strings.Join(fixes.Names(), "+"))
			}
		}
	}
	for _, pin := range scenarioPins {
		fixes := fixSet(pin.fixes)
		t.Run(pin.scenario+"/"+strings.Join(fixes.Names(), "+"), func(t *testing.T) {
			sc, err := LookupScenario(pin.scenario)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := sc.Spec(fixes)
			if err != nil {
				t.Fatal(err)
			}
			res := model.Check[State, Action](sp, model.Options{MaxDepth: sc.Depth, Workers: 1, Liveness: true})
			if res.States != pin.states || res.Transitions != pin.transitions || res.Complete != pin.complete {
				t.Errorf("states %d transitions %d complete %v; pinned %d %d %v",
					res.States, res.Transitions, res.Complete, pin.states, pin.transitions, pin.complete)
			}
			if pin.message == "" {
				if len(res.Violations) > 0 {
					t.Fatalf("unexpected violation %s: %s", res.Violations[0].Invariant, res.Violations[0].Message)
				}
				for _, g := range res.Goals {
					if !g.Reached {
						t.Errorf("goal %s not reached", g.Name)
					}
				}
				return
			}
			if len(res.Violations) == 0 {
				t.Fatalf("no violation; want %q", pin.message)
			}
			v := res.Violations[0]
			if v.Invariant != pin.invariant || v.Message != pin.message || len(v.Trace) != pin.steps {
				t.Fatalf("violation %s %q in %d steps; want %s %q in %d", v.Invariant, v.Message, len(v.Trace), pin.invariant, pin.message, pin.steps)
			}
			if v.Invariant == model.LivelockInvariant {
				checkLivelockReplays(t, sp, v)
				return
			}
			states, err := model.Replay[State, Action](sp, v.Trace)
			if err != nil {
				t.Fatalf("the counterexample does not replay: %v", err)
			}
			last := states[len(states)-1]
			failures := model.CheckState[State, Action](sp, &last)
			if len(failures) == 0 || failures[0].Invariant != pin.invariant || failures[0].Message != pin.message {
				t.Fatalf("replayed state fails %v, want %s: %q", failures, pin.invariant, pin.message)
			}
		})
	}
}

// TestEveryScenarioHasItsFixes: `kvcheck check` runs every scenario whose
// real code breaks an invariant with fixes (a coverage scenario the real
// code passes needs none), every declared fix is checked by some scenario,
// and a scenario that puts a historical bug back also checks the fix that
// removes it.
func TestEveryScenarioHasItsFixes(t *testing.T) {
	for _, sc := range Scenarios() {
		if real, _ := sc.Expected(0); len(sc.FixSets) == 0 && real != VerdictOK {
			t.Errorf("scenario %s breaks %s in the real code but has no fix set", sc.Name, real)
		}
		if err := sc.Config.Validate(); err != nil {
			t.Errorf("scenario %s: %v", sc.Name, err)
		}
	}
	checked := map[Fix]bool{}
	for _, sc := range Scenarios() {
		for _, set := range sc.FixSets {
			for _, f := range set {
				checked[f] = true
			}
		}
		for _, p := range AllPreFixes() {
			if !sc.Config.PreFixes.Has(p) {
				continue
			}
			reverted := false
			for _, fixes := range sc.Variants() {
				for _, f := range fixes.List() {
					reverted = reverted || f.Reverts().Has(p)
				}
			}
			if !reverted {
				t.Errorf("scenario %s sets pre-fix switch %s but checks no fix that reverts it", sc.Name, p)
			}
		}
	}
	for _, f := range AllFixes() {
		if !checked[f] {
			t.Errorf("fix %s is checked by no scenario's FixSets", f)
		}
	}
	if _, err := LookupScenario("no-such"); err == nil || !strings.Contains(err.Error(), "draft-admission") {
		t.Fatalf("unknown scenario error %v does not list the valid names", err)
	}
}

// TestActionLinesRoundTrip: every action enabled anywhere in a scenario's
// reachable space prints as a line that parses back to the same action, so
// transcripts stay valid inputs.
func TestActionLinesRoundTrip(t *testing.T) {
	sc, _ := LookupScenario("draft-admission")
	sp, _ := sc.Spec(fixSet([]Fix{FixJointAdmission}))
	seen := map[string]bool{}
	var frontier = []State{sp.Initial()}
	visited := map[uint64]bool{}
	for len(frontier) > 0 {
		s := frontier[0]
		frontier = frontier[1:]
		if visited[sp.Fingerprint(&s)] {
			continue
		}
		visited[sp.Fingerprint(&s)] = true
		for _, a := range sp.Actions(&s, nil) {
			line := a.String()
			back, err := sp.ParseAction(line)
			if err != nil {
				t.Fatalf("%q does not parse: %v", line, err)
			}
			if back != a {
				t.Fatalf("%q parsed to %+v, want %+v", line, back, a)
			}
			seen[strings.Fields(line)[0]] = true
			frontier = append(frontier, sp.Next(&s, a))
		}
	}
	for _, kind := range []string{"arrive", "schedule", "prepare-resources", "forward", "update"} {
		if !seen[kind] {
			t.Errorf("no %s action was enabled anywhere", kind)
		}
	}
}

// TestParseActionErrors: malformed lines get errors that say what was
// expected.
func TestParseActionErrors(t *testing.T) {
	sp, _ := draftAdmission.Spec(0)
	for line, want := range map[string]string{
		"":                          "empty action line",
		"launch rank=0":             "unknown action \"launch\"",
		"schedule":                  "missing rank=N",
		"schedule rank=x":           "expected an integer",
		"schedule rank=1":           "the scenario has 1 rank(s)",
		"arrive req=9":              "expected an integer 1..8",
		"arrive req=4":              "the scenario has 3 request(s)",
		"forward rank=0 accept=1":   "expected id:accepted pairs",
		"forward rank=0 accept=1:9": "expected an integer 0..3",
		"update rank=0 rank=0":      "given twice",
		"update rank=0 bogus=1":     "unexpected argument \"bogus\"",
		"update rank":               "not key=value",
	} {
		_, err := sp.ParseAction(line)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAction(%q) = %v; want an error containing %q", line, err, want)
		}
	}
}

// TestParseActionKinds: the arguments no built-in scenario's round trip
// reaches (a KV receipt, update-resources, early finishes) parse into
// their fields, and a bad value is refused.
func TestParseActionKinds(t *testing.T) {
	sp, _ := draftAdmission.Spec(0)
	for line, want := range map[string]Action{
		"kv-received req=2 rank=0":               {Kind: ActReceiveKV, ID: 2},
		"update-resources rank=0 batch=none":     {Kind: ActUpdateResources, Fate: fateNone},
		"update-resources rank=0 batch=previous": {Kind: ActUpdateResources, Fate: fateProcessed},
		"update-resources rank=0 batch=deferred": {Kind: ActUpdateResources, Fate: fateDeferred},
		"forward rank=0 eos=1,8":                 {Kind: ActForward, EOS: 1<<1 | 1<<8},
	} {
		if got, err := sp.ParseAction(line); err != nil || got != want {
			t.Errorf("ParseAction(%q) = %+v, %v; want %+v", line, got, err, want)
		}
	}
	for line, want := range map[string]string{
		"kv-received rank=0":                  "missing req=N",
		"update-resources rank=0 batch=later": "batch=later: expected previous, deferred or none",
		"update-resources rank=0":             "missing batch=",
		"forward rank=0 eos=1,9":              "eos=1,9: expected an integer 0..8",
	} {
		if _, err := sp.ParseAction(line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAction(%q) = %v; want an error containing %q", line, err, want)
		}
	}
}
