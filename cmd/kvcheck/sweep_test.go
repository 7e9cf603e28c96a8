package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
)

// smallSweep is a space of a hundred-odd configurations around
// adp-dummy-leak: the real code breaks at once, free-unpaired-mirror
// breaks further in (small draft pools reach seed 000's crash), and
// free-unpaired-mirror with defer-draft-mirror holds.
var smallSweep = []string{"--scenario", "adp-dummy-leak",
	"--range", "requests=1..2", "--range", "prompt_pages=1", "--range", "new_tokens=1..2", "--range", "receiving_kv=all",
	"--range", "target_blocks=3..4", "--range", "draft_blocks=3..4", "--range", "max_num_active_requests=2"}

func sweepArgs(extra ...string) []string {
	return append(append([]string{"sweep"}, smallSweep...), extra...)
}

// TestSweepShardsMergeEqualOneRun: two shards folded by kvcheck merge give
// the report one run gives, for a variant that breaks at once, one that
// breaks further in, and one that holds.
func TestSweepShardsMergeEqualOneRun(t *testing.T) {
	for _, fixes := range [][]string{
		{"--fix", "none"},
		{"--fix", "free-unpaired-mirror"},
		{"--fix", "free-unpaired-mirror", "--fix", "defer-draft-mirror"},
	} {
		args := append(append([]string{"--no-cache"}, fixes...), "--workers", "2")
		code, one, errOut := runKvcheck(sweepArgs(append(args, "--json")...)...)
		if code == exitUsage {
			t.Fatalf("sweep: %s", errOut)
		}
		dir := t.TempDir()
		var files []string
		for _, shard := range []string{"0/2", "1/2"} {
			c, out, errOut := runKvcheck(sweepArgs(append(args, "--shard", shard)...)...)
			if c != exitOK {
				t.Fatalf("shard %s: exit %d: %s", shard, c, errOut)
			}
			file := filepath.Join(dir, strings.ReplaceAll(shard, "/", "-")+".jsonl")
			if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, file)
		}
		mcode, merged, errOut := runKvcheck(append([]string{"merge", "--json"}, files...)...)
		if mcode != code || merged != one {
			t.Fatalf("%v: merge (exit %d) differs from one run (exit %d): %s\none run:\n%s\nmerged:\n%s", fixes, mcode, code, errOut, one, merged)
		}
		var rep sweep.Report
		if err := json.Unmarshal([]byte(one), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Configurations == 0 || !rep.Complete || rep.Total < 100 {
			t.Fatalf("%v: %+v", fixes, rep)
		}
		t.Logf("%v: %s, %d of %d configurations: %s", fixes, rep.Result, rep.Configurations, rep.Total, rep.Finding)
	}
}

// withoutRunLines drops the lines that say how a run went (cache, timing),
// leaving the report.
func withoutRunLines(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "cache:") || strings.HasPrefix(line, "warm cache:") || strings.Contains(line, "configurations checked in") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

// TestSweepWarmCacheSaysSo: a rerun with the same spec reuses every result
// and says so, with the same report; a --time budget that runs out says
// "incomplete: N of M checked" and exits 3, and the rerun completes it
// from the cache.
func TestSweepWarmCacheSaysSo(t *testing.T) {
	dir := t.TempDir()
	args := sweepArgs("--fix", "free-unpaired-mirror", "--fix", "defer-draft-mirror", "--cache", dir, "--workers", "2", "--liveness=false")
	code, out, errOut := runKvcheck(append(args, "--time", "1ns")...)
	if code != exitIncomplete || !strings.Contains(out, "incomplete: 0 of 288 checked (the --time budget ran out") {
		t.Fatalf("budget: exit %d, want %d:\n%s%s", code, exitIncomplete, out, errOut)
	}
	code1, out1, errOut := runKvcheck(args...)
	if code1 == exitUsage || !strings.Contains(out1, "cache: 0 results reused") {
		t.Fatalf("cold: exit %d:\n%s%s", code1, out1, errOut)
	}
	code2, out2, _ := runKvcheck(args...)
	if code2 != code1 || !strings.Contains(out2, "warm cache: all ") || !strings.Contains(out2, "nothing rechecked") {
		t.Fatalf("warm: exit %d (cold %d):\n%s", code2, code1, out2)
	}
	if withoutRunLines(out1) != withoutRunLines(out2) {
		t.Fatalf("the warm report differs:\n%s\nvs\n%s", out1, out2)
	}
}

