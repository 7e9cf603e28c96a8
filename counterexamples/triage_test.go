package counterexamples

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestBannerEndsWithTriage: a counterexample's triage paragraph ends its
// banner, wrapped like every banner line, and BannerTriage reads it back
// whole; the explain page shows it, or the one Result.Triage gives.
func TestBannerEndsWithTriage(t *testing.T) {
	sc, err := scenario.Lookup("draft-admission")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sc.Spec(0)
	if err != nil {
		t.Fatal(err)
	}
	res := model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: sc.Depth, Workers: 1})
	v := res.Violations[0]
	paragraph := TriagePrefix + "; docs/triage.md): robust. Scale: ×2 same, ×4 same, ×8 same, +1 page same, +3 pages same. Needs: draft_pool=unpaired (gone at none and paired); indifferent to 9 other knobs. Same as seed 000 (draft-admission): the same raise, 14 of 14 mechanisms shared."
	for _, triage := range []string{"", paragraph} {
		data, err := Write(Counterexample{Spec: sp, Trace: v.Trace, Invariant: v.Invariant, Message: v.Message, FoundBy: "kvcheck check", Search: "a test", Triage: triage})
		if err != nil {
			t.Fatal(err)
		}
		replayed, err := Replay("t.txt", data)
		if err != nil {
			t.Fatal(err)
		}
		banner := replayed.Transcript.Banner
		if got := BannerTriage(banner); got != triage {
			t.Errorf("BannerTriage gives\n  %q\nwant\n  %q", got, triage)
		}
		if triage != "" && !strings.HasPrefix(banner[len(banner)-1], "  ") {
			t.Errorf("the triage paragraph does not end the banner (%d lines wrapped): %q", len(banner), banner[len(banner)-1])
		}
		var page bytes.Buffer
		if err := Explain(&page, replayed); err != nil {
			t.Fatal(err)
		}
		if shown := strings.Contains(page.String(), `<p class="triage">`); shown != (triage != "") {
			t.Errorf("triage %q: the page shows a triage paragraph: %v", triage, shown)
		}
		replayed.Triage = "Triage (computed): fragile."
		page.Reset()
		Explain(&page, replayed)
		if !strings.Contains(page.String(), `<p class="triage">`+html.EscapeString(replayed.Triage)+`</p>`) {
			t.Errorf("the page does not show Result.Triage")
		}
	}
}
