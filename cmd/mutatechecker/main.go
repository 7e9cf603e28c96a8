// Command mutatechecker measures the checker's own mutation score: whether
// kvcheck's observable answers (check --json over every built-in variant,
// the sweeps' JSON results, the conformance corpus through lin) change
// when a plausible bug is planted in spec/. Each mutant of the list
// (cmd/mutatechecker/mutants.txt) is applied to a copy of the repository,
// kvcheck is built there and its answers are compared with the unmutated
// baseline; a mutant is killed when any answer differs. The score is
// killed / non-equivalent mutants. `make mutate-checker` runs it (not in
// CI); docs/soundness.md, "The checker's mutation score", has the result.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// sweepDefault is the second sweep run for answer (b): every built-in
// scenario's default sweep, each variant's JSON object (its smallest
// counterexample). Triage is left out (it re-checks a violation at larger
// sizes and matches it against the known ones: a reading of the same
// answer, and most of the sweep's cost); -sweep replaces both sweeps.
const sweepDefault = "sweep --json --no-cache --workers 1 --triage=false"

// pinnedProfiles is the file whose "# written by:" line names the sweep
// TestPinnedSweepProfiles pins: the first sweep of answer (b), run with
// --json, is that command, so each of its variants' verdict profile (every
// configuration of the small default sweeps) is compared, not only the
// smallest counterexample.
const pinnedProfiles = "cmd/kvcheck/testdata/sweep-profiles.txt"

// profileSweep reads the sweep pinnedProfiles was written by, less its
// --write-profile and --rewrite, plus --json and one worker.
func profileSweep(root string) (string, error) {
	path := filepath.Join(root, pinnedProfiles)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for i, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "# written by: go run ./cmd/kvcheck ")
		if !ok {
			continue
		}
		var keep []string
		fields := strings.Fields(rest)
		for j := 0; j < len(fields); j++ {
			switch fields[j] {
			case "--write-profile":
				j++
			case "--rewrite":
			default:
				keep = append(keep, fields[j])
			}
		}
		if len(keep) == 0 || keep[0] != "sweep" {
			return "", fmt.Errorf("%s:%d: the written-by line names no kvcheck sweep", pinnedProfiles, i+1)
		}
		return strings.Join(append(keep, "--json", "--workers", "1"), " "), nil
	}
	return "", fmt.Errorf("%s: no \"# written by: go run ./cmd/kvcheck sweep ...\" line", pinnedProfiles)
}

func main() { os.Exit(run0(os.Args[1:], os.Stdout, os.Stderr)) }

