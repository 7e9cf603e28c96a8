package sweep

import (
	"syscall"
	"testing"
	"time"

	"github.com/kvcheck/kvcheck/spec"

	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/space"
)

// benchVariants are the seed scenarios under the fix sets their default
// sweeps are about.
var benchVariants = []struct {
	scenario string
	fixes    []spec.Fix
}{
	{"draft-admission", []spec.Fix{spec.FixJointAdmission}},
	{"draft-admission-resume", []spec.Fix{spec.FixDeferDraftMirror}},
	{"adp-dummy-leak", []spec.Fix{spec.FixFreeUnpairedMirror}},
	{"pp-history-capacity", []spec.Fix{spec.FixRecordDraftLens, spec.FixClampCapacity}},
}

// BenchmarkDefaultSweep checks every configuration of each seed scenario's
// default sweep (keep-going, so the whole space is checked whatever the
// verdict) on all cores; it reports the configurations, their total
// states and the cost of one configuration, in wall time and in CPU time
// (user and system, getrusage: the machine may be shared; issue 24's
// target is at most 0.5 ms of CPU a configuration on draft-admission,
// with no system time to speak of). One iteration is a whole sweep: run
// with -benchtime 1x.
func BenchmarkDefaultSweep(b *testing.B) {
	for _, bv := range benchVariants {
		b.Run(bv.scenario, func(b *testing.B) {
			sc, err := scenario.Lookup(bv.scenario)
			if err != nil {
				b.Fatal(err)
			}
			cs, err := space.NewConfigSpace(sc.Config, space.DefaultRanges(sc.Name), nil)
			if err != nil {
				b.Fatal(err)
			}
			configs, _, err := cs.Enumerate()
			if err != nil {
				b.Fatal(err)
			}
			v := Variant{Scenario: sc, Fixes: spec.FixSetOf(bv.fixes...)}
			b.ResetTimer()
			user0, sys0 := cpuTimes()
			states, violating := 0, 0
			for range b.N {
				states, violating = 0, 0
				Run(v, configs, Options{Search: Search{MaxStates: 200_000, Liveness: true}, Workers: 2, KeepGoing: true}, func(r Record) {
					states += r.States
					if r.Result == ResultViolation {
						violating++
					}
				})
			}
			user1, sys1 := cpuTimes()
			perConfig := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(b.N) / float64(len(configs)) }
			b.ReportMetric(perConfig(user1-user0+sys1-sys0), "cpu-ms/config")
			b.ReportMetric(perConfig(sys1-sys0), "sys-ms/config")
			b.ReportMetric(float64(len(configs)), "configs")
			b.ReportMetric(float64(states)/float64(len(configs)), "states/config")
			b.ReportMetric(float64(violating), "violating")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(configs))/1e6, "ms/config")
		})
	}
}

// cpuTimes is the process's user and system CPU time so far.
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
