package main

import (
	"fmt"
	"io"

	"github.com/kvcheck/kvcheck/cmd/internal/configfile"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// runShowConfig is `kvcheck show-config NAME`: print a built-in scenario's
// file, a starting point to copy, edit and check with --config.
func runShowConfig(args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("show-config", stderr)
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	if flags.NArg() != 1 {
		fmt.Fprintf(stderr, "kvcheck show-config: expected one scenario NAME\n%s", usageLine("show-config"))
		return exitUsage
	}
	sc, err := scenario.Lookup(flags.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "kvcheck show-config: %v\n", err)
		return exitUsage
	}
	// A built-in scenario is a file (spec/scenario/scenarios/); one still defined in
	// Go is written in the same form.
	data, ok := scenario.Source(sc.Name)
	if !ok {
		var err error
		if data, err = configfile.Format(sc); err != nil {
			fmt.Fprintf(stderr, "kvcheck show-config: %v\n", err)
			return exitUsage
		}
	}
	stdout.Write(data)
	return exitOK
}
