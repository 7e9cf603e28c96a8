package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kvcheck/kvcheck/cmd/internal/triage"
	"github.com/kvcheck/kvcheck/counterexamples"
)

// runExplain is `kvcheck explain FILE --html OUT`: replay a transcript and
// write one self-contained HTML page of it. OUT is replaced only when it is
// a page kvcheck explain wrote.
func runExplain(args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("explain", stderr)
	out := flags.String("html", "", "write the HTML page to this file (required)")
	var tri triageHook
	tri.addFlags(flags, true)
	defer tri.close()
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	if flags.NArg() != 1 || *out == "" {
		fmt.Fprintln(stderr, "kvcheck explain: expected one transcript FILE and --html OUT\nusage: kvcheck explain FILE --html OUT")
		return exitUsage
	}
	path := flags.Arg(0)
	res, err := counterexamples.ReplayFile(path)
	if err != nil {
		var inputErr *counterexamples.InputError
		if errors.As(err, &inputErr) {
			fmt.Fprintf(stderr, "kvcheck explain: %v\nreproduce: %s replay %s\n", err, commandName(), path)
		} else {
			fmt.Fprintf(stderr, "kvcheck explain: %v\n", err)
		}
		return exitUsage
	}
	if err := refuseForeignFile(*out, counterexamples.ExplainGenerator); err != nil {
		fmt.Fprintf(stderr, "kvcheck explain: %v\nreproduce: %s explain %s --html %s\n", err, commandName(), path, *out)
		return exitUsage
	}
	if counterexamples.BannerTriage(res.Transcript.Banner) == "" && res.Matches() {
		// A transcript written without its triage: the page shows one.
		if f, err := triage.FromTranscript(res); err == nil {
			res.Triage = bannerTriage(tri.finding(f, stderr))
		}
	}
	var page bytes.Buffer
	if err := counterexamples.Explain(&page, res); err != nil {
		fmt.Fprintf(stderr, "kvcheck explain: %v\n", err)
		return exitUsage
	}
	if err := writeFileAtomic(*out, page.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "kvcheck explain: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "wrote %s (%d steps, %d bytes)\n", *out, len(res.Replayer.Steps), page.Len())
	if !res.Matches() {
		fmt.Fprintf(stderr, "kvcheck explain: note: %s no longer replays as written; the page shows this replay\nreproduce: %s replay %s\n", path, commandName(), path)
	}
	return exitOK
}
