package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Scenario is a built-in configuration, scaled down from a seed crash
// report, with its goals and the fixes that are checked against it.
type Scenario struct {
	Name string
	// Doc says in one line what the scenario reproduces.
	Doc string
	// Report names the seed report and the TensorRT-LLM issue.
	Report string
	Config Config
	Goals  []GoalDef
	// FixSets are the fix combinations `kvcheck check` runs besides the
	// real code (no fix).
	FixSets [][]Fix
	// Expect is the verdict expected of each variant, keyed by its fix
	// set's Label ("real-code", "joint-admission",
	// "record-draft-lens+clamp-capacity"): the invariant the variant breaks
	// first, or VerdictOK. `kvcheck check` exits 0 when every verdict is as
	// expected; `kvcheck check --expect FILE` overrides it.
	Expect map[string]string
	// Depth and MaxStates are the default search bounds.
	Depth     int
	MaxStates int
}

// Variants returns the fix sets `kvcheck check` runs the scenario under
// by default: the real code (no fix) first, then each of FixSets.
func (sc *Scenario) Variants() []Fixes {
	out := []Fixes{0}
	for _, set := range sc.FixSets {
		out = append(out, FixSetOf(set...))
	}
	return out
}

// FixSetOf returns the set of the given fixes.
func FixSetOf(fixes ...Fix) Fixes {
	var s Fixes
	for _, f := range fixes {
		s = s.With(f)
	}
	return s
}

// Spec returns the scenario's spec with fixes applied.
func (sc *Scenario) Spec(fixes Fixes) (*Spec, error) {
	sp, err := New(sc.Config, fixes)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	sp.Scenario = sc
	return sp, nil
}

// draftAdmission is seed 000_830c52b437cf0e82 (TensorRT-LLM #18660) scaled
// down: block reuse on, an unpaired draft pool with as many pages (and so
// tokens) as the target, chunked prefill, MTP max_draft_len 1, three
// requests sharing a two-block prefix. Reuse keeps the target small while
// every mirror sizes the whole prompt, so the draft pool fills first and
// _prepare_draft_resources raises.
var draftAdmission = Scenario{
	Name:   "draft-admission",
	Doc:    "unpaired draft (indexer) pool left out of admission fills under prefix-shared load; _prepare_draft_resources raises",
	Report: "seed 000_830c52b437cf0e82, TensorRT-LLM #18660",
	Config: Config{
		TokensPerBlock:     4,
		MaxDraftLen:        1,
		ExtraKVTokens:      0,
		ReserveDraftTokens: 1,
		MaxBatchSize:       4,
		MaxNumTokens:       8,
		ChunkedPrefill:     true,
		ChunkUnitSize:      4,
		TargetBlocks:       8,
		DraftBlocks:        8,
		TargetIndexSlots:   5,
		DraftIndexSlots:    5,
		ResumeGatePercent:  100,
		HostTier:           false,
		RecomputePause:     true,
		BlockReuse:         true,
		DraftPool:          UnpairedDraftPool,
		DraftView:          DraftViewSameAsTarget,
		Version:            VersionRC25,
		Ranks:              1,
		Requests: []RequestTemplate{
			{PromptLen: 12, MaxNewTokens: 4, Family: 0, SharedPrefix: 8},
			{PromptLen: 12, MaxNewTokens: 4, Family: 0, SharedPrefix: 8},
			{PromptLen: 12, MaxNewTokens: 4, Family: 0, SharedPrefix: 8},
		},
	},
	Goals:   []GoalDef{GoalPrefixSharing, GoalDraftPoolFull, GoalAllFinished},
	FixSets: [][]Fix{{FixJointAdmission}, {FixDeferDraftMirror}, {FixMirrorReuse}},
	Expect: map[string]string{"real-code": "no-crash-on-refusal", "joint-admission": VerdictOK,
		"defer-draft-mirror": VerdictOK, "mirror-reuse": VerdictOK},
	Depth: 200,
}

// draftAdmissionResume is the second message of seed 000 (max_batch_size 8:
// "Failed to resume draft KV cache for request 78"): the same load with a
// resume gate (max_util_for_resume) below 100%. At v1.3.0rc25 the mirror is
// born SUSPENDED inside _prepare_draft_resources, after admission, so the
// gate refuses its resume there and the refusal raises.
var draftAdmissionResume = func() Scenario {
	sc := draftAdmission
	sc.Name = "draft-admission-resume"
	sc.Doc = "a mirror born after admission meets the resume gate in _prepare_draft_resources; the refusal raises"
	sc.Report = "seed 000_830c52b437cf0e82 (max_batch_size 8 run), TensorRT-LLM #18660"
	sc.Config.ResumeGatePercent = 75
	return sc
}()

