package fuzz

import (
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
)

// reachableActions returns every action enabled in some state a few
// thousand walk steps reach.
func reachableActions(tb testing.TB, sp *spec.Spec) []spec.Action {
	var out []spec.Action
	seen := map[string]bool{}
	r := newRun[spec.State, spec.Action](sp, &Options{Seed: 1, Workers: 1, CorpusBytes: 1 << 20})
	w := r.workers[0]
	for range 200 {
		w.state = w.initial
		for range 100 {
			w.actions = sp.Actions(&w.state, w.actions[:0])
			if len(w.actions) == 0 {
				break
			}
			for _, a := range w.actions {
				if !seen[a.String()] {
					seen[a.String()] = true
					out = append(out, a)
				}
			}
			w.state = sp.Next(&w.state, w.actions[w.rng.below(len(w.actions))])
		}
	}
	return out
}

// TestRenumberIdentity: the identity renumbering keeps every action.
func TestRenumberIdentity(t *testing.T) {
	m := spec.IdentityRenumbering()
	for _, v := range crashVariants(t) {
		for _, a := range reachableActions(t, v.sp) {
			if b, ok := a.Renumber(&m); !ok || b != a {
				t.Errorf("%s: %s renumbered to %s (kept %v)", v.name(), a, b, ok)
			}
		}
	}
}

// TestDropRequestRenumbers: dropping a request template removes its
// arrival and its forward choices and moves every later ID down by one.
func TestDropRequestRenumbers(t *testing.T) {
	cfg := spec.Config{Requests: make([]spec.RequestTemplate, 3)}
	_, m := dropRequest(cfg, 2)
	tests := []struct{ in, want string }{
		{"arrive req=1", "arrive req=1"},
		{"arrive req=2", ""},
		{"arrive req=3", "arrive req=2"},
		{"forward rank=0 accept=1:1,2:0,3:1 eos=3", "forward rank=0 accept=1:1,2:1 eos=2"},
		{"schedule rank=0", "schedule rank=0"},
	}
	for _, tt := range tests {
		a, err := spec.ParseAction(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := a.Renumber(&m)
		got := ""
		if ok {
			got = b.String()
		}
		if got != tt.want {
			t.Errorf("drop request 2: %q became %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDropRankRenumbers: dropping a rank drops its requests and phases and
// moves later ranks and requests down.
func TestDropRankRenumbers(t *testing.T) {
	base := spec.Config{Ranks: 3, Requests: []spec.RequestTemplate{{Rank: 0}, {Rank: 1}, {Rank: 2}, {Rank: 1}}}
	cfg, m := dropRank(base, 1)
	if cfg.Ranks != 2 || len(cfg.Requests) != 2 || cfg.Requests[0].Rank != 0 || cfg.Requests[1].Rank != 1 {
		t.Fatalf("config after dropping rank 1: %+v", cfg)
	}
	for _, tt := range []struct{ in, want string }{
		{"arrive req=2", ""},
		{"arrive req=3", "arrive req=2"},
		{"update rank=1", ""},
		{"update rank=2", "update rank=1"},
		{"forward rank=2 accept=3:1", "forward rank=1 accept=2:1"},
		{"kv-received rank=2 req=3", "kv-received rank=1 req=2"},
		{"kv-received rank=1 req=2", ""},
		{"fetch", "fetch"},
	} {
		a, err := spec.ParseAction(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if b, ok := a.Renumber(&m); ok {
			got = b.String()
		}
		if got != tt.want {
			t.Errorf("drop rank 1: %q became %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestKVReductionsAreSmaller: every reduction of a scenario validates,
// keeps the fixes, and makes exactly one thing smaller than the original.
func TestKVReductionsAreSmaller(t *testing.T) {
	for _, v := range variants(t) {
		before := configtext.Format(&v.sp.Config)
		reductions := KVReductions(v.sp)
		if len(reductions) == 0 {
			t.Errorf("%s: no reduction", v.name())
		}
		for _, r := range reductions {
			reduced := r.Spec.(*spec.Spec)
			if reduced.Fixes != v.fixes {
				t.Errorf("%s: %s changed the fixes", v.name(), r.Name)
			}
			if err := reduced.Config.Validate(); err != nil {
				t.Errorf("%s: %s: %v", v.name(), r.Name, err)
			}
			after := configtext.Format(&reduced.Config)
			if after == before {
				t.Errorf("%s: %s changed nothing", v.name(), r.Name)
			}
			if strings.Count(after, "\nrequest ") > strings.Count(before, "\nrequest ") {
				t.Errorf("%s: %s added requests", v.name(), r.Name)
			}
		}
	}
}

// TestAdaptedTracesReplay: what a reduction's lenient replay returns is a
// strict trace of the reduced spec.
func TestAdaptedTracesReplay(t *testing.T) {
	adapted := 0
	for _, v := range crashVariants(t) {
		key := keyOf(v.check.Violations[0])
		for _, r := range KVReductions(v.sp) {
			trace, ok := adapt(r.Spec, r.Map(v.check.Violations[0].Trace), key)
			if !ok {
				continue
			}
			adapted++
			if got, err := FirstViolation(r.Spec, trace); err != nil || got == nil || got.Key != key {
				t.Errorf("%s, %s: the adapted trace replays to %+v, %v", v.name(), r.Name, got, err)
			}
		}
	}
	if adapted == 0 {
		t.Error("no reduction kept any crash")
	}
}
