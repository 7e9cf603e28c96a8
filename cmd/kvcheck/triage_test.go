package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedFragile is a configuration whose violation is fragile by
// construction (cmd/internal/triage's TestFragileByConstruction): the last
// generation step's capacity is three step tokens over max_seq_len, which
// overflows a page-index row of 4-token pages but not one of 6-token pages
// or more.
const plantedFragile = "tokens_per_block=4 max_draft_len=2 num_extra_kv_tokens=2 max_batch_size=1 max_num_tokens=8 target_blocks=4 target_index_slots=2 max_util_for_resume=100 ranks=1 max_seq_len=6\nrequest prompt=4 new=2\n"

// plantedTranscript checks the planted configuration with --out and
// returns the check's text output and the transcript it wrote.
func plantedTranscript(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	config := filepath.Join(dir, "planted.txt")
	os.WriteFile(config, []byte(plantedFragile), 0o644)
	code, out, errOut := runKvcheck("check", "--config", config, "--out", dir)
	if code != exitViolation {
		t.Fatalf("check --config planted: exit %d, want %d (a violation a configuration file does not expect)\n%s%s", code, exitViolation, out, errOut)
	}
	path := filepath.Join(dir, "planted.real-code.page-index-row-bounded.txt")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("check --out wrote no %s:\n%s", path, out)
	}
	return out, path
}

