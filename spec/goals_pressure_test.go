package spec

import (
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// pressureReached is which pressure goals a search of cfg reaches.
func pressureReached(t *testing.T, cfg Config) map[string]bool {
	t.Helper()
	sc := &testScenario{ScenarioInfo: ScenarioInfo{Name: "pressure",
		Goals: []GoalDef{GoalTargetPoolFull, GoalDraftPoolFull, GoalRequestEvicted, GoalRequestRefused}}, Config: cfg, Depth: 200}
	sp, err := sc.Spec(0)
	if err != nil {
		t.Fatal(err)
	}
	res := model.Check[State, Action](sp, model.Options{MaxDepth: 200, Workers: 1})
	if len(res.Violations) > 0 || !res.Complete {
		t.Fatalf("%v, complete %v", res.Violations, res.Complete)
	}
	out := map[string]bool{}
	for _, g := range res.Goals {
		out[g.Name] = g.Reached
	}
	return out
}

// TestPressureGoals: the eviction ladder (two generating requests that
// outgrow an 8-page target pool) fills its target pool, refuses a request
// and evicts one; the same requests with pools four times as large reach
// none of them; a configuration without a draft pool never reaches
// draft-pool-full, however full its target pool.
func TestPressureGoals(t *testing.T) {
	ladder, err := lookupTestScenario("eviction-ladder")
	if err != nil {
		t.Fatal(err)
	}
	cfg := ladder.Config
	if cfg.DraftPool != NoDraftPool {
		t.Fatalf("eviction-ladder has a draft pool:\n%s", formatConfigText(&cfg))
	}
	got := pressureReached(t, cfg)
	want := map[string]bool{"target-pool-full": true, "draft-pool-full": false, "request-evicted": true, "request-refused": true}
	for name, reached := range want {
		if got[name] != reached {
			t.Errorf("eviction-ladder: %s reached %v, want %v", name, got[name], reached)
		}
	}
	roomy := cfg
	roomy.TargetBlocks *= 4
	for name, reached := range pressureReached(t, roomy) {
		if reached {
			t.Errorf("eviction-ladder with %d target pages: %s reached", roomy.TargetBlocks, name)
		}
	}
}
