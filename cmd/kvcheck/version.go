package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/kvcheck/kvcheck/spec"
)

// runVersion is `kvcheck version`: the module version (and VCS revision
// when the build recorded one) and the TensorRT-LLM code modeled.
func runVersion(args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("version", stderr)
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "kvcheck version: unexpected argument %s\n%s", quote(flags.Arg(0)), usageLine("version"))
		return exitUsage
	}
	version, revision := "(unknown)", ""
	if info, ok := debug.ReadBuildInfo(); ok {
		version = info.Main.Path + " " + info.Main.Version
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
			if s.Key == "vcs.modified" && s.Value == "true" {
				revision += " (modified)"
			}
		}
	}
	fmt.Fprintf(stdout, "kvcheck %s", version)
	if revision != "" {
		fmt.Fprintf(stdout, ", revision %s", revision)
	}
	fmt.Fprintln(stdout, "\nTensorRT-LLM code modeled (configuration key version=):")
	for _, v := range spec.Versions() {
		fmt.Fprintf(stdout, "  %s: %s\n", v, v.Code())
	}
	return exitOK
}
