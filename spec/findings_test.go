package spec

import (
	"testing"

	"github.com/kvcheck/kvcheck/model"
)

// The README states these findings about the fixes; these tests keep them
// true.

// TestMirrorReuseWithLaggingViewCrashesSooner: with the 00746ef draft view
// a reused mirror starts at history = reused prefix while the lagging
// cursor asks for less capacity, so _prepare_draft_resources raises.
func TestMirrorReuseWithLaggingViewCrashesSooner(t *testing.T) {
	sp, err := draftViewLag.Spec(fixSet([]Fix{FixMirrorReuse}))
	if err != nil {
		t.Fatal(err)
	}
	res := model.Check[State, Action](sp, model.Options{Workers: 1})
	if len(res.Violations) == 0 {
		t.Fatal("no violation")
	}
	v := res.Violations[0]
	want := "rank 0 draft pool request 2: _prepare_draft_resources raised ValueError: History length cannot exceed capacity"
	if v.Message != want || len(v.Trace) != 8 {
		t.Fatalf("%q in %d steps, want %q in 8", v.Message, len(v.Trace), want)
	}
}

// TestAdmitMirrorGateIsNoBackPressure: at 00746ef admit_mirror resumes
// the mirror at admission, so the resume gate (75 %) can only refuse a
// mirror whose pool is already above it; a mirror admitted below the gate
// is grown only in _prepare_draft_resources, and the draft-admission load
// still crashes there, as it does at v1.3.0rc25. (Under the spec before
// its per-chunk commits and post-reuse budget the 00746ef run passed.)
func TestAdmitMirrorGateIsNoBackPressure(t *testing.T) {
	cfg := draftAdmission.Config
	cfg.ResumeGatePercent = 75
	for _, version := range []CodeVersion{Version00746ef, VersionRC25} {
		cfg.Version = version
		sp, err := New(cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		res := model.Check[State, Action](sp, model.Options{Workers: 1})
		want := "rank 0 draft pool request 3: _prepare_draft_resources raised RuntimeError: Draft KV cache context resize failed for request 3: could not resize to 12 tokens"
		if len(res.Violations) == 0 || res.Violations[0].Message != want {
			t.Fatalf("%s with a 75%% gate: violations %v, want %q", version, res.Violations, want)
		}
	}
}

// checkNoCrashOnly runs the checker with only no-crash-on-refusal, so a
// search can go past a leak to the crash it causes.
func checkNoCrashOnly(t *testing.T, cfg Config, fixes Fixes) model.Result[Action] {
	t.Helper()
	sp, err := New(cfg, fixes)
	if err != nil {
		t.Fatal(err)
	}
	return model.Check[State, Action](model.OnlyInvariants[State, Action](sp, []string{InvNoCrash}), model.Options{Workers: 1, KeepGoing: true})
}

// TestAdpLeakEndsInTheReportedCrash: past the leak, seed 003's deferred
// update raises in the draft pool's update_resources under the dummy ID;
// skip-dummy-update avoids that raise although the leak stays.
func TestAdpLeakEndsInTheReportedCrash(t *testing.T) {
	res := checkNoCrashOnly(t, adpDummyLeak.Config, 0)
	want := "rank 1 draft pool request 0: update_resources raised ValueError: History length cannot exceed capacity"
	if len(res.Violations) != 1 || res.Violations[0].Message != want || len(res.Violations[0].Trace) != 38 {
		t.Fatalf("violations %v, want only %q in 38 steps", res.Violations, want)
	}
	if res := checkNoCrashOnly(t, adpDummyLeak.Config, Fixes(0).With(FixSkipDummyUpdate)); len(res.Violations) != 0 || !res.Complete {
		t.Fatalf("skip-dummy-update: complete %v, violations %v", res.Complete, res.Violations)
	}
}

// TestPipelineFindings keeps the README's pipeline findings true: with
// equal stage pools the spec finds no path to a crash; with a smaller last
// stage every crash is on the last stage; padding drafts after allocation
// would make rank 0 raise first.
func TestPipelineFindings(t *testing.T) {
	equal := ppHistoryCapacity.Config
	equal.StageTargetBlocks = [MaxRanks]uint32{}
	if res := checkNoCrashOnly(t, equal, 0); len(res.Violations) != 0 || !res.Complete {
		t.Fatalf("equal pools: complete %v, violations %v", res.Complete, res.Violations)
	}
	for _, sc := range []*testScenario{ppHistoryCapacity, ppStageDivergence} {
		res := checkNoCrashOnly(t, sc.Config, 0)
		if len(res.Violations) == 0 {
			t.Fatalf("%s: no violation", sc.Name)
		}
		for _, v := range res.Violations {
			states, err := model.Replay[State, Action](model.OnlyInvariants[State, Action](mustSpec(t, sc.Config), []string{InvNoCrash}), v.Trace)
			if err != nil {
				t.Fatal(err)
			}
			last := states[len(states)-1]
			if v.Invariant == InvNoCrash && last.Crash.Rank != 1 {
				t.Fatalf("%s: a crash on rank %d: %s", sc.Name, last.Crash.Rank, v.Message)
			}
		}
	}
	padded := equal
	padded.PadDraftAfterAllocation = true
	res := checkNoCrashOnly(t, padded, 0)
	want := "rank 0 target pool request 1: update_resources raised ValueError: History length cannot exceed capacity"
	if len(res.Violations) == 0 || res.Violations[0].Message != want {
		t.Fatalf("padding after allocation: %v, want first %q", res.Violations, want)
	}
}

func mustSpec(t *testing.T, cfg Config) *Spec {
	t.Helper()
	sp, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}
