// Command kvcheck model-checks the KV-cache managers of LLM serving engines:
// it explores the executable spec of TensorRT-LLM's KVCacheManagerV2 (package
// spec) with the engine in package model and reports invariant violations as
// shortest counterexample traces.
//
// Usage:
//
//	kvcheck check [--scenario NAME]... [--fix NAME]... [--depth N] [--max-states N] [--json]
//	kvcheck list
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit statuses shared by every subcommand.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
)

const usage = `kvcheck: a model checker for the KV-cache managers of LLM serving engines

Usage:
  kvcheck check [--scenario NAME]... [--fix NAME]... [--depth N] [--max-states N]
                [--workers N] [--keep-going] [--json]
      Exhaustively check built-in scenarios. Without --scenario, every scenario;
      without --fix, each scenario as the real code behaves and with each of its
      fixes (--fix none checks the real code alone).
  kvcheck list
      List scenarios, invariants and fixes, one line each.

Exit status: 0 no violation, 1 a violation, 2 bad usage or input.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "check":
		return runCheck(args[1:], stdout, stderr)
	case "list":
		return runList(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "kvcheck: unknown command %q; expected one of: check, list\n\n%s", args[0], usage)
	return exitUsage
}
