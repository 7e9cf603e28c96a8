package lin

import (
	"testing"

	"github.com/kvcheck/kvcheck/spec"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestOnboardedSuspendedCacheWasResumed: a cache that is suspended before
// and after a step but whose host-tier pages came back to GPU in it (an
// admission that resumed it and was reverted, as joint-admission does on
// host-recompute-fallback) went through a resume and a suspend, which
// cacheOps must derive for the model to reproduce the pool.
func TestOnboardedSuspendedCacheWasResumed(t *testing.T) {
	sc, err := scenario.Lookup("host-recompute-fallback")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sc.Spec(0)
	if err != nil {
		t.Fatal(err)
	}
	before := spec.Cache{Status: spec.Suspended, Incarnation: 1, Capacity: 8, History: 8, Offloaded: 1}
	after := before
	after.Offloaded = 0
	var s spec.State
	ops, closeOnly := cacheOps(sp, &s, 0, 4, before, after)
	if closeOnly || len(ops) != 2 || ops[0].Kind != spec.CacheResume || ops[1].Kind != spec.CacheSuspend {
		t.Fatalf("derived %v (close only %v); want a resume then a suspend", ops, closeOnly)
	}
	same := before
	if ops, _ := cacheOps(sp, &s, 0, 4, before, same); len(ops) != 0 {
		t.Fatalf("an unchanged suspended cache derived %v; want nothing", ops)
	}
}
