package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const deepseekDeployment = "../../docs/examples/deepseek-adp-mtp.yaml"

// writeFile writes text to name in a fresh directory and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPressureNeverPlainOK: a deployment whose requests cannot put its
// pools under pressure is never reported ok. With one short request the
// pressure sweep fills the target pool at its smallest size but never
// refuses or evicts a request: the verdict is unreached-goal, said to be
// vacuous, exit 1; checked alone (--pressure=false) on pools five times
// what the request needs, not even the pool fills: unreached-goal too. kvcheck
// sweep of the same file says vacuous and exits 1.
func TestPressureNeverPlainOK(t *testing.T) {
	file := writeFile(t, "roomy.yaml", "kv_cache_config:\n  use_kv_cache_manager_v2: true\nkvcheck:\n  target_pages: 20\n  requests: [{prompt_pages: 1, new_tokens: 2}]\n")
	cache := t.TempDir()
	code, out, errOut := runKvcheck("check", "--config", file, "--cache", cache, "--json")
	var r checkReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || code != exitViolation || r.Verdict != unreachedGoal ||
		!strings.HasPrefix(r.Message, "vacuous: none of the") || !strings.Contains(r.Message, "request-refused") || !strings.Contains(r.Message, "request-evicted") ||
		strings.Contains(r.Message, "target-pool-full") || !r.Goals["target-pool-full"] {
		t.Fatalf("exit %d %v\n%s%s", code, err, out, errOut)
	}
	if !strings.Contains(errOut, "configurations reaching each pressure goal: target-pool-full ") || !strings.Contains(errOut, "request-refused 0, request-evicted 0") {
		t.Errorf("stderr lacks the goal counts:\n%s", errOut)
	}
	code, out, errOut = runKvcheck("check", "--config", file, "--pressure=false", "--json")
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || code != exitViolation || r.Verdict != unreachedGoal ||
		!strings.Contains(r.Message, "goal target-pool-full") {
		t.Fatalf("--pressure=false: exit %d %v\n%s%s", code, err, out, errOut)
	}
	code, out, errOut = runKvcheck("sweep", "--config", file, "--cache", cache)
	if code != exitViolation || !strings.Contains(out, "vacuous: no configuration reached the pressure goal(s) request-refused, request-evicted") {
		t.Fatalf("sweep: exit %d\n%s%s", code, out, errOut)
	}
}

// TestPressureDeepSeekDeployment: the DeepSeek-style file (attention DP,
// MTP as num_nextn_predict_layers: 3) is checked with three draft tokens
// on its pressure sweep, whose configurations reach every pressure goal;
// its verdict is the smallest configuration's violation, with where in the
// sweep it lies, not ok. Rerun, every result comes from the cache.
func TestPressureDeepSeekDeployment(t *testing.T) {
	cache := t.TempDir()
	code, out, errOut := runKvcheck("check", "--config", deepseekDeployment, "--cache", cache, "--json")
	var r checkReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || code != exitViolation || r.Result != "violation" || r.Verdict == unreachedGoal ||
		!strings.Contains(r.Message, "of the pressure sweep, 3 requests") || r.Steps == 0 || len(r.Trace) != r.Steps {
		t.Fatalf("exit %d %v\n%s%s", code, err, out, errOut)
	}
	for _, g := range []string{"target-pool-full", "draft-pool-full", "request-refused", "request-evicted"} {
		if !r.Goals[g] {
			t.Errorf("no configuration reached %s: %v", g, r.Goals)
		}
	}
	for _, want := range []string{"max_draft_len=3 kv_reserve_draft_tokens=3", "attention-DP routing", "pressure sweep of 288 configurations",
		"configurations checked, up to the size class of #"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	code, again, errOut := runKvcheck("check", "--config", deepseekDeployment, "--cache", cache, "--json")
	var r2 checkReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(again)), &r2); err != nil || code != exitViolation || r2.Message != r.Message || r2.States != r.States {
		t.Fatalf("rerun: exit %d %v\n%s\nfirst %s", code, err, again, out)
	}
}

