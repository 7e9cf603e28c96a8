package triage

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// reference is a known violation: a built-in scenario's real-code one.
// A scenario that puts a historical bug back (a pre_fix switch) stands for
// that bug.
type reference struct {
	name     string
	scenario *scenario.Scenario
	sig      Signature
}

// references checks every built-in scenario as the real code behaves
// (bounded by the triage's budget, through its cache) and keeps each
// violation's signature; a process computes them once per budget.
func references(opts Options, run func(sweep.Variant, spec.Config, sweep.Search) sweep.Record) []reference {
	refMemo.Lock()
	defer refMemo.Unlock()
	if refs, ok := refMemo.byBudget[opts.MaxStates]; ok {
		return refs
	}
	refs := []reference{}
	for _, sc := range scenario.All() {
		rec := run(sweep.Variant{Scenario: sc, Fixes: 0}, sc.Config, sweep.Search{MaxStates: opts.MaxStates, Liveness: true})
		if rec.Result != sweep.ResultViolation {
			continue
		}
		f, err := ParseFinding(sc, configtext.Format(&sc.Config), 0, rec.Invariant, rec.Message, rec.Group, rec.Trace, rec.Cycle)
		if err != nil {
			continue
		}
		sig, err := f.signature()
		if err != nil {
			continue
		}
		refs = append(refs, reference{name: referenceName(sc), scenario: sc, sig: sig})
	}
	refMemo.byBudget[opts.MaxStates] = refs
	return refs
}

var refMemo = struct {
	sync.Mutex
	byBudget map[int][]reference
}{byBudget: map[int][]reference{}}

// seedReport is a seed report's number in a scenario's Report.
var seedReport = regexp.MustCompile(`^seed (\d+)_`)

// referenceName names a scenario as a finding is said to be the same as
// it: "seed 000 (draft-admission)", "PR #13104 (adp-veto-growth)",
// "overlap-two-ranks (seed 000's mechanism in the overlap loop)".
func referenceName(sc *scenario.Scenario) string {
	if m := seedReport.FindStringSubmatch(sc.Report); m != nil {
		return fmt.Sprintf("seed %s (%s)", m[1], sc.Name)
	}
	if rest, ok := strings.CutPrefix(sc.Report, "TensorRT-LLM "); ok {
		if pr := prNumber.FindString(rest); pr != "" && strings.HasPrefix(rest, pr) {
			return fmt.Sprintf("%s (%s)", pr, sc.Name)
		}
	}
	if _, what, ok := strings.Cut(sc.Report, "): "); ok && strings.HasPrefix(sc.Report, "kvcheck coverage scenario") {
		return fmt.Sprintf("%s (%s)", sc.Name, what)
	}
	return sc.Name
}

// SameMechanisms is the share of mechanisms (Jaccard index of the branch
// and raise sets) above which a finding is called the same as a known
// violation whose failure group it does not share: a livelock (no group)
// or a raise in the same function and pool with another error.
const SameMechanisms = 0.5

// match is how well a finding's signature matches a reference's.
type match struct {
	ref            *reference
	sameGroup      bool
	shared, joined int
}

func (m match) score() float64 { return float64(m.shared) / float64(max(m.joined, 1)) }

// better orders matches: the same failure group first, then the larger
// share of mechanisms; on a tie the earlier scenario stays.
func (m match) better(o match) bool {
	if m.sameGroup != o.sameGroup {
		return m.sameGroup
	}
	return m.score() > o.score()
}

// matchReference compares a signature with a reference's. The invariant
// must agree, and for a raise the function and pool. The same failure
// group (a raise's error, a leak's pool) is a match whatever the
// mechanisms; without one (another error, or an invariant without groups
// such as a livelock) the mechanisms must be shared above SameMechanisms.
// A match below that still names its reference: attribute reports the
// closest one of a new finding.
func matchReference(sig Signature, ref *reference) (match, bool) {
	if sig.Invariant != ref.sig.Invariant {
		return match{}, false
	}
	where := func(s Signature) string { w, _, _ := strings.Cut(s.Group, ":"); return w }
	if sig.Function != "" && where(sig) != where(ref.sig) {
		return match{}, false
	}
	if sig.Function == "" && sig.Group != ref.sig.Group {
		return match{}, false
	}
	m := match{ref: ref, sameGroup: sig.Group != "" && sig.Group == ref.sig.Group}
	in := map[string]bool{}
	for _, name := range ref.sig.Mechanisms {
		in[name] = true
	}
	m.joined = len(in)
	for _, name := range sig.Mechanisms {
		if in[name] {
			m.shared++
		} else {
			m.joined++
		}
	}
	return m, m.sameGroup || m.score() >= SameMechanisms
}