func TestSweepBadInput(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.jsonl")
	os.WriteFile(garbage, []byte("{\"sweep\":null}\nnot json\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--scenario", "adp-dummy-leak", "--range", "bogus=1"}, `--range: unknown range key "bogus"`},
		{[]string{"sweep", "--scenario", "adp-dummy-leak", "--range", "target_blocks=8..3"}, "--range: target_blocks: expected an interval LO..HI"},
		{[]string{"sweep", "--scenario", "adp-dummy-leak", "--shard", "2/2"}, "--shard: expected i/n with 0 <= i < n"},
		{[]string{"sweep", "--scenario", "nope"}, `unknown scenario "nope"`},
		{[]string{"sweep", "--scenario", "adp-dummy-leak", "--range", "target_blocks=1"}, "no valid configuration in the ranges"},
		{[]string{"merge", garbage}, garbage + ":1: expected a JSON object"},
		{[]string{"merge"}, "expected the shards' result files"},
	} {
		code, _, errOut := runKvcheck(tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, exitUsage, tc.want)
		}
	}
}

// TestSweepConfigFileRanges: a configuration file's settings apply to the
// scenario's configuration and its `sweep` lines give ranges; errors name
// the file and line.
func TestSweepConfigFileRanges(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sweep.txt")
	seed := "tokens_per_block=4 max_draft_len=1 kv_reserve_draft_tokens=1 max_batch_size=2 max_num_tokens=8\n" +
		"enable_chunked_prefill=true chunk_unit_size=4 target_blocks=8 draft_blocks=8 target_index_slots=4 draft_index_slots=4\n" +
		"max_util_for_resume=100 draft_pool=unpaired version=00746ef ranks=2 loop=overlap\n" +
		"enable_attention_dp=true max_num_active_requests=2 kv_cache_transceiver=true enable_adp_dummy_fixes=true\n" +
		"request prompt=4 new=1 receiving_kv=true\nrequest prompt=4 new=2 rank=1\n"
	os.WriteFile(file, []byte(seed+"sweep requests=1..2 prompt_pages=1 new_tokens = 1\nsweep target_blocks=3..4 draft_blocks=3\n"), 0o644)
	code, out, errOut := runKvcheck("sweep", "--config", file, "--fix", "none", "--no-cache")
	if code != exitViolation || !strings.Contains(out, "ranges: target_blocks=3,4 draft_blocks=3 requests=1,2 prompt_pages=1 new_tokens=1") ||
		!strings.Contains(out, "reproduce: go run ./cmd/kvcheck sweep --config "+file+" --fix none") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	yamlFile := filepath.Join(dir, "deployment.yaml")
	os.WriteFile(yamlFile, []byte("kvcheck:\n  config: |\n"+indent(seed)+"  sweep:\n    requests: 1..2\n    target_blocks: x\n"), 0o644)
	code, _, errOut = runKvcheck("sweep", "--config", yamlFile, "--no-cache")
	if code != exitUsage || !strings.Contains(errOut, yamlFile+": line 11: target_blocks: expected an integer 0..") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func indent(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		b.WriteString("    " + line + "\n")
	}
	return b.String()
}

// TestFuzzSweepFindsAndWrites: fuzz --sweep walks random configurations
// around the scenario's, finds the real code's leak on some, and writes the
// smallest as a transcript that replays.
func TestFuzzSweepFindsAndWrites(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runKvcheck("fuzz", "--sweep", "--scenario", "adp-dummy-leak", "--fix", "none", "--seed", "3", "--walks", "16", "--time", "2s", "--json", "--out", dir)
	if code != exitViolation {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	var r fuzzSweepReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil {
		t.Fatal(err)
	}
	if r.Configurations == 0 || r.Smallest == nil || r.Smallest.Steps == 0 || r.Smallest.Steps != len(r.Smallest.Trace) {
		t.Fatalf("%+v", r)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "adp-dummy-leak.real-code.fuzz-sweep.*.txt"))
	if len(files) != 1 {
		t.Fatalf("transcripts %v; stderr %s", files, errOut)
	}
	if code, out, errOut := runKvcheck("replay", files[0]); code != exitOK {
		t.Fatalf("replay exit %d:\n%s%s", code, out, errOut)
	}
}

// TestFuzzSweepWithoutViolationIsIncomplete: random configurations walked
// without a violation prove nothing, so the result is incomplete, never
// ok (here the budget is over before the first draw).
func TestFuzzSweepWithoutViolationIsIncomplete(t *testing.T) {
	sc, err := lookupScenario("draft-admission")
	if err != nil {
		t.Fatal(err)
	}
	r := fuzzSweepVariant(variant{scenario: sc}, 1, 4, time.Now())
	if r.Result != verdictIncomplete || r.Smallest != nil {
		t.Fatalf("result %q after %d configurations; want incomplete", r.Result, r.Configurations)
	}
}
