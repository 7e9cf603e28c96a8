package spec

import (
	"reflect"
	"testing"
)

// TestChangedSettingsAndRequestLines: the settings that differ are exactly
// the changed keys, and a request line leaves out parseRequest's defaults
// yet reads back to the same template.
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
	for _, r := range []RequestTemplate{
		{PromptLen: 4, MaxNewTokens: 1, Family: NoFamily},
		{PromptLen: 12, MaxNewTokens: 4, Family: 0, SharedPrefix: 8, Rank: 1, ReceivingKV: true},
	} {
		cfg := Config{Requests: []RequestTemplate{r}}
		line := RequestLines(&cfg)[0]
		back, err := parseRequest(line)
		if err != nil || back != r {
			t.Errorf("%q reads back as %+v (%v), want %+v", line, back, err, r)
		}
	}
	if got := RequestLines(&Config{Requests: []RequestTemplate{{PromptLen: 4, MaxNewTokens: 1, Family: NoFamily}}})[0]; got != "request prompt=4 new=1" {
		t.Errorf("a request with default arguments is %q", got)
	}
}
