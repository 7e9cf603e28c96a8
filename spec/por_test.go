package spec

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/kvcheck/kvcheck/model"
)

// TestPartialOrderClassifiesEveryProperty wants a POR class declared with
// every goal and invariant, so that a new one is argued for (or left
// unreduced) on purpose rather than by default.
func TestPartialOrderClassifiesEveryProperty(t *testing.T) {
	sp0, err := testScenarios()[0].Spec(0)
	if err != nil {
		t.Fatal(err)
	}
	names := GoalNames()
	for _, d := range sp0.invariantDecls() {
		names = append(names, d.Name)
	}
	for _, n := range slices.Compact(slices.Sorted(slices.Values(names))) {
		if porClass(sp0, n) == PORUndeclared {
			t.Errorf("%s declares no POR class: say where it is declared (GoalDef.POR, InvariantDef.POR) whether the partial-order reduction preserves it, and why (spec/por.go, Stable)\nreproduce: go test ./spec -run TestPartialOrderClassifiesEveryProperty", n)
		}
	}
}

// porVerdict is what must not depend on the reduction: the violations by
// invariant and group with their shortest depths (a livelock's the depth
// of its stem and of its first doomed state), the goals reached,
// completeness, and whether liveness ran.
func porVerdict(res model.Result[Action]) string {
	var vs []string
	for _, v := range res.Violations {
		vs = append(vs, fmt.Sprintf("%s/%s@%d", v.Invariant, v.Group, v.Depth))
		if v.Invariant == model.LivelockInvariant {
			vs = append(vs, fmt.Sprintf("doomed@%d", v.DoomedAt))
		}
	}
	slices.Sort(vs)
	var goals []string
	for _, g := range res.Goals {
		goals = append(goals, fmt.Sprintf("%s=%v", g.Name, g.Reached))
	}
	return fmt.Sprintf("violations %v goals %v complete %v liveness %v", vs, goals, res.Complete, res.LivenessChecked)
}

// checkPartialOrderAgrees checks sp with and without the reduction, with
// KeepGoing and liveness, and without KeepGoing, and wants the same
// verdicts, shortest depths and goals, and replayable traces. It returns
// the states stored without and with the reduction (KeepGoing; 0 with it
// when the unreduced search replaced the reduced one, for a livelock).
func checkPartialOrderAgrees(t *testing.T, name string, sp *Spec, depth int) (full, reduced int) {
	t.Helper()
	for _, keepGoing := range []bool{true, false} {
		opts := model.Options{MaxDepth: depth, KeepGoing: keepGoing, Liveness: true}
		want := model.Check(sp, opts)
		opts.PartialOrder = true
		got := model.Check(sp, opts)
		if w, g := porVerdict(want), porVerdict(got); w != g {
			t.Errorf("%s (keep-going %v): without the reduction %s\nwith it %s", name, keepGoing, w, g)
		}
		if !keepGoing && len(want.Violations) > 0 && want.States != got.States {
			t.Errorf("%s: a failing check stores %d states without the reduction, %d with it (the re-derivation should match)", name, want.States, got.States)
		}
		for _, v := range got.Violations {
			if _, err := model.Replay[State, Action](sp, append(slices.Clone(v.Trace), v.Cycle...)); err != nil {
				t.Errorf("%s: the reduced search's %s trace does not replay: %v", name, v.Invariant, err)
			}
		}
		if keepGoing {
			// Both reductions at once (kvcheck check --por with its default
			// --symmetry): the persistent sets are taken in the canonical
			// states, the proviso looks at the stored orbits.
			opts.Symmetry = true
			both := model.Check(sp, opts)
			if w, g := porVerdict(want), porVerdict(both); w != g {
				t.Errorf("%s: without reductions %s\nwith symmetry and the partial-order reduction %s", name, w, g)
			}
			for _, v := range both.Violations {
				if _, err := model.Replay[State, Action](sp, append(slices.Clone(v.Trace), v.Cycle...)); err != nil {
					t.Errorf("%s: with both reductions the %s trace does not replay: %v", name, v.Invariant, err)
				}
			}
			full, reduced = want.States, got.States
			if got.Rederived == got.States {
				reduced = 0 // replaced whole by the unreduced search (a livelock)
			}
			if len(want.Violations) == 0 {
				break // without KeepGoing the searches are the same
			}
		}
	}
	return full, reduced
}

// TestPartialOrderAgreesOnScenarios checks every built-in scenario variant
// with and without the reduction (see checkPartialOrderAgrees), and that
// it reduces the attention-DP scenarios that pass (a failing one stops at
// its violation, reduced or not).
func TestPartialOrderAgreesOnScenarios(t *testing.T) {
	for _, sc := range testScenarios() {
		for _, fixes := range sc.Variants() {
			sp, err := sc.Spec(fixes)
			if err != nil {
				t.Fatal(err)
			}
			name := sc.Name + " " + strings.Join(fixes.Names(), "+")
			full, reduced := checkPartialOrderAgrees(t, name, sp, sc.Depth)
			passes := sc.Expect[fixes.Label()] == VerdictOK
			if passes && sp.Config.AttentionDP && sp.Config.Loop == OverlapLoop && reduced > 0 && reduced*3 > full*2 {
				t.Errorf("%s: the reduction stores %d of %d states; want at most two thirds on two attention-DP ranks", name, reduced, full)
			}
		}
	}
}

