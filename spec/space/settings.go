package space

import (
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
)

// ConfigSetting is one key=value setting of the configuration text.
type ConfigSetting struct{ Key, Value string }

// String is the setting as the text writes it: "draft_blocks=8".
func (s ConfigSetting) String() string { return s.Key + "=" + s.Value }

// ChangedSettings lists the settings of cfg whose values differ from
// base's, in the text form's order (configtext.Format's).
func ChangedSettings(base, cfg *spec.Config) []ConfigSetting {
	var out []ConfigSetting
	for i := range configtext.Fields {
		f := &configtext.Fields[i]
		if v := f.Value(cfg); v != f.Value(base) {
			out = append(out, ConfigSetting{f.Key, v})
		}
	}
	return out
}

// RequestLines are cfg's requests as the text's request lines
// (configtext.Format's).
func RequestLines(cfg *spec.Config) []string {
	out := make([]string, len(cfg.Requests))
	for i, r := range cfg.Requests {
		out[i] = configtext.FormatRequest(r)
	}
	return out
}
