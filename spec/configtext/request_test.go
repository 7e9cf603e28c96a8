package configtext

import (
	"testing"

	"github.com/kvcheck/kvcheck/spec"
)

// TestRequestLineReadsBack: a request line (FormatRequest, which
// spec/space's RequestLines writes) reads back to the same template.
func TestRequestLineReadsBack(t *testing.T) {
	for _, r := range []spec.RequestTemplate{
		{PromptLen: 4, MaxNewTokens: 1, Family: spec.NoFamily},
		{PromptLen: 12, MaxNewTokens: 4, Family: 0, SharedPrefix: 8, Rank: 1, ReceivingKV: true},
	} {
		line := FormatRequest(r)
		back, err := parseRequest(line)
		if err != nil || back != r {
			t.Errorf("%q reads back as %+v (%v), want %+v", line, back, err, r)
		}
	}
}