// TestTriageCommand: `kvcheck triage FILE` prints one line per label of a
// planted fragile finding, the same the check that wrote it printed and
// its banner says; --json gives the triage object.
func TestTriageCommand(t *testing.T) {
	checkOut, path := plantedTranscript(t)
	code, out, errOut := runKvcheck("triage", path)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	labels := []string{"triage: fragile: page-index-row-bounded", "scale: ", "needs: ", "closed by: ", "indifferent to: ", "attribution: ", "capacity edge: "}
	for _, want := range append(labels, path+": page-index-row-bounded", "tokens_per_block ×2 (8) gone", "needs tokens_per_block < 6", "triaged in ") {
		if !strings.Contains(out, want) {
			t.Errorf("kvcheck triage output lacks %q:\n%s", want, out)
		}
	}
	// The check printed the same labels, before its reproduce line.
	for _, want := range labels {
		i, j := strings.Index(checkOut, "  "+want), strings.LastIndex(checkOut, "  reproduce: ")
		if i < 0 || i > j {
			t.Errorf("the check's report lacks %q before its reproduce line:\n%s", want, checkOut)
		}
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "# Triage (kvcheck triage; docs/triage.md): fragile, needs tokens_per_block < 6") {
		t.Errorf("the transcript's banner lacks the triage:\n%s", data)
	}
	code, out, _ = runKvcheck("triage", "--json", path)
	var got struct {
		File   string         `json:"file"`
		Triage map[string]any `json:"triage"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != exitOK || err != nil || got.File != path {
		t.Fatalf("--json: exit %d, %v:\n%s", code, err, out)
	}
	for _, key := range []string{"label", "story", "scale", "needs", "closed_by", "indifferent_to", "same_as", "capacity_edge", "knobs", "signature"} {
		if _, ok := got.Triage[key]; !ok {
			t.Errorf("--json: the triage object lacks %q: %v", key, got.Triage)
		}
	}
	if got.Triage["label"] != "fragile" {
		t.Errorf("--json: label %v", got.Triage["label"])
	}
	code, out, _ = runKvcheck("triage", "--markdown", path)
	if code != exitOK || !strings.HasPrefix(out, "> planted (real code): page-index-row-bounded") || !strings.Contains(out, "**fragile**") {
		t.Errorf("--markdown: exit %d:\n%s", code, out)
	}
}

// TestTriageCommandErrors: a transcript without a violation, a missing
// file and no file are usage errors that say what was expected; each
// failure ends with the command that reproduces it.
func TestTriageCommandErrors(t *testing.T) {
	fix := "../../counterexamples/testdata/draft-admission.joint-admission.ok.txt"
	code, _, errOut := runKvcheck("triage", fix)
	if code != exitUsage || !strings.Contains(errOut, "shows no violation") || !strings.HasSuffix(errOut, "reproduce: go run ./cmd/kvcheck triage "+fix+"\n") {
		t.Errorf("a fix transcript: exit %d\n%s", code, errOut)
	}
	missing := filepath.Join(t.TempDir(), "missing.txt")
	if code, _, errOut := runKvcheck("triage", missing); code != exitUsage || !strings.Contains(errOut, "missing.txt") {
		t.Errorf("a missing file: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runKvcheck("triage"); code != exitUsage || !strings.Contains(errOut, "expected at least one transcript") {
		t.Errorf("no file: exit %d\n%s", code, errOut)
	}
	for _, args := range [][]string{{"triage", fix}, {"check"}, {"fuzz"}, {"sweep"}, {"merge", fix}} {
		cmd := args[0]
		if code, _, errOut := runKvcheck(append(args, "--triage-max-states", "0")...); code != exitUsage || !strings.Contains(errOut, "--triage-max-states must be at least 1, got 0") {
			t.Errorf("%s --triage-max-states 0: exit %d\n%s", cmd, code, errOut)
		}
	}
}

// TestCheckJSONCarriesTriage: check --json gives a violation its triage
// object; --triage=false leaves it out.
func TestCheckJSONCarriesTriage(t *testing.T) {
	config := filepath.Join(t.TempDir(), "planted.txt")
	os.WriteFile(config, []byte(plantedFragile), 0o644)
	for _, on := range []bool{true, false} {
		args := []string{"check", "--config", config, "--json"}
		if !on {
			args = append(args, "--triage=false")
		}
		_, out, _ := runKvcheck(args...)
		var r checkReport
		if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil {
			t.Fatal(err)
		}
		switch {
		case on && (r.Triage == nil || r.Triage.Label != "fragile" || len(r.Triage.Scale) < 6):
			t.Errorf("triage %+v", r.Triage)
		case !on && r.Triage != nil:
			t.Errorf("--triage=false: triage %+v", r.Triage)
		}
	}
}

// TestSweepJSONTriage: `kvcheck sweep --scenario adp-dummy-leak --fix
// free-unpaired-mirror --json` gives each violation (the smallest and
// every distinct finding) a triage object with the scales tried, the
// label, needs, indifferent_to, same_as and capacity_edge, and a summary
// that counts robust, fragile and known findings and says the verdict.
func TestSweepJSONTriage(t *testing.T) {
	code, out, errOut := runKvcheck("sweep", "--scenario", "adp-dummy-leak", "--fix", "free-unpaired-mirror", "--json", "--cache", t.TempDir())
	if code != exitViolation && code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &rep); err != nil {
		t.Fatal(err)
	}
	findings, _ := rep["findings"].([]any)
	if rep["result"] == "violation" && len(findings) == 0 {
		t.Fatalf("a violation without findings: %v", rep)
	}
	for i, f := range append([]any{rep["smallest"]}, findings...) {
		if f == nil {
			continue
		}
		tri, _ := f.(map[string]any)["triage"].(map[string]any)
		if tri == nil {
			t.Errorf("violation %d has no triage object", i)
			continue
		}
		for _, key := range []string{"scale", "label", "needs", "indifferent_to", "same_as", "capacity_edge"} {
			if _, ok := tri[key]; !ok {
				t.Errorf("violation %d: the triage object lacks %q", i, key)
			}
		}
		if scale, _ := tri["scale"].([]any); len(scale) < 6 {
			t.Errorf("violation %d: %d scales tried, want the finding's, ×2, ×4, ×8 and two pool sizes", i, len(scale))
		}
		if l := tri["label"]; l != "robust" && l != "fragile" && l != "undetermined" {
			t.Errorf("violation %d: label %v", i, l)
		}
	}
	sum, _ := rep["triage"].(map[string]any)
	if sum == nil {
		t.Fatalf("no triage summary: %v", rep)
	}
	n := func(k string) int { v, _ := sum[k].(float64); return int(v) }
	if n("robust")+n("fragile")+n("undetermined") != n("triaged") || n("known")+n("new") != n("triaged") || n("triaged") != min(len(findings), 8) {
		t.Errorf("summary counts %v for %d findings", sum, len(findings))
	}
	if v, _ := sum["verdict"].(string); v == "" || (n("robust_new") > 0) != strings.Contains(v, " fails: ") {
		t.Errorf("verdict %q with %d robust new findings", v, n("robust_new"))
	}
}