// draftViewLag is a finding of kvcheck, not a seed report: at 00746ef the
// scheduler settles a reused prefix with set_prepopulated_prompt_len on the
// target view (_settle_context_cursor), which moves only the target cursor
// (LlmRequest::setPrepopulatedPromptLen), so the unpaired mirror's draft
// view lags by the reused prefix for the whole prefill. Its capacity then
// ends short of the prompt and the first generation update raises "History
// length cannot exceed capacity" on the first request that reuses a prefix.
var draftViewLag = func() Scenario {
	sc := draftAdmission
	sc.Name = "draft-view-lag"
	sc.Doc = "at 00746ef the unpaired mirror's draft cursor lags the target by the reused prefix; the first generation update raises"
	sc.Report = "kvcheck finding on the code of seed 000 at 00746ef (draft view of §2.7 read in llmRequest.h)"
	sc.Config.Version = Version00746ef
	sc.Config.DraftView = DraftViewLagByReuse
	sc.Goals = []GoalDef{GoalPrefixSharing, GoalAllFinished}
	sc.FixSets = [][]Fix{{FixDeferDraftMirror}, {FixJointAdmission}}
	// Joint admission does not close it: the lag is in the draft cursor,
	// not in admission.
	sc.Expect = map[string]string{"real-code": "no-crash-on-refusal", "defer-draft-mirror": VerdictOK,
		"joint-admission": "no-crash-on-refusal"}
	return sc
}()

// adpDummyLeak is seed 003_a6e0d146b32288c0 scaled down: two attention-DP
// ranks of a disaggregated generation worker running the overlap loop with
// an unpaired draft pool (00746ef, where the scheduler's admit_mirror
// creates mirrors). Rank 0 receives KV for two requests and sits at
// max_num_active_requests, so its empty batch cannot be padded and vetoes
// the forward; rank 1 had padded a pre-schedule dummy that the V2 scheduler
// admitted, creating a capacity-0 mirror that the rollback does not free,
// and defers the update of its previous batch, which held the previous
// dummy under the same ID.
var adpDummyLeak = Scenario{
	Name:   "adp-dummy-leak",
	Doc:    "an attention-DP pad dummy's unpaired draft mirror leaks across a vetoed iteration; the deferred update hits it",
	Report: "seed 003_a6e0d146b32288c0 (DSpark ADP gen worker)",
	Config: Config{
		TokensPerBlock:       4,
		MaxDraftLen:          1,
		ReserveDraftTokens:   1,
		MaxBatchSize:         2,
		MaxNumTokens:         8,
		ChunkedPrefill:       true,
		ChunkUnitSize:        4,
		TargetBlocks:         8,
		DraftBlocks:          8,
		TargetIndexSlots:     4,
		DraftIndexSlots:      4,
		ResumeGatePercent:    100,
		RecomputePause:       true,
		DraftPool:            UnpairedDraftPool,
		Version:              Version00746ef,
		Ranks:                2,
		Loop:                 OverlapLoop,
		AttentionDP:          true,
		MaxNumActiveRequests: 2,
		KVTransceiver:        true,
		AdpDummyFixes:        true,
		Requests: []RequestTemplate{
			{PromptLen: 4, MaxNewTokens: 1, Family: NoFamily, Rank: 0, ReceivingKV: true},
			{PromptLen: 4, MaxNewTokens: 1, Family: NoFamily, Rank: 0, ReceivingKV: true},
			{PromptLen: 4, MaxNewTokens: 2, Family: NoFamily, Rank: 1},
		},
	},
	Goals:   []GoalDef{GoalDummyRolledBackWhilePeerDeferred, GoalAllFinished},
	FixSets: [][]Fix{{FixFreeUnpairedMirror}, {FixSkipDummyUpdate}},
	// Skipping the dummy's update (the guard seed 003's runs carried) does
	// not free the leaked mirror.
	Expect: map[string]string{"real-code": "no-leaked-cache", "free-unpaired-mirror": VerdictOK,
		"skip-dummy-update": "no-leaked-cache"},
	Depth: 200,
}