func run0(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("mutatechecker", flag.ContinueOnError)
	flags.SetOutput(stderr)
	list := flags.String("mutants", "cmd/mutatechecker/mutants.txt", "the mutant file")
	ids := flags.String("ids", "", "comma- or space-separated mutant ids to run (default: all)")
	workers := flags.Int("workers", 2, "mutants checked in parallel")
	goTest := flags.Bool("gotest", false, "also record whether go test ./spec kills each mutant (slow)")
	var sweeps multiFlag
	flags.Var(&sweeps, "sweep", "a kvcheck sweep command line for answer (b) (repeatable; default: the sweep "+pinnedProfiles+" was written by, with --json, then \""+sweepDefault+"\"; \"none\" for no sweep)")
	timeout := flags.Duration("timeout", 20*time.Minute, "bound on each command; a command past it counts as a changed answer")
	stopEarly := flags.Bool("stop-at-first", false, "skip the sweeps of a mutant check or lin already kill (faster; the table then says 'not run')")
	repo := flags.String("repo", ".", "the repository to copy (its git-tracked files)")
	tmp := flags.String("tmp", "", "directory for the copies (default: the system's)")
	keep := flags.Bool("keep", false, "keep each mutant's copy (its path is printed)")
	listOnly := flags.Bool("list", false, "check that every entry applies, print the ids and mechanisms, and stop")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	reproduce := "reproduce: go run ./cmd/mutatechecker " + strings.Join(args, " ")
	f, err := os.Open(*list)
	if err != nil {
		fmt.Fprintf(stderr, "mutatechecker: %v\n%s\n", err, reproduce)
		return 2
	}
	mutants, err := ParseMutants(*list, f)
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "mutatechecker: %v\n%s\n", err, reproduce)
		return 2
	}
	mutants, err = selectMutants(mutants, *ids)
	if err != nil {
		fmt.Fprintf(stderr, "mutatechecker: %v\n%s\n", err, reproduce)
		return 2
	}
	opt := Options{GoTest: *goTest, Timeout: *timeout, SkipSweepWhenKilled: *stopEarly}
	if len(sweeps) == 0 {
		first, err := profileSweep(*repo)
		if err != nil {
			fmt.Fprintf(stderr, "mutatechecker: %v\n%s\n", err, reproduce)
			return 2
		}
		sweeps = multiFlag{first, sweepDefault}
	}
	for _, s := range sweeps {
		if s != "none" {
			opt.SweepArgs = append(opt.SweepArgs, strings.Fields(s))
		}
	}
	root, err := filepath.Abs(*repo)
	if err != nil {
		fmt.Fprintf(stderr, "mutatechecker: %v\n%s\n", err, reproduce)
		return 2
	}
	// Every entry must apply before anything runs: a stale one is an error.
	for i := range mutants {
		if err := checkApplies(root, &mutants[i]); err != nil {
			fmt.Fprintf(stderr, "mutatechecker: %v\n%s\n", err, reproduce)
			return 2
		}
	}
	if *listOnly {
		for _, m := range mutants {
			fmt.Fprintf(stdout, "%s\t%s\n", m.ID, m.Mechanism)
		}
		return 0
	}
	start := time.Now()
	fmt.Fprintf(stderr, "mutatechecker: baseline (the unmutated copy)...\n")
	base, err := answersOf(root, *tmp, nil, opt, nil, *keep, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "mutatechecker: baseline: %v\n%s\n", err, reproduce)
		return 2
	}
	fmt.Fprintf(stderr, "mutatechecker: baseline in %s; %d mutants, %d workers\n", time.Since(start).Round(time.Second), len(mutants), *workers)
	results := make([]Result, len(mutants))
	var wg sync.WaitGroup
	next := make(chan int)
	var mu sync.Mutex
	for w := 0; w < max(*workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				m := &mutants[i]
				t0 := time.Now()
				a, err := answersOf(root, *tmp, m, opt, base, *keep, stderr)
				results[i] = judge(m, a, base, err, opt)
				results[i].Took = time.Since(t0)
				mu.Lock()
				fmt.Fprintf(stderr, "mutatechecker: %-36s %-10s %s\n", m.ID, results[i].Verdict(), results[i].Took.Round(time.Second))
				mu.Unlock()
			}
		}()
	}
	for i := range mutants {
		next <- i
	}
	close(next)
	wg.Wait()
	report(stdout, mutants, results, opt, time.Since(start))
	for _, r := range results {
		if r.Err != nil {
			return 2
		}
	}
	return 0
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, "; ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// selectMutants keeps the mutants named in ids (all when empty), refusing
// an id the list does not have.
func selectMutants(all []Mutant, ids string) ([]Mutant, error) {
	names := strings.FieldsFunc(ids, func(r rune) bool { return r == ',' || r == ' ' })
	if len(names) == 0 {
		return all, nil
	}
	byID := map[string]Mutant{}
	var known []string
	for _, m := range all {
		byID[m.ID] = m
		known = append(known, m.ID)
	}
	var out []Mutant
	for _, n := range names {
		m, ok := byID[n]
		if !ok {
			return nil, fmt.Errorf("no mutant %q; the list has: %s", n, strings.Join(known, ", "))
		}
		out = append(out, m)
	}
	return out, nil
}

// checkApplies applies m to a scratch copy of its one file.
func checkApplies(root string, m *Mutant) error {
	dir, err := os.MkdirTemp("", "mutatechecker-apply-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	data, err := os.ReadFile(filepath.Join(root, m.File))
	if err != nil {
		return &EntryError{m.Source, m.Line, fmt.Sprintf("mutant %s: file: %v", m.ID, err)}
	}
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(m.File)), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, m.File), data, 0o644); err != nil {
		return err
	}
	return m.Apply(dir)
}

// answersOf copies the repository, plants m (none for the baseline) and
// computes the copy's answers.
func answersOf(root, tmp string, m *Mutant, opt Options, base *Answers, keep bool, stderr io.Writer) (*Answers, error) {
	if tmp == "" {
		tmp = os.TempDir()
	}
	dir, err := copyRepo(root, tmp)
	if err != nil {
		return nil, err
	}
	if keep {
		fmt.Fprintf(stderr, "mutatechecker: copy %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	if m != nil {
		if err := m.Apply(dir); err != nil {
			return nil, err
		}
	}
	return Compute(dir, opt, base)
}
