package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/kvcheck/kvcheck/spec"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// The verdicts a variant can get besides an invariant's name and
// spec.VerdictOK.
const (
	// verdictIncomplete: a budget (--max-states, --depth, --time, --walks)
	// or an interrupt ended the search before it found a violation, so
	// nothing is proved: not ok.
	verdictIncomplete = "incomplete"
)

// gateMode says what makes `kvcheck check` and `kvcheck fuzz` exit 1.
type gateMode struct {
	// anyViolation: any violation (the plain model checker's exit), instead
	// of a verdict that differs from the expected one.
	anyViolation bool
	// overrides are the verdicts of an --expect file, by scenario and fix
	// label; they win over the scenarios' own.
	overrides map[string]map[string]string
}

// expectedVerdict is what v is expected to give: the --expect file's
// verdict, else the scenario's, else ok (a configuration of the user's is
// expected to break nothing).
func (g gateMode) expectedVerdict(v variant) string {
	label := v.fixes.Label()
	if byLabel, ok := g.overrides[v.scenario.Name]; ok {
		if verdict, ok := byLabel[label]; ok {
			return verdict
		}
	}
	if verdict, ok := v.scenario.Expected(v.fixes); ok {
		return verdict
	}
	return spec.VerdictOK
}

// judge fills in r's Verdict, Expected and AsExpected.
func (g gateMode) judge(v variant, r *checkReport) {
	r.Expected = g.expectedVerdict(v)
	switch r.Result {
	case "violation":
		r.Verdict = r.Invariant
	case verdictIncomplete:
		r.Verdict = verdictIncomplete
	default:
		r.Verdict = spec.VerdictOK
	}
	r.AsExpected = r.Verdict == r.Expected
	if r.Unjudged = uncheckedReason(r.Expected, r.kept, !r.noLiveness); r.Unjudged != "" {
		// Not judged, but an incomplete search is still incomplete.
		r.AsExpected = r.Verdict != verdictIncomplete
		return
	}
	// --keep-going reports several violations, shortest first: the one
	// expected may be any of them.
	for _, viol := range r.Violations {
		if viol.Invariant == r.Expected {
			r.AsExpected = true
		}
	}
}

// gateStatus is the exit status of a run's reports: exitViolation when a
// verdict differs from its expectation (with anyViolation: when any
// variant has a violation), else exitIncomplete when a search ended at a
// budget without a violation, else exitOK.
func (g gateMode) gateStatus(reports []checkReport) int {
	status := exitOK
	for _, r := range reports {
		switch {
		case g.anyViolation && r.Result == "violation":
			return exitViolation
		case g.anyViolation && r.Result == verdictIncomplete:
			status = exitIncomplete
		case g.anyViolation, r.AsExpected:
		case r.Verdict == verdictIncomplete:
			status = exitIncomplete
		default:
			return exitViolation
		}
	}
	return status
}

// printGate states the outcome against the expectations: first the
// verdicts that differ, each with the command that reproduces it, then the
// incomplete ones, or one line saying every verdict is as expected.
func (g gateMode) printGate(w io.Writer, who string, reports []checkReport) {
	var differ, incomplete []checkReport
	for _, r := range reports {
		switch {
		case r.AsExpected:
		case r.Verdict == verdictIncomplete:
			incomplete = append(incomplete, r)
		default:
			differ = append(differ, r)
		}
	}
	if g.anyViolation {
		return
	}
	if len(differ) > 0 {
		fmt.Fprintf(w, "%s: %d of %d verdicts differ from what is expected:\n", who, len(differ), len(reports))
		for _, r := range differ {
			fmt.Fprintf(w, "  %s: expected %s, got %s (%s)\n    reproduce: %s\n", reportName(r), r.Expected, r.Verdict, differenceKind(r), r.Reproduce)
		}
	}
	if len(incomplete) > 0 {
		fmt.Fprintf(w, "%s: %d of %d variants are incomplete (a budget or an interrupt ended the search before any violation, so nothing is proved):\n", who, len(incomplete), len(reports))
		for _, r := range incomplete {
			fmt.Fprintf(w, "  %s: expected %s; %s\n    reproduce: %s\n", reportName(r), r.Expected, r.Message, r.Reproduce)
		}
	}
	if len(differ) == 0 && len(incomplete) == 0 {
		broken, unjudged := 0, 0
		for _, r := range reports {
			switch {
			case r.Unjudged != "":
				unjudged++
			case r.Verdict != spec.VerdictOK:
				broken++
			}
		}
		judged := fmt.Sprintf("%d variant(s), %d break the invariant they are expected to, %d ok", len(reports), broken, len(reports)-broken-unjudged)
		if unjudged > 0 {
			judged += fmt.Sprintf(", %d not judged (the violation each is expected to give is not checked)", unjudged)
		}
		fmt.Fprintf(w, "%s: every verdict is as expected: %s\n", who, judged)
	}
}

