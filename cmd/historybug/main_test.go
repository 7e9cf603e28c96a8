package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemplateApplies is the cheap half of make history-bug-template: the
// template's anchors are found once each in the repository's files as
// they are, the Go it writes parses, the files it creates are new, and
// Apply refuses a directory that is not a scratch copy.
func TestTemplateApplies(t *testing.T) {
	dir := t.TempDir()
	if err := Apply(dir); err == nil || !strings.Contains(err.Error(), "not a scratch copy") {
		t.Fatalf("Apply on a directory without %s: %v, want a refusal", scratchMarker, err)
	}
	files := map[string]bool{}
	for _, e := range edits {
		files[e.File] = true
	}
	for f := range files {
		data, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for f := range newFiles {
		if _, err := os.Stat(filepath.Join("../..", f)); err == nil {
			t.Errorf("%s exists in the repository; the template creates it", f)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, scratchMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Apply(dir); err != nil {
		t.Fatalf("%v\nreproduce: go test ./cmd/historybug -run TestTemplateApplies", err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "spec/executor.go"), nil, 0); err != nil {
		t.Errorf("the template's spec/executor.go does not parse: %v", err)
	}
	if len(files)+len(newFiles)+2 /* transcripts */ +1 /* pins */ > maxFiles {
		t.Errorf("the template touches %d files by construction, more than %d", len(files)+len(newFiles)+3, maxFiles)
	}
}
