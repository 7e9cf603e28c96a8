package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Fix is one proposed or merged fix, applied as a named variant of the
// spec. Each changes only the functions it touches; the default (no fix) is
// the real code as in the seed reports. A fix is declared once, with
// defineFix (or defineHistoricalBug for a bug the real code has already
// fixed): its name, source, what it changes and, where it is not a code
// change, how it rewrites the configuration all come from that entry.
type Fix uint8

// FixInfo is everything kvcheck knows about one fix.
type FixInfo struct {
	// Name is the fix's name on the command line and in transcripts.
	Name string
	// Source is where the fix comes from: a TensorRT-LLM PR ("PR #19006"),
	// a seed report, or kvcheck's own proposal.
	Source string
	// Changes says in one line what the fix changes in the real code.
	Changes string
	// Reverts is the pre-fix switch this fix turns off: the fix is the
	// historical PR itself (see defineHistoricalBug). Zero for none.
	Reverts PreFixes
	// Config, when set, rewrites the configuration when the spec is made,
	// for fixes that change a size rather than code.
	Config func(c *Config)
	// Lin says which manager operation `kvcheck lin` models (ApplyPoolOp
	// and the sizes it reads) the fix changes, and how; "" when it changes
	// none. Each fix with one needs a history in
	// counterexamples/conformance/fixes (TestFixCorpus).
	Lin string
}

// fixRegistry holds every declared fix; a Fix is its index.
var fixRegistry []FixInfo

// defineFix declares a fix and returns its value.
func defineFix(info FixInfo) Fix {
	if len(fixRegistry) >= 32 {
		panic("spec: more fixes than a Fixes set holds")
	}
	for _, f := range fixRegistry {
		if f.Name == info.Name {
			panic("spec: fix " + info.Name + " declared twice")
		}
	}
	fixRegistry = append(fixRegistry, info)
	return Fix(len(fixRegistry) - 1)
}

// The fixes, in the stable order lists and names of fix sets use.
var (
	// FixJointAdmission is TensorRT-LLM PR #19006 (joint management of target
	// and draft): the scheduler admits a request only when both pools can
	// hold it. Modeled in KVCacheV2Scheduler._try_allocate_context and
	// _try_allocate_generation: the unpaired mirror is grown at admission
	// (and the target reverted when it cannot be), so _prepare_draft_resources
	// finds it already sized.
	FixJointAdmission = defineFix(FixInfo{Name: "joint-admission", Source: "PR #19006",
		Changes: "admit a request only when both the target and the draft pool can hold it"})
	// FixDeferDraftMirror is TensorRT-LLM PR #19231: a refused draft resize
	// or resume in _prepare_draft_resources defers the request (its target
	// allocation is reverted and it leaves the batch) instead of raising.
	FixDeferDraftMirror = defineFix(FixInfo{Name: "defer-draft-mirror", Source: "PR #19231",
		Changes: "a refused draft resize or resume defers the request instead of raising",
		Lin:     "prepare_draft_resources: a refused resume or resize returns {\"ok\": false} (the request is deferred) instead of raising"})
	// FixMirrorReuse is the direction of TensorRT-LLM PR #19303: the mirror
	// reuses and publishes blocks like the primary pool instead of
	// stop_committing.
	FixMirrorReuse = defineFix(FixInfo{Name: "mirror-reuse", Source: "PR #19303 direction",
		Changes: "the draft mirror reuses and publishes prefix blocks like the primary"})
	// FixFreeUnpairedMirror is seed 003's fix: the attention-DP dummy
	// rollback (_finalize_adp_dummy_allocation → _free_pad_dummy_kv) frees the
	// dummy in whichever draft pool exists.
	FixFreeUnpairedMirror = defineFix(FixInfo{Name: "free-unpaired-mirror", Source: "seed 003",
		Changes: "the ADP dummy rollback frees the dummy in whichever draft pool exists"})
	// FixSkipDummyUpdate is the guard seed 003's validation runs carried
	// (and reported never fired): update_resources skips dummy requests.
	FixSkipDummyUpdate = defineFix(FixInfo{Name: "skip-dummy-update", Source: "seed 003's extra guard",
		Changes: "update_resources skips dummy requests",
		Lin:     "update_resources: request 0, the attention-DP dummy, is skipped: no resize called"})
	// FixRecordDraftLens is half of TensorRT-LLM PR #19120:
	// _prepare_draft_resources records _allocated_draft_lens for the width it
	// grew an unpaired mirror by, so update_resources rewinds exactly that.
	FixRecordDraftLens = defineFix(FixInfo{Name: "record-draft-lens", Source: "PR #19120",
		Changes: "_prepare_draft_resources records _allocated_draft_lens for an unpaired mirror",
		Lin:     "prepare_draft_resources, allocated_draft_len: the generation growth of an unpaired mirror is recorded in _allocated_draft_lens"})
	// FixClampCapacity is the other half of PR #19120: update_resources
	// clamps new_capacity to at least history_length before the resize.
	FixClampCapacity = defineFix(FixInfo{Name: "clamp-capacity", Source: "PR #19120",
		Changes: "update_resources clamps new_capacity to at least history_length",
		Lin:     "update_resources: a new capacity below the new history is raised to it (the real code's resize then raises)"})
	// FixEqualStagePools makes every pipeline stage's pools page for page
	// as large as the smallest stage's: the token MIN of
	// KVCacheManagerV2.__init__ carried through to whole pages (the storage
	// layer's rounding no longer gives one stage a page more or less), so
	// every stage's local scheduler makes rank 0's decisions. It changes
	// the sizing, so it is applied to the configuration when the spec is
	// made.
	FixEqualStagePools = defineFix(FixInfo{Name: "equal-stage-pools", Source: "kvcheck proposal",
		Changes: "every pipeline stage's pools sized page for page like the smallest stage's (the token MIN carried through the storage layer's rounding)",
		Config:  (*Config).equalizeStagePools,
		Lin:     "every operation of a pipeline stage: every stage's pools have the smallest stage's pages"})
)

