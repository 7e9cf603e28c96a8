package lin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// derivedCorpusDir holds histories of the real code derived from the
// source of a manager operation where no TensorRT-LLM unit test asserts
// it (docs/conformance.md, "Derived histories"): the only check of a rule
// no modelled executor path reaches.
const derivedCorpusDir = "../conformance/derived"

// TestDerivedCorpus checks every derived history against the real code:
// its header says how it was derived, and its verdict is its "expect".
func TestDerivedCorpus(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(derivedCorpusDir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no history in %s", derivedCorpusDir)
	}
	for _, path := range paths {
		reproduce := "go run ./cmd/kvcheck lin counterexamples/conformance/derived/" + filepath.Base(path)
		t.Run(strings.TrimSuffix(filepath.Base(path), ".jsonl"), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			h, err := Parse(path, f)
			f.Close()
			if err != nil {
				t.Fatalf("%v\nreproduce: %s", err, reproduce)
			}
			hdr := h.Header
			switch {
			case hdr == nil || hdr.Derived == "":
				t.Fatalf("%s:1: no derived; expected the operation's source and the rule it records\nreproduce: %s", path, reproduce)
			case len(hdr.Fixes) != 0:
				t.Fatalf("%s:1: fixes %v; a history of fixed code belongs in ../conformance/fixes\nreproduce: %s", path, hdr.Fixes, reproduce)
			}
			sp, err := SpecFor(h, "")
			if err != nil {
				t.Fatalf("%v\nreproduce: %s", err, reproduce)
			}
			out := Check(sp, h.Records, 10*time.Second)
			if got := verdictOf(out.Result); got != hdr.Expect {
				t.Fatalf("the verdict is %s, the header expects %s:\n%s\nreproduce: %s", got, hdr.Expect, out.Describe(path), reproduce)
			}
		})
	}
}
