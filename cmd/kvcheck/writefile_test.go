package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteFileAtomicFullDisk: a write that runs out of space (the file
// size limit stands in for a full disk) fails, leaves the file it was to
// replace as it was, and leaves no temporary file behind.
func TestWriteFileAtomicFullDisk(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	os.WriteFile(path, []byte("old page"), 0o644)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	limit := old
	limit.Cur = 1 << 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Skip(err)
	}
	err := writeFileAtomic(path, make([]byte, 1<<20), 0o644)
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	if err == nil || !strings.Contains(err.Error(), "nothing was written under that name") {
		t.Fatalf("error %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old page" {
		t.Errorf("%s now holds %d bytes", path, len(got))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestWriteToUnwritablePlace: kvcheck explain --html into a directory it
// cannot write or that does not exist, or onto a device, exits 2 without
// reading the device and writes nothing; check --out into one fails
// before the search.
func TestWriteToUnwritablePlace(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root: a read-only directory is still writable; checking the device cases only")
	}
	transcript := "../../counterexamples/testdata/draft-admission.real-code.no-crash-on-refusal.txt"
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0o555)
	cases := []string{"/dev/full", "/dev/null", filepath.Join(dir, "missing", "deeper", "x.html")}
	if os.Geteuid() != 0 {
		cases = append(cases, filepath.Join(locked, "x.html"))
	}
	for _, out := range cases {
		code, stdout, errOut := runKvcheck("explain", transcript, "--html", out)
		if code != exitUsage || stdout != "" {
			t.Errorf("--html %s: exit %d\n%s%s", out, code, stdout, errOut)
		}
	}
	if entries, _ := os.ReadDir(locked); len(entries) != 0 {
		t.Errorf("left in %s: %v", locked, entries)
	}
	if os.Geteuid() != 0 {
		code, stdout, errOut := runKvcheck("check", "--scenario", "draft-admission", "--out", filepath.Join(locked, "out"))
		if code != exitUsage || stdout != "" || !strings.Contains(errOut, "cannot write in") {
			t.Errorf("check --out into %s: exit %d\n%s%s", locked, code, stdout, errOut)
		}
	}
}