// Historical bugs: the code of the seed reports has their fix; each
// pre-fix switch puts the bug back, and its fix (the PR) takes it out
// again. Declared after the fixes above, so fix-set names keep their order.
var (
	// PreFixNoVetoRevert is the code before TensorRT-LLM PR #13104: with
	// attention DP a vetoed iteration (_can_queue False) skips the forward
	// but keeps the generation growth KVCacheV2Scheduler made, so it
	// accumulates across skipped iterations until it overflows the
	// request's row of the host page-index buffer (the _revert_gen_alloc
	// docstring, py_executor.py at 2829508). FixRevertOnVeto is the PR:
	// PyExecutor._revert_gen_alloc.
	PreFixNoVetoRevert, FixRevertOnVeto = defineHistoricalBug(PreFixInfo{Name: "no-veto-revert", PR: "PR #13104",
		Before: "a vetoed attention-DP iteration keeps the generation growth the V2 scheduler made",
		Fix:    "revert-on-veto", After: "_revert_gen_alloc reverts the V2 scheduler's generation growth when the forward is vetoed"})
	// PreFixDummyNoneUnchecked is the code before TensorRT-LLM PR #14286
	// (and #17801): _pad_attention_dp_dummy_request indexes what
	// add_dummy_requests returns, which is None when the IndexMapper has no
	// free slot (for instance while disaggregated transfers hold them), so
	// the pad raises TypeError. FixCheckDummyNone is the PR: a None result
	// leaves the rank with an empty batch and the fleet retries
	// ("Both KV cache managers report allocation failure by returning None",
	// py_executor.py at 2829508).
	PreFixDummyNoneUnchecked, FixCheckDummyNone = defineHistoricalBug(PreFixInfo{Name: "dummy-none-unchecked", PR: "PR #14286 / #17801",
		Before: "_pad_attention_dp_dummy_request indexes add_dummy_requests' None result (IndexMapper saturated)",
		Fix:    "check-dummy-none", After: "a None from add_dummy_requests leaves an empty batch and the fleet retries"})
	// PreFixDraftOneDummySlot is the IndexMapper sizing TensorRT-LLM PR
	// #17347 left in the draft manager and the review of PR #19006 pointed
	// out: the target reserves num_cuda_graph_padding_dummy_slots +
	// int(enable_attention_dp) slots for dummies, the draft manager one, so
	// with a CUDA-graph padding dummy and an attention-DP dummy live at
	// once the draft side is a slot short and _create_kv_cache returns None
	// for the dummy's mirror. FixDraftDummySlots reserves the target's
	// count in the draft manager too.
	PreFixDraftOneDummySlot, FixDraftDummySlots = defineHistoricalBug(PreFixInfo{Name: "draft-one-dummy-slot", PR: "PR #17347 / review of #19006",
		Before: "the draft manager's IndexMapper reserves one dummy slot, the target num_cuda_graph_padding_dummy_slots + int(enable_attention_dp)",
		Fix:    "draft-dummy-slots", After: "the draft manager reserves as many dummy slots as the target",
		FixLin: "create on the draft pool: the draft IndexMapper reserves the target's dummy slots, so a mirror the real code gets None for is made"})
)

