package fuzz

import (
	"slices"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/model/poolbench"
	"github.com/kvcheck/kvcheck/spec"
)

// TestShrinkMatchesExhaustive: the crash a plain walk finds (long walks,
// so its trace is long) shrinks to exactly the checker's shortest trace
// length for the same violation; the configuration reductions keep the
// violation, never lengthen the trace, and end at the checker's shortest
// on the reduced configuration.
func TestShrinkMatchesExhaustive(t *testing.T) {
	longer := false // some found trace was longer than the shortest
	defer func() {
		if !longer {
			t.Error("every walk found a shortest trace already: nothing was shrunk")
		}
	}()
	for _, v := range crashVariants(t) {
		res := Run(v.sp, Options{Seed: 2, Mode: ModePlain, Walks: 100_000})
		if res.Violation == nil {
			t.Errorf("%s: no violation to shrink", v.name())
			continue
		}
		found := res.Violation
		longer = longer || len(found.Trace) > len(v.shortest(found.Key))
		shrunk, err := Shrink[spec.State, spec.Action](v.sp, found.Trace, found.Key, KVShrinkOptions())
		if err != nil {
			t.Fatalf("%s: %v", v.name(), err)
		}
		want := v.shortest(found.Key)
		if len(shrunk.Trace) != len(want) || !shrunk.Optimal {
			t.Errorf("%s: %d steps shrank to %d (optimal %v); the checker's shortest has %d:%s",
				v.name(), len(found.Trace), len(shrunk.Trace), shrunk.Optimal, len(want), lines(shrunk.Trace))
		}
		if again, err := replayViolation(v.sp, shrunk.Trace, found.Key); err != nil || again == nil || again.Key != found.Key || again.Message != shrunk.Message {
			t.Errorf("%s: the shrunk trace replays to %+v, %v", v.name(), again, err)
		}
		red := shrunk.Reduced
		if red == nil {
			continue
		}
		if len(red.Trace) > len(shrunk.Trace) {
			t.Errorf("%s: reductions %v lengthened the trace to %d", v.name(), red.Steps, len(red.Trace))
		}
		again, err := FirstViolation(red.Spec, red.Trace)
		if err != nil || again == nil || again.Key != found.Key {
			t.Errorf("%s: the reduced trace replays to %+v, %v", v.name(), again, err)
		}
		check := model.Check(red.Spec, model.Options{MaxStates: checkStates, KeepGoing: true, MaxDepth: len(red.Trace)})
		for _, cv := range check.Violations {
			if keyOf(cv) == found.Key && len(cv.Trace) != len(red.Trace) {
				t.Errorf("%s: reduced trace %d steps, the checker's shortest on that configuration %d", v.name(), len(red.Trace), len(cv.Trace))
			}
		}
	}
}

// TestShrinkTranscript: a transcript given as lines (here those of the
// longest crash among a few plain walks) parses and shrinks back to the
// checker's length.
func TestShrinkTranscript(t *testing.T) {
	var v *variant
	var want model.Violation[spec.Action]
	var transcript []string
	for _, cv := range crashVariants(t) {
		for seed := uint64(1); seed <= 5; seed++ {
			res := Run(cv.sp, Options{Seed: seed, Mode: ModePlain, Walks: 100_000})
			if res.Violation == nil || keyOf(cv.check.Violations[0]) != res.Violation.Key {
				continue
			}
			if extra := len(res.Violation.Trace) - len(cv.check.Violations[0].Trace); extra > len(transcript)-len(want.Trace) {
				v, want, transcript = cv, cv.check.Violations[0], transcript[:0]
				for _, a := range res.Violation.Trace {
					transcript = append(transcript, a.String())
				}
			}
		}
	}
	if v == nil {
		t.Fatal("no walk found a crash longer than the checker's shortest")
	}
	trace, err := ParseTrace(transcript, v.sp.ParseAction)
	if err != nil {
		t.Fatal(err)
	}
	shrunk, err := Shrink[spec.State, spec.Action](v.sp, trace, keyOf(want), ShrinkOptions[spec.State, spec.Action]{})
	if err != nil {
		t.Fatal(err)
	}
	if len(shrunk.Trace) != len(want.Trace) || shrunk.Reduced != nil {
		t.Errorf("transcript of %d steps shrank to %d; want %d and no reduction without Reduce", len(trace), len(shrunk.Trace), len(want.Trace))
	}
	if _, err := ParseTrace([]string{"arrive req=1", "jump rank=0"}, v.sp.ParseAction); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad transcript line: error %v, want one naming line 2", err)
	}
}

