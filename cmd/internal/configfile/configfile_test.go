package configfile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestBuiltinScenariosRoundTrip: every built-in scenario, written as a
// scenario file, reads back as the same scenario.
func TestBuiltinScenariosRoundTrip(t *testing.T) {
	for _, sc := range scenario.All() {
		data, err := Format(sc)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(sc.Name+".yaml", data)
		if err != nil {
			t.Fatalf("%s: %v\n%s", sc.Name, err, data)
		}
		got := f.Scenario
		if f.Kind != KindScenario || got.Name != sc.Name || got.Doc != sc.Doc || got.Report != sc.Report ||
			got.Depth != sc.Depth || got.MaxStates != sc.MaxStates {
			t.Errorf("%s: read back as %s %q %q %d %d", sc.Name, f.Kind, got.Name, got.Doc, got.Depth, got.MaxStates)
		}
		if !reflect.DeepEqual(got.Config, sc.Config) {
			t.Errorf("%s: config read back as\n%s\nwant\n%s", sc.Name, configtext.Format(&got.Config), configtext.Format(&sc.Config))
		}
		if !reflect.DeepEqual(got.Variants(), sc.Variants()) || !reflect.DeepEqual(got.Expect, sc.Expect) {
			t.Errorf("%s: variants %v expect %v; want %v %v", sc.Name, got.Variants(), got.Expect, sc.Variants(), sc.Expect)
		}
		var gotGoals, wantGoals []string
		for _, g := range got.Goals {
			gotGoals = append(gotGoals, g.Name)
		}
		for _, g := range sc.Goals {
			wantGoals = append(wantGoals, g.Name)
		}
		if !reflect.DeepEqual(gotGoals, wantGoals) {
			t.Errorf("%s: goals %v, want %v", sc.Name, gotGoals, wantGoals)
		}
	}
}

// TestSeed000DeploymentFindsTheDraftAdmissionCrash: the TensorRT-LLM
// options of seed 000's deployment (PP 2, TP 4, MTP draft 1, block reuse,
// chunked prefill) with a kvcheck: section scale to two pipeline stages of
// one rank each, and the checker finds _prepare_draft_resources raising
// on rank 0, as the report did; joint admission closes it.
func TestSeed000DeploymentFindsTheDraftAdmissionCrash(t *testing.T) {
	f, err := Load(seedDeployment)
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Scenario.Config
	if f.Kind != KindTRTLLM || cfg.Loop != spec.PipelineLoop || cfg.Ranks != 2 || cfg.MaxDraftLen != 1 ||
		!cfg.BlockReuse || !cfg.ChunkedPrefill || cfg.DraftPool != spec.UnpairedDraftPool || cfg.TokensPerBlock != 4 ||
		cfg.TargetBlocks != 8 || cfg.DraftBlocks != 8 || cfg.MaxNumTokens != 8 || cfg.MaxBatchSize != 4 || len(cfg.Requests) != 3 {
		t.Fatalf("%s:\n%s", f.Kind, configtext.Format(&cfg))
	}
	var mapped []string
	for _, m := range f.Mapping {
		mapped = append(mapped, m.Option)
	}
	for _, want := range []string{"pipeline_parallel_size: 2", "tensor_parallel_size: 4", "kv_cache_config.tokens_per_block: 64", "speculative_config.decoding_type: MTP"} {
		if !strings.Contains(strings.Join(mapped, "\n"), want) {
			t.Errorf("mapping lacks %q: %v", want, mapped)
		}
	}
	if len(f.Warnings) != 0 || len(f.Ignored) != 1 || !strings.HasPrefix(f.Ignored[0], "kv_cache_config.dtype (line 18): the bytes of a block") {
		t.Errorf("warnings %v, ignored %v; want only kv_cache_config.dtype ignored, named with its line and why", f.Warnings, f.Ignored)
	}
	for _, tc := range []struct {
		fixes spec.Fixes
		want  string
	}{{0, "rank 0 draft pool request 3: _prepare_draft_resources raised RuntimeError: Draft KV cache context resize failed for request 3"}, {spec.FixSetOf(spec.FixJointAdmission), ""}} {
		// The file's own configuration (its pressure sweep is
		// cmd/kvcheck's TestConfigSeedDeployment).
		sp, err := f.Scenario.Spec(tc.fixes)
		if err != nil {
			t.Fatal(err)
		}
		res := model.Check[spec.State, spec.Action](sp, model.Options{MaxDepth: f.Scenario.Depth, Workers: 1})
		switch {
		case tc.want == "" && len(res.Violations) > 0:
			t.Errorf("%s: %s", tc.fixes.Label(), res.Violations[0].Message)
		case tc.want != "" && (len(res.Violations) == 0 || !strings.HasPrefix(res.Violations[0].Message, tc.want)):
			t.Errorf("%s: %v, want %q", tc.fixes.Label(), res.Violations, tc.want)
		}
		if want, _ := f.Scenario.Expected(tc.fixes); (want == "no-crash-on-refusal") != (tc.want != "") {
			t.Errorf("%s: expected verdict %s", tc.fixes.Label(), want)
		}
	}
}

