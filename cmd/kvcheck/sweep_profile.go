package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/model"
)

// The profile file of `kvcheck sweep --expect-profile FILE` and
// `--write-profile FILE` holds one line per variant:
//
//	draft-admission real-code digest=ab12cd34ef56 configurations=21478 ok=21000 incomplete=0 states=5210034 no-crash-on-refusal=478 no-crash-on-refusal/_prepare_draft_resources=478
//
// the scenario, the variant (real-code, or its fixes joined by "+"), the
// digest of the counts (sweep.ProfileDigest) and the counts: every
// configuration, those that hold, those incomplete, those that break each
// invariant (livelock and deadlock included) and, of the
// no-crash-on-refusal ones, those that raise in each function. A count
// left out is 0. Blank lines and lines starting with # are ignored.

// profileEntry is one line of a profile file.
type profileEntry struct {
	line   int
	digest string
	counts map[string]int
}

// profileFile is a parsed profile file, by variant label.
type profileFile struct {
	path    string
	entries map[string]profileEntry
}

// profileLabel names a variant in a profile file: "draft-admission real-code".
func profileLabel(scenario string, fixes []string) string {
	v := "real-code"
	if len(fixes) > 0 {
		v = strings.Join(fixes, "+")
	}
	return scenario + " " + v
}

var profileDigestRE = regexp.MustCompile(`^[0-9a-f]{12}$`)

// readProfileFile parses a profile file; an error names the file and line
// and says what was expected.
func readProfileFile(path string) (*profileFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--expect-profile: %v", err)
	}
	// fixed are the counts every line gives, verdicts the ones that add up
	// to configurations beside ok and incomplete.
	fixed := map[string]bool{}
	for _, k := range sweep.ProfileFixedCounts {
		fixed[k] = true
	}
	verdicts := map[string]bool{model.LivelockInvariant: true, model.DeadlockInvariant: true}
	for _, n := range specInvariantNames() {
		verdicts[n] = true
	}
	pf := &profileFile{path: path, entries: map[string]profileEntry{}}
	for i, text := range strings.Split(string(data), "\n") {
		n := i + 1
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", path, n, fmt.Sprintf(format, args...))
		}
		fields := strings.Fields(text)
		if len(fields) < 3 || strings.Contains(fields[0], "=") || strings.Contains(fields[1], "=") {
			return nil, bad("expected SCENARIO VARIANT digest=HEX configurations=N ok=N incomplete=N states=N [INVARIANT=N]... [no-crash-on-refusal/FUNCTION=N]... (as --write-profile writes), got %q", text)
		}
		label := fields[0] + " " + fields[1]
		if prev, dup := pf.entries[label]; dup {
			return nil, bad("%s already given on line %d", label, prev.line)
		}
		e := profileEntry{line: n, counts: map[string]int{}}
		for _, f := range fields[2:] {
			key, value, ok := strings.Cut(f, "=")
			if !ok {
				return nil, bad("expected key=value, got %q", f)
			}
			if key == "digest" {
				if !profileDigestRE.MatchString(value) {
					return nil, bad("digest: expected 12 lowercase hex digits, got %q", value)
				}
				e.digest = value
				continue
			}
			inv, fn, raise := strings.Cut(key, "/")
			if !fixed[key] && !verdicts[key] && !(raise && inv == sweep.RaiseInvariant && fn != "") {
				return nil, bad("unknown count %q; expected configurations, ok, incomplete, states, an invariant (%s), livelock, deadlock or %s/FUNCTION", key, strings.Join(specInvariantNames(), ", "), sweep.RaiseInvariant)
			}
			if _, dup := e.counts[key]; dup {
				return nil, bad("%s given twice", key)
			}
			c, err := strconv.Atoi(value)
			if err != nil || c < 0 {
				return nil, bad("%s: expected a count (an integer 0 or more), got %q", key, value)
			}
			e.counts[key] = c
		}
		for _, k := range append([]string{"digest"}, sweep.ProfileFixedCounts...) {
			if _, ok := e.counts[k]; !ok && (k != "digest" || e.digest == "") {
				return nil, bad("%s: %s=... missing (every line gives digest, configurations, ok, incomplete and states)", label, k)
			}
		}
		sum, raises := e.counts["ok"]+e.counts["incomplete"], 0
		for k, c := range e.counts {
			if strings.Contains(k, "/") {
				raises += c
			} else if verdicts[k] {
				sum += c
			}
		}
		if sum != e.counts["configurations"] {
			return nil, bad("%s: ok, incomplete and the invariants' counts add up to %d, not configurations=%d", label, sum, e.counts["configurations"])
		}
		if raises > 0 && raises != e.counts[sweep.RaiseInvariant] {
			return nil, bad("%s: the raising functions' counts add up to %d, not %s=%d", label, raises, sweep.RaiseInvariant, e.counts[sweep.RaiseInvariant])
		}
		if want := sweep.ProfileDigest(e.counts); want != e.digest {
			return nil, bad("%s: digest=%s does not match the counts on the line (their digest is %s); a hand-edited line? re-pin with --write-profile", label, e.digest, want)
		}
		pf.entries[label] = e
	}
	return pf, nil
}