func (f Fix) info() *FixInfo { return &fixRegistry[f] }

func (f Fix) String() string { return f.info().Name }

// Doc is the one-line description of the fix and its source: "source:
// what it changes".
func (f Fix) Doc() string { return f.info().Source + ": " + f.info().Changes }

// Source names where the fix comes from (a PR, a seed report).
func (f Fix) Source() string { return f.info().Source }

// Reverts is the pre-fix switch the fix turns off, if any.
func (f Fix) Reverts() PreFixes { return f.info().Reverts }

// Lin is the lin-modelled manager operation the fix changes, and how ("" for none).
func (f Fix) Lin() string { return f.info().Lin }

// AllFixes lists every fix in a stable order.
func AllFixes() []Fix {
	out := make([]Fix, len(fixRegistry))
	for i := range out {
		out[i] = Fix(i)
	}
	return out
}

// Fixes is a set of applied fixes.
type Fixes uint32

// AllFixSet is the set of every declared fix.
func AllFixSet() Fixes { return Fixes(1)<<len(fixRegistry) - 1 }

// Has reports whether f is applied.
func (s Fixes) Has(f Fix) bool { return s&(1<<f) != 0 }

// With returns the set plus f.
func (s Fixes) With(f Fix) Fixes { return s | 1<<f }

// List returns the applied fixes in a stable order.
func (s Fixes) List() []Fix {
	var out []Fix
	for _, f := range AllFixes() {
		if s.Has(f) {
			out = append(out, f)
		}
	}
	return out
}

// Names returns the names of the applied fixes.
func (s Fixes) Names() []string {
	out := []string{}
	for _, f := range s.List() {
		out = append(out, f.String())
	}
	return out
}

// applyTo rewrites cfg for the applied fixes that change the configuration:
// sizing fixes, and the historical fixes that turn their pre-fix switch
// off.
func (s Fixes) applyTo(cfg *Config) {
	for _, f := range s.List() {
		cfg.PreFixes &^= f.Reverts()
		if apply := f.info().Config; apply != nil {
			apply(cfg)
		}
	}
}

// ParseFix returns the fix named name, or an error listing the valid names.
func ParseFix(name string) (Fix, error) {
	for _, f := range AllFixes() {
		if f.String() == name {
			return f, nil
		}
	}
	names := make([]string, 0, len(fixRegistry))
	for _, f := range AllFixes() {
		names = append(names, f.String())
	}
	sort.Strings(names)
	return 0, fmt.Errorf("unknown fix %q; valid fixes: %s", name, strings.Join(names, ", "))
}

// ParseFixes parses a list of fix names.
func ParseFixes(names []string) (Fixes, error) {
	var s Fixes
	for _, n := range names {
		f, err := ParseFix(n)
		if err != nil {
			return 0, err
		}
		s = s.With(f)
	}
	return s, nil
}
