package space

import "github.com/kvcheck/kvcheck/spec/scenario"

// The built-in scenarios the tests of this package start from (as spec's
// internal tests name them, in spec/testscenarios_test.go).
var (
	draftAdmission    = *mustScenario("draft-admission")
	adpDummyLeak      = *mustScenario("adp-dummy-leak")
	ppHistoryCapacity = *mustScenario("pp-history-capacity")
)

func mustScenario(name string) *scenario.Scenario {
	sc, err := scenario.Lookup(name)
	if err != nil {
		panic(err)
	}
	return sc
}

// TestRandomConfigurationsNeverPanic walks many random valid
