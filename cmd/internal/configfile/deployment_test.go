package configfile

import (
	"os"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
)

// deepseekDeployment is the DeepSeek-style example: attention DP, MTP in
// its num_nextn_predict_layers form, block reuse, chunked prefill,
// disaggregated serving.
const deepseekDeployment = "../../../docs/examples/deepseek-adp-mtp.yaml"

// mappedWhy returns the reason the mapping gives for the option whose name
// starts with option, and whether there is one.
func mappedWhy(f *File, option string) (Mapping, bool) {
	for _, m := range f.Mapping {
		if strings.HasPrefix(m.Option, option) {
			return m, true
		}
	}
	return Mapping{}, false
}

// TestDeepSeekDeployment: the DeepSeek-style file reads
// num_nextn_predict_layers: 3 as three draft tokens, maps every
// attention_dp_config option (balance off; its wait and timeout without
// effect), places the requests as DefaultADPRouter does, lists the
// sampling, dtype, buffer and logging options as ignored with their
// reasons, maps the user's release onto the newest modelled one with a
// warning naming the PRs kvcheck models after it, turns the recompute pause
// off beside the KV cache transceiver (PR #15252), and sweeps the pools
// from the derived size down to one request barely fitting.
func TestDeepSeekDeployment(t *testing.T) {
	f, err := Load(deepseekDeployment)
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Scenario.Config
	if cfg.MaxDraftLen != 3 || cfg.ReserveDraftTokens != 3 || !cfg.AttentionDP || cfg.Ranks != 2 || cfg.DraftPool != spec.UnpairedDraftPool ||
		!cfg.KVTransceiver || !cfg.BlockReuse || !cfg.PartialReuse || !cfg.ChunkedPrefill || cfg.Version != spec.VersionRC25 || cfg.CudaGraphPaddingDummies != 0 || cfg.RecomputePause {
		t.Fatalf("derived:\n%s", configtext.Format(&cfg))
	}
	var ranks []uint8
	for _, r := range cfg.Requests {
		ranks = append(ranks, r.Rank)
	}
	// Two 12-token prompts and an 8-token one on two idle ranks: the first
	// goes to rank 0, the second to rank 1 (fewer tokens), the third to
	// rank 0 (both hold 12 tokens and one request; the lower rank).
	if len(ranks) != 3 || ranks[0] != 0 || ranks[1] != 1 || ranks[2] != 0 {
		t.Errorf("ranks %v, want [0 1 0]", ranks)
	}
	for option, want := range map[string]string{
		"speculative_config.num_nextn_predict_layers: 3": "3 MTP modules draft 3 tokens",
		"attention_dp_config.enable_balance: false":      "no context request is held back",
		"attention_dp_config.timeout_iters: 50":          "no effect: read by _balance_adp_requests only under enable_balance",
		"attention_dp_config.batching_wait_iters: 10":    "no effect",
		"attention-DP routing":                           "1→0 (routed), 2→1 (routed), 3→0 (routed)",
		"kvcheck.tensorrt_llm_version: 1.3.0rc26":        "the nearest version the spec models",
		"scheduler recompute pause":                      "gated off with a KV cache transceiver (TensorRT-LLM PR #15252",
	} {
		if m, ok := mappedWhy(f, option); !ok || !strings.Contains(m.Why, want) {
			t.Errorf("mapping of %s: %+v, want %q", option, m, want)
		}
	}
	ignored := strings.Join(f.Ignored, "\n")
	for _, want := range []string{"speculative_config.relaxed_topk (line 20): how tokens are sampled", "kv_cache_config.dtype (line 27)",
		"cache_transceiver_config.max_tokens_in_buffer (line 30)", "cuda_graph_config.batch_sizes (line 33)", "print_iter_log (line 34)"} {
		if !strings.Contains(ignored, want) {
			t.Errorf("ignored lacks %q:\n%s", want, ignored)
		}
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "1.3.0rc26 is later than v1.3.0rc25") || !strings.Contains(f.Warnings[0], "PR #19202") {
		t.Errorf("warnings %v", f.Warnings)
	}
	p := f.Pressure
	if p == nil || strings.Join(p.Goals, " ") != "target-pool-full draft-pool-full request-refused request-evicted" {
		t.Fatalf("pressure %+v", p)
	}
	var ranges []string
	for _, r := range p.Ranges {
		ranges = append(ranges, r.Text)
	}
	if got := strings.Join(ranges, " "); got != "target_blocks=6,7,9,10,12,14 draft_blocks=6,7,9,10,12,14 max_batch_size=1,2,3,4 max_num_tokens=4,8" {
		t.Errorf("pressure ranges %s", got)
	}
	// 6 pages is the smallest pool that holds the longest request: 5 is refused.
	if _, err := configtext.Parse(cfg, "target_blocks=5"); err == nil {
		t.Errorf("target_blocks=5 accepted: the sweep's lower end is not where the longest request barely fits")
	}
	if _, err := configtext.Parse(cfg, "target_blocks=6"); err != nil {
		t.Errorf("target_blocks=6: %v", err)
	}
	for _, g := range p.Goals {
		if !hasGoal(f.Scenario.Goals, g) {
			t.Errorf("the scenario's goals %v lack the pressure goal %s", f.Scenario.Goals, g)
		}
	}
}

