package spec_test

// This test draws its configurations with spec/space's RandomConfig, which
// spec's own tests cannot import (spec/space imports spec); it uses the
// POR checks of por_test.go through export_test.go.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/space"
)

// TestPartialOrderAgreesOnRandomConfigs draws random multi-rank
// configurations around the scenarios that have several ranks and checks
// them with and without the reduction; only draws whose state space is
// small enough to check twice quickly count. KVCHECK_POR_SOAK=1 makes it
// the long soak (150 configurations of up to 30,000 states, each also
// put through checkSpecRules; about 4 minutes).
func TestPartialOrderAgreesOnRandomConfigs(t *testing.T) {
	want, maxStates, seed := 12, 4000, uint64(11)
	soak := os.Getenv("KVCHECK_POR_SOAK") != ""
	if soak {
		want, maxStates, seed = 150, 30000, 101
	}
	rng := rand.New(rand.NewPCG(seed, 13))
	var bases []*scenario.Scenario
	for _, sc := range scenario.All() {
		if sc.Config.Ranks > 1 && sc.Config.Loop != spec.PipelineLoop {
			bases = append(bases, sc)
		}
	}
	checked, full, reduced := 0, 0, 0
	for tries := 0; checked < want && tries < 20*want+200; tries++ {
		sc := bases[rng.IntN(len(bases))]
		cfg := space.RandomConfig(rng, sc.Config)
		variants := sc.Variants()
		sp, err := spec.New(cfg, variants[rng.IntN(len(variants))])
		if err != nil {
			continue
		}
		if probe := model.Check(sp, model.Options{MaxStates: maxStates, KeepGoing: true}); !probe.Complete {
			continue
		}
		checked++
		name := fmt.Sprintf("random config %d around %s (KVCHECK_POR_SOAK=%v):\n%s", tries, sc.Name, soak, configtext.Format(&cfg))
		f, r := spec.CheckPartialOrderAgrees(t, name, sp, 0)
		full, reduced = full+f, reduced+r
		if soak {
			spec.CheckSpecRules(t, name, sp, 5000)
		}
	}
	if checked < want {
		t.Fatalf("only %d random configurations were small enough to check", checked)
	}
	t.Logf("%d random configurations: %d states without the reduction, %d with it", checked, full, reduced)
}
