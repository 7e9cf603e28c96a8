package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// modeledCode lists the TensorRT-LLM code the spec models: each version
// its configurations select (the config key version=), and the commits
// read for it (spec/reading-notes.md).
var modeledCode = []struct{ version, commits string }{
	{"v1.3.0rc25", "tag v1.3.0rc25 (785c948), kv_cache_manager_v2.py at 0004396: the code of seed reports 000 and 001"},
	{"00746ef", "kv_cache_manager_v2.py and scheduler_v2.py at 00746ef9992943a9bb604dbf1ecf00c64af58c32 (admit_mirror), py_executor.py at 2829508, llmRequest.h at 00e9b8a, _kv_cache.py and _storage_manager.py at 00f6bd6: the code of seed report 003"},
}

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
	for _, m := range modeledCode {
		fmt.Fprintf(stdout, "  %s: %s\n", m.version, m.commits)
	}
	return exitOK
}
