package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// commandHelp is what `kvcheck COMMAND --help` prints besides the flags:
// the synopsis, what the command does, and an example.
var commandHelp = map[string]struct{ synopsis, about, example string }{
	"check": {
		"kvcheck check [--scenario NAME]... [--config FILE]... [--fix NAME]... [flags]",
		"Exhaustively check built-in scenarios and configuration files, as the real code behaves and with each fix,\nagainst the verdict each variant is expected to give. Exit 0 every verdict as expected, 1 one differs\n(--any-violation: any violation), 2 bad usage, 3 incomplete (a budget ended a search first), 130 interrupted.",
		"kvcheck check --scenario draft-admission\n  kvcheck check --config my-deployment.yaml --fix joint-admission",
	},
	"fuzz": {
		"kvcheck fuzz [--scenario NAME]... [--config FILE]... [--fix NAME]... [--seed N] [--time DUR] [flags]",
		"Random walks with state-novelty feedback for configurations too large to exhaust; shrinks what they find.\n--time is the budget of the whole run. A variant without a violation is incomplete (exit 3), never ok.",
		"kvcheck fuzz --scenario pp-history-capacity --fix none --seed 1 --time 30s --out found/",
	},
	"list":        {"kvcheck list [--markdown]", "List the scenarios (with their fixes and expected verdicts), invariants and fixes; --markdown prints the README's scenario table.", "kvcheck list"},
	"show-config": {"kvcheck show-config NAME", "Print a built-in scenario as a scenario file, a starting point to copy, edit and check with --config.", "kvcheck show-config draft-admission > mine.yaml"},
	"replay":      {"kvcheck replay [--rewrite] FILE...", "Re-execute transcripts; exit 1 with a unified diff on any difference; --rewrite writes the actual outputs.", "kvcheck replay counterexamples/testdata/*.txt"},
	"explain":     {"kvcheck explain FILE --html OUT", "Write one self-contained HTML page of a transcript.", "kvcheck explain counterexamples/testdata/draft-admission.real-code.no-crash-on-refusal.txt --html draft-admission.html"},
	"lin":         {"kvcheck lin HISTORY [--html OUT] [--scenario NAME] [--timeout D]", "Check a JSON-lines history of KV-cache operations recorded from an engine for linearizability against the spec.", "kvcheck lin engine-history.jsonl --html lin.html"},
	"version":     {"kvcheck version", "Print kvcheck's module version and the TensorRT-LLM commits the spec models.", "kvcheck version"},
}

// newFlagSet is a subcommand's flag set: errors go to stderr, and the
// usage is printed by parseFlags.
func newFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	flags := pflag.NewFlagSet(name, pflag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {}
	return flags
}

// parseFlags parses a subcommand's arguments. With --help (or -h) it
// prints the usage on stdout and returns exitOK, done; on a bad flag it
// prints the error and the synopsis on the flag set's output and returns
// exitUsage, done.
func parseFlags(flags *pflag.FlagSet, args []string, stdout io.Writer) (code int, done bool) {
	err := flags.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		printCommandHelp(stdout, flags)
		return exitOK, true
	}
	if err != nil {
		fmt.Fprintf(flags.Output(), "kvcheck %s: %s\n%s", flags.Name(), boundedError(err), usageLine(flags.Name()))
		return exitUsage, true
	}
	return exitOK, false
}

// printCommandHelp prints a subcommand's synopsis, description, flags and
// example.
func printCommandHelp(w io.Writer, flags *pflag.FlagSet) {
	h := commandHelp[flags.Name()]
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", h.synopsis, h.about)
	if flags.HasFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", flags.FlagUsages())
	}
	fmt.Fprintf(w, "\nExample:\n  %s\n", h.example)
}

// usageLine is the synopsis a usage error ends with.
func usageLine(name string) string {
	return fmt.Sprintf("usage: %s (kvcheck %s --help for more)\n", commandHelp[name].synopsis, name)
}

// boundedError is err's text with any quoted user input cut to a bounded
// prefix: pflag quotes the whole argument it rejects.
func boundedError(err error) string {
	msg := err.Error()
	if len(msg) <= 2*maxQuoted+80 {
		return msg
	}
	return msg[:2*maxQuoted+80] + "..."
}

// commandNames lists the subcommands for the unknown-command error.
func commandNames() string {
	return strings.Join([]string{"check", "fuzz", "sweep", "merge", "triage", "list", "show-config", "replay", "explain", "lin", "version"}, ", ")
}