// attribute says which known violation the finding is: the best-matching
// built-in scenario's, the historical bug its pre_fix switch puts back,
// whether it is the fix's failure and which version's path it is on;
// "new" when it is no known one.
func attribute(f *Finding, sig Signature, knobs []Row, refs []reference) (sameAs []string, known bool) {
	sameAs = []string{}
	var best, closest *match
	for i := range refs {
		m, ok := matchReference(sig, &refs[i])
		if ok && (best == nil || m.better(*best)) {
			best = &m
		}
		if m.ref != nil && (closest == nil || m.score() > closest.score()) {
			closest = &m
		}
	}
	if best != nil {
		how := "the same raise"
		switch {
		case !best.sameGroup && sig.Function != "":
			how = "its raise in " + sig.Function + " with another error"
		case sig.Function == "" && best.sameGroup:
			how = "the same " + sig.Group
		case sig.Function == "":
			how = "the same invariant"
		}
		sameAs = append(sameAs, fmt.Sprintf("same as %s: %s, %d of %d mechanisms shared", best.ref.name, how, best.shared, best.joined))
		known = true
	}
	for _, r := range knobs {
		switch {
		case r.fixRow == 1 && r.fix.Reverts() != 0 && r.Verdict == Gone:
			sameAs = append(sameAs, fmt.Sprintf("the historical bug of %s (pre_fix %s), which %s closes", r.fix.Source(), strings.Join(preFixNames(r.fix.Reverts()), ","), r.fix))
			known = true
		case r.fixRow == 2 || (r.fixRow == -1 && len(f.Fixes.List()) == 1):
			if r.Verdict == Same {
				sameAs = append(sameAs, "also with --fix none: not the fix's failure")
			} else if r.Verdict == Gone {
				sameAs = append(sameAs, "gone with --fix none: the fix's own failure")
			}
		case r.Knob == "version" && r.Verdict == Gone:
			sameAs = append(sameAs, versionPath(r.from, sig.Mechanisms))
		}
	}
	if !known {
		text := "new"
		if closest != nil {
			text += fmt.Sprintf(" (closest known: %s, %d of %d mechanisms shared)", closest.ref.name, closest.shared, closest.joined)
		}
		sameAs = append([]string{text}, sameAs...)
	}
	return sameAs, known
}

// prNumber is a TensorRT-LLM PR named in a branch's doc.
var prNumber = regexp.MustCompile(`PR #\d+`)

// versionPath says which code path a finding that needs one version is
// on: the branch of its trace that only that version has (its doc names
// the version), and the PR that changed it when the doc names one.
func versionPath(version string, mechanisms []string) string {
	docs := map[string]string{}
	for _, b := range spec.Branches() {
		docs[b.Name()] = b.Models()
	}
	path := ""
	for _, name := range mechanisms {
		doc := docs[name]
		if !strings.Contains(doc, version) {
			continue
		}
		if pr := prNumber.FindString(doc); pr != "" {
			return fmt.Sprintf("only at %s: %s's path (%s)", version, pr, name)
		}
		if path == "" {
			path = fmt.Sprintf("only at %s: the path of %s", version, name)
		}
	}
	if path == "" {
		return "only at " + version
	}
	return path
}

// story is the finding in one line: its label and signature, what it needs
// in real terms, what it is the same as, and its capacity edge.
func story(rep *Report) string {
	parts := []string{rep.Label + ": " + rep.Signature.Words()}
	if rep.Condition != "" {
		parts = append(parts, rep.Condition)
	}
	if len(rep.SameAs) > 0 {
		parts = append(parts, rep.SameAs[0])
	}
	if rep.CapacityEdge {
		parts = append(parts, "capacity edge: "+rep.CapacityNote)
	}
	return strings.Join(parts, "; ")
}
