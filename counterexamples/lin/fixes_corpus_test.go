package lin

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/kvcheck/kvcheck/spec"
)

// fixCorpusDir holds histories derived under a fix (docs/conformance.md,
// "Histories of fixed code").
const fixCorpusDir = "../conformance/fixes"

// linModelledFixes are the fixes that change an operation lin models
// (spec.Spec.ApplyPoolOp and the sizes it reads), as each fix's
// declaration says (spec.FixInfo.Lin); docs/conformance.md says why the
// others change none. Each needs a case in fixCorpusDir.
func linModelledFixes() []string {
	var out []string
	for _, f := range spec.AllFixes() {
		if f.Lin() != "" {
			out = append(out, f.String())
		}
	}
	return out
}

// verdictOf maps a porcupine result to a header's expect value.
func verdictOf(r porcupine.CheckResult) string {
	switch r {
	case porcupine.Ok:
		return "agree"
	case porcupine.Illegal:
		return "disagree"
	}
	return "undecided"
}

// TestFixCorpus checks every history of the fix corpus twice: with the
// fixes its header names (the verdict must be its "expect") and against
// the real code (the verdict must be its "expect_without_fixes", which
// must differ), so each fix's manager path decides a verdict of lin; and
// every fix lin models has at least one such case.
func TestFixCorpus(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range loadCorpus(t, fixCorpusDir) {
		path, h, reproduce := c.path, c.h, linReproduce(c.path)
		if h.Header != nil {
			for _, fix := range h.Header.Fixes {
				covered[fix] = true
			}
		}
		t.Run(c.name, func(t *testing.T) {
			hdr := h.Header
			switch {
			case hdr == nil || len(hdr.Fixes) == 0:
				t.Fatalf("%s:1: no fixes; expected a header naming the fixes the history was recorded under\nreproduce: %s", path, reproduce)
			case hdr.Derived == "" && hdr.Source == nil:
				t.Fatalf("%s:1: neither derived nor source; expected how the history was obtained\nreproduce: %s", path, reproduce)
			case hdr.Expect == "" || hdr.ExpectWithoutFixes == "" || hdr.Expect == hdr.ExpectWithoutFixes:
				t.Fatalf("%s:1: expect %q, expect_without_fixes %q; expected two different verdicts\nreproduce: %s", path, hdr.Expect, hdr.ExpectWithoutFixes, reproduce)
			}
			sp, err := SpecFor(h, "")
			if err != nil {
				t.Fatalf("%v\nreproduce: %s", err, reproduce)
			}
			out := Check(sp, h.Records, 10*time.Second)
			if got := verdictOf(out.Result); got != hdr.Expect {
				t.Fatalf("under %s the verdict is %s, the header expects %s:\n%s\nreproduce: %s", strings.Join(hdr.Fixes, "+"), got, hdr.Expect, out.Describe(path), reproduce)
			}
			real := *h
			realHdr := *hdr
			realHdr.Fixes = nil
			real.Header = &realHdr
			sp, err = SpecFor(&real, "")
			if err != nil {
				t.Fatal(err)
			}
			out = Check(sp, h.Records, 10*time.Second)
			if got := verdictOf(out.Result); got != hdr.ExpectWithoutFixes {
				t.Fatalf("against the real code the verdict is %s, the header expects %s:\n%s\nreproduce: %s", got, hdr.ExpectWithoutFixes, out.Describe(path), reproduce)
			}
		})
	}
	for _, fix := range linModelledFixes() {
		if !covered[fix] {
			t.Errorf("no history in %s is recorded under %s, a fix that changes an operation lin models", fixCorpusDir, fix)
		}
	}
}

// TestUnknownFixNamesLine: a header naming a fix kvcheck does not know is
// refused at the header's line, listing the known names.
func TestUnknownFixNamesLine(t *testing.T) {
	h, err := Parse("h.jsonl", strings.NewReader("\n"+`{"kvcheck_history": 1, "scenario": "draft-admission", "fixes": ["clamp-capasity"]}`+"\n"+
		`{"rank":0,"pool":"target","request":1,"op":"resume","result":{"ok":false},"call":0,"return":1}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = SpecFor(h, "")
	if err == nil || !strings.HasPrefix(err.Error(), `h.jsonl:2: header: fixes: unknown fix "clamp-capasity"; valid fixes: `) || !strings.Contains(err.Error(), "clamp-capacity") {
		t.Fatalf("got %v", err)
	}
}

// TestFixLinTableInDocs: docs/conformance.md's table of the fixes that
// change a lin-modelled operation has a row for each fix whose
// declaration says so (spec.FixInfo.Lin), and names every other fix where
// it says why it changes none.
func TestFixLinTableInDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "## Histories of fixed code")
	if i < 0 {
		t.Fatal(`docs/conformance.md has no "## Histories of fixed code" section`)
	}
	section := text[i:]
	if j := strings.Index(section[1:], "\n## "); j >= 0 {
		section = section[:j+1]
	}
	for _, f := range spec.AllFixes() {
		row := "| `" + f.String() + "` |"
		switch {
		case f.Lin() != "" && !strings.Contains(section, row):
			t.Errorf("docs/conformance.md's fix table has no row %q, though the fix changes a lin operation (%s)", row, f.Lin())
		case f.Lin() == "" && strings.Contains(section, row):
			t.Errorf("docs/conformance.md's fix table has a row for %s, whose declaration changes no lin operation", f)
		case f.Lin() == "" && !strings.Contains(section, "`"+f.String()+"`"):
			t.Errorf("docs/conformance.md does not say why %s changes no lin operation", f)
		}
	}
}
