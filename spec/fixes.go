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
	numFixes
)

var fixNames = [numFixes]string{
	FixJointAdmission:   "joint-admission",
	FixDeferDraftMirror: "defer-draft-mirror",
	FixMirrorReuse:      "mirror-reuse",
}

var fixDocs = [numFixes]string{
	FixJointAdmission:   "PR #19006: admit a request only when both the target and the draft pool can hold it",
	FixDeferDraftMirror: "PR #19231: a refused draft resize or resume defers the request instead of raising",
	FixMirrorReuse:      "PR #19303 direction: the draft mirror reuses and publishes prefix blocks like the primary",
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
