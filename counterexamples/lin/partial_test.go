package lin

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestPartialReuseHistories: random runs of every scenario variant with
// partial reuse on and a shared prefix that ends inside a block (9 tokens
// of 4-token blocks) emit histories whose creates reuse 9 tokens and whose
// first resumes copy the partial block; each is linearizable against the
// spec's pool model, so emitter and model agree on partial reuse too.
func TestPartialReuseHistories(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	partial := 0
	for _, sc := range scenario.All() {
		if sc.Config.DraftPool == spec.PairedDraftPool {
			// paired-draft-reuse (issue 9) is the first paired pool: with
			// partial reuse the derived cache operations do not reproduce
			// its target pool at a coordinated reuse claim (step 24 of the
			// first walk); left to the conformance work (issue 14).
			t.Logf("%s: paired draft pool with partial reuse not checked", sc.Name)
			continue
		}
		for _, fixes := range sc.Variants() {
			sp, err := sc.Spec(fixes)
			if err != nil {
				t.Fatal(err)
			}
			sp.Config.PartialReuse = true
			sp.Config.Requests = append([]spec.RequestTemplate(nil), sp.Config.Requests...)
			for i := range sp.Config.Requests {
				if sp.Config.Requests[i].Family != spec.NoFamily {
					sp.Config.Requests[i].SharedPrefix = min(9, sp.Config.Requests[i].PromptLen)
				}
			}
			for k := 0; k < 10; k++ {
				records, err := FromTrace(sp, Walk(sp, rng, 200), EmitOptions{Overlap: k%2 == 1})
				if err != nil {
					t.Fatalf("%s %v: %v", sc.Name, fixes.Names(), err)
				}
				for _, r := range records {
					if r.Result.Reused != nil && *r.Result.Reused%int(sp.Config.TokensPerBlock) != 0 {
						partial++
					}
				}
				if out := Check(sp, records, 10*time.Second); out.Result != porcupine.Ok {
					t.Fatalf("%s %v: %s", sc.Name, fixes.Names(), out.Describe("walk.jsonl"))
				}
			}
		}
	}
	if partial == 0 {
		t.Fatal("no emitted create reused a partial block; the test checks nothing about partial reuse")
	}
}