// profileLine is a variant's line of a profile file.
func profileLine(r sweep.Report) string {
	counts := r.Profile.Counts()
	text := sweep.ProfileText(counts)
	// Zero counts of invariants are left out; configurations, ok and
	// incomplete are always given.
	var kept []string
	for i, f := range strings.Fields(text) {
		if i < 3 || !strings.HasSuffix(f, "=0") {
			kept = append(kept, f)
		}
	}
	return fmt.Sprintf("%s digest=%s %s", profileLabel(r.Scenario, r.Fixes), r.Profile.Digest, strings.Join(kept, " "))
}

// expectProfiles compares each result's profile with the file's and
// prints what differs, each variant with the command that reproduces it:
// exit 0 when all agree, 1 when one differs or is missing from the file,
// 3 when none differs but a sweep was cut (its profile is partial).
func expectProfiles(results []sweepResult, pf *profileFile, who string, w io.Writer) int {
	var lines []string
	differ, partial := 0, 0
	for _, res := range results {
		r := res.report
		label := profileLabel(r.Scenario, r.Fixes)
		repro := r.Reproduce + " --expect-profile " + pf.path
		if r.Profile == nil || r.Profile.Configurations < r.Profile.Total {
			partial++
			got := 0
			if r.Profile != nil {
				got = r.Profile.Configurations
			}
			lines = append(lines, fmt.Sprintf("  %s: partial profile: %d of %d configurations checked (the --time budget ran out or the sweep was interrupted); nothing to compare", label, got, r.Total), "  reproduce: "+repro)
			continue
		}
		e, ok := pf.entries[label]
		if !ok {
			differ++
			lines = append(lines, fmt.Sprintf("  %s: not in %s (a variant missing from the file is not passed); its profile: %s", label, pf.path, profileLine(r)),
				"  reproduce: "+repro)
			continue
		}
		got := r.Profile.Counts()
		var diffs []string
		for _, k := range slices.Sorted(maps.Keys(mergeKeys(e.counts, got))) {
			if e.counts[k] != got[k] {
				diffs = append(diffs, fmt.Sprintf("%s: expected %d, got %d", k, e.counts[k], got[k]))
			}
		}
		if len(diffs) == 0 {
			continue
		}
		differ++
		lines = append(lines, fmt.Sprintf("  %s (%s:%d): digest expected %s, got %s; %s", label, pf.path, e.line, e.digest, r.Profile.Digest, strings.Join(diffs, "; ")),
			"  reproduce: "+repro)
	}
	switch {
	case differ > 0:
		fmt.Fprintf(w, "%s: %d of %d variants' verdict profiles differ from %s:\n%s\n", who, differ, len(results), pf.path, strings.Join(lines, "\n"))
		return exitViolation
	case partial > 0:
		fmt.Fprintf(w, "%s: %d of %d variants' verdict profiles are partial, the others are as %s pins:\n%s\n", who, partial, len(results), pf.path, strings.Join(lines, "\n"))
		return exitIncomplete
	}
	fmt.Fprintf(w, "%s: every verdict profile is as %s pins: %d variant(s)\n", who, pf.path, len(results))
	return exitOK
}

func mergeKeys(a, b map[string]int) map[string]int {
	out := maps.Clone(a)
	for k := range b {
		out[k] = 0
	}
	return out
}

// preflightProfileFile refuses to overwrite an existing --write-profile
// file without --rewrite, before anything is swept.
func preflightProfileFile(path string, rewrite bool) error {
	if _, err := os.Stat(path); err == nil && !rewrite {
		return fmt.Errorf("--write-profile: %s exists; pass --rewrite to replace it (then review the diff)", path)
	}
	return nil
}

// writeProfiles writes every result's profile line to path: exit 0, or 3
// (nothing written) when a sweep was cut and its profile is partial.
func writeProfiles(path string, results []sweepResult, command, who string, stdout, stderr io.Writer) int {
	var b strings.Builder
	fmt.Fprintf(&b, "# kvcheck sweep verdict profiles (docs/sweep.md#verdict-profiles), one line per variant.\n# written by: %s\n", command)
	for _, res := range results {
		r := res.report
		if r.Profile == nil || r.Profile.Configurations < r.Profile.Total {
			fmt.Fprintf(stderr, "%s: --write-profile: %s: the sweep was cut (%d of %d configurations checked); %s not written\nreproduce: %s\n", who, profileLabel(r.Scenario, r.Fixes), r.Configurations, r.Total, path, command)
			return exitIncomplete
		}
		b.WriteString(profileLine(r) + "\n")
	}
	if err := writeFileAtomic(path, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintf(stderr, "%s: --write-profile: %v\nreproduce: %s\n", who, err, command)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s: wrote %d verdict profile(s) to %s\n", who, len(results), path)
	return exitOK
}
