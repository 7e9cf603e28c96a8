package spec

import (
	"strings"

	"github.com/kvcheck/kvcheck/model"
)

// VerdictOK is the verdict of a variant whose search finished without a
// violation and reached every goal.
const VerdictOK = "ok"

// Label names a fix set the way scenarios, expectation files and
// transcript names write it: the fixes joined by "+", or "real-code" for
// none.
func (s Fixes) Label() string {
	if names := s.Names(); len(names) > 0 {
		return strings.Join(names, "+")
	}
	return "real-code"
}

// ParseFixesLabel reads a Label back ("real-code" or "none" for the real
// code).
func ParseFixesLabel(label string) (Fixes, error) {
	if label == "real-code" || label == "none" {
		return 0, nil
	}
	return ParseFixes(strings.Split(label, "+"))
}

// FixSetOf returns the set of the given fixes.
func FixSetOf(fixes ...Fix) Fixes {
	var s Fixes
	for _, f := range fixes {
		s = s.With(f)
	}
	return s
}

// Verdicts lists every verdict a variant can have, for expectation files:
// ok, each invariant of sp, and the liveness verdicts (a deadlock, a
// livelock).
func Verdicts(sp *Spec) []string {
	out := []string{VerdictOK}
	for _, inv := range sp.Invariants() {
		out = append(out, inv.Name)
	}
	return append(out, model.DeadlockInvariant, model.LivelockInvariant)
}
