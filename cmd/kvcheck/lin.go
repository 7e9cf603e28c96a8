package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/kvcheck/kvcheck/counterexamples/lin"
)

// linGenerator marks an HTML file written by `kvcheck lin --html`, so a
// later run may replace it but never a file someone else wrote.
const linGenerator = "<!-- kvcheck lin: porcupine visualization -->"

// runLin is `kvcheck lin HISTORY [--html OUT] [--scenario NAME]
// [--timeout D]`: check a history of KV-cache operations recorded from a
// running engine (JSON lines, see package counterexamples/lin) for
// linearizability against the spec's sequential per-pool model,
// partitioned per (rank, pool). Exit 0 linearizable, 1 not (naming the
// first operation no legal order explains), 2 bad input or undecided.
func runLin(args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("lin", stderr)
	out := flags.String("html", "", "write porcupine's visualization of the check to this HTML file")
	scenario := flags.String("scenario", "", "built-in scenario whose configuration the engine ran (default: the history's header)")
	timeout := flags.Duration("timeout", 0, "give up after this long (0: no limit); an undecided check exits 2")
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	if flags.NArg() != 1 {
		fmt.Fprintln(stderr, "kvcheck lin: expected one HISTORY file\nusage: kvcheck lin HISTORY [--html OUT] [--scenario NAME] [--timeout D]")
		return exitUsage
	}
	path := flags.Arg(0)
	reproduce := linCommand(path, *out, *scenario, *timeout)
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck lin: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	h, err := lin.Parse(path, f)
	if err == nil && len(h.Records) == 0 {
		err = &lin.InputError{File: path, Line: 1, Msg: "no operation; expected one JSON object per line with rank, pool, request, op, args, result, call, return"}
	}
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck lin: %v\nreproduce: %s\n", err, reproduce)
		return exitUsage
	}
	sp, err := lin.SpecFor(h, *scenario)
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck lin: %v\nreproduce: %s\n", err, reproduce)
		return exitUsage
	}
	if *out != "" {
		if err := refuseForeignFile(*out, linGenerator); err != nil {
			fmt.Fprintf(stderr, "kvcheck lin: %v\nreproduce: %s\n", err, reproduce)
			return exitUsage
		}
	}
	start := time.Now()
	outcome := lin.Check(sp, h.Records, *timeout)
	elapsed := time.Since(start)
	if *out != "" {
		var page bytes.Buffer
		page.WriteString(linGenerator + "\n")
		if err := outcome.Visualize(&page); err != nil {
			fmt.Fprintf(stderr, "kvcheck lin: --html: %v\n", err)
			return exitUsage
		}
		if err := writeFileAtomic(*out, page.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "kvcheck lin: --html: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	}
	switch outcome.Result {
	case porcupine.Ok:
		fmt.Fprintf(stdout, "%s (%.2fs)\n", outcome.Describe(path), elapsed.Seconds())
		return exitOK
	case porcupine.Unknown:
		fmt.Fprintf(stderr, "kvcheck lin: %s after %s; raise --timeout\nreproduce: %s\n", outcome.Describe(path), *timeout, reproduce)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s\nreproduce: %s\n", outcome.Describe(path), reproduce)
	return exitViolation
}

// linCommand is the command that re-runs this check.
func linCommand(path, out, scenario string, timeout time.Duration) string {
	parts := []string{commandName(), "lin", path}
	if scenario != "" {
		parts = append(parts, "--scenario", scenario)
	}
	if timeout != 0 {
		parts = append(parts, "--timeout", timeout.String())
	}
	if out != "" {
		parts = append(parts, "--html", out)
	}
	return strings.Join(parts, " ")
}