// differenceKind says in words what a verdict that differs means.
func differenceKind(r checkReport) string {
	realCode := len(r.Fixes) == 0
	switch {
	case r.Expected == spec.VerdictOK && realCode:
		return "a new violation"
	case r.Expected == spec.VerdictOK:
		return "the fix stopped holding"
	case r.Verdict == spec.VerdictOK:
		return "the violation expected disappeared; if the spec changed on purpose, update the expectation"
	}
	return "a different violation than expected"
}

// reportName is "scenario (fixes)" for messages.
func reportName(r checkReport) string {
	fixes := strings.Join(r.Fixes, "+")
	if fixes == "" {
		fixes = "real code"
	}
	return fmt.Sprintf("%s (%s)", r.Scenario, fixes)
}

// maxQuoted bounds how much of a user's input an error message quotes.
const maxQuoted = 60

// quote is %q of s, cut to maxQuoted bytes with "..." when longer.
func quote(s string) string {
	if len(s) > maxQuoted {
		return fmt.Sprintf("%q...", s[:maxQuoted])
	}
	return fmt.Sprintf("%q", s)
}

// readExpectations reads an --expect file: one "SCENARIO FIXES VERDICT"
// line per overridden variant (FIXES as in transcript names: real-code,
// joint-admission, record-draft-lens+clamp-capacity; VERDICT an invariant
// or ok); blank lines and lines starting with '#' are skipped. scenarios
// are the scenarios the verdicts may name.
func readExpectations(path string, scenarios []*scenario.Scenario) (map[string]map[string]string, error) {
	data, err := readSmallFile(path, 1<<20)
	if err != nil {
		return nil, err
	}
	known := map[string]*scenario.Scenario{}
	var names []string
	for _, sc := range scenarios {
		known[sc.Name] = sc
		names = append(names, sc.Name)
	}
	out := map[string]map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("%s:%d", path, i+1)
		fields := strings.Fields(line)
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s: expected SCENARIO FIXES VERDICT (e.g. draft-view-lag joint-admission no-crash-on-refusal), got %s", where, quote(line))
		}
		sc, ok := known[fields[0]]
		if !ok {
			return nil, fmt.Errorf("%s: unknown scenario %s; valid scenarios: %s", where, quote(fields[0]), strings.Join(names, ", "))
		}
		fixes, err := spec.ParseFixesLabel(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %v; expected real-code or fixes joined by +", where, err)
		}
		if !slices.Contains(sc.Variants(), fixes) {
			var labels []string
			for _, f := range sc.Variants() {
				labels = append(labels, f.Label())
			}
			return nil, fmt.Errorf("%s: scenario %s has no variant %s; its variants: %s", where, sc.Name, quote(fields[1]), strings.Join(labels, ", "))
		}
		sp, err := sc.Spec(fixes)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		valid := spec.Verdicts(sp)
		if !slices.Contains(valid, fields[2]) {
			return nil, fmt.Errorf("%s: unknown verdict %s; expected one of: %s", where, quote(fields[2]), strings.Join(valid, ", "))
		}
		if out[sc.Name] == nil {
			out[sc.Name] = map[string]string{}
		}
		out[sc.Name][fixes.Label()] = fields[2]
	}
	return out, nil
}

// readSmallFile reads a regular file of at most limit bytes; a device, a
// pipe or a larger file is an error, so a mistyped path never hangs or
// fills memory.
func readSmallFile(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d this input may have", path, info.Size(), limit)
	}
	return os.ReadFile(path)
}
