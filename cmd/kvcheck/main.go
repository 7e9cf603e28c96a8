// Command kvcheck model-checks the KV-cache managers of LLM serving engines:
// it explores the executable spec of TensorRT-LLM's KVCacheManagerV2 (package
// spec) with the engine in package model and reports invariant violations as
// shortest counterexample traces.
//
// Usage:
//
//	kvcheck check [--scenario NAME]... [--config FILE]... [--fix NAME]... [flags]
//	kvcheck fuzz [--scenario NAME]... [--config FILE]... [--fix NAME]... [--seed N] [--time DUR] [flags]
//	kvcheck sweep [--scenario NAME]... [--fix NAME]... [--range KEY=VALUES]... [--shard i/n] [--time DUR] [--json]
//	kvcheck merge [--json] FILE...
//	kvcheck list [--markdown]
//	kvcheck show-config NAME
//	kvcheck replay [--rewrite] FILE...
//	kvcheck explain FILE --html OUT
//	kvcheck lin HISTORY [--html OUT] [--scenario NAME] [--timeout D]
//	kvcheck version (or kvcheck --version)
//
// kvcheck COMMAND --help prints a command's flags and an example;
// docs/commands.md describes them all.
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
	// exitIncomplete: no verdict differs, but a budget ended a search
	// before it found a violation, so not everything was proved.
	exitIncomplete = 3
	// exitInterrupted: SIGINT or SIGTERM stopped the run (128 + SIGINT,
	// as shells report an interrupted command).
	exitInterrupted = 130
)

