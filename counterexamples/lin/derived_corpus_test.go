package lin

import (
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
	cases := loadCorpus(t, derivedCorpusDir)
	if len(cases) == 0 {
		t.Fatalf("no history in %s", derivedCorpusDir)
	}
	for _, c := range cases {
		path, h, reproduce := c.path, c.h, linReproduce(c.path)
		t.Run(c.name, func(t *testing.T) {
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
