package spec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
)

// symmetric returns cfg with its requests replaced so that every rank gets
// the same templates in the same order: templates (indices into
// cfg.Requests) on each of ranks ranks, interleaved template by template
// or rank by rank.
func symmetric(cfg Config, ranks int, templates []int, interleave bool) Config {
	base := cfg.Requests
	cfg.Ranks = uint8(ranks)
	cfg.Requests = nil
	n := len(templates)
	for i := 0; i < n*ranks; i++ {
		t, r := i%n, i/n
		if interleave {
			t, r = i/ranks, i%ranks
		}
		tpl := base[templates[t]%len(base)]
		tpl.Rank = uint8(r)
		cfg.Requests = append(cfg.Requests, tpl)
	}
	return cfg
}

// symmetryConfigs returns the configurations the symmetry tests explore:
// every multi-rank built-in scenario outside the pipeline loop (whose own
// request layouts have no symmetry) made symmetric, on two ranks with both
// interleavings and on three ranks, under each variant's fixes; and random
// configurations whose ranks hold alike request lists, wholly or in part.
func symmetryConfigs(t *testing.T, random int) []*Spec {
	t.Helper()
	var out []*Spec
	for _, sc := range testScenarios() {
		if sc.Config.Ranks < 2 || sc.Config.Loop == PipelineLoop {
			continue
		}
		for v, fixes := range sc.Variants() {
			last := len(sc.Config.Requests) - 1
			layouts := []struct {
				ranks      int
				templates  []int
				interleave bool
			}{{2, []int{last, 0}, false}, {2, []int{0, 1}, true}, {3, []int{last}, true}}
			if v > 0 { // the other variants in one layout
				layouts = layouts[:1]
			}
			for _, layout := range layouts {
				sp, err := New(symmetric(sc.Config, layout.ranks, layout.templates, layout.interleave), fixes)
				if err != nil {
					t.Fatalf("%s: %v", sc.Name, err)
				}
				sp.Scenario = sc.Info()
				out = append(out, sp)
			}
		}
	}
	rng := rand.New(rand.NewPCG(11, 23))
	for found := 0; found < random; {
		cfg, ok := randomConfig(rng)
		if !ok || cfg.Ranks < 2 || cfg.Loop == PipelineLoop {
			continue
		}
		// Rank 0's requests are copied onto some other ranks, then all are
		// shuffled, keeping each rank's order.
		var own [MaxRanks][]RequestTemplate
		for _, r := range cfg.Requests {
			own[r.Rank] = append(own[r.Rank], r)
		}
		own[0] = own[0][:min(len(own[0]), 2)]
		for r := 1; r < int(cfg.Ranks); r++ {
			if rng.IntN(3) != 0 {
				own[r] = slices.Clone(own[0])
			}
			own[r] = own[r][:min(len(own[r]), 2)]
			for i := range own[r] {
				own[r][i].Rank = uint8(r)
			}
		}
		cfg.Requests = nil
		for {
			var ready []int
			for r := range own {
				if len(own[r]) > 0 {
					ready = append(ready, r)
				}
			}
			if len(ready) == 0 {
				break
			}
			r := ready[rng.IntN(len(ready))]
			cfg.Requests = append(cfg.Requests, own[r][0])
			own[r] = own[r][1:]
		}
		sp, err := New(cfg, Fixes(rng.Uint32())&AllFixSet())
		if err != nil || sp.symmetry == nil {
			continue
		}
		out = append(out, sp)
		found++
	}
	return out
}

