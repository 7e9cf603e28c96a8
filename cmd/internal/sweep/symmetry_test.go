package sweep

import (
	"testing"

	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/space"
)

// TestSweepSymmetry: a sweep over two-rank configurations gives every
// configuration the same verdict with and without symmetry reduction, in
// no more states and in fewer where two ranks hold alike requests; the
// results cache keeps the two apart.
func TestSweepSymmetry(t *testing.T) {
	sc, err := scenario.Lookup("adp-veto-generation")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := space.NewConfigSpace(sc.Config, []string{"requests=2", "ranks=2", "prompt_pages=1", "new_tokens=1", "target_blocks=4"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	configs, _, err := cs.Enumerate()
	if err != nil || len(configs) == 0 {
		t.Fatal(err, len(configs))
	}
	v := Variant{Scenario: sc}
	run := func(symmetry bool) []Record {
		var out []Record
		Run(v, configs, Options{Search: Search{MaxStates: 20000, Liveness: true, Symmetry: symmetry}, Workers: 1, KeepGoing: true}, func(r Record) { out = append(out, r) })
		return out
	}
	plain, sym := run(false), run(true)
	fewer := 0
	for i := range plain {
		a, b := plain[i], sym[i]
		if a.Result != b.Result || a.Invariant != b.Invariant || len(a.Trace) != len(b.Trace) || b.States > a.States {
			t.Errorf("%s:\nwithout symmetry %s %s in %d steps, %d states; with %s %s in %d steps, %d states", a.Config, a.Result, a.Invariant, len(a.Trace), a.States, b.Result, b.Invariant, len(b.Trace), b.States)
		}
		if b.States < a.States {
			fewer++
		}
	}
	if fewer == 0 {
		t.Errorf("symmetry reduced none of %d configurations", len(plain))
	}
	t.Logf("%d configurations, %d reduced", len(plain), fewer)
	cache := &Cache{engine: "0123456789abcdef0123"}
	if cache.Key(v, Search{Symmetry: true}, "k") == cache.Key(v, Search{}, "k") {
		t.Error("the cache key does not tell symmetry on from off")
	}
}
