package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/kvcheck/kvcheck/counterexamples"
	"github.com/spf13/pflag"
)

// runExplain is `kvcheck explain FILE --html OUT`: replay a transcript and
// write one self-contained HTML page of it. OUT is replaced only when it is
// a page kvcheck explain wrote.
func runExplain(args []string, stdout, stderr io.Writer) int {
	flags := pflag.NewFlagSet("explain", pflag.ContinueOnError)
	flags.SetOutput(stderr)
	out := flags.String("html", "", "write the HTML page to this file (required)")
	if err := flags.Parse(args); err != nil {
		fmt.Fprintf(stderr, "kvcheck explain: %v\n", err)
		return exitUsage
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
	var page bytes.Buffer
	if err := counterexamples.Explain(&page, res); err != nil {
		fmt.Fprintf(stderr, "kvcheck explain: %v\n", err)
		return exitUsage
	}
	if err := os.WriteFile(*out, page.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "kvcheck explain: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "wrote %s (%d steps, %d bytes)\n", *out, len(res.Replayer.Steps), page.Len())
	if !res.Matches() {
		fmt.Fprintf(stderr, "kvcheck explain: note: %s no longer replays as written; the page shows this replay\nreproduce: %s replay %s\n", path, commandName(), path)
	}
	return exitOK
}

// refuseForeignFile returns an error when path exists and does not carry
// marker, the sign that kvcheck wrote it: a file someone else wrote is
// never overwritten.
func refuseForeignFile(path, marker string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte(marker)) {
		return fmt.Errorf("%s exists and was not written by kvcheck; choose another output file or remove it", path)
	}
	return nil
}