// parseWith parses the DeepSeek-style file with old replaced by new.
func parseWith(t *testing.T, old, new string) (*File, error) {
	t.Helper()
	data := readFile(t, deepseekDeployment)
	text := strings.Replace(data, old, new, 1)
	if text == data {
		t.Fatalf("%q not in %s", old, deepseekDeployment)
	}
	return Parse("f.yaml", []byte(text))
}

// TestMTPDraftLength: MTP's draft length comes from num_nextn_predict_layers
// (the DeepSeek examples' form) or max_draft_len; the two together must
// agree; neither is the checkpoint's, assumed 1 with a warning;
// num_nextn_predict_layers under another decoding type is an error.
func TestMTPDraftLength(t *testing.T) {
	for _, tc := range []struct {
		new     string
		draft   uint32
		err     string
		warning string
	}{
		{"  num_nextn_predict_layers: 2\n", 2, "", ""},
		{"  max_draft_len: 2\n", 2, "", ""},
		{"  max_draft_len: 3\n  num_nextn_predict_layers: 3\n", 3, "", ""},
		{"  max_draft_len: 1\n  num_nextn_predict_layers: 3\n", 0, "f.yaml:19: speculative_config: num_nextn_predict_layers 3 and max_draft_len 1 (line 18) disagree", ""},
		{"", 1, "", "takes the checkpoint's num_nextn_predict_layers"},
		{"  num_nextn_predict_layers: 0\n", 0, "f.yaml:18: speculative_config.num_nextn_predict_layers: expected an integer 1..64", ""},
	} {
		f, err := parseWith(t, "  num_nextn_predict_layers: 3\n", tc.new)
		switch {
		case tc.err != "":
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.new, err, tc.err)
			}
			continue
		case err != nil:
			t.Errorf("%q: %v", tc.new, err)
			continue
		}
		if f.Scenario.Config.MaxDraftLen != tc.draft {
			t.Errorf("%q: max_draft_len %d, want %d", tc.new, f.Scenario.Config.MaxDraftLen, tc.draft)
		}
		if warned := strings.Contains(strings.Join(f.Warnings, "\n"), tc.warning); tc.warning != "" && !warned {
			t.Errorf("%q: warnings %v, want %q", tc.new, f.Warnings, tc.warning)
		}
	}
	_, err := parseWith(t, "  decoding_type: MTP\n", "  decoding_type: Eagle3\n")
	if err == nil || !strings.Contains(err.Error(), "f.yaml:18: speculative_config.num_nextn_predict_layers: an option of MTP") {
		t.Errorf("Eagle3 with num_nextn_predict_layers: %v", err)
	}
}