// TestConfigText: a file of kvcheck's configuration text is read as such,
// from the zero configuration, named after the file.
func TestConfigText(t *testing.T) {
	sc := scenario.All()[0]
	path := filepath.Join(t.TempDir(), "mine.txt")
	os.WriteFile(path, []byte("# my configuration\n"+configtext.Format(&sc.Config)), 0o644)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != KindConfigText || f.Scenario.Name != "mine" || !reflect.DeepEqual(f.Scenario.Config, sc.Config) {
		t.Fatalf("%s %s", f.Kind, f.Scenario.Name)
	}
	os.WriteFile(path, []byte("# c\n\ntokens_per_block=4\nmax_batch_size=lots\n"), 0o644)
	if _, err := Load(path); err == nil || !strings.HasPrefix(err.Error(), path+":4: ") || !strings.Contains(err.Error(), "expected an integer") {
		t.Fatalf("error %v", err)
	}
}

// TestErrorsNameFileLineAndForm: invalid values are errors naming the
// file, the line and the expected form.
func TestErrorsNameFileLineAndForm(t *testing.T) {
	seed, err := os.ReadFile(seedDeployment)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ old, new, want string }{
		{"enable_block_reuse: true", "enable_block_reuse: maybe", `:16: kv_cache_config.enable_block_reuse: expected true or false (YAML 1.1 as TensorRT-LLM reads it: also yes/no, on/off), got the value "maybe"`},
		{"max_draft_len: 1", "max_draft_len: -1", ":14: speculative_config.max_draft_len: expected an integer 1..64"},
		{"target_pages: 8", "target_pages: [8]", ":29: target_pages: expected an integer 1..250, got a list"},
		{"target_pages: 8", "target_pagez: 8", `:29: kvcheck: unknown key "target_pagez"; did you mean target_pages?; expected one of: name,`},
		{"{fixes: joint-admission, expect: ok}", "{fixes: joint-admision, expect: ok}", `:36: variants: unknown fix "joint-admision"`},
		{"{fixes: joint-admission, expect: ok}", "{fixes: joint-admission, expect: fine}", `:36: variants: unknown verdict "fine"; expected one of: ok, `},
		{"target_pages: 8", "target_pages: 2", ":29: the configuration is not one kvcheck can check: invalid configuration: target_blocks must hold the longest request"},
		{"  tokens_per_block: 4\n", "  tokens_per_block: 4\n  version: v9\n", `:29: version: expected one of the versions kvcheck models, v1.3.0rc25, 00746ef, 00746ef+pr19181, got "v9"`},
		{"free_gpu_memory_fraction: 0.8", "free_gpu_memory_fraction: 1.5", `:17: kv_cache_config.free_gpu_memory_fraction: expected a number 0..1, got the value "1.5"`},
		{"enable_block_reuse: true", "enable_blok_reuse: false", ":16: kv_cache_config.enable_blok_reuse: not a TensorRT-LLM option kvcheck knows; did you mean kv_cache_config.enable_block_reuse?"},
		{"use_kv_cache_manager_v2: true", "use_kv_cache_manager_v2: false", ":20: kv_cache_config.use_kv_cache_manager_v2: false selects the V1 (C++) KV cache manager; kvcheck models KVCacheManagerV2"},
		{"max_batch_size: 64", "max_batch_size: 64\n\tx: 1", ":8: not valid YAML"}, // yaml.v3 names the line the tab follows,
		{"max_batch_size: 64", "max_batch_size: 64\nmax_batch_size: 8", `:9: the file: key "max_batch_size" given twice (first on line 8)`},
	}
	for _, tt := range tests {
		text := strings.Replace(string(seed), tt.old, tt.new, 1)
		if text == string(seed) {
			t.Fatalf("%q not in the seed file", tt.old)
		}
		_, err := Parse("f.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), "f.yaml"+tt.want) {
			t.Errorf("%s → %s: error %v; want %q", tt.old, tt.new, err, tt.want)
		}
	}
	if _, err := Load("/dev/null"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/null: %v", err)
	}
}

