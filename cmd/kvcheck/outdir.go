package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kvcheck/kvcheck/counterexamples"
)

// namedFile is a transcript to write: its file name, its bytes and an
// optional summary printed after its path.
type namedFile struct {
	name, summary string
	data          []byte
}

// outKinds are the infixes after "<scenario>.<fixes>." that tell the
// transcripts of sweep and fuzz --sweep from those of check and fuzz.
var outKinds = []string{"sweep.", "fuzz-sweep."}

// outPrefix is how the transcript names of a variant begin for a command
// that writes kind ("" for check and fuzz, "sweep." or "fuzz-sweep."):
// "draft-admission.real-code." and so on.
func outPrefix(scenario, fixesLabel, kind string) string {
	return scenario + "." + fixesLabel + "." + kind
}

// existingOut lists the transcripts in dir that a run writing names with
// one of prefixes could replace (for prefixes without a kind, not those of
// a sweep), sorted; none when dir does not exist.
func existingOut(dir string, prefixes []string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var found []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".txt") {
			continue
		}
		for _, p := range prefixes {
			rest, ok := strings.CutPrefix(name, p)
			if !ok {
				continue
			}
			other := false
			for _, k := range outKinds {
				if !strings.HasSuffix(p, "."+k) && strings.HasPrefix(rest, k) {
					other = true
				}
			}
			if !other {
				found = append(found, filepath.Join(dir, name))
				break
			}
		}
	}
	sort.Strings(found)
	return found, nil
}

// preflightOut checks --out DIR before the search, so that a long search
// never ends in "the files exist": without rewrite, no transcript of the
// selected variants may exist in dir (the run may write any of their
// names); with rewrite, each that exists must be one kvcheck wrote. The
// error ends with the command to run instead.
func preflightOut(dir string, rewrite bool, prefixes []string, rewriteCommand string) error {
	existing, err := existingOut(dir, prefixes)
	if err != nil {
		return fmt.Errorf("--out: %v", err)
	}
	if rewrite {
		for _, path := range existing {
			if err := refuseForeign(path, counterexamples.Written); err != nil {
				return fmt.Errorf("--out: %v (--rewrite replaces only transcripts kvcheck wrote); nothing was searched", err)
			}
		}
		return nil
	}
	if len(existing) > 0 {
		return fmt.Errorf("--out: %d transcript(s) of the selected variants already exist (%s); nothing was searched. Pass --rewrite to replace them (only transcripts kvcheck wrote are replaced), then review the diff\nreproduce: %s",
			len(existing), shortList(existing), rewriteCommand)
	}
	return nil
}

// shortList joins at most three paths, then "...".
func shortList(paths []string) string {
	if len(paths) > 3 {
		paths = append(paths[:3:3], "...")
	}
	return strings.Join(paths, ", ")
}

// rewriteCommand is the command line typed (args after the command name)
// with --rewrite added when it is not there: what to run to replace the
// transcripts a run refused to overwrite.
func rewriteCommand(args []string) string {
	for _, a := range args {
		if a == "--rewrite" || a == "--rewrite=true" {
			return commandLine(args)
		}
	}
	return commandLine(append(append([]string(nil), args...), "--rewrite"))
}

// writeNewFiles writes files into dir, all or nothing, and prints each
// path on w. When a file exists and rewrite is false, or with rewrite a
// file exists that kvcheck did not write, it writes nothing, says so on
// stderr (ending with rewriteCommand) and returns exitUsage: nothing a
// user wrote is overwritten. Every file is first written in full to a
// temporary file next to it, and only when all are written are they
// renamed into place, so a full disk leaves none of them behind.
func writeNewFiles(dir string, rewrite bool, files []namedFile, who, rewriteCommand string, w, stderr io.Writer) (map[string]bool, int) {
	var existing []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if _, err := os.Lstat(path); err == nil {
			existing = append(existing, path)
			if rewrite {
				if err := refuseForeign(path, counterexamples.Written); err != nil {
					fmt.Fprintf(stderr, "%s: --out: %v (--rewrite replaces only transcripts kvcheck wrote); nothing was written\nreproduce: %s\n", who, err, rewriteCommand)
					return nil, exitUsage
				}
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "%s: --out: %v\nreproduce: %s\n", who, err, rewriteCommand)
			return nil, exitUsage
		}
	}
	if len(existing) > 0 && !rewrite {
		fmt.Fprintf(stderr, "%s: --out: %d transcript(s) already exist (%s); nothing was written. Pass --rewrite to replace them, then review the diff\nreproduce: %s\n",
			who, len(existing), shortList(existing), rewriteCommand)
		return nil, exitUsage
	}
	if len(files) == 0 {
		return map[string]bool{}, exitOK
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "%s: --out: %v\nreproduce: %s\n", who, err, rewriteCommand)
		return nil, exitUsage
	}
	staged := make([]string, 0, len(files))
	discard := func(from int) {
		for _, tmp := range staged[from:] {
			os.Remove(tmp)
		}
	}
	for _, f := range files {
		tmp, err := stageFile(filepath.Join(dir, f.name), f.data, 0o644)
		if err != nil {
			discard(0)
			fmt.Fprintf(stderr, "%s: --out: %v; none of the %d transcript(s) was written\nreproduce: %s\n", who, err, len(files), rewriteCommand)
			return nil, exitUsage
		}
		staged = append(staged, tmp)
	}
	written := map[string]bool{}
	for i, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.Rename(staged[i], path); err != nil {
			discard(i)
			fmt.Fprintf(stderr, "%s: --out: writing %s: %v; %d of %d transcript(s) were written before it\nreproduce: %s\n", who, path, err, i, len(files), rewriteCommand)
			return nil, exitUsage
		}
		written[f.name] = true
		if f.summary != "" {
			fmt.Fprintf(w, "wrote %s (%s)\n", path, f.summary)
		} else {
			fmt.Fprintf(w, "wrote %s\n", path)
		}
	}
	return written, exitOK
}