// TestOptionsReadOrRefused: a typo is an error with the nearest option
// names; an option that matters but is not modelled is refused with its
// reason unless set to TensorRT-LLM's default or named in
// kvcheck.ignore_options; attention_dp_config.enable_balance and the V1
// manager are refused with their reasons; draft_pool: paired without a
// speculative config is an error; out-of-range values name the line.
func TestOptionsReadOrRefused(t *testing.T) {
	for _, tc := range []struct{ old, new, err string }{
		{"  enable_block_reuse: true\n", "  enable_blok_reuse: false\n", "f.yaml:24: kv_cache_config.enable_blok_reuse: not a TensorRT-LLM option kvcheck knows; did you mean kv_cache_config.enable_block_reuse?"},
		{"max_batch_size: 256\n", "max_batch_sise: 256\n", "f.yaml:13: max_batch_sise: not a TensorRT-LLM option kvcheck knows; did you mean max_batch_size?"},
		{"print_iter_log: true\n", "enable_block_reuse: true\n", "f.yaml:34: enable_block_reuse: not a TensorRT-LLM option kvcheck knows; did you mean kv_cache_config.enable_block_reuse?"},
		{"print_iter_log: true\n", "frobnicate: true\n", "f.yaml:34: frobnicate: not a TensorRT-LLM option kvcheck knows (docs/configuration.md lists"},
		{"  enable_balance: false\n", "  enable_balance: true\n", "f.yaml:10: attention_dp_config.enable_balance: true is not modelled: PyExecutor._balance_adp_requests"},
		{"  enable_balance: false\n", "  enable_balance: maybe\n", "f.yaml:10: attention_dp_config.enable_balance: expected true or false"},
		{"  enable_balance: false\n", "  enable_kv_cache_aware_routing: true\n", "f.yaml:10: attention_dp_config.enable_kv_cache_aware_routing: true routes each request by the prefixes cached"},
		{"  use_kv_cache_manager_v2: true\n", "  use_kv_cache_manager_v2: false\n", "f.yaml:23: kv_cache_config.use_kv_cache_manager_v2: false selects the V1 (C++) KV cache manager"},
		{"  use_kv_cache_manager_v2: true\n", "  use_kv_cache_manager_v2: no\n", "f.yaml:23: kv_cache_config.use_kv_cache_manager_v2: false selects the V1"},
		{"print_iter_log: true\n", "backend: tensorrt\n", "f.yaml:34: backend: tensorrt runs the C++ KV cache manager (V1)"},
		{"  free_gpu_memory_fraction: 0.85\n", "  free_gpu_memory_fraction: 1.5\n", `f.yaml:25: kv_cache_config.free_gpu_memory_fraction: expected a number 0..1, got the value "1.5"`},
		{"  free_gpu_memory_fraction: 0.85\n", "  max_util_for_resume: 0\n", "f.yaml:25: kv_cache_config.max_util_for_resume: expected a number above 0 and at most 1"},
		{"  free_gpu_memory_fraction: 0.85\n", "  enable_partial_reuse: sometimes\n", "f.yaml:25: kv_cache_config.enable_partial_reuse: expected true or false"},
		{"  free_gpu_memory_fraction: 0.85\n", "  max_attention_window: [4096]\n", "f.yaml:25: kv_cache_config.max_attention_window: a list is not modelled: a sliding window frees blocks behind it"},
		{"print_iter_log: true\n", "max_beam_width: 4\n", `f.yaml:34: max_beam_width: the value "4" is not modelled: beam search keeps several sequences per request; the spec models one (TensorRT-LLM's default, 1, is what kvcheck models)`},
		{"  tensorrt_llm_version: 1.3.0rc26\n", "  tensorrt_llm_version: 1.2.0\n", "f.yaml:41: tensorrt_llm_version: release 1.2.0 is older than every version kvcheck models"},
		{"  tensorrt_llm_version: 1.3.0rc26\n", "  tensorrt_llm_version: deadbeef12\n", "f.yaml:41: tensorrt_llm_version: commit deadbeef12 is not one kvcheck can place"},
		{"  tensorrt_llm_version: 1.3.0rc26\n", "  tensorrt_llm_version: 1.3.0rc26\n  version: 00746ef\n", "f.yaml:41: kvcheck.tensorrt_llm_version and kvcheck.version (line 42) both given"},
		{"  tensorrt_llm_version: 1.3.0rc26\n", "  tensorrt_llm_verison: 1.3.0rc26\n", `f.yaml:41: kvcheck: unknown key "tensorrt_llm_verison"; did you mean tensorrt_llm_version?`},
		{"    - {prompt_pages: 2, new_tokens: 2}\n", "    - {prompt_pages: 2, new_tokens: 2, rank: 2}\n", "f.yaml:45: requests: rank 2, but the model has 2 attention-DP rank(s) (0..1)"},
	} {
		_, err := parseWith(t, tc.old, tc.new)
		if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("%q: error %v\nwant %q", tc.new, err, tc.err)
		}
	}
	// draft_pool: paired (or draft_pages) without a speculative config.
	noSpec := "kvcheck:\n  draft_pool: paired\n  requests: [{prompt_pages: 2, new_tokens: 2}]\n"
	if _, err := Parse("f.yaml", []byte(noSpec)); err == nil || !strings.HasPrefix(err.Error(), "f.yaml:2: kvcheck.draft_pool: the file has no speculative_config") {
		t.Errorf("draft_pool: paired without speculative_config: %v", err)
	}
	if _, err := Parse("f.yaml", []byte(strings.Replace(noSpec, "draft_pool: paired", "draft_pages: 6", 1))); err == nil || !strings.Contains(err.Error(), "kvcheck.draft_pages: the file has no speculative_config") {
		t.Errorf("draft_pages without speculative_config: %v", err)
	}
	if f, err := Parse("f.yaml", []byte(strings.Replace(noSpec, "draft_pool: paired", "draft_pool: none", 1))); err != nil || f.Scenario.Config.DraftPool != spec.NoDraftPool {
		t.Errorf("draft_pool: none without speculative_config: %v", err)
	}
	ngram := "speculative_config: {decoding_type: NGram, max_draft_len: 2}\n" + noSpec
	if _, err := Parse("f.yaml", []byte(ngram)); err == nil || !strings.Contains(err.Error(), "f.yaml:3: kvcheck.draft_pool: paired: decoding type NGram drafts without a KV cache of its own") {
		t.Errorf("draft_pool: paired with NGram: %v", err)
	}

	// An unmodelled option at its default passes, listed as ignored; named
	// in kvcheck.ignore_options it passes with a warning; ignore_options
	// naming an option the file does not set, or one kvcheck reads, is an
	// error.
	f, err := parseWith(t, "print_iter_log: true\n", "max_beam_width: 1\nscheduler_config:\n  capacity_scheduler_policy: GUARANTEED_NO_EVICT\n")
	if err != nil || !strings.Contains(strings.Join(f.Ignored, "\n"), "max_beam_width (line 34): set to TensorRT-LLM's default, 1") ||
		!strings.Contains(strings.Join(f.Ignored, "\n"), "scheduler_config.capacity_scheduler_policy (line 36): set to TensorRT-LLM's default") {
		t.Errorf("defaults: %v %v", err, f)
	}
	f, err = parseWith(t, "  tensorrt_llm_version: 1.3.0rc26\n", "  version: 00746ef\n  ignore_options: [max_beam_width]\n")
	if err == nil {
		t.Errorf("ignore_options naming an option the file does not set: no error")
	} else if !strings.Contains(err.Error(), "f.yaml:42: kvcheck.ignore_options: max_beam_width (line 42) not set in the file") {
		t.Errorf("ignore_options naming an option the file does not set: %v", err)
	}
	text := strings.Replace(readFile(t, deepseekDeployment), "print_iter_log: true\n", "max_beam_width: 2\n", 1)
	text = strings.Replace(text, "  tensorrt_llm_version: 1.3.0rc26\n", "  version: 00746ef\n  ignore_options: [max_beam_width]\n", 1)
	if f, err = Parse("f.yaml", []byte(text)); err != nil || f.Scenario.Config.Version != spec.Version00746ef ||
		!strings.Contains(strings.Join(f.Warnings, "\n"), "max_beam_width (line 34) is not modelled (beam search") {
		t.Errorf("ignore_options: %v %+v", err, f)
	}
	text = strings.Replace(text, "ignore_options: [max_beam_width]", "ignore_options: [max_batch_size]", 1)
	if _, err = Parse("f.yaml", []byte(text)); err == nil || !strings.Contains(err.Error(), "kvcheck.ignore_options: max_batch_size is not an option kvcheck refuses") {
		t.Errorf("ignore_options naming a read option: %v", err)
	}
}

