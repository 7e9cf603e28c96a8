package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reachesScenario is eviction-ladder's configuration with a reaches: line.
func reachesScenario(t *testing.T, reaches string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ladder.yaml")
	text := `kvcheck:
  name: ladder
  doc: 'eviction ladder'
  report: 'test'
  reaches: [` + reaches + `]
  variants:
    - {fixes: real-code, expect: ok}
  config: |
    tokens_per_block=4 max_draft_len=1 max_batch_size=2 max_num_tokens=6 enable_chunked_prefill=true chunk_unit_size=4
    target_blocks=4 target_index_slots=3 max_util_for_resume=100 enable_recompute_pause=true ranks=1
    request prompt=4 new=8
    request prompt=4 new=8
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestReachesChecksTheMechanisms: a scenario's reaches: line passes when
// the run exercises every mechanism it names and fails, as an unreached
// goal naming the mechanism, when one is never exercised; an unknown
// mechanism is a usage error naming the file and line.
func TestReachesChecksTheMechanisms(t *testing.T) {
	code, out, errOut := runKvcheck("check", "--config", reachesScenario(t, "branch recompute-pause-for-generation, action schedule"))
	if code != 0 {
		t.Fatalf("reached mechanisms: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runKvcheck("check", "--config", reachesScenario(t, "branch preempt-for-pages"))
	if code != 1 || !strings.Contains(out+errOut, "mechanism branch preempt-for-pages") || !strings.Contains(out+errOut, "unreached-goal") {
		t.Fatalf("unreached mechanism: exit %d, want 1 and an unreached goal naming it\n%s%s", code, out, errOut)
	}
	file := reachesScenario(t, "branch no-such-branch")
	code, out, errOut = runKvcheck("check", "--config", file)
	if code != 2 || !strings.Contains(errOut, file+":5") || !strings.Contains(errOut, `unknown mechanism "branch no-such-branch"`) {
		t.Fatalf("unknown mechanism: exit %d, want 2 and the file's line 5\n%s%s", code, out, errOut)
	}
}
