package spec

import (
	"strings"
	"testing"
)

// TestConfigTextRoundTrip: every built-in scenario's configuration prints
// as text that parses back to the same configuration.
func TestConfigTextRoundTrip(t *testing.T) {
	for _, sc := range Scenarios() {
		text := FormatConfig(&sc.Config)
		back, err := ParseConfig(Config{}, text)
		if err != nil {
			t.Fatalf("%s: %v\n%s", sc.Name, err, text)
		}
		if FormatConfig(&back) != text {
			t.Fatalf("%s: round trip changed the configuration:\n%s\n---\n%s", sc.Name, text, FormatConfig(&back))
		}
	}
}

// TestConfigTextOverrides: settings not given keep the base's values and
// request lines replace the base's requests.
func TestConfigTextOverrides(t *testing.T) {
	cfg, err := ParseConfig(draftAdmission.Config, "# smaller draft pool\ndraft_blocks=6\nrequest prompt=8 new=2\n")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DraftBlocks != 6 || cfg.TargetBlocks != 8 || len(cfg.Requests) != 1 || cfg.Requests[0].Family != NoFamily {
		t.Fatalf("config %+v", cfg)
	}
	if len(draftAdmission.Config.Requests) != 3 {
		t.Fatal("ParseConfig changed its base")
	}
}

// TestConfigTextErrors: each malformed line is named with what was
// expected.
func TestConfigTextErrors(t *testing.T) {
	for text, want := range map[string]string{
		"draft_blocks":               "line 1: expected key=value",
		"\nblocks=3":                 "line 2: unknown setting \"blocks\"",
		"draft_blocks=x":             "line 1: draft_blocks: expected an integer",
		"host_tier=maybe":            "line 1: host_tier: expected true or false",
		"draft_pool=half":            "expected one of none, unpaired, paired",
		"ranks=1\nranks=1":           "line 2: ranks already set on line 1",
		"request prompt=4":           "line 1: request: prompt=N and new=N are required",
		"request prompt=4 new=1 x=1": "unknown argument \"x\"",
		"ranks=9":                    "ranks must be 1..4",
	} {
		_, err := ParseConfig(draftAdmission.Config, text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseConfig(%q) = %v; want an error containing %q", text, err, want)
		}
	}
}
