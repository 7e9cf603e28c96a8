package spec

import (
	"fmt"
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

// Expected returns the verdict the scenario declares for the variant with
// fixes: the invariant it breaks, or VerdictOK; ok is false when the
// scenario declares none.
func (sc *Scenario) Expected(fixes Fixes) (verdict string, ok bool) {
	verdict, ok = sc.Expect[fixes.Label()]
	return verdict, ok
}

// checkExpectations reports a scenario whose Expect names a variant it
// does not run, or leaves one of its variants without a verdict.
func (sc *Scenario) checkExpectations() error {
	variants := map[string]bool{}
	for _, fixes := range sc.Variants() {
		label := fixes.Label()
		variants[label] = true
		if _, ok := sc.Expect[label]; !ok {
			return fmt.Errorf("scenario %s declares no expected verdict for %s", sc.Name, label)
		}
	}
	for label := range sc.Expect {
		if !variants[label] {
			return fmt.Errorf("scenario %s expects a verdict of %s, which is not one of its variants", sc.Name, label)
		}
	}
	return nil
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
