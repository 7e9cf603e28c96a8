package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

const seedDeployment = "../../docs/examples/seed000-deployment.yaml"

// TestConfigSeedDeployment: checking the TensorRT-LLM options of seed
// 000's deployment prints the scaled configuration and why, lists the
// option it ignores and why, runs the pressure sweep around the file's
// sizes, finds the draft-admission crash on rank 0 at its smallest pools as
// expected (exit 0), and its reproduce line names the file.
func TestConfigSeedDeployment(t *testing.T) {
	code, out, errOut := runKvcheck("check", "--config", seedDeployment, "--no-cache")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"(TensorRT-LLM LLM API options) is checked as scenario seed000-deployment, scaled down as follows:",
		"pipeline_parallel_size: 2 → ranks=2 loop=pipeline",
		"kv_cache_config.tokens_per_block: 64 → tokens_per_block=4",
		"options ignored, known not to matter to the KV cache:\n  kv_cache_config.dtype (line 18): the bytes of a block",
		"checked on the pressure sweep around these sizes",
		"  target_blocks=5,6,7,8: the target pool from the derived 8 pages down to 5, where the longest request barely fits",
		"seed000-deployment (real-code): pressure sweep of 128 configurations, smallest first",
		"every verdict is as expected: 2 variant(s)",
		"rank 0 draft pool request 2: _prepare_draft_resources raised RuntimeError: Draft KV cache context resize failed for request 2",
		"(configuration #1 of the pressure sweep, 3 requests, 20 pages, 2 ranks: max_batch_size=1 target_blocks=5 draft_blocks=5); closed by joint-admission, mirror-reuse",
		"reproduce: go run ./cmd/kvcheck check --config " + seedDeployment + " --fix none",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// In --json mode the derivation goes to stderr, stdout stays JSON.
	code, out, errOut = runKvcheck("check", "--config", seedDeployment, "--fix", "none", "--json", "--no-cache")
	var r checkReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); code != exitOK || err != nil || r.Invariant != "no-crash-on-refusal" || !strings.Contains(errOut, "scaled down as follows") {
		t.Fatalf("--json: exit %d %v\n%s%s", code, err, out, errOut)
	}
	// --pressure=false checks the derived configuration alone: the crash,
	// at the file's own 8-page pools.
	code, out, errOut = runKvcheck("check", "--config", seedDeployment, "--fix", "none", "--pressure=false")
	if code != exitOK || strings.Contains(out, "pressure sweep of") || strings.Contains(out, "checked on the pressure sweep") || !strings.Contains(out, "no-crash-on-refusal  as expected  12") {
		t.Fatalf("--pressure=false: exit %d\n%s%s", code, out, errOut)
	}
}

// TestShowConfigRoundTrip: `kvcheck show-config NAME` prints a file that
// `kvcheck check --config` checks with the same verdicts and state counts
// as the built-in scenario.
func TestShowConfigRoundTrip(t *testing.T) {
	for _, sc := range scenario.All() {
		code, text, errOut := runKvcheck("show-config", sc.Name)
		if code != exitOK {
			t.Fatalf("%s: exit %d %s", sc.Name, code, errOut)
		}
		path := filepath.Join(t.TempDir(), sc.Name+".yaml")
		os.WriteFile(path, []byte(text), 0o644)
		_, builtin, _ := runKvcheck("check", "--scenario", sc.Name, "--json", "--triage=false")
		code, fromFile, errOut := runKvcheck("check", "--config", path, "--json", "--triage=false")
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s", sc.Name, code, errOut)
		}
		strip := func(s string) string {
			var out []string
			for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
				var r checkReport
				json.Unmarshal([]byte(line), &r)
				out = append(out, strings.Join([]string{r.Scenario, strings.Join(r.Fixes, "+"), r.Verdict, r.Expected, r.Message}, " ")+" "+string(rune('0'+r.States%10)))
			}
			return strings.Join(out, "\n")
		}
		if strip(builtin) != strip(fromFile) {
			t.Errorf("%s: built-in\n%s\nfrom its file\n%s", sc.Name, strip(builtin), strip(fromFile))
		}
	}
	if code, _, errOut := runKvcheck("show-config", "nope"); code != exitUsage || !strings.Contains(errOut, "valid scenarios") {
		t.Errorf("unknown name: exit %d %s", code, errOut)
	}
}

// TestConfigErrors: a bad --config file exits 2 naming file and line.
func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("max_batch_size: many\nkvcheck:\n  requests: [{prompt_pages: 3, new_tokens: 4}]\n"), 0o644)
	if code, _, errOut := runKvcheck("check", "--config", bad); code != exitUsage || !strings.Contains(errOut, bad+":1: max_batch_size: expected an integer") {
		t.Errorf("exit %d %s", code, errOut)
	}
	if code, _, errOut := runKvcheck("fuzz", "--config", filepath.Join(dir, "missing.yaml")); code != exitUsage || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing file: exit %d %s", code, errOut)
	}
}

// TestListMarkdownTable: `kvcheck list --markdown` prints one table row
// per scenario with its expected verdicts; the README's table holds its
// header and rows, but those of the historical bugs (a scenario with a
// pre-fix switch), which docs/history-bugs.md holds.
func TestListMarkdownTable(t *testing.T) {
	code, out, _ := runKvcheck("list", "--markdown")
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(rows) != 2+len(scenario.All()) || !strings.Contains(out, "| `draft-admission` |") ||
		!strings.Contains(out, "`real-code` → `no-crash-on-refusal`") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	historical := map[string]bool{}
	for _, sc := range scenario.All() {
		historical[sc.Name] = sc.Config.PreFixes != 0
	}
	docs := map[string]string{}
	for _, doc := range []string{"README.md", "docs/history-bugs.md"} {
		data, err := os.ReadFile("../../" + doc)
		if err != nil {
			t.Fatal(err)
		}
		docs[doc] = string(data)
		if !strings.Contains(docs[doc], rows[0]+"\n"+rows[1]+"\n") {
			t.Errorf("%s does not hold the header of the scenario table `kvcheck list --markdown` prints:\n%s\n%s", doc, rows[0], rows[1])
		}
	}
	for _, row := range rows[2:] {
		name, _, _ := strings.Cut(strings.TrimPrefix(row, "| `"), "`")
		doc := "README.md"
		if historical[name] {
			doc = "docs/history-bugs.md"
		}
		if !strings.Contains(docs[doc], row+"\n") {
			t.Errorf("%s does not hold the row of scenario %s that `kvcheck list --markdown` prints; paste it in its table:\n%s\nreproduce: go run ./cmd/kvcheck list --markdown", doc, name, row)
		}
	}
}

// TestConfigOutTranscriptsReplay: the transcripts of a --config scenario
// carry the whole configuration of the pressure sweep's counterexample and
// name no built-in scenario, so they replay without the file.
func TestConfigOutTranscriptsReplay(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runKvcheck("check", "--config", seedDeployment, "--out", dir, "--no-cache")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, name := range []string{"seed000-deployment.real-code.no-crash-on-refusal.txt", "seed000-deployment.joint-admission.ok.txt"} {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil || strings.Contains(string(data), "scenario=") || !strings.Contains(string(data), "target_blocks=5") {
			t.Errorf("%s: %v, names a scenario: %v\n%s", name, err, strings.Contains(string(data), "scenario="), data)
		}
		if code, _, errOut := runKvcheck("replay", path); code != exitOK {
			t.Errorf("%s does not replay: exit %d %s", name, code, errOut)
		}
	}
}