const usage = `kvcheck: a model checker for the KV-cache managers of LLM serving engines

Usage (kvcheck COMMAND --help for a command's flags and an example):
  kvcheck check [--scenario NAME]... [--config FILE]... [--fix NAME]... [--depth N] [--max-states N]
                [--workers N] [--keep-going] [--invariant NAME]... [--skip-invariant NAME]...
                [--liveness=false] [--max-memory SIZE] [--json] [--quiet]
      Exhaustively check built-in scenarios. Without --scenario, every scenario;
      without --fix, each scenario as the real code behaves and with each of its
      fixes (--fix none checks the real code alone). --keep-going collects one
      shortest trace per invariant and raising function; --invariant checks only
      the named invariants, --skip-invariant all but those (a variant whose
      expected violation is left out is reported, not judged); liveness
      (livelock) analysis runs on complete searches. --max-memory (default 75%
      of the machine) moves the queue to disk past it; a search that still does
      not fit ends incomplete with exit status 3. --workers is at most 256.
      --quiet prints only what differs or is incomplete.
  kvcheck fuzz [--scenario NAME]... [--fix NAME]... [--seed N] [--time DUR]
               [--walks N] [--workers N] [--swarm] [--json] [--out DIR [--rewrite]]
      Random walks with state-novelty feedback, for configurations too large
      to exhaust. Prints the seed; stops each variant at its first violation,
      shrinks it and prints the command that replays it. --time (default 30s)
      is the budget of the whole run, shared out between the variants; a
      variant that ends at the budget without a violation is incomplete.
  kvcheck sweep [--scenario NAME]... [--fix NAME]... [--range KEY=VALUES]...
                [--config FILE] [--shard i/n] [--time DUR] [--cache DIR] [--json] [--out DIR] [--progress]
      Check each variant on every valid configuration in ranges around the
      scenario's (smallest first; docs/sweep.md): the smallest counterexample,
      or that the fix holds on all. --shard prints one shard's results as JSON
      lines; results are cached by configuration, variant and spec hash.
  kvcheck merge [--json] [--out DIR] FILE...
      Fold the shards' results into the report one sweep run prints.
  kvcheck check ... --config FILE
  kvcheck fuzz ... --config FILE
      Check (or fuzz) the configuration in FILE (repeatable): kvcheck's
      configuration text, or the TensorRT-LLM LLM API options of a deployment
      (YAML, as for trtllm-serve --extra_llm_api_options) with a kvcheck:
      section; prints the scaled configuration derived and why. --config -
      reads the file from standard input.
  kvcheck list [--markdown]
      List scenarios (with the verdict expected of each variant), invariants
      and fixes, one line each; --markdown prints the README's scenario table.
  kvcheck show-config NAME
      Print a built-in scenario as a file to copy, edit and check with --config.
  kvcheck version (or kvcheck --version)
      Print the module version and the TensorRT-LLM code the spec models.
  kvcheck check ... --out DIR [--rewrite]
      Also write each counterexample as a transcript in DIR (and, per fix that
      closes it, the same actions replayed under the fix); --rewrite replaces
      transcripts that exist.
  kvcheck triage [--json | --markdown] FILE...
      Triage the violation a transcript shows: robust or fragile at larger pages
      and pools, what it needs and is indifferent to, which known violation it
      is, whether it sits at a capacity edge (docs/triage.md). check, sweep,
      merge and fuzz triage every violation they report (--triage=false: not).
  kvcheck replay [--rewrite] FILE...
      Re-execute transcripts; print a unified diff and exit 1 on any difference;
      --rewrite writes the actual outputs into the files instead.
  kvcheck explain FILE --html OUT
      Write one self-contained HTML page of a transcript: ranks as lanes, each
      step's changes, each pool's occupancy, the violating step highlighted.
  kvcheck lin HISTORY [--html OUT] [--scenario NAME] [--timeout D]
      Check a JSON-lines history of KV-cache operations recorded from an engine
      for linearizability against the spec, per (rank, pool); --html writes
      porcupine's visualization.

Exit status of check and fuzz: 0 every verdict is as expected (each
scenario declares, per variant, the invariant the real code breaks and ok
for its fixes; --expect FILE overrides), 1 a verdict differs (with
--any-violation: any violation), 2 bad usage or input, 3 incomplete (a
budget ended a search before it found a violation; nothing was proved),
130 interrupted. Sweep and merge: 0 every variant holds on every
configuration, 1 a violation, 2 bad usage or input, 3 incomplete (the --time
budget ran out, a search was cut by --depth or --max-states, or shards are
missing) without a violation, 130 interrupted. Other commands: 0 ok, 1 a
difference or violation, 2 bad usage or input. Every command exits 2 when its
standard output cannot be written (a full disk). go run reports every failing
status as 1: build the binary (go build -o kvcheck ./cmd/kvcheck) where the
status matters.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs a subcommand and returns the exit status. Every command prints
// through a checked standard output: a write that fails (a full disk,
// /dev/full) is reported on stderr and the status is exitUsage, never 0.
// A usage error that does not end with a reproduce line gets one: the
// command line typed.
func run(args []string, stdout, stderr io.Writer) int {
	out := &checkedWriter{w: stdout}
	errOut := &lastLineWriter{w: stderr}
	code := dispatch(args, out, errOut)
	if code == exitUsage && !errOut.endsWithReproduce() && len(args) > 0 {
		fmt.Fprintf(errOut, "reproduce: %s\n", commandLine(args))
	}
	if err := out.finish(); err != nil {
		command := ""
		if len(args) > 0 {
			command = " " + args[0]
		}
		fmt.Fprintf(errOut, "%s\nreproduce: %s\n", outputError(command, out), commandLine(args))
		return exitUsage
	}
	return code
}

// dispatch runs the subcommand args[0] names.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "check":
		return runCheck(args[1:], stdout, stderr)
	case "list":
		return runList(args[1:], stdout, stderr)
	case "replay":
		return runReplay(args[1:], stdout, stderr)
	case "explain":
		return runExplain(args[1:], stdout, stderr)
	case "lin":
		return runLin(args[1:], stdout, stderr)
	case "fuzz":
		return runFuzz(args[1:], stdout, stderr)
	case "show-config":
		return runShowConfig(args[1:], stdout, stderr)
	case "version", "--version":
		return runVersion(args[1:], stdout, stderr)
	case "sweep":
		return runSweep(args[1:], stdout, stderr)
	case "merge":
		return runMerge(args[1:], stdout, stderr)
	case "triage":
		return runTriage(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "kvcheck: unknown command %s; expected one of: %s\n\n%s", quote(args[0]), commandNames(), usage)
	return exitUsage
}
