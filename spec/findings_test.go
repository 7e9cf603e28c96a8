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
	if v.Message != want || len(v.Trace) != 12 {
		t.Fatalf("%q in %d steps, want %q in 12", v.Message, len(v.Trace), want)
	}
}

// TestAdmitMirrorGateIsBackPressure: at 00746ef, with the resume gate at
// 75 %, admit_mirror resumes the mirror at admission and the draft-admission
// load no longer crashes, while at v1.3.0rc25 the same gate makes
// _prepare_draft_resources raise.
func TestAdmitMirrorGateIsBackPressure(t *testing.T) {
	cfg := draftAdmission.Config
	cfg.ResumeGatePercent = 75
	cfg.Version = Version00746ef
	sp, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	res := model.Check[State, Action](sp, model.Options{Workers: 1})
	if len(res.Violations) > 0 || !res.Complete {
		t.Fatalf("00746ef with a 75%% gate: complete %v, violations %v", res.Complete, res.Violations)
	}
	cfg.Version = VersionRC25
	sp, _ = New(cfg, 0)
	res = model.Check[State, Action](sp, model.Options{Workers: 1})
	if len(res.Violations) == 0 {
		t.Fatal("v1.3.0rc25 with a 75% gate: no violation")
	}
}