// TestConfigRefusals: a typo, the V1 manager and balance-holding attention
// DP exit 2 naming the file, the line, the reason and the command that
// reproduces it.
func TestConfigRefusals(t *testing.T) {
	base := "kv_cache_config:\n  use_kv_cache_manager_v2: true\n  enable_block_reuse: true\nkvcheck:\n  requests: [{prompt_pages: 2, new_tokens: 2}]\n"
	for _, tc := range []struct{ old, new, want string }{
		{"enable_block_reuse: true", "enable_blok_reuse: false", ":3: kv_cache_config.enable_blok_reuse: not a TensorRT-LLM option kvcheck knows; did you mean kv_cache_config.enable_block_reuse?"},
		{"use_kv_cache_manager_v2: true", "use_kv_cache_manager_v2: false", ":2: kv_cache_config.use_kv_cache_manager_v2: false selects the V1 (C++) KV cache manager; kvcheck models KVCacheManagerV2 and its V2 scheduler only"},
		{"kvcheck:", "enable_attention_dp: true\ntensor_parallel_size: 2\nattention_dp_config: {enable_balance: yes}\nkvcheck:", ":6: attention_dp_config.enable_balance: true is not modelled"},
	} {
		file := writeFile(t, "deploy.yaml", strings.Replace(base, tc.old, tc.new, 1))
		code, out, errOut := runKvcheck("check", "--config", file, "--no-cache")
		if code != exitUsage || !strings.Contains(errOut, file+tc.want) || !strings.Contains(errOut, "reproduce: go run ./cmd/kvcheck check --config "+file) || out != "" {
			t.Errorf("%s: exit %d\n%s%s", tc.new, code, out, errOut)
		}
	}
}

// TestPressureShardsMerge: the pressure sweep of a file checked in two
// shards and merged gives the report one run gives, pressure goals
// included: the vacuous file stays vacuous (exit 1).
func TestPressureShardsMerge(t *testing.T) {
	file := writeFile(t, "roomy.yaml", "kv_cache_config:\n  use_kv_cache_manager_v2: true\nkvcheck:\n  target_pages: 6\n  requests: [{prompt_pages: 1, new_tokens: 2}]\n")
	dir := t.TempDir()
	var shards []string
	for _, s := range []string{"0/2", "1/2"} {
		code, out, errOut := runKvcheck("check", "--config", file, "--shard", s, "--no-cache")
		if code != exitOK || !strings.Contains(errOut, "shard "+s) {
			t.Fatalf("shard %s: exit %d\n%s", s, code, errOut)
		}
		path := filepath.Join(dir, strings.Replace(s, "/", "-", 1)+".jsonl")
		os.WriteFile(path, []byte(out), 0o644)
		shards = append(shards, path)
	}
	code, out, errOut := runKvcheck(append([]string{"merge"}, shards...)...)
	if code != exitViolation || !strings.Contains(out, "vacuous: no configuration reached the pressure goal(s) request-refused, request-evicted") {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runKvcheck("check", "--scenario", "draft-admission", "--shard", "0/2"); code != exitUsage || !strings.Contains(errOut, "--shard splits the pressure sweeps") {
		t.Errorf("--shard on a built-in scenario: exit %d %s", code, errOut)
	}
}

// TestPressureFindingTriagedWhereItBroke: a deployment file's violation is
// triaged at the pressure-sweep configuration whose trace it reports, not
// at the file's own sizes (where that trace does not crash and the
// finding would read as new). Seed 000's deployment breaks first at
// configuration #1 (5-page pools), with seed 000's raise.
func TestPressureFindingTriagedWhereItBroke(t *testing.T) {
	code, out, errOut := runKvcheck("check", "--config", "../../docs/examples/seed000-deployment.yaml", "--fix", "none", "--cache", t.TempDir(), "--json")
	var r checkReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || code != 0 || r.Triage == nil {
		t.Fatalf("exit %d %v\n%s%s", code, err, out, errOut)
	}
	if r.Triage.Signature.Function != "_prepare_draft_resources" || !r.Triage.Known ||
		len(r.Triage.SameAs) == 0 || !strings.HasPrefix(r.Triage.SameAs[0], "same as seed 000 (draft-admission)") {
		t.Errorf("triage signature %+v, same as %q: want seed 000's raise", r.Triage.Signature, r.Triage.SameAs)
	}
	if !strings.Contains(r.Triage.CapacityNote, "all 5 pages") {
		t.Errorf("capacity note %q: configuration #1 has 5-page pools", r.Triage.CapacityNote)
	}
}

// TestPressureSkipInvariant: --skip-invariant narrows a deployment's
// pressure sweep as it narrows a check: without no-crash-on-refusal seed
// 000's deployment shows no violation, and its real code, expected to
// crash, is reported but not judged (exit 0).
func TestPressureSkipInvariant(t *testing.T) {
	code, out, errOut := runKvcheck("check", "--config", "../../docs/examples/seed000-deployment.yaml", "--fix", "none",
		"--skip-invariant", "no-crash-on-refusal", "--triage=false", "--cache", t.TempDir(), "--json")
	var r checkReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || code != 0 || r.Result != "ok" || r.Unjudged == "" {
		t.Fatalf("exit %d %v: result %q, unjudged %q\n%s%s", code, err, r.Result, r.Unjudged, out, errOut)
	}
}