// seedDeployment is the README's example: seed 000's deployment as
// TensorRT-LLM options with a kvcheck: section.
const seedDeployment = "../../../docs/examples/seed000-deployment.yaml"

// TestDerivation: each TensorRT-LLM option read lands on the setting the
// mapping says, and the mapping names it.
func TestDerivation(t *testing.T) {
	const one = "kvcheck:\n  requests: [{prompt_pages: 2, new_tokens: 2}]\n"
	const two = "kvcheck:\n  requests: [{prompt_pages: 2, new_tokens: 2}, {prompt_pages: 2, new_tokens: 2, rank: 1}]\n"
	tests := []struct {
		name, text string
		check      func(c *spec.Config) bool
		mapped     string
	}{
		{"attention DP", "enable_attention_dp: true\ntensor_parallel_size: 4\n" + two,
			func(c *spec.Config) bool { return c.AttentionDP && c.Ranks == 2 && c.Loop == spec.OverlapLoop },
			"tensor_parallel_size: 4"},
		{"no overlap", "disable_overlap_scheduler: true\n" + one,
			func(c *spec.Config) bool { return c.Loop == spec.NonOverlapLoop && c.Ranks == 1 }, "disable_overlap_scheduler: true"},
		{"disaggregated", "cache_transceiver_config:\n  backend: NIXL\nenable_attention_dp: true\ntensor_parallel_size: 2\n" + two,
			func(c *spec.Config) bool { return c.KVTransceiver }, "cache_transceiver_config"},
		{"ngram", "speculative_config:\n  decoding_type: NGram\n  max_draft_len: 2\n" + one,
			func(c *spec.Config) bool { return c.DraftPool == spec.NoDraftPool && c.MaxDraftLen == 2 }, "decoding_type: NGram"},
		{"long drafts", "speculative_config:\n  decoding_type: Eagle3\n  max_draft_len: 5\n" + one,
			func(c *spec.Config) bool { return c.DraftPool == spec.UnpairedDraftPool && c.MaxDraftLen == 3 }, "max_draft_len: 5"},
		{"no chunking", "enable_chunked_prefill: false\n" + one,
			func(c *spec.Config) bool { return !c.ChunkedPrefill && c.MaxNumTokens >= 8 }, "enable_chunked_prefill: false"},
		{"stages with attention DP", "pipeline_parallel_size: 2\nenable_attention_dp: true\ntensor_parallel_size: 4\n" + two,
			func(c *spec.Config) bool {
				return c.Loop == spec.PipelineLoop && c.AttentionDP && c.Ranks == 4 && c.StageADPRanks == 2
			}, "enable_attention_dp"},
		{"stages and host", "pipeline_parallel_size: 2\nkv_cache_config:\n  host_cache_size: 1000000\n" +
			"kvcheck:\n  target_pages: 10\n  stage_target_pages: [10, 9]\n  host_pages: 3\n  requests: [{prompt_pages: 2, new_tokens: 2}]\n",
			func(c *spec.Config) bool {
				return c.Loop == spec.PipelineLoop && c.StageTargetBlocks[0] == 10 && c.StageTargetBlocks[1] == 9 && c.HostTier && c.HostBlocks == 3
			}, "kvcheck.stage_target_pages"},
	}
	for _, tt := range tests {
		f, err := Parse(tt.name+".yaml", []byte(tt.text))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		found := false
		for _, m := range f.Mapping {
			found = found || strings.Contains(m.Option, tt.mapped)
		}
		if !tt.check(&f.Scenario.Config) || !found {
			t.Errorf("%s: mapped %v (%q named: %v):\n%s", tt.name, f.Mapping, tt.mapped, found, configtext.Format(&f.Scenario.Config))
		}
	}

}
