package space

import (
	"reflect"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
)

// TestChangedSettingsAndRequestLines: the settings that differ are exactly
// the changed keys, and a request line leaves out the defaults of
// configtext's request lines (that it reads back is spec/configtext's
// TestRequestLineReadsBack).
func TestChangedSettingsAndRequestLines(t *testing.T) {
	base := draftAdmission.Config
	if got := ChangedSettings(&base, &base); len(got) != 0 {
		t.Errorf("a configuration differs from itself in %v", got)
	}
	changed := base
	changed.DraftBlocks, changed.Ranks = 6, 2
	if got, want := ChangedSettings(&base, &changed), []ConfigSetting{{"draft_blocks", "6"}, {"ranks", "2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ChangedSettings = %v, want %v", got, want)
	}
	if got := RequestLines(&spec.Config{Requests: []spec.RequestTemplate{{PromptLen: 4, MaxNewTokens: 1, Family: spec.NoFamily}}})[0]; got != "request prompt=4 new=1" {
		t.Errorf("a request with default arguments is %q", got)
	}
}