// TestYAML11Booleans: yes/no and on/off, which PyYAML's safe_load reads as
// booleans, are read so; other words are errors.
func TestYAML11Booleans(t *testing.T) {
	for value, want := range map[string]bool{"yes": true, "No": false, "ON": true, "off": false, "True": true, "FALSE": false} {
		f, err := parseWith(t, "  enable_block_reuse: true\n", "  enable_block_reuse: "+value+"\n")
		if err != nil || f.Scenario.Config.BlockReuse != want {
			t.Errorf("enable_block_reuse: %s: %v, %v", value, err, f)
		}
	}
	for _, value := range []string{"y", "1", "enabled"} {
		if _, err := parseWith(t, "  enable_block_reuse: true\n", "  enable_block_reuse: "+value+"\n"); err == nil {
			t.Errorf("enable_block_reuse: %s accepted", value)
		}
	}
}

// TestConfigOverride: the documented kvcheck.config section overrides the
// derived settings of its keys (target_blocks, max_draft_len) and replaces
// the derived requests with its own, and the mapping says what it
// overrode.
func TestConfigOverride(t *testing.T) {
	f, err := parseWith(t, "  tensorrt_llm_version: 1.3.0rc26\n", "  tensorrt_llm_version: 1.3.0rc26\n  config: |\n    target_blocks=9 max_draft_len=2\n    request prompt=8 new=2\n")
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Scenario.Config
	if cfg.TargetBlocks != 9 || cfg.MaxDraftLen != 2 || cfg.DraftBlocks != 14 || len(cfg.Requests) != 1 || cfg.Requests[0].PromptLen != 8 {
		t.Fatalf("config:\n%s", configtext.Format(&cfg))
	}
	m, ok := mappedWhy(f, "kv_cache_config.free_gpu_memory_fraction")
	if !ok || !strings.HasSuffix(m.Why, "overridden: target_blocks (kvcheck.config, line 43)") {
		t.Errorf("mapping %+v", m)
	}
	if m, ok := mappedWhy(f, "speculative_config.num_nextn_predict_layers"); !ok || !strings.Contains(m.Why, "overridden: max_draft_len (kvcheck.config, line 43)") {
		t.Errorf("mapping %+v", m)
	}
	// The pressure sweep is around the overridden sizes: from 9 pages down
	// to 4, where the one 8-token request (with 3 drafts) barely fits.
	if got := f.Pressure.Ranges[0].Text; got != "target_blocks=4,5,6,7,8,9" {
		t.Errorf("ranges %v", f.Pressure.Ranges)
	}
	// A setting the spec does not know is still an error at its line.
	if _, err := parseWith(t, "  tensorrt_llm_version: 1.3.0rc26\n", "  tensorrt_llm_version: 1.3.0rc26\n  config: |\n    target_blocs=9\n"); err == nil ||
		!strings.Contains(err.Error(), `f.yaml:43: unknown setting "target_blocs"`) {
		t.Errorf("a bad override: %v", err)
	}
}

// readFile is the text of path.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
