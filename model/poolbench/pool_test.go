package poolbench_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/model/poolbench"
)

func newPool(t testing.TB, cfg poolbench.Config) *poolbench.Pool {
	t.Helper()
	p, err := poolbench.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func actionStrings(p *poolbench.Pool, trace []poolbench.Action) string {
	parts := make([]string, len(trace))
	for i, a := range trace {
		parts[i] = p.ActionString(a)
	}
	return strings.Join(parts, " -> ")
}

// TestExhaustiveDefault pins the state space of pool.pml's defaults: SPIN
// stores one more state and two more transitions for init.
func TestExhaustiveDefault(t *testing.T) {
	p := newPool(t, poolbench.DefaultConfig)
	r := model.Check(p, model.Options{Workers: 2})
	if r.States != 864517 || r.Transitions != 4571848 || r.Depth != 13 || !r.Complete {
		t.Errorf("got %d states, %d transitions, depth %d, complete %v; want 864517, 4571848, 13, true",
			r.States, r.Transitions, r.Depth, r.Complete)
	}
	if len(r.Violations) != 0 {
		t.Errorf("violations: %+v", r.Violations)
	}
	for _, g := range r.Goals {
		if !g.Reached {
			t.Errorf("goal %s not reached", g.Name)
		}
	}
}

func TestBugShortestCounterexample(t *testing.T) {
	cfg := poolbench.DefaultConfig
	cfg.Bug = true
	p := newPool(t, cfg)
	for _, workers := range []int{1, 2} {
		r := model.Check(p, model.Options{Workers: workers})
		if len(r.Violations) != 1 {
			t.Fatalf("workers %d: violations %+v, want one", workers, r.Violations)
		}
		v := r.Violations[0]
		const want = "allocate(1) q0 -> free q0 -> grow q0 -> flush r0"
		if got := actionStrings(p, v.Trace); v.Invariant != "conservation" || got != want || v.Depth != 4 {
			t.Errorf("workers %d: %s at depth %d via %q; want conservation at 4 via %q", workers, v.Invariant, v.Depth, got, want)
		}
		states, err := model.Replay(p, v.Trace)
		if err != nil {
			t.Fatal(err)
		}
		last := states[len(states)-1]
		if last.Free != 6 || last.Held != [poolbench.MaxSlots]uint8{} {
			t.Errorf("final state %+v: want 6 free blocks (one leaked) and nothing held", last)
		}
		failures := model.CheckState(p, &last)
		if len(failures) != 1 || failures[0].Invariant != "conservation" {
			t.Errorf("CheckState = %+v, want a conservation failure only", failures)
		}
	}
	// Without the bug the same trace is not even enabled: a freeing request cannot grow.
	if _, err := model.Replay(newPool(t, poolbench.DefaultConfig), model.Check(p, model.Options{}).Violations[0].Trace); err == nil {
		t.Error("the bug trace replays on the correct pool")
	}
}

// TestDeferredFreesAreFIFO checks that flush drains a rank's deferred frees
// in the order they were queued.
func TestDeferredFreesAreFIFO(t *testing.T) {
	p := newPool(t, poolbench.DefaultConfig)
	var trace []poolbench.Action
	for _, line := range []string{"allocate(2) q0", "allocate(1) q1", "grow q1", "free q1", "free q0", "flush r0"} {
		a, err := poolbench.ParseAction(line)
		if err != nil {
			t.Fatal(err)
		}
		trace = append(trace, a)
	}
	states, err := model.Replay(p, trace)
	if err != nil {
		t.Fatal(err)
	}
	s := states[len(states)-1]
	want := poolbench.State{Free: 5}
	want.Owner[0], want.Owner[1] = 1, 1 // q0 keeps its blocks until the next flush
	want.Held[0], want.Status[0] = 2, poolbench.Freeing
	want.Queue[0], want.Len[0] = 0, 1
	if s != want {
		t.Errorf("after flush:\n got %+v\nwant %+v", s, want)
	}
	if states[4].Queue[0] != 1 || states[5].Queue[1] != 0 || states[5].Len[0] != 2 {
		t.Errorf("queue before flush: %v len %d, want [1 0 ...] len 2", states[5].Queue, states[5].Len[0])
	}
}

// reachable returns the states of p within maxDepth steps of Initial (all
// of them if maxDepth < 0), found by a search keyed by the states themselves.
func reachable(p *poolbench.Pool, maxDepth int) map[poolbench.State]bool {
	seen := map[poolbench.State]bool{p.Initial(): true}
	level := []poolbench.State{p.Initial()}
	var actions []poolbench.Action
	for depth := 0; len(level) > 0 && depth != maxDepth; depth++ {
		var next []poolbench.State
		for _, s := range level {
			for _, a := range p.Actions(&s, actions[:0]) {
				if n := p.Next(&s, a); !seen[n] {
					seen[n] = true
					next = append(next, n)
				}
			}
		}
		level = next
	}
	return seen
}

// TestFingerprintsDoNotCollide compares Check's count with a search keyed by
// the states themselves.
func TestFingerprintsDoNotCollide(t *testing.T) {
	cfg := poolbench.DefaultConfig
	cfg.Blocks = 5
	p := newPool(t, cfg)
	want := len(reachable(p, -1))
	if r := model.Check(p, model.Options{}); r.States != want || !r.Complete {
		t.Errorf("Check stored %d states (complete %v); a search by value finds %d", r.States, r.Complete, want)
	}
}

func TestPoolParallelMatchesSequential(t *testing.T) {
	p := newPool(t, poolbench.DefaultConfig)
	want := model.Check(p, model.Options{MaxDepth: 8})
	want.Elapsed = 0
	got := model.Check(p, model.Options{MaxDepth: 8, Workers: 3})
	got.Elapsed = 0
	// The visited set's size is not part of the outcome: several workers
	// grow its shards ahead of need, at different fills (model's
	// pipelined.go).
	got.Usage.VisitedBytes = want.Usage.VisitedBytes
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Workers 3: %+v\nWorkers 1: %+v", got, want)
	}
}