// TestPartialOrderWorkersAgree wants the reduced search's result not to
// depend on the number of workers.
func TestPartialOrderWorkersAgree(t *testing.T) {
	sc, err := lookupTestScenario("adp-empty-batch-veto")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sc.Spec(0)
	if err != nil {
		t.Fatal(err)
	}
	one := model.Check(sp, model.Options{PartialOrder: true, Liveness: true, KeepGoing: true})
	two := model.Check(sp, model.Options{PartialOrder: true, Liveness: true, KeepGoing: true, Workers: 2})
	if one.States != two.States || one.Transitions != two.Transitions || porVerdict(one) != porVerdict(two) || one.Reduced != two.Reduced {
		t.Errorf("one worker: %d states, %d transitions, %d reduced, %s\ntwo workers: %d states, %d transitions, %d reduced, %s",
			one.States, one.Transitions, one.Reduced, porVerdict(one), two.States, two.Transitions, two.Reduced, porVerdict(two))
	}
	if !one.PartialOrder || one.Reduced == 0 {
		t.Errorf("the reduction was not used (PartialOrder %v, %d states reduced)", one.PartialOrder, one.Reduced)
	}
}

// TestPartialOrderSpecRules checks, over the reachable states of the
// multi-rank scenarios, the rules Persistent and Stable rest on: a
// rank-local step changes only its own rank (and the crash record), never
// the values ranks-agree compares, and never enters the window in which
// can_queue is compared; and the steps of the set Persistent picks commute
// with every other enabled step (each stays enabled after the other, and
// both orders reach the same state), unless one crashes.
func TestPartialOrderSpecRules(t *testing.T) {
	for _, sc := range testScenarios() {
		if sc.Config.Ranks < 2 || sc.Config.Loop == PipelineLoop {
			continue
		}
		for _, fixes := range sc.Variants() {
			sp, err := sc.Spec(fixes)
			if err != nil {
				t.Fatal(err)
			}
			checkSpecRules(t, sc.Name+" "+strings.Join(fixes.Names(), "+"), sp, 3000)
		}
	}
}

// checkSpecRules explores up to limit states of sp breadth-first and checks
// the rules of TestPartialOrderSpecRules in each.
func checkSpecRules(t *testing.T, name string, sp *Spec, limit int) {
	t.Helper()
	init := sp.Initial()
	seen := map[uint64]bool{sp.Fingerprint(&init): true}
	queue := []State{init}
	var enabled, after []Action
	var set []int32
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		enabled = sp.Actions(&s, enabled[:0])
		for _, a := range enabled {
			next := sp.Next(&s, a)
			if r, collective := sp.Locality(a); !collective {
				if where := changedOutside(sp, &s, &next, r); where != "" {
					t.Fatalf("%s: %s changed %s, outside rank %d\nstate:\n%s", name, a, where, r, sp.Dump(&s))
				}
				if !next.Crash.Happened && sp.Config.AttentionDP {
					before, now := &s.Ranks[r], &next.Ranks[r]
					leaves := afterCanQueue(before.Phase) && !afterCanQueue(now.Phase)
					if before.ExpectedActive != now.ExpectedActive || before.CanQueue != now.CanQueue && !leaves || afterCanQueue(now.Phase) && !afterCanQueue(before.Phase) {
						t.Fatalf("%s: %s changed what ranks-agree compares\nstate:\n%s", name, a, sp.Dump(&s))
					}
				}
			}
			if fp := sp.Fingerprint(&next); !seen[fp] && len(seen) < limit {
				seen[fp] = true
				queue = append(queue, next)
			}
		}
		set = sp.Persistent(&s, enabled, set[:0])
		for _, k := range set {
			a := enabled[k]
			sa := sp.Next(&s, a)
			if sa.Crash.Happened {
				continue
			}
			for j, b := range enabled {
				if slices.Contains(set, int32(j)) {
					continue
				}
				sb := sp.Next(&s, b)
				if sb.Crash.Happened {
					continue
				}
				after = sp.Actions(&sa, after[:0])
				if !containsAction(after, b) {
					t.Fatalf("%s: %s (outside the persistent set) is disabled by %s\nstate:\n%s", name, b, a, sp.Dump(&s))
				}
				after = sp.Actions(&sb, after[:0])
				if !containsAction(after, a) {
					t.Fatalf("%s: %s (in the persistent set) is disabled by %s\nstate:\n%s", name, a, b, sp.Dump(&s))
				}
				ab, ba := sp.Next(&sa, b), sp.Next(&sb, a)
				if sp.Fingerprint(&ab) != sp.Fingerprint(&ba) {
					t.Fatalf("%s: %s and %s do not commute\nstate:\n%s", name, a, b, sp.Dump(&s))
				}
			}
		}
	}
}

// changedOutside returns what the step from s to next changed outside rank
// r and the crash record, or "".
func changedOutside(sp *Spec, s, next *State, r uint8) string {
	if s.Arrived != next.Arrived || s.PipelineLen != next.PipelineLen || s.Pipeline != next.Pipeline {
		return "the arrivals or the pipeline records"
	}
	for q := uint8(0); q < sp.Config.Ranks; q++ {
		if q != r && !rankBytesEqual(&s.Ranks[q], &next.Ranks[q]) {
			return fmt.Sprintf("rank %d", q)
		}
	}
	return ""
}

// rankBytesEqual compares two ranks byte for byte (the state is canonical
// bytes, see Spec.StateSize).
func rankBytesEqual(a, b *Rank) bool {
	size := int(unsafe.Sizeof(Rank{}))
	return string(unsafe.Slice((*byte)(unsafe.Pointer(a)), size)) == string(unsafe.Slice((*byte)(unsafe.Pointer(b)), size))
}

func containsAction(actions []Action, a Action) bool {
	for _, b := range actions {
		if b == a {
			return true
		}
	}
	return false
}
