package scenario

import (
	"fmt"

	"github.com/kvcheck/kvcheck/spec"
)

// Expected returns the verdict the scenario declares for the variant with
// fixes: the invariant it breaks, or VerdictOK; ok is false when the
// scenario declares none.
func (sc *Scenario) Expected(fixes spec.Fixes) (verdict string, ok bool) {
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
