package main

import (
	"strings"
	"testing"
)

// TestCheckOutOfMemory: a check starved of memory ends with an incomplete
// report, exit status 3 and the command that reproduces it, not a crash
// or a verdict.
func TestCheckOutOfMemory(t *testing.T) {
	code, out, errOut := runKvcheck("check", "--scenario", "adp-dummy-leak", "--fix", "free-unpaired-mirror", "--max-memory", "600KiB")
	if code != exitIncomplete || !strings.Contains(out, "incomplete") || !strings.Contains(out, "out of memory") ||
		!strings.Contains(out, "reproduce: go run ./cmd/kvcheck check --scenario adp-dummy-leak --fix free-unpaired-mirror --max-memory 600KiB") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 3 and an incomplete report with its reproduce line", code, out, errOut)
	}
}

func TestParseMemory(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1024": 1024, "8GiB": 8 << 30, "512 MiB": 512 << 20, "2GB": 2e9, "1.5KiB": 1536} {
		if got, err := parseMemory(in); err != nil || got != want {
			t.Errorf("parseMemory(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1GiB", "0%", "150%", "8 GiBs"} {
		if _, err := parseMemory(in); err == nil || !strings.Contains(err.Error(), "--max-memory") {
			t.Errorf("parseMemory(%q): error %v, want one naming --max-memory", in, err)
		}
	}
	if n, err := parseMemory("50%"); err != nil || n <= 0 {
		t.Errorf("parseMemory(50%%) = %d, %v; want half this machine's memory", n, err)
	}
}
