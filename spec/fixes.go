package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Fix is one proposed fix, applied as a named variant of the spec. Each
// changes only the functions it touches; the default (no fix) is the real
// code as in the seed reports.
type Fix uint8

const (
	// FixJointAdmission is TensorRT-LLM PR #19006 (joint management of target
	// and draft): the scheduler admits a request only when both pools can
	// hold it. Modeled in KVCacheV2Scheduler._try_allocate_context and
	// _try_allocate_generation: the unpaired mirror is grown at admission
	// (and the target reverted when it cannot be), so _prepare_draft_resources
	// finds it already sized.
	FixJointAdmission Fix = iota
	// FixDeferDraftMirror is TensorRT-LLM PR #19231: a refused draft resize
	// or resume in _prepare_draft_resources defers the request (its target
	// allocation is reverted and it leaves the batch) instead of raising.
	FixDeferDraftMirror
	// FixMirrorReuse is the direction of TensorRT-LLM PR #19303: the mirror
	// reuses and publishes blocks like the primary pool instead of
	// stop_committing.
	FixMirrorReuse
	// FixFreeUnpairedMirror is seed 003's fix: the attention-DP dummy
	// rollback (_finalize_adp_dummy_allocation → _free_pad_dummy_kv) frees the
	// dummy in whichever draft pool exists, paired or not.
	FixFreeUnpairedMirror
	// FixSkipDummyUpdate is the guard seed 003's validation runs carried
	// (and reported never fired): update_resources skips dummy requests.
	FixSkipDummyUpdate
	// FixRecordDraftLens is half of TensorRT-LLM PR #19120:
	// _prepare_draft_resources records _allocated_draft_lens for the width it
	// grew an unpaired mirror by, so update_resources rewinds exactly that.
	FixRecordDraftLens
	// FixClampCapacity is the other half of PR #19120: update_resources
	// clamps new_capacity to at least history_length before the resize.
	FixClampCapacity
	// FixEqualStagePools makes every pipeline stage's target pool as small
	// as the smallest stage's (the allreduce-MIN of KV capacity the
	// executor means to apply "so the scheduler produces identical
	// batches"), so every stage's local scheduler makes rank 0's decisions.
	// It changes the KV budget split (KvCacheCreator), so it is applied to
	// the configuration when the spec is made.
	FixEqualStagePools
	numFixes
)

var fixNames = [numFixes]string{
	FixJointAdmission:     "joint-admission",
	FixDeferDraftMirror:   "defer-draft-mirror",
	FixMirrorReuse:        "mirror-reuse",
	FixFreeUnpairedMirror: "free-unpaired-mirror",
	FixSkipDummyUpdate:    "skip-dummy-update",
	FixRecordDraftLens:    "record-draft-lens",
	FixClampCapacity:      "clamp-capacity",
	FixEqualStagePools:    "equal-stage-pools",
}

var fixDocs = [numFixes]string{
	FixJointAdmission:     "PR #19006: admit a request only when both the target and the draft pool can hold it",
	FixDeferDraftMirror:   "PR #19231: a refused draft resize or resume defers the request instead of raising",
	FixMirrorReuse:        "PR #19303 direction: the draft mirror reuses and publishes prefix blocks like the primary",
	FixFreeUnpairedMirror: "seed 003: the ADP dummy rollback frees the dummy in whichever draft pool exists",
	FixSkipDummyUpdate:    "seed 003's extra guard: update_resources skips dummy requests",
	FixRecordDraftLens:    "PR #19120: _prepare_draft_resources records _allocated_draft_lens for an unpaired mirror",
	FixClampCapacity:      "PR #19120: update_resources clamps new_capacity to at least history_length",
	FixEqualStagePools:    "every pipeline stage's target pool sized like the smallest (the MIN of KV capacity across stages)",
}

func (f Fix) String() string { return fixNames[f] }

// Doc is the one-line description of the fix and its source.
func (f Fix) Doc() string { return fixDocs[f] }

// AllFixes lists every fix in a stable order.
func AllFixes() []Fix {
	out := make([]Fix, numFixes)
	for i := range out {
		out[i] = Fix(i)
	}
	return out
}

// Fixes is a set of applied fixes.
type Fixes uint32

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

// ParseFix returns the fix named name, or an error listing the valid names.
func ParseFix(name string) (Fix, error) {
	for _, f := range AllFixes() {
		if f.String() == name {
			return f, nil
		}
	}
	names := make([]string, 0, numFixes)
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
