package lin

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// conformanceDir holds TensorRT-LLM unit-test cases encoded as histories
// (docs/conformance.md).
const conformanceDir = "../conformance"

// conformanceCase is one parsed history of the corpus.
type conformanceCase struct {
	name, path string
	h          *History
}

func loadConformance(t *testing.T) []conformanceCase {
	t.Helper()
	return loadCorpus(t, conformanceDir)
}

// loadCorpus parses every history of dir (the corpus or one of its
// subdirectories), failing at the first that does not parse.
func loadCorpus(t *testing.T, dir string) []conformanceCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []conformanceCase
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		h, err := Parse(path, f)
		f.Close()
		if err != nil {
			t.Fatalf("%v\nreproduce: %s", err, linReproduce(path))
		}
		out = append(out, conformanceCase{strings.TrimSuffix(filepath.Base(path), ".jsonl"), path, h})
	}
	return out
}

// linReproduce is the command that checks one corpus file (a path under
// ../conformance, as the tests see it from counterexamples/lin).
func linReproduce(path string) string {
	return "go run ./cmd/kvcheck lin counterexamples/" + filepath.ToSlash(strings.TrimPrefix(filepath.Clean(path), ".."+string(filepath.Separator)))
}

// TestConformanceCorpus replays every encoded TensorRT-LLM unit test: a
// case expected to agree must be linearizable against the spec's model, a
// documented disagreement must not be (and must say why), and every case
// cites the test, its commit and what it asserts.
func TestConformanceCorpus(t *testing.T) {
	cases := loadConformance(t)
	if len(cases) < 20 {
		t.Fatalf("%d cases in %s; the corpus holds at least 20", len(cases), conformanceDir)
	}
	agree := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := c.h.Header
			switch {
			case hdr == nil || hdr.Source == nil:
				t.Fatalf("%s:1: no source; expected a header citing the test's file, function, commit and assertion\nreproduce: %s", c.path, linReproduce(c.path))
			case hdr.Expect == "disagree" && hdr.Reason == "":
				t.Fatalf("%s:1: an expected disagreement without a reason\nreproduce: %s", c.path, linReproduce(c.path))
			case !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(hdr.Source.Commit):
				t.Fatalf("%s:1: commit %q; expected the 40-hex commit the test was read at", c.path, hdr.Source.Commit)
			}
			sp, err := SpecFor(c.h, "")
			if err != nil {
				t.Fatalf("%v\nreproduce: %s", err, linReproduce(c.path))
			}
			out := Check(sp, c.h.Records, 10*time.Second)
			switch {
			case hdr.Expect == "agree" && out.Result != porcupine.Ok:
				t.Fatalf("the spec disagrees with %s (%s):\n%s\nreproduce: %s", hdr.Source.Test, hdr.Source.Asserts, out.Describe(c.path), linReproduce(c.path))
			case hdr.Expect == "disagree" && out.Result != porcupine.Illegal:
				t.Fatalf("%s is an expected disagreement (%s), but the spec now %s: fix the header\nreproduce: %s",
					hdr.Source.Test, hdr.Reason, out.Result, linReproduce(c.path))
			case hdr.Expect == "agree":
				agree++
			}
		})
	}
	t.Logf("%d of %d encoded TensorRT-LLM unit tests agree with the spec", agree, len(cases))
}

// TestConformanceCountInDocs keeps docs/conformance.md's agreement count
// and table in step with the corpus.
func TestConformanceCountInDocs(t *testing.T) {
	cases := loadConformance(t)
	agree := 0
	for _, c := range cases {
		if c.h.Header != nil && c.h.Header.Expect == "agree" {
			agree++
		}
	}
	doc, err := os.ReadFile("../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d of %d", agree, len(cases))
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/conformance.md does not state %q (cases that agree of cases encoded)", want)
	}
	for _, c := range cases {
		if !strings.Contains(string(doc), c.name) {
			t.Errorf("docs/conformance.md does not list %s", c.name)
		}
	}
}

// TestConformanceCorruptionNamesItsLine: changing one recorded result of
// an agreeing case (a reused count, a probed depth, a resize argument, or
// a True) makes the history unexplainable, and the report names the
// changed line: the agreement is not empty.
func TestConformanceCorruptionNamesItsLine(t *testing.T) {
	for _, c := range loadConformance(t) {
		if c.h.Header.Expect != "agree" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			records := append([]Record(nil), c.h.Records...)
			i := corrupt(records)
			sp, err := SpecFor(c.h, "")
			if err != nil {
				t.Fatal(err)
			}
			out := Check(sp, records, 10*time.Second)
			report := out.Describe(c.path)
			if out.Result != porcupine.Illegal {
				t.Fatalf("line %d corrupted (%s), yet %s", records[i].Line, describeRecord(&records[i]), report)
			}
			if where := c.path + ":" + strconv.Itoa(records[i].Line) + ":"; !strings.HasPrefix(report, where) {
				t.Errorf("corrupted line %d, the report blames:\n%s", records[i].Line, report)
			}
		})
	}
}

// corrupt changes the last record's result that carries a number (adding
// one to it), or else turns the first True of a resume into False, and
// returns the record's index.
func corrupt(records []Record) int {
	plusOne := func(p *int) *int { n := *p + 1; return &n }
	for i := len(records) - 1; i >= 0; i-- {
		r := &records[i].Result
		switch {
		case r.Reused != nil:
			r.Reused = plusOne(r.Reused)
		case r.Value != nil:
			r.Value = plusOne(r.Value)
		case r.Resize != nil && r.Resize[0] != nil:
			args := *r.Resize
			args[0] = plusOne(args[0])
			r.Resize = &args
		default:
			continue
		}
		return i
	}
	for i := range records {
		if records[i].Op == "resume" && records[i].Result.OK != nil && *records[i].Result.OK {
			f := false
			records[i].Result.OK = &f
			return i
		}
	}
	panic("nothing to corrupt")
}