func TestActionStringRoundTrip(t *testing.T) {
	cfg := poolbench.DefaultConfig
	cfg.Bug = true
	p := newPool(t, cfg)
	kinds := map[poolbench.Kind]bool{}
	var actions []poolbench.Action
	for s := range reachable(p, 4) {
		for _, a := range p.Actions(&s, actions[:0]) {
			kinds[a.Kind] = true
			if b, err := poolbench.ParseAction(p.ActionString(a)); err != nil || b != a {
				t.Errorf("round trip of %+v: %+v, %v", a, b, err)
			}
		}
	}
	if len(kinds) != 5 {
		t.Errorf("kinds of action seen: %v, want all 5", kinds)
	}
	for _, bad := range []string{"", "grow", "grow r0", "flush q0", "allocate(0) q0", "allocate(x) q0", "jump q0", "free q999"} {
		if a, err := poolbench.ParseAction(bad); err == nil {
			t.Errorf("ParseAction(%q) = %+v, want an error", bad, a)
		}
	}
}

// TestNewChecksBounds: New accepts each limit of Config's ranges and
// rejects one past it.
func TestNewChecksBounds(t *testing.T) {
	ok := poolbench.Config{Blocks: 7, Requests: 2, MaxK: 2, MaxH: 3}
	for _, c := range []struct {
		set   func(*poolbench.Config)
		valid bool
	}{
		{func(c *poolbench.Config) { c.Blocks = 0 }, false},
		{func(c *poolbench.Config) { c.Blocks, c.MaxK = 1, 1 }, true},
		{func(c *poolbench.Config) { c.Blocks = poolbench.MaxBlocks }, true},
		{func(c *poolbench.Config) { c.Blocks = poolbench.MaxBlocks + 1 }, false},
		{func(c *poolbench.Config) { c.Requests = 0 }, false},
		{func(c *poolbench.Config) { c.Requests = 1 }, true},
		{func(c *poolbench.Config) { c.Requests = poolbench.MaxRequests }, true},
		{func(c *poolbench.Config) { c.Requests = poolbench.MaxRequests + 1 }, false},
		{func(c *poolbench.Config) { c.MaxK = 0 }, false},
		{func(c *poolbench.Config) { c.MaxK = 1 }, true},
		{func(c *poolbench.Config) { c.MaxK = 7 }, true},
		{func(c *poolbench.Config) { c.MaxK = 8 }, false},
		{func(c *poolbench.Config) { c.MaxH = 0 }, false},
		{func(c *poolbench.Config) { c.MaxH = 1 }, true},
		{func(c *poolbench.Config) { c.MaxH = 255 }, true},
		{func(c *poolbench.Config) { c.MaxH = 256 }, false},
	} {
		cfg := ok
		c.set(&cfg)
		if _, err := poolbench.New(cfg); (err == nil) != c.valid {
			t.Errorf("New(%+v): error %v, want valid %v", cfg, err, c.valid)
		}
	}
}

// TestInvariantsCatchPlantedBugs: each invariant fires on a state that
// breaks it, naming the request and the counts.
func TestInvariantsCatchPlantedBugs(t *testing.T) {
	p := newPool(t, poolbench.DefaultConfig)
	s := p.Initial()
	s.Owner[0], s.Held[1], s.Free = 2, 1, 6 // q1 holds block 0
	for _, inv := range p.Invariants() {
		if f := inv.Check(&s); f != nil {
			t.Fatalf("%s fires on a consistent state: %s", inv.Name, f.Message)
		}
	}
	want := map[string]string{
		"conservation": "I1: nfree 7 + held 1 != 7 blocks",
		"owner-table":  "I2: request q1 owns 0 blocks but held = 1",
	}
	broken := map[string]func(*poolbench.State){
		"conservation": func(s *poolbench.State) { s.Free = 7 },
		"owner-table":  func(s *poolbench.State) { s.Owner[0] = 0 },
	}
	for _, inv := range p.Invariants() {
		plant, ok := broken[inv.Name]
		if !ok {
			continue
		}
		bad := s
		plant(&bad)
		if f := inv.Check(&bad); f == nil || f.Message != want[inv.Name] {
			t.Errorf("%s on a planted bug: %+v, want %q", inv.Name, f, want[inv.Name])
		}
		delete(broken, inv.Name)
	}
	if len(broken) != 0 {
		t.Errorf("invariants %v not found", broken)
	}
}
