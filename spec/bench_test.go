package spec

import (
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// BenchmarkCheckScenarios measures the exhaustive checker on the largest
// complete variants of the built-in scenarios (states per second).
func BenchmarkCheckScenarios(b *testing.B) {
	for _, c := range []struct {
		scenario *testScenario
		fixes    Fixes
	}{
		{adpDummyLeak, FixSetOf(FixFreeUnpairedMirror)},
		{ppStageDivergence, FixSetOf(FixEqualStagePools)},
		{draftAdmission, FixSetOf(FixDeferDraftMirror)},
	} {
		sp, err := c.scenario.Spec(c.fixes)
		if err != nil {
			b.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			b.Run(c.scenario.Name+"/"+map[int]string{1: "workers=1", 2: "workers=2"}[workers], func(b *testing.B) {
				states := 0
				for b.Loop() {
					res := model.Check[State, Action](sp, model.Options{Workers: workers})
					states = res.States
				}
				b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
			})
		}
	}
}

// BenchmarkNext measures one transition of the adp-dummy-leak spec
// (copy, action, canonicalization) plus its fingerprint.
func BenchmarkNext(b *testing.B) {
	sp, _ := adpDummyLeak.Spec(FixSetOf(FixFreeUnpairedMirror))
	s := sp.Initial()
	var buf []Action
	for b.Loop() {
		buf = sp.Actions(&s, buf[:0])
		if len(buf) == 0 {
			s = sp.Initial()
			continue
		}
		s = sp.Next(&s, buf[0])
		_ = sp.Fingerprint(&s)
	}
}
