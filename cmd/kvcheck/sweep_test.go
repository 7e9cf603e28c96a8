package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
