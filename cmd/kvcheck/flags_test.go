package main

import (
	"github.com/kvcheck/kvcheck/spec"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEverySubcommandHelp: --help (and -h) on every subcommand prints its
// usage with its flags and an example on stdout, and exits 0.
func TestEverySubcommandHelp(t *testing.T) {
	for name := range commandHelp {
		for _, flag := range []string{"--help", "-h"} {
			code, out, errOut := runKvcheck(name, flag)
			if code != exitOK || !strings.HasPrefix(out, "Usage: kvcheck "+name) || !strings.Contains(out, "\nExample:\n  kvcheck "+name) || errOut != "" {
				t.Errorf("%s %s: exit %d\n%s%s", name, flag, code, out, errOut)
			}
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}} {
		if code, out, _ := runKvcheck(args...); code != exitOK || !strings.Contains(out, "show-config") {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

// TestRunFlagsValidatedAlike: check and fuzz reject the same bad flags
// the same way, before any search, quoting a bounded prefix of what was
// typed (in the error and in the reproduce line that ends it).
func TestRunFlagsValidatedAlike(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "0"}, "--workers must be at least 1, got 0"},
		{[]string{"--rewrite"}, "give --out DIR with it"},
		{[]string{"--fix", "none", "--fix", "joint-admission"}, "--fix none (the real code alone) cannot be combined with another --fix"},
		{[]string{"--scenario", "draft-admission", "--fix", "free-unpaired-mirror"}, "--fix free-unpaired-mirror belongs to none of the selected scenarios (draft-admission); their fixes: joint-admission, defer-draft-mirror, mirror-reuse"},
		{[]string{"--out", filepath.Join(file, "sub")}, "not a directory"},
		{[]string{"--scenario", strings.Repeat("s", 1000)}, `"sss`},
		{[]string{"stray"}, "unexpected argument \"stray\""},
		{[]string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
	}
	for _, cmd := range []string{"check", "fuzz"} {
		for _, tt := range tests {
			code, out, errOut := runKvcheck(append([]string{cmd}, tt.args...)...)
			if code != exitUsage || !strings.Contains(errOut, tt.want) || out != "" || len(errOut) > 1000 || !strings.Contains(errOut, "\nreproduce: ") {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q; want 2 and %q", cmd, tt.args, code, out, errOut, tt.want)
			}
		}
	}
}

// TestVersion prints the module and the TensorRT-LLM code modeled, each
// version a configuration can select.
func TestVersion(t *testing.T) {
	code, out, _ := runKvcheck("version")
	if code != exitOK || !strings.HasPrefix(out, "kvcheck github.com/kvcheck/kvcheck") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, v := range spec.Versions() {
		m := struct{ version string }{v.String()}
		if !strings.Contains(out, "  "+m.version+": ") {
			t.Errorf("lacks %s", m.version)
		}
		path := filepath.Join(t.TempDir(), "c.txt")
		os.WriteFile(path, []byte("tokens_per_block=4 max_batch_size=1 max_num_tokens=8 target_blocks=4 target_index_slots=2 max_util_for_resume=100 ranks=1 version="+m.version+"\nrequest prompt=4 new=1\n"), 0o644)
		if code, _, errOut := runKvcheck("check", "--config", path); code != exitOK {
			t.Errorf("version=%s is not a version a configuration selects: exit %d %s", m.version, code, errOut)
		}
	}
}
