package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kvcheck/kvcheck/counterexamples"
)

// runReplay is `kvcheck replay [--rewrite] FILE...`: re-execute each
// transcript and compare every output with the one written under its
// `----`. A difference prints a unified diff (expected → actual) and exits
// 1; --rewrite writes the actual outputs into the file instead. A
// malformed transcript exits 2 with file:line and what was expected.
func runReplay(args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("replay", stderr)
	rewrite := flags.Bool("rewrite", false, "write the actual outputs into each file that differs")
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	if flags.NArg() == 0 {
		fmt.Fprintln(stderr, "kvcheck replay: expected at least one transcript FILE\nusage: kvcheck replay [--rewrite] FILE...")
		return exitUsage
	}
	status := exitOK
	for _, path := range flags.Args() {
		status = max(status, replayOne(path, *rewrite, stdout, stderr))
	}
	return status
}

// replayOne replays one transcript and returns its exit status.
func replayOne(path string, rewrite bool, stdout, stderr io.Writer) int {
	res, err := counterexamples.ReplayFile(path)
	if err != nil {
		var inputErr *counterexamples.InputError
		if errors.As(err, &inputErr) {
			fmt.Fprintf(stderr, "kvcheck replay: %v\nreproduce: %s replay %s\n", err, commandName(), path)
		} else {
			fmt.Fprintf(stderr, "kvcheck replay: %v\n", err)
		}
		return exitUsage
	}
	steps := len(res.Replayer.Steps)
	if res.Matches() {
		fmt.Fprintf(stdout, "ok %s (%d steps)\n", path, steps)
		return exitOK
	}
	if rewrite {
		info, err := os.Stat(path)
		if err != nil {
			fmt.Fprintf(stderr, "kvcheck replay: %v\n", err)
			return exitUsage
		}
		if err := writeFileAtomic(path, res.Actual, info.Mode().Perm()); err != nil {
			fmt.Fprintf(stderr, "kvcheck replay: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "rewrote %s (%d steps): its expected outputs now match this replay\n", path, steps)
		return exitOK
	}
	fmt.Fprint(stdout, res.Diff())
	fmt.Fprintf(stdout, "%s: the replay differs from the expected output (- expected, + actual); if the new output is right, accept it with\n  %s replay --rewrite %s\nreproduce: %s replay %s\n",
		path, commandName(), path, commandName(), path)
	return exitViolation
}
