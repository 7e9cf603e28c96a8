package sweep

import (
	"slices"
	"testing"

	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/space"
)

func TestParseShard(t *testing.T) {
	for _, ok := range []string{"0/1", "3/4"} {
		if s, err := ParseShard(ok); err != nil || s.String() != ok {
			t.Errorf("%s: %v %v", ok, s, err)
		}
	}
	for _, bad := range []string{"", "1", "4/4", "-1/2", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	owned := 0
	for i := range 10 {
		n := 0
		for k := range 3 {
			if (Shard{k, 3}).Owns(i) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("configuration %d owned by %d shards", i, n)
		}
		if (Shard{}).Owns(i) {
			owned++
		}
	}
	if owned != 10 {
		t.Fatal("the zero shard does not own everything")
	}
}

// TestFoldCutoffAndMissingShard: the report needs the configurations up to
// the end of the first violation's size class; with a shard missing it
// says which, and is incomplete.
func TestFoldCutoffAndMissingShard(t *testing.T) {
	h := Header{Scenario: "s", Total: 6, Shard: "0/2", Space: "x", Engine: "e"}
	rec := func(i int, size int, violation bool, steps int) Record {
		r := Record{Index: i, Result: ResultOK, Complete: true, Requests: size, Pages: 4, Ranks: 1}
		if violation {
			r.Result, r.Invariant = ResultViolation, "inv"
			r.Trace = make([]string, steps)
		}
		return r
	}
	even := Part{Header: h, Records: []Record{rec(0, 1, false, 0), rec(2, 2, true, 9), rec(4, 3, true, 1)}}
	h.Shard = "1/2"
	odd := Part{Header: h, Records: []Record{rec(1, 1, false, 0), rec(3, 2, true, 5), rec(5, 3, false, 0)}}
	rep, err := Fold([]Part{even, odd})
	if err != nil {
		t.Fatal(err)
	}
	// Indices 2 and 3 are one size class: the shorter trace (index 3) is
	// the smallest; index 4's shorter trace is in a larger class.
	if rep.Needed != 4 || rep.Configurations != 4 || !rep.Complete || rep.Smallest == nil || rep.Smallest.Index != 3 || rep.Violating != 2 {
		t.Fatalf("%+v %+v", rep, rep.Smallest)
	}
	rep, err = Fold([]Part{even})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Complete || rep.Configurations != 2 || !slices.Equal(rep.MissingShards, []string{"1/2"}) {
		t.Fatalf("one shard: %+v", rep)
	}
	odd.Header.Space = "y"
	if _, err := Fold([]Part{even, odd}); err == nil {
		t.Fatal("shards of two spaces folded")
	}
}

// TestCachedRecordTakesTheConfigurationsSize: a cached result (Annotate
// stores its checks with no size) is reported with the size and text of
// the configuration it is looked up for, so size classes and the smallest
// counterexample do not depend on what filled the cache.
func TestCachedRecordTakesTheConfigurationsSize(t *testing.T) {
	sc, err := scenario.Lookup("adp-dummy-leak")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := space.NewConfigSpace(sc.Config, []string{"requests=1", "prompt_pages=1", "new_tokens=1", "target_blocks=3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	configs, _, err := cs.Enumerate()
	if err != nil || len(configs) == 0 {
		t.Fatal(err, len(configs))
	}
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v, search := Variant{Scenario: sc}, Search{MaxStates: 1000}
	cache.Store(v, cache.Key(v, search, configs[0].Key), Record{Result: ResultViolation, Invariant: "stored", Trace: []string{"arrive req=1"}})
	var got Record
	if cached := Run(v, configs[:1], Options{Search: search, Workers: 1, Cache: cache}, func(r Record) { got = r }); cached != 1 {
		t.Fatalf("%d from the cache", cached)
	}
	c := configs[0]
	if got.Invariant != "stored" || got.Requests != c.Requests || got.Pages != c.Pages || got.Ranks != c.Ranks || got.Config != c.Text() {
		t.Fatalf("%+v, want the size %d/%d/%d and text of configuration 0", got, c.Requests, c.Pages, c.Ranks)
	}
}
