package space

import (
	"github.com/kvcheck/kvcheck/spec"
)

// The built-in scenarios the tests of this package start from (as spec's
// own tests name them, in spec/scenariofiles_test.go).
var (
	draftAdmission    = *mustScenario("draft-admission")
	adpDummyLeak      = *mustScenario("adp-dummy-leak")
	ppHistoryCapacity = *mustScenario("pp-history-capacity")
)

func mustScenario(name string) *spec.Scenario {
	sc, err := spec.LookupScenario(name)
	if err != nil {
		panic(err)
	}
	return sc
}

// TestRandomConfigurationsNeverPanic walks many random valid
