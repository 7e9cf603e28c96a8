package spec

import (
	"fmt"
	"sort"
	"strings"
)

// PreFix is a pre-fix switch: one historical TensorRT-LLM bug that the code
// of the seed reports has already fixed, put back. The spec's default (no
// switch) is the code in the seed reports; a scenario that reproduces the
// bug sets its switch (the configuration key pre_fix), and the fix of the
// same entry (the PR itself) turns it off again. Each is declared once,
// with defineHistoricalBug, which also declares that fix.
type PreFix uint8

// PreFixInfo is everything kvcheck knows about one pre-fix switch.
type PreFixInfo struct {
	// Name is the switch's name in the pre_fix configuration key.
	Name string
	// PR is the TensorRT-LLM change that fixed the bug ("PR #13104").
	PR string
	// Before says in one line what the code did before the PR.
	Before string
	// Fix names the fix that applies the PR (turns the switch off), and
	// After says what it changes.
	Fix, After string
	// FixLin is the fix's FixInfo.Lin: the lin-modelled manager operation
	// it changes ("" for none).
	FixLin string
}

// preFixRegistry holds every declared pre-fix switch; a PreFix is its
// index.
var preFixRegistry []PreFixInfo

// defineHistoricalBug declares a historical bug: its pre-fix switch and the
// fix (the PR) that turns it off. Declare the fixes of historical bugs
// after the other fixes (fixes.go), so fix-set names keep their order.
func defineHistoricalBug(info PreFixInfo) (PreFix, Fix) {
	if len(preFixRegistry) >= 32 {
		panic("spec: more pre-fix switches than a PreFixes set holds")
	}
	preFixRegistry = append(preFixRegistry, info)
	p := PreFix(len(preFixRegistry) - 1)
	f := defineFix(FixInfo{Name: info.Fix, Source: info.PR, Changes: info.After, Reverts: PreFixSetOf(p), Lin: info.FixLin})
	return p, f
}

func (p PreFix) info() *PreFixInfo { return &preFixRegistry[p] }

func (p PreFix) String() string { return p.info().Name }

// Doc is "PR: what the code did before it".
func (p PreFix) Doc() string { return p.info().PR + " not yet merged: " + p.info().Before }

// AllPreFixes lists every pre-fix switch in declaration order.
func AllPreFixes() []PreFix {
	out := make([]PreFix, len(preFixRegistry))
	for i := range out {
		out[i] = PreFix(i)
	}
	return out
}

// PreFixes is a set of pre-fix switches turned on.
type PreFixes uint32

// PreFixSetOf returns the set of the given switches.
func PreFixSetOf(ps ...PreFix) PreFixes {
	var s PreFixes
	for _, p := range ps {
		s |= 1 << p
	}
	return s
}

// Has reports whether switch p is on.
func (s PreFixes) Has(p PreFix) bool { return s&(1<<p) != 0 }

// MarshalText renders the set as a comma-separated list of names, "none"
// for the empty set (the text form of the pre_fix configuration key).
func (s PreFixes) MarshalText() ([]byte, error) {
	var names []string
	for _, p := range AllPreFixes() {
		if s.Has(p) {
			names = append(names, p.String())
		}
	}
	if len(names) == 0 {
		return []byte("none"), nil
	}
	return []byte(strings.Join(names, ",")), nil
}

// UnmarshalText parses what MarshalText renders; the error lists the valid
// names.
func (s *PreFixes) UnmarshalText(text []byte) error {
	*s = 0
	if string(text) == "none" {
		return nil
	}
	for _, name := range strings.Split(string(text), ",") {
		found := false
		for _, p := range AllPreFixes() {
			if p.String() == name {
				*s |= PreFixSetOf(p)
				found = true
			}
		}
		if !found {
			names := []string{"none"}
			for _, p := range AllPreFixes() {
				names = append(names, p.String())
			}
			sort.Strings(names)
			return fmt.Errorf("unknown pre-fix switch %q; expected a comma-separated list of: %s", name, strings.Join(names, ", "))
		}
	}
	return nil
}
