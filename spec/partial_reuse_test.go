package spec

import (
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// partialConfig is testConfig with a 9-token shared prefix (it ends one
// token into block 2) and the partial-reuse switch as given.
func partialConfig(on bool) Config {
	cfg := testConfig()
	cfg.PartialReuse = on
	for i := 0; i < 2; i++ {
		cfg.Requests[i].SharedPrefix = 9
	}
	return cfg
}

// TestPartialReuseMatch: request 1 publishes its 12-token prompt; request
// 2 of the family shares 9 tokens. Whole-block reuse stops at 8; partial
// reuse takes the 9th token from the block the prefix ends inside, the
// cache references that block until its first resume copies it into a
// fresh page, and the pages stay conserved throughout.
func TestPartialReuseMatch(t *testing.T) {
	for _, tc := range []struct {
		on          bool
		reused      uint8
		shared      uint8
		freeAfterUp uint8
	}{
		{false, 8, 2, 5},
		{true, 9, 3, 4},
	} {
		sp, s, v := fixture(t, partialConfig(tc.on))
		activeCache(t, v, Target, 1, 12, 0)
		v.commitCache(Target, 1, 12, true)
		if got := v.reuseTokens(Target, 2, -1); got != tc.reused {
			t.Fatalf("partial=%v: request 2 reuses %d tokens, want %d", tc.on, got, tc.reused)
		}
		if !v.createCache(Target, 2, tc.reused) {
			t.Fatal("create failed")
		}
		c := v.cache(Target, 2)
		if c.Shared != tc.shared || c.Committed != tc.reused {
			t.Fatalf("partial=%v: created with shared %d committed %d, want %d %d", tc.on, c.Shared, c.Committed, tc.shared, tc.reused)
		}
		if f := sp.checkPoolConservation(s, sp.allRanks()); f != nil {
			t.Fatal(f.Message)
		}
		if !v.resumeCache(Target, 2) {
			t.Fatal("resume failed")
		}
		// The partially reused block became a private copy: one page taken.
		if v.pool(Target).Free != tc.freeAfterUp || c.Shared != 2 || c.Flags&flagPartialCopy != 0 {
			t.Fatalf("partial=%v: after resume free %d shared %d flags %d; want free %d shared 2",
				tc.on, v.pool(Target).Free, c.Shared, c.Flags, tc.freeAfterUp)
		}
		if f := sp.checkPoolConservation(s, sp.allRanks()); f != nil {
			t.Fatal(f.Message)
		}
	}
}

// TestPartialCopyNeedsAPage: the copy of a partially reused block is an
// allocation, so a first resume with no page to spare refuses and changes
// nothing.
func TestPartialCopyNeedsAPage(t *testing.T) {
	_, _, v := fixture(t, partialConfig(true))
	activeCache(t, v, Target, 1, 12, 0)
	v.commitCache(Target, 1, 12, true)
	activeCache(t, v, Target, 3, 20, 0) // the other 5 pages
	if !v.createCache(Target, 2, v.reuseTokens(Target, 2, -1)) {
		t.Fatal("create failed")
	}
	if v.resumeCache(Target, 2) {
		t.Fatal("resume copied a partial block with no free page")
	}
	if c := v.cache(Target, 2); c.Status != Suspended || c.Shared != 3 || c.Flags&flagPartialCopy == 0 {
		t.Fatalf("refused resume changed the cache: %+v", *c)
	}
}

// TestPartialTailPublishedAtClose: a cache that committed 6 tokens of a
// fully shared prompt publishes its partial block when it closes; a
// lookup of exactly those 6 tokens matches it whole (with or without
// partial reuse), a longer one only with partial reuse, and a later
// commit of the whole block replaces the partial one, dropping its page.
func TestPartialTailPublishedAtClose(t *testing.T) {
	cfg := partialConfig(true)
	for i := 0; i < 2; i++ {
		cfg.Requests[i].SharedPrefix = 12
	}
	sp, s, v := fixture(t, cfg)
	activeCache(t, v, Target, 1, 8, 0)
	v.commitCache(Target, 1, 6, false)
	v.closeCache(Target, 1)
	pool := v.pool(Target)
	if pool.Tree[0] != 2 || pool.TreeTail[0] != 2 || pool.Free != 6 {
		t.Fatalf("after close: tree %d tail %d free %d; want 2 blocks, the last of 2 tokens, 6 free", pool.Tree[0], pool.TreeTail[0], pool.Free)
	}
	core := v.core(Target)
	if got := core.reuse(2, 6, -1); got != 6 {
		t.Fatalf("a 6-token lookup reuses %d, want 6", got)
	}
	if got := core.reuse(2, 11, -1); got != 6 {
		t.Fatalf("an 11-token lookup reuses %d, want 6 (partial match of the 2-token block)", got)
	}
	v.cfg.PartialReuse = false
	if got, exact := core.reuse(2, 11, -1), core.reuse(2, 6, -1); got != 4 || exact != 6 {
		t.Fatalf("without partial reuse: 11-token lookup %d (want 4), 6-token lookup %d (want 6)", got, exact)
	}
	v.cfg.PartialReuse = true
	if !v.createCache(Target, 2, core.reuse(2, 11, -1)) || !v.resumeCache(Target, 2) {
		t.Fatal("create with partial reuse failed")
	}
	if ok, _ := v.resizeCache(Target, 2, 12, keep); !ok {
		t.Fatal("grow failed")
	}
	v.commitCache(Target, 2, 12, true)
	if pool.Tree[0] != 3 || pool.TreeTail[0] != 0 {
		t.Fatalf("after a full commit: tree %d tail %d; want 3 full blocks", pool.Tree[0], pool.TreeTail[0])
	}
	if f := sp.checkPoolConservation(s, sp.allRanks()); f != nil {
		t.Fatal(f.Message)
	}
}

// TestPartialReuseScenarioCounts pins what the switch changes in the
// built-in draft-admission scenarios once their shared prefix ends inside
// a block (9 tokens; as shipped it is 8, block-aligned, and nothing
// changes): more states under the fixes, the same verdicts.
func TestPartialReuseScenarioCounts(t *testing.T) {
	for _, pin := range []struct {
		scenario              string
		fixes                 []Fix
		offStates, onStates   int
		offTrans, onTrans     int
		invariant, messageHas string
	}{
		{"draft-admission", nil, 41, 41, 43, 43, InvNoCrash, "Draft KV cache context resize failed"},
		{"draft-admission", []Fix{FixJointAdmission}, 572, 714, 783, 939, "", ""},
		{"draft-admission-resume", []Fix{FixJointAdmission}, 719, 801, 875, 983, "", ""},
		{"draft-view-lag", nil, 55, 55, 57, 57, InvNoCrash, "History length cannot exceed capacity"},
	} {
		for _, on := range []bool{false, true} {
			sc, err := lookupTestScenario(pin.scenario)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := sc.Spec(FixSetOf(pin.fixes...))
			if err != nil {
				t.Fatal(err)
			}
			sp.Config.Requests = append([]RequestTemplate(nil), sp.Config.Requests...)
			for i := range sp.Config.Requests {
				sp.Config.Requests[i].SharedPrefix = 9
			}
			sp.Config.PartialReuse = on
			res := model.Check[State, Action](sp, model.Options{MaxDepth: sc.Depth, Workers: 1})
			states, trans := pin.offStates, pin.offTrans
			if on {
				states, trans = pin.onStates, pin.onTrans
			}
			if res.States != states || res.Transitions != trans {
				t.Errorf("%s %v partial=%v: %d states %d transitions, pinned %d %d", pin.scenario, pin.fixes, on, res.States, res.Transitions, states, trans)
			}
			switch {
			case pin.invariant == "" && len(res.Violations) > 0:
				t.Errorf("%s %v partial=%v: violation %s", pin.scenario, pin.fixes, on, res.Violations[0].Message)
			case pin.invariant != "" && (len(res.Violations) == 0 || res.Violations[0].Invariant != pin.invariant ||
				!strings.Contains(res.Violations[0].Message, pin.messageHas)):
				t.Errorf("%s %v partial=%v: want %s (%s), got %v", pin.scenario, pin.fixes, on, pin.invariant, pin.messageHas, res.Violations)
			}
		}
	}
}

// TestCloseKeepsTheWidestPartialTail: close publishes a cache's partial
// last block of the shared prefix (_KVCache.close's stop_committing). The
// tree holds request 1's one-token tail; request 2, which reused it and
// then committed three tokens of that block, closes: its page replaces
// the narrower unreferenced one, which goes back to the pool ("a slot
// keeps only the widest page"). Had it committed no more than the tree's
// tail, its page would simply be freed.
func TestCloseKeepsTheWidestPartialTail(t *testing.T) {
	for _, tc := range []struct {
		committed, tail uint8
	}{
		{11, 3},
		{9, 1},
	} {
		sp, s, v := fixture(t, partialConfig(true))
		pool := v.pool(Target)
		activeCache(t, v, Target, 1, 12, 0)
		v.commitCache(Target, 1, 9, false)
		v.closeCache(Target, 1)
		if pool.Tree[0] != 3 || pool.TreeTail[0] != 1 || pool.Free != 5 {
			t.Fatalf("request 1 closed: tree %d blocks, tail %d tokens, %d free; want 3, 1, 5", pool.Tree[0], pool.TreeTail[0], pool.Free)
		}
		if !v.createCache(Target, 2, v.reuseTokens(Target, 2, -1)) || !v.resumeCache(Target, 2) {
			t.Fatal("request 2: create or resume failed")
		}
		c := v.cache(Target, 2)
		if ok, raise := v.resizeCache(Target, 2, 12, int(c.Committed)); !ok || raise != ErrNone {
			t.Fatalf("resize: %v %v", ok, raise)
		}
		v.commitCache(Target, 2, tc.committed, false)
		if c.Shared != 2 || pool.Free != 4 {
			t.Fatalf("request 2 before close: shared %d, %d free; want 2, 4", c.Shared, pool.Free)
		}
		v.closeCache(Target, 2)
		if pool.Tree[0] != 3 || pool.TreeTail[0] != tc.tail || pool.Free != 5 {
			t.Errorf("committed %d, closed: tree %d blocks, tail %d tokens, %d free; want 3, %d, 5", tc.committed, pool.Tree[0], pool.TreeTail[0], pool.Free, tc.tail)
		}
		if f := sp.checkPoolConservation(s, sp.allRanks()); f != nil {
			t.Fatal(f.Message)
		}
	}
}

// TestStopCommitting: the transcripts' StopCommitting reads the flag the
// last commit (stop_committing) sets, and only then.
func TestStopCommitting(t *testing.T) {
	_, _, v := fixture(t, partialConfig(true))
	c := activeCache(t, v, Target, 1, 12, 0)
	v.commitCache(Target, 1, 8, false)
	if c.StopCommitting() {
		t.Error("StopCommitting before the last commit")
	}
	v.commitCache(Target, 1, 9, true)
	if !c.StopCommitting() {
		t.Error("not StopCommitting after the last commit")
	}
}

// TestCloseKeepsAFullTreeBlock: a cache that closes with a partial block
// where the tree already holds that block whole (request 1 shares 12
// tokens of the family's prefix, request 2 only 9 and reused the 9th from
// request 1's block under partial reuse) publishes nothing: the
// tree keeps its full block and the page goes back to the pool.
func TestCloseKeepsAFullTreeBlock(t *testing.T) {
	cfg := partialConfig(true)
	cfg.Requests[0].SharedPrefix = 12
	sp, s, v := fixture(t, cfg)
	pool := v.pool(Target)
	activeCache(t, v, Target, 1, 12, 0)
	v.commitCache(Target, 1, 12, false)
	v.closeCache(Target, 1)
	if !v.createCache(Target, 2, v.reuseTokens(Target, 2, -1)) || !v.resumeCache(Target, 2) {
		t.Fatal("request 2: create or resume failed")
	}
	c := v.cache(Target, 2)
	if ok, raise := v.resizeCache(Target, 2, 12, int(c.Committed)); !ok || raise != ErrNone {
		t.Fatalf("resize: %v %v", ok, raise)
	}
	v.commitCache(Target, 2, 9, false)
	if c.Shared != 2 || pool.Tree[0] != 3 || pool.TreeTail[0] != 0 {
		t.Fatalf("before close: shared %d, tree %d blocks, tail %d; want 2, 3, 0", c.Shared, pool.Tree[0], pool.TreeTail[0])
	}
	free := pool.Free
	v.closeCache(Target, 2)
	if pool.Tree[0] != 3 || pool.TreeTail[0] != 0 || pool.Free != free+1 {
		t.Errorf("closed: tree %d blocks, tail %d, %d free; want 3, 0, %d", pool.Tree[0], pool.TreeTail[0], pool.Free, free+1)
	}
	if f := sp.checkPoolConservation(s, sp.allRanks()); f != nil {
		t.Fatal(f.Message)
	}
}

// TestPartialReuseChangesNoShippedScenario: as shipped, every built-in
// scenario's shared prefixes end on a block boundary (or it has none), so
// enable_partial_reuse changes no variant's state space or verdict
// (docs/conformance.md says so).
func TestPartialReuseChangesNoShippedScenario(t *testing.T) {
	for _, sc := range testScenarios() {
		for _, fs := range append([][]Fix{nil}, sc.FixSets...) {
			var res [2]model.Result[Action]
			for i, on := range []bool{false, true} {
				sp, err := sc.Spec(FixSetOf(fs...))
				if err != nil {
					t.Fatal(err)
				}
				sp.Config.PartialReuse = on
				res[i] = model.Check[State, Action](sp, model.Options{Workers: 1, MaxStates: sc.MaxStates, MaxDepth: sc.Depth})
			}
			off, on := res[0], res[1]
			if off.States != on.States || off.Transitions != on.Transitions || len(off.Violations) != len(on.Violations) {
				t.Errorf("%s %v: %d states %d transitions %d violations off, %d %d %d on", sc.Name, fs,
					off.States, off.Transitions, len(off.Violations), on.States, on.Transitions, len(on.Violations))
			}
		}
	}
}
