package configtext_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// lookup is the built-in scenario named name.
func lookup(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// draftAdmission is the built-in scenario draft-admission, the base of
// most tests here.
func draftAdmission(t *testing.T) *scenario.Scenario { return lookup(t, "draft-admission") }

// TestConfigTextRoundTrip: every built-in scenario's configuration prints
// as text that parses back to the same configuration.
func TestConfigTextRoundTrip(t *testing.T) {
	for _, sc := range scenario.All() {
		text := configtext.Format(&sc.Config)
		back, err := configtext.Parse(spec.Config{}, text)
		if err != nil {
			t.Fatalf("%s: %v\n%s", sc.Name, err, text)
		}
		if configtext.Format(&back) != text {
			t.Fatalf("%s: round trip changed the configuration:\n%s\n---\n%s", sc.Name, text, configtext.Format(&back))
		}
	}
}

// TestConfigTextOverrides: settings not given keep the base's values and
// request lines replace the base's requests.
func TestConfigTextOverrides(t *testing.T) {
	cfg, err := configtext.Parse(draftAdmission(t).Config, "# smaller draft pool\ndraft_blocks=6\nrequest prompt=8 new=2\n")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DraftBlocks != 6 || cfg.TargetBlocks != 8 || len(cfg.Requests) != 1 || cfg.Requests[0].Family != spec.NoFamily {
		t.Fatalf("config %+v", cfg)
	}
	if len(draftAdmission(t).Config.Requests) != 3 {
		t.Fatal("configtext.Parse changed its base")
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
		"max_draft_len=3\nearly_finish=true\nmax_batch_size=8": "more than 4096 environment choices",
	} {
		_, err := configtext.Parse(draftAdmission(t).Config, text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("configtext.Parse(%q) = %v; want an error containing %q", text, err, want)
		}
	}
}

// TestConfigTextSeveralSettingsPerLine: a line may hold several key=value
// settings separated by spaces; the configuration is the same as with one
// per line, and errors still name the line and the setting.
func TestConfigTextSeveralSettingsPerLine(t *testing.T) {
	for _, sc := range scenario.All() {
		var settings, requests []string
		for _, line := range strings.Split(strings.TrimSpace(configtext.Format(&sc.Config)), "\n") {
			if strings.HasPrefix(line, "request ") {
				requests = append(requests, line)
			} else {
				settings = append(settings, line)
			}
		}
		var packed strings.Builder
		for i := 0; i < len(settings); i += 5 {
			packed.WriteString(strings.Join(settings[i:min(i+5, len(settings))], "  ") + "\n")
		}
		packed.WriteString(strings.Join(requests, "\n"))
		cfg, err := configtext.Parse(spec.Config{}, packed.String())
		if err != nil {
			t.Fatalf("%s: %v\n%s", sc.Name, err, packed.String())
		}
		if configtext.Format(&cfg) != configtext.Format(&sc.Config) {
			t.Errorf("%s: packed text gives\n%s\nwant\n%s", sc.Name, configtext.Format(&cfg), configtext.Format(&sc.Config))
		}
	}
	cfg, err := configtext.Parse(draftAdmission(t).Config, "target_blocks=6 draft_blocks = 5\tranks=1")
	if err != nil || cfg.TargetBlocks != 6 || cfg.DraftBlocks != 5 || cfg.Ranks != 1 || cfg.MaxBatchSize != draftAdmission(t).Config.MaxBatchSize {
		t.Fatalf("config %+v, %v", cfg, err)
	}
	for text, want := range map[string]string{
		"ranks=1 draft_blocks":             `line 1: expected key=value settings separated by spaces, or a request line, got "draft_blocks"`,
		"ranks=1\ndraft_blocks=6 blocks=3": `line 2: unknown setting "blocks"`,
		"ranks=1 draft_blocks=x":           "line 1: draft_blocks: expected an integer",
		"ranks=1\ndraft_blocks=6 ranks=1":  "line 2: ranks already set on line 1",
		"ranks=1 ranks=2":                  "line 1: ranks already set on line 1",
		"ranks=1 request prompt=4 new=1":   "line 1: a request must be on a line of its own",
		"request prompt=4 new=1 ranks=1":   `line 1: request: unknown argument "ranks"`,
		"ranks=1\ndraft_blocks= 5 x":       `line 2: expected key=value settings separated by spaces, or a request line, got "x"`,
	} {
		_, err := configtext.Parse(draftAdmission(t).Config, text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("configtext.Parse(%q) = %v; want an error containing %q", text, err, want)
		}
	}
}

// TestEveryConfigFieldHasAKey: each spec.Config field but the requests is a
// setting of the text form, under a key of its own, so a new field cannot
// be left out of transcripts and configuration files.
func TestEveryConfigFieldHasAKey(t *testing.T) {
	seen := map[string]bool{}
	typ := reflect.TypeOf(spec.Config{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		key := f.Tag.Get("kv")
		if f.Name == "Requests" {
			continue
		}
		if key == "" || f.Tag.Get("doc") == "" {
			t.Errorf("Config.%s has no kv or doc tag", f.Name)
		}
		if seen[key] {
			t.Errorf("key %s used twice", key)
		}
		seen[key] = true
	}
	if len(configtext.Keys()) != len(seen) {
		t.Errorf("%d keys registered, %d tagged fields", len(configtext.Keys()), len(seen))
	}
}

// TestConfigTextPerStageAndPreFix: per-stage lists and the pre-fix switch
// list parse, print back, and reject what they cannot hold.
func TestConfigTextPerStageAndPreFix(t *testing.T) {
	base := lookup(t, "pp-history-capacity").Config
	cfg, err := configtext.Parse(base, "stage_target_blocks=9,10\npre_fix=none")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.StageTargetBlocks != [spec.MaxRanks]uint32{9, 10} || cfg.PreFixes != 0 {
		t.Fatalf("parsed %v %v", cfg.StageTargetBlocks, cfg.PreFixes)
	}
	if !strings.Contains(configtext.Format(&cfg), "stage_target_blocks=9,10\n") {
		t.Fatalf("format:\n%s", configtext.Format(&cfg))
	}
	for text, want := range map[string]string{
		"stage_target_blocks=1,2,3,4,5": "at most 4 comma-separated integers",
		"stage_target_blocks=x":         "expected comma-separated integers",
		"stage_target_blocks=0,0,9":     "stage 2 set, but the configuration has 2 pipeline stage(s)",
		"stage_target_blocks=0,2":       "stage 1 must hold the longest request",
		"pre_fix=bogus":                 "unknown pre-fix switch \"bogus\"",
	} {
		if _, err := configtext.Parse(base, text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("configtext.Parse(%q) = %v; want an error containing %q", text, err, want)
		}
	}
}
