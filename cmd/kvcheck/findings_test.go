package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFindingsStepCounts: every step count docs/findings.md's table gives
// of a scenario's real code is what `kvcheck check` finds: the first
// "(N steps)" of the real-code cell with the scenario's default check,
// and one after "(`--invariant NAME`)" with that narrowing. A spec
// change that moves a counterexample makes this fail until the page
// says so.
func TestFindingsStepCounts(t *testing.T) {
	doc, err := os.ReadFile("../../docs/findings.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|[^|]*\\|([^|]*)\\|")
	steps := regexp.MustCompile(`\((?:[^()]*, )?(\d+) steps\)`)
	narrowed := regexp.MustCompile("\\(`--invariant ([a-z-]+)`\\)")
	rows := 0
	bugs, _, _ := strings.Cut(string(doc), "\n## The scenarios\n") // the table of bugs, not the list rows
	for _, m := range row.FindAllStringSubmatch(bugs, -1) {
		scenario, cell := m[1], m[2]
		args := []string{"check", "--scenario", scenario, "--fix", "none", "--json"}
		rest := cell
		if n := narrowed.FindStringSubmatchIndex(cell); n != nil {
			rest = cell[:n[0]]
			checkFindingSteps(t, "docs/findings.md", scenario, append(args, "--invariant", cell[n[2]:n[3]]), steps.FindStringSubmatch(cell[n[1]:]))
		}
		checkFindingSteps(t, "docs/findings.md", scenario, args, steps.FindStringSubmatch(rest))
		rows++
	}
	if rows < 6 {
		t.Fatalf("%d scenario rows read from docs/findings.md; the table's layout changed", rows)
	}
}

// checkFindingSteps runs the check args name and compares its steps with
// the "(N steps)" found.
func checkFindingSteps(t *testing.T, doc, scenario string, args []string, found []string) {
	t.Helper()
	if found == nil {
		t.Errorf("%s: the %s row gives no step count for %s\nreproduce: go run ./cmd/kvcheck %s", doc, scenario, strings.Join(args, " "), strings.Join(args, " "))
		return
	}
	code, out, errOut := runKvcheck(args...)
	var r checkReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: exit %d %v\n%s", args, code, err, errOut)
	}
	if want, _ := strconv.Atoi(found[1]); r.Steps != want {
		t.Errorf("%s says %s for %s; kvcheck %s finds %s after %d steps\nreproduce: go run ./cmd/kvcheck %s", doc, found[0], scenario, strings.Join(args, " "), r.Invariant, r.Steps, strings.Join(args, " "))
	}
}

// TestHistoryBugsStepCounts: the "after N steps" docs/history-bugs.md's
// table gives of each historical bug (its real code: the pre-fix switch
// on) is what `kvcheck check` finds.
func TestHistoryBugsStepCounts(t *testing.T) {
	doc, err := os.ReadFile("../../docs/history-bugs.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|[^|]*\\|[^|]*\\|([^|]*)\\|")
	steps := regexp.MustCompile(`after (\d+) steps`)
	rows := 0
	bugs, _, _ := strings.Cut(string(doc), "\n## The scenarios\n") // the table of bugs, not the list rows
	for _, m := range row.FindAllStringSubmatch(bugs, -1) {
		checkFindingSteps(t, "docs/history-bugs.md", m[1], []string{"check", "--scenario", m[1], "--fix", "none", "--triage=false", "--json"}, steps.FindStringSubmatch(m[2]))
		rows++
	}
	if rows < 4 {
		t.Fatalf("%d rows read from docs/history-bugs.md; the table's layout changed", rows)
	}
}
