package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The kvcheck action a serving repository uses, and its steps.
const (
	actionDir  = "../../.github/actions/kvcheck"
	fixtureDir = "testdata/serving-repo"
)

// TestKvcheckActionShape: the composite action takes a required pinned
// version, caches the sweep results in the directory its check step gives
// kvcheck, runs run.sh, and uploads the transcripts and the triage; the
// fixture serving repository's workflow uses it at the tag it installs,
// and run.sh installs the module go.mod names.
func TestKvcheckActionShape(t *testing.T) {
	var action struct {
		Inputs map[string]struct {
			Required bool   `yaml:"required"`
			Default  string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	data, err := os.ReadFile(filepath.Join(actionDir, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" || !action.Inputs["version"].Required || action.Inputs["files"].Default != "deploy/*.yaml" {
		t.Fatalf("action: %+v", action)
	}
	var cachePath, checkCache, upload string
	ran := false
	for _, s := range action.Runs.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/cache@"):
			cachePath = s.With["path"]
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			upload = s.With["path"]
		case s.ID == "check":
			ran = strings.Contains(s.Run, `"${{ github.action_path }}/run.sh"`)
			checkCache = s.Env["KVCHECK_CACHE"]
			if s.Env["KVCHECK_VERSION"] != "${{ inputs.version }}" || s.Env["KVCHECK_FILES"] != "${{ inputs.files }}" {
				t.Errorf("check step env %v", s.Env)
			}
		}
	}
	if !ran || cachePath == "" || cachePath != checkCache || !strings.Contains(upload, "kvcheck-out/transcripts/") || !strings.Contains(upload, "kvcheck-out/triage/") {
		t.Errorf("steps: run.sh %v, cache %q (check's %q), upload %q", ran, cachePath, checkCache, upload)
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	module := strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module ")
	script, _ := os.ReadFile(filepath.Join(actionDir, "run.sh"))
	if !strings.Contains(string(script), `go install "`+module+`/cmd/kvcheck@${KVCHECK_VERSION}"`) {
		t.Errorf("run.sh does not go install %s/cmd/kvcheck@VERSION", module)
	}
	workflow, err := os.ReadFile(filepath.Join(fixtureDir, ".github/workflows/kvcheck.yml"))
	if err != nil {
		t.Fatal(err)
	}
	uses := "uses: " + strings.TrimPrefix(module, "github.com/") + "/.github/actions/kvcheck@v0.1.0"
	if !strings.Contains(string(workflow), uses) || !strings.Contains(string(workflow), "version: v0.1.0") {
		t.Errorf("the fixture's workflow does not %s with version: v0.1.0:\n%s", uses, workflow)
	}
	// docs/ci.md shows the workflow a serving repository copies: the
	// fixture's job, word for word.
	doc, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	job := string(workflow)[strings.Index(string(workflow), "name: kvcheck"):]
	if !strings.Contains(string(doc), job) {
		t.Errorf("docs/ci.md does not show the fixture's workflow (from name: kvcheck on):\n%s", job)
	}
}

// copyTree copies the directory src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runAction runs the action's steps (run.sh) in repo with env added, and
// returns its exit status and output.
func runAction(t *testing.T, repo string, env ...string) (int, string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(actionDir, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), append([]string{"GOPROXY=off", "GOFLAGS=-mod=readonly"}, env...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode(), out.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// TestServingRepositoryCI runs the kvcheck action's steps, as a serving
// repository's CI would, on the fixture repository (plus seed 000's
// deployment as deploy/glm-pp.yaml) without a network: kvcheck is built
// from this clone (KVCHECK_SOURCE) instead of go install. Every file's
// verdict is as expected (exit 0); the expected crash's transcripts are
// written, one per file, and replay; the triage directory and the sweep
// cache are filled; the status reaches GITHUB_OUTPUT. A second run (the
// binary given, KVCHECK_BIN) on a file with a typo exits 2 with the file
// and line, and a third refuses to write into the second's directory.
func TestServingRepositoryCI(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	repo := t.TempDir()
	copyTree(t, fixtureDir, repo)
	seed, err := os.ReadFile(seedDeployment)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "deploy", "glm-pp.yaml"), seed, 0o644)
	work := t.TempDir()
	cache, out, output := filepath.Join(work, "cache"), filepath.Join(work, "out"), filepath.Join(work, "github-output")
	source, _ := filepath.Abs("../..")
	code, log := runAction(t, repo, "KVCHECK_SOURCE="+source, "KVCHECK_CACHE="+cache, "KVCHECK_OUT="+out, "GITHUB_OUTPUT="+output)
	if code != 0 || !strings.Contains(log, "on 2 file(s)") || !strings.Contains(log, "reproduce: kvcheck check --config deploy/glm-pp.yaml --fix none") || !strings.Contains(log, "deploy/chat.yaml: exit 0") || !strings.Contains(log, "deploy/glm-pp.yaml: exit 0") {
		t.Fatalf("exit %d:\n%s", code, log)
	}
	transcripts, _ := filepath.Glob(filepath.Join(out, "transcripts", "glm-pp", "*.txt"))
	if len(transcripts) == 0 || !hasPath(transcripts, filepath.Join(out, "transcripts", "glm-pp", "glm-pp.real-code.no-crash-on-refusal.txt")) {
		t.Fatalf("transcripts %v\n%s", transcripts, log)
	}
	for _, tr := range transcripts {
		if code, _, errOut := runKvcheck("replay", tr); code != exitOK {
			t.Errorf("%s does not replay: %s", tr, errOut)
		}
	}
	for _, want := range []string{filepath.Join(out, "chat.log"), filepath.Join(out, "summary.log"), filepath.Join(out, "triage", "glm-pp.real-code.no-crash-on-refusal.triage.txt")} {
		if _, err := os.Stat(want); err != nil {
			t.Errorf("%v", err)
		}
	}
	if cached, _ := filepath.Glob(filepath.Join(cache, "*", "*.jsonl")); len(cached) == 0 {
		t.Errorf("no sweep results in the cache %s", cache)
	}
	if data, _ := os.ReadFile(output); string(data) != "status=0\n" {
		t.Errorf("GITHUB_OUTPUT %q", data)
	}

	os.WriteFile(filepath.Join(repo, "deploy", "typo.yaml"), []byte("kv_cache_config:\n  enable_blok_reuse: false\nkvcheck:\n  requests: [{prompt_pages: 2, new_tokens: 2}]\n"), 0o644)
	again := filepath.Join(work, "again")
	code, log = runAction(t, repo, "KVCHECK_BIN="+os.Args[0], "KVCHECK_TEST_MAIN=1", "KVCHECK_CACHE="+cache, "KVCHECK_OUT="+again)
	if code != 2 || !strings.Contains(log, "deploy/typo.yaml: exit 2") || !strings.Contains(log, "deploy/typo.yaml:2: kv_cache_config.enable_blok_reuse: not a TensorRT-LLM option kvcheck knows; did you mean kv_cache_config.enable_block_reuse?") {
		t.Fatalf("a typo: exit %d:\n%s", code, log)
	}
	code, log = runAction(t, repo, "KVCHECK_BIN="+os.Args[0], "KVCHECK_TEST_MAIN=1", "KVCHECK_OUT="+again)
	if code != 2 || !strings.Contains(log, "exists and is not empty") {
		t.Fatalf("a used output directory: exit %d:\n%s", code, log)
	}
}

func hasPath(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