// sampleStates returns up to bfs states of sp in breadth-first order, then
// the states along walks random walks of up to depth steps.
func sampleStates(sp *Spec, rng *rand.Rand, bfs, walks, depth int) []State {
	seen := map[uint64]bool{}
	init := sp.Initial()
	out := []State{init}
	seen[sp.Fingerprint(&init)] = true
	for i := 0; i < len(out) && len(out) < bfs; i++ {
		for _, a := range sp.Actions(&out[i], nil) {
			next := sp.Next(&out[i], a)
			if fp := sp.Fingerprint(&next); !seen[fp] && len(out) < bfs {
				seen[fp] = true
				out = append(out, next)
			}
		}
	}
	for range walks {
		s := init
		for range depth {
			acts := sp.Actions(&s, nil)
			if len(acts) == 0 {
				break
			}
			s = sp.Next(&s, acts[rng.IntN(len(acts))])
			if fp := sp.Fingerprint(&s); !seen[fp] {
				seen[fp] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// symmetryBreak returns how g (applied by apply) fails to be a symmetry of
// sp in s, or "": the actions enabled in g·s must be the images of those
// enabled in s, each successor of g·s the image of the successor of s,
// every invariant, goal and IsTerminal must judge g·s as s, and g·s must
// have the canonical form of s.
func symmetryBreak(sp *Spec, s *State, g *rankSymmetry, apply func(dst, s *State)) string {
	size := sp.StateSize()
	var gs State
	apply(&gs, s)
	acts := sp.Actions(s, nil)
	var want, got []string
	for _, a := range acts {
		want = append(want, g.applyAction(a).String())
	}
	for _, a := range sp.Actions(&gs, nil) {
		got = append(got, a.String())
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		return fmt.Sprintf("actions of g·s %q, images of the actions of s %q", got, want)
	}
	for _, a := range acts {
		next := sp.Next(s, a)
		var image State
		apply(&image, &next)
		gnext := sp.Next(&gs, g.applyAction(a))
		if !bytes.Equal(stateBytes(&image, size), stateBytes(&gnext, size)) {
			return fmt.Sprintf("after %s: g·next differs from next(g·s, %s):\n%s\nagainst\n%s", a, g.applyAction(a), sp.Dump(&image), sp.Dump(&gnext))
		}
	}
	for _, inv := range sp.Invariants() {
		if (inv.Check(s) == nil) != (inv.Check(&gs) == nil) {
			return fmt.Sprintf("invariant %s judges s and g·s differently", inv.Name)
		}
	}
	for _, goal := range allGoals {
		if goal.Reached(sp, s) != goal.Reached(sp, &gs) {
			return fmt.Sprintf("goal %s judges s and g·s differently", goal.Name)
		}
	}
	if sp.IsTerminal(s) != sp.IsTerminal(&gs) {
		return "IsTerminal judges s and g·s differently"
	}
	cs, cg := *s, gs
	sp.Canonicalize(&cs)
	sp.Canonicalize(&cg)
	if !bytes.Equal(stateBytes(&cs, size), stateBytes(&cg, size)) {
		return "s and g·s have different canonical forms"
	}
	return ""
}

// checkSymmetrySound runs symmetryBreak on every state of states and every
// group element valid there, applied by apply (nil: the real one), and
// returns the first break and the number of (state, element) pairs checked.
func checkSymmetrySound(sp *Spec, states []State, apply func(g *rankSymmetry, dst, s *State)) (string, int) {
	if apply == nil {
		apply = func(g *rankSymmetry, dst, s *State) { g.apply(dst, s, int(sp.Config.Ranks)) }
	}
	checked := 0
	for i := range states {
		s := &states[i]
		for _, g := range sp.symmetry.byArrived[s.Arrived] {
			checked++
			if msg := symmetryBreak(sp, s, &g, func(dst, s *State) { apply(&g, dst, s) }); msg != "" {
				return fmt.Sprintf("g = ranks %v ids %v in\n%s\n%s", g.rank[:sp.Config.Ranks], g.id, sp.Dump(s), msg), checked
			}
		}
	}
	return "", checked
}

// TestSymmetrySound checks the rank symmetry (symmetry.go) over reachable
// states of every multi-rank scenario made symmetric and of random
// configurations: every group element valid in a state commutes with
// Actions and Next byte for byte, and no invariant, goal or IsTerminal
// tells a state from its images.
func TestSymmetrySound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	random := 12
	if n, err := strconv.Atoi(os.Getenv("KVCHECK_SYMMETRY_CONFIGS")); err == nil {
		random = n
	}
	if testing.Short() {
		random = 4
	}
	total := 0
	for i, sp := range symmetryConfigs(t, random) {
		if sp.symmetry == nil {
			t.Fatalf("configuration %d has no symmetry:\n%s", i, formatConfigText(&sp.Config))
		}
		states := sampleStates(sp, rng, 300, 12, 150)
		msg, checked := checkSymmetrySound(sp, states, nil)
		if msg != "" {
			t.Fatalf("configuration %d (fixes %v):\n%s%s\nreproduce: go test ./spec/ -run TestSymmetrySound", i, sp.Fixes.Names(), formatConfigText(&sp.Config), msg)
		}
		total += checked
	}
	if total < 5000 {
		t.Fatalf("only %d (state, symmetry) pairs checked", total)
	}
	t.Logf("%d (state, symmetry) pairs checked", total)
}

// TestSymmetryTestCatchesPlantedBugs plants wrong mappings into the group
// elements' application and checks that the soundness check catches each:
// a field left unpermuted, and a bijection that swaps two same-template
// requests of one rank (which is not a symmetry: first come, first served
// orders a rank's requests by ID).
func TestSymmetryTestCatchesPlantedBugs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	sc, err := lookupTestScenario("adp-dummy-leak")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := New(symmetric(sc.Config, 2, []int{2, 0}, true), sc.Variants()[1])
	if err != nil {
		t.Fatal(err)
	}
	states := sampleStates(sp, rng, 3000, 30, 150)
	planted := map[string]func(g *rankSymmetry, dst, s *State){
		"batch IDs not mapped": func(g *rankSymmetry, dst, s *State) {
			g.apply(dst, s, 2)
			for r := range 2 {
				for i := range dst.Ranks[g.rank[r]].Batch.Entries {
					dst.Ranks[g.rank[r]].Batch.Entries[i].ID = s.Ranks[r].Batch.Entries[i].ID
				}
			}
		},
		"previous batch IDs not mapped": func(g *rankSymmetry, dst, s *State) {
			g.apply(dst, s, 2)
			for r := range 2 {
				for i := range dst.Ranks[g.rank[r]].Previous.Entries {
					dst.Ranks[g.rank[r]].Previous.Entries[i].ID = s.Ranks[r].Previous.Entries[i].ID
				}
			}
		},
		"draft caches not mapped": func(g *rankSymmetry, dst, s *State) {
			g.apply(dst, s, 2)
			for r := range 2 {
				dst.Ranks[g.rank[r]].Pools[Draft].Caches = s.Ranks[r].Pools[Draft].Caches
			}
		},
		"ranks' request slots not permuted": func(g *rankSymmetry, dst, s *State) {
			g.apply(dst, s, 2)
			for r := range 2 {
				dst.Ranks[r].Requests = s.Ranks[r].Requests
			}
		},
	}
	for name, apply := range planted {
		if msg, _ := checkSymmetrySound(sp, states, apply); msg == "" {
			t.Errorf("planted bug %q not caught", name)
		}
	}

	// The crash's rank, on overlap-two-ranks's real code, which crashes.
	crashing, err := lookupTestScenario("overlap-two-ranks")
	if err != nil {
		t.Fatal(err)
	}
	csp, err := New(symmetric(crashing.Config, 2, []int{0, 2}, true), 0)
	if err != nil {
		t.Fatal(err)
	}
	crashRankKept := func(g *rankSymmetry, dst, s *State) {
		g.apply(dst, s, 2)
		dst.Crash.Rank = s.Crash.Rank
	}
	if msg, _ := checkSymmetrySound(csp, sampleStates(csp, rng, 500, 20, 150), crashRankKept); msg == "" {
		t.Errorf("planted bug %q not caught", "crash rank not mapped")
	}

	// Two same-template requests on one rank: swapping them is not a
	// symmetry.
	cfg := sc.Config
	cfg.Requests = []RequestTemplate{{PromptLen: 4, MaxNewTokens: 2, Family: NoFamily}, {PromptLen: 4, MaxNewTokens: 2, Family: NoFamily}}
	if sp, err = New(cfg, sc.Variants()[1]); err != nil {
		t.Fatal(err)
	}
	swap := rankSymmetry{rank: [MaxRanks]uint8{0, 1, 2, 3}, id: [MaxIDs]uint8{0, 2, 1, 3, 4, 5, 6, 7, 8}}
	states = sampleStates(sp, rng, 3000, 0, 0)
	broke := 0
	for i := range states {
		if s := &states[i]; s.Arrived == 2 {
			if symmetryBreak(sp, s, &swap, func(dst, s *State) { swap.apply(dst, s, 2) }) != "" {
				broke++
			}
		}
	}
	if broke == 0 {
		t.Errorf("swapping two same-template requests of one rank broke no state: requests of a rank would be interchangeable")
	}
}