// TestShrinkRejectsBadTraces: a trace that does not replay, breaks
// nothing, or breaks something else is an error, not a silent result.
func TestShrinkRejectsBadTraces(t *testing.T) {
	v := crashVariants(t)[0]
	key := keyOf(v.check.Violations[0])
	full := v.check.Violations[0].Trace
	update, _ := v.sp.ParseAction("update rank=0")
	tests := []struct {
		name  string
		trace []spec.Action
		key   Key
		want  string
	}{
		{"not enabled", []spec.Action{update}, key, "is not enabled"},
		{"no violation", full[:1], key, "breaks no invariant"},
		{"other key", full, Key{Invariant: "pool-conservation"}, "first breaks"},
	}
	for _, tt := range tests {
		if _, err := Shrink[spec.State, spec.Action](v.sp, tt.trace, tt.key, KVShrinkOptions()); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestShrinkPoolBug: the benchmark model's seeded bug, found by a walk,
// shrinks to the checker's shortest counterexample.
func TestShrinkPoolBug(t *testing.T) {
	pool := newPool(t, true)
	res := Run(pool, Options{Seed: 1, Mode: ModePlain, Walks: 1000})
	if res.Violation == nil {
		t.Fatal("no violation on the bug variant")
	}
	shrunk, err := Shrink[poolbench.State, poolbench.Action](pool, res.Violation.Trace, res.Violation.Key, ShrinkOptions[poolbench.State, poolbench.Action]{})
	if err != nil {
		t.Fatal(err)
	}
	want := model.Check(pool, model.Options{}).Violations[0]
	if len(shrunk.Trace) != len(want.Trace) || shrunk.Invariant != want.Invariant {
		t.Errorf("%d steps shrank to %d %s; the checker's shortest: %d %s", len(res.Violation.Trace), len(shrunk.Trace), shrunk.Invariant, len(want.Trace), want.Invariant)
	}
}

// TestDdminIsOneMinimal: ddmin keeps only what the test needs.
func TestDdminIsOneMinimal(t *testing.T) {
	trace := []int{1, 9, 3, 4, 9, 7, 8, 9}
	calls := 0
	got := ddmin(trace, func(c []int) ([]int, bool) {
		calls++
		i := slices.Index(c, 3)
		return c, i >= 0 && slices.Contains(c[i:], 7)
	})
	if !slices.Equal(got, []int{3, 7}) {
		t.Errorf("ddmin = %v after %d tests, want [3 7]", got, calls)
	}
}

// TestDropLoops: a detour back to a state already visited is cut out, and
// the rest replays to the same end state.
func TestDropLoops(t *testing.T) {
	pool := newPool(t, false)
	var trace []poolbench.Action
	for _, line := range []string{"allocate(1) q0", "allocate(2) q1", "free q1", "flush r0", "grow q0", "shrink q0", "grow q0"} {
		a, err := poolbench.ParseAction(line)
		if err != nil {
			t.Fatal(err)
		}
		trace = append(trace, a)
	}
	got := dropLoops[poolbench.State, poolbench.Action](pool, trace)
	var text []string
	for _, a := range got {
		text = append(text, a.String())
	}
	if want := "allocate(1) q0, grow q0"; strings.Join(text, ", ") != want {
		t.Errorf("dropLoops = %s, want %s", strings.Join(text, ", "), want)
	}
}