// ppHistoryCapacity is seed 001_86d4d0351271a359 scaled down: two pipeline
// stages, block reuse off, chunked prefill of prompts four chunks long, MTP
// max_draft_len 1 with an unpaired draft pool. KVCacheManagerV2.__init__
// takes the MIN of every rank's token capacity, so stages differ only by
// the storage layer's rounding of the quota to whole pages, in either
// direction; here the last stage has one target page fewer than stage 0
// (StageTargetBlocks), the smallest asymmetry that reaches the crash at
// this scale. With equal pools the spec finds no path to it, because every
// stage's local scheduler then makes rank 0's decisions; with stage 0 the
// smaller one neither (README, seed 001).
var ppHistoryCapacity = Scenario{
	Name:   "pp-history-capacity",
	Doc:    "pipeline parallel, MTP on the last stage: a later stage runs rank 0's batch with its own scheduler's allocations; update_resources raises History length cannot exceed capacity",
	Report: "seed 001_86d4d0351271a359, TensorRT-LLM #18661",
	Config: Config{
		TokensPerBlock:     4,
		MaxDraftLen:        1,
		ReserveDraftTokens: 1,
		MaxBatchSize:       3,
		MaxNumTokens:       8,
		ChunkedPrefill:     true,
		ChunkUnitSize:      4,
		TargetBlocks:       10,
		StageTargetBlocks:  [MaxRanks]uint32{1: 9},
		DraftBlocks:        10,
		TargetIndexSlots:   3,
		DraftIndexSlots:    3,
		ResumeGatePercent:  100,
		RecomputePause:     true,
		DraftPool:          UnpairedDraftPool,
		Version:            VersionRC25,
		Ranks:              2,
		Loop:               PipelineLoop,
		Requests: []RequestTemplate{
			{PromptLen: 16, MaxNewTokens: 4, Family: NoFamily},
			{PromptLen: 16, MaxNewTokens: 4, Family: NoFamily},
		},
	},
	Goals:   []GoalDef{GoalAllFinished},
	FixSets: [][]Fix{{FixRecordDraftLens, FixClampCapacity}, {FixClampCapacity}, {FixEqualStagePools}},
	Expect: map[string]string{"real-code": "no-crash-on-refusal", "record-draft-lens+clamp-capacity": VerdictOK,
		"clamp-capacity": VerdictOK, "equal-stage-pools": VerdictOK},
	Depth: 200,
}

// ppStageDivergence is pp-history-capacity with a third request: the later
// stage's local scheduler now also takes a different context chunk than
// rank 0, so it runs rank 0's micro-batch with its own (stale) chunk size.
// PR #19120's fixes do not close what follows; equal stage pools do.
var ppStageDivergence = func() Scenario {
	sc := ppHistoryCapacity
	sc.Name = "pp-stage-divergence"
	sc.Doc = "pipeline stages whose local schedulers diverge from rank 0: a stale chunk size raises in update_context_resources, or the stages disagree on a request's progress"
	sc.Report = "kvcheck finding on seed 001's configuration with one more request"
	sc.Config.Requests = append(append([]RequestTemplate(nil), sc.Config.Requests...), sc.Config.Requests[0])
	sc.FixSets = [][]Fix{{FixRecordDraftLens, FixClampCapacity}, {FixEqualStagePools}}
	// PR #19120's fixes leave the stages' divergence in place.
	sc.Expect = map[string]string{"real-code": "no-crash-on-refusal",
		"record-draft-lens+clamp-capacity": "no-crash-on-refusal", "equal-stage-pools": VerdictOK}
	return sc
}()

// builtinScenarios lists every built-in scenario in the order `kvcheck
// check` runs them.
var builtinScenarios = []*Scenario{&draftAdmission, &draftAdmissionResume, &draftViewLag, &adpDummyLeak, &ppHistoryCapacity, &ppStageDivergence, &adpVetoGrowth, &adpDummyNone}

// Scenarios returns the built-in scenarios.
func Scenarios() []*Scenario { return builtinScenarios }

// LookupScenario returns the built-in scenario named name, or an error
// listing the valid names.
func LookupScenario(name string) (*Scenario, error) {
	for _, sc := range builtinScenarios {
		if sc.Name == name {
			return sc, nil
		}
	}
	names := make([]string, 0, len(builtinScenarios))
	for _, sc := range builtinScenarios {
		names = append(names, sc.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown scenario %q; valid scenarios: %s", name, strings.Join(names, ", "))
}
