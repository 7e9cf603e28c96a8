package counterexamples

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestExplainSeedPages: the page of each real-code transcript is one
// self-contained document (no script, no link to anything outside it)
// with a lane per rank, a chart per pool, the violating step highlighted
// and the fixes named.
func TestExplainSeedPages(t *testing.T) {
	for _, path := range transcriptFiles(t) {
		res, err := ReplayFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var page bytes.Buffer
		if err := Explain(&page, res); err != nil {
			t.Fatal(err)
		}
		html := page.String()
		sp := res.Replayer.Spec
		pools := 0
		for r := uint8(0); r < sp.Config.Ranks; r++ {
			for _, p := range []spec.PoolKind{spec.Target, spec.Draft} {
				if sp.Config.HasPool(r, p) {
					pools++
				}
			}
		}
		if n := strings.Count(html, "<svg "); n != pools {
			t.Errorf("%s: %d charts, want one per pool (%d)", path, n, pools)
		}
		for r := 0; r < int(sp.Config.Ranks); r++ {
			if !strings.Contains(html, fmt.Sprintf("<th>rank %d</th>", r)) {
				t.Errorf("%s: no lane for rank %d", path, r)
			}
		}
		for _, forbidden := range []string{"<script", "http://", "https://", "<link", "@import", "src="} {
			if strings.Contains(html, forbidden) {
				t.Errorf("%s: page contains %q", path, forbidden)
			}
		}
		violating := strings.Contains(html, `<tr class="violating">`)
		if strings.HasSuffix(path, ".ok.txt") == violating {
			t.Errorf("%s: violating row shown %v", path, violating)
		}
		for _, f := range sp.Fixes.List() {
			if !strings.Contains(html, f.String()+": ") {
				t.Errorf("%s: fix %s not named", path, f)
			}
		}
		if n := len(regexp.MustCompile(`<tr class="[a-z]*"><td class="n">\d+</td>`).FindAllString(html, -1)); n != len(res.Replayer.Steps) {
			t.Errorf("%s: %d step rows, want %d", path, n, len(res.Replayer.Steps))
		}
	}
}

// TestExplainFiftyStepsIsSmall: a 50-step trace makes a page well under
// 1 MB.
func TestExplainFiftyStepsIsSmall(t *testing.T) {
	var trace []spec.Action
	var sp *spec.Spec
	for _, sc := range scenario.All() {
		for _, set := range sc.FixSets {
			candidate, err := sc.Spec(spec.FixSetOf(set...))
			if err != nil {
				t.Fatal(err)
			}
			if tr := firstActionWalk(candidate, 50); len(tr) == 50 {
				trace, sp = tr, candidate
				break
			}
		}
		if sp != nil {
			break
		}
	}
	if sp == nil {
		t.Skip("no built-in scenario runs 50 steps")
	}
	data, err := Write(Counterexample{Spec: sp, Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay("fifty.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := Explain(&page, res); err != nil {
		t.Fatal(err)
	}
	t.Logf("a 50-step page of %s (%s): %d bytes", scenarioName(sp), fixesName(sp.Fixes), page.Len())
	if page.Len() > 256<<10 {
		t.Errorf("a 50-step page is %d bytes, want well under 1 MB (< 256 KiB)", page.Len())
	}
}

// firstActionWalk follows the first enabled action, with arrivals last so
// the engine stays busy, for up to n steps.
func firstActionWalk(sp *spec.Spec, n int) []spec.Action {
	s := sp.Initial()
	var trace []spec.Action
	for len(trace) < n {
		enabled := sp.Actions(&s, nil)
		if len(enabled) == 0 {
			break
		}
		a := enabled[len(enabled)-1]
		trace = append(trace, a)
		s = sp.Next(&s, a)
	}
	return trace
}
