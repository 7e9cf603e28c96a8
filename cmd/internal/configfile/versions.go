package configfile

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/space"
)

// SpecVersions are the versions of TensorRT-LLM's code the spec models, as
// spec.Config.Version names them (its values, read from the spec through
// the version=all range, so a version the spec adds is taken up here).
func SpecVersions() []string {
	cs, err := space.NewConfigSpace(spec.Config{}, []string{"version=all"}, nil)
	if err != nil || len(cs.Settings) != 1 {
		panic(fmt.Sprintf("configfile: the spec's versions: %v", err))
	}
	return cs.Settings[0].Values
}

// versionPoint places a modelled version that is a commit, not a release
// tag, on TensorRT-LLM's history: the release it follows, the commits that
// are it, and what the spec models differently there than at that release
// (the PRs; spec/versions.go holds the gates). A version named by a
// release tag needs none: releases order by their numbers.
type versionPoint struct {
	name    string
	follows string // release tag, as releaseOf parses it
	commits []string
	since   string
}

// versionPoints are the commit versions the spec models
// (TestEverySpecVersionPlaced wants each one here).
var versionPoints = []versionPoint{
	{name: "00746ef", follows: "v1.3.0rc25", commits: []string{"00746ef9992943a9bb604dbf1ecf00c64af58c32"},
		since: "PR #19202 (merged 2026-09-15: a first context chunk the scheduler cannot place frees its caches and rewinds its cursor instead of staying suspended), KVCacheManagerV2.admit_mirror, which KVCacheV2Scheduler._admit_unpaired_draft calls before it admits a request, and PR #19235's _detect_deadlock (1000 stalled passes raise)"},
	{name: "00746ef+pr19181", follows: "v1.3.0rc25",
		since: "00746ef with PR #19181 (merged after 2026-09-15; no stored commit carries it): _detect_deadlock warns instead of raising"},
}

// releaseCommits are the commits of release tags the spec models, so a
// user may name a release by its commit.
var releaseCommits = map[string]string{"v1.3.0rc25": "785c948"}

// release is a TensorRT-LLM release number: MAJOR.MINOR.PATCH, then a
// release candidate's number (rc = -1 for the final release, which comes
// after every candidate).
type release struct{ major, minor, patch, rc int }

var releasePattern = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)(?:rc(\d+))?$`)

// releaseOf parses "1.3.0rc26" or "v1.3.0"; ok is false for anything else.
func releaseOf(s string) (release, bool) {
	m := releasePattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return release{}, false
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	r := release{atoi(m[1]), atoi(m[2]), atoi(m[3]), -1}
	if m[4] != "" {
		r.rc = atoi(m[4])
	}
	return r, true
}

// compare orders releases; a final release after its candidates.
func (a release) compare(b release) int {
	for _, d := range [][2]int{{a.major, b.major}, {a.minor, b.minor}, {a.patch, b.patch}} {
		if d[0] != d[1] {
			return d[0] - d[1]
		}
	}
	ra, rb := a.rc, b.rc
	if ra < 0 {
		ra = 1 << 30
	}
	if rb < 0 {
		rb = 1 << 30
	}
	return ra - rb
}

// versionChoice is how a user's TensorRT-LLM version became a modelled one.
type versionChoice struct {
	// version is the spec version checked.
	version string
	// warning says what differs between the user's code and the version
	// checked ("" when they are the same).
	warning string
}

var commitPattern = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

// chooseVersion maps a user's TensorRT-LLM release or commit onto the
// versions the spec models: the same one, or the newest modelled release at
// or before it with a warning naming what kvcheck models after that
// release and saying the rest is not modelled; otherwise an error listing
// the versions modelled.
func chooseVersion(user string) (versionChoice, error) {
	versions := SpecVersions()
	user = strings.TrimSpace(user)
	list := func() string {
		var parts []string
		for _, v := range versions {
			part := v
			if c, ok := releaseCommits[v]; ok {
				part += " (" + c + ")"
			}
			for _, p := range versionPoints {
				if p.name == v {
					part += " (main after " + p.follows + ")"
				}
			}
			parts = append(parts, part)
		}
		return strings.Join(parts, ", ")
	}
	for _, v := range versions {
		if user == v || strings.TrimPrefix(user, "v") == strings.TrimPrefix(v, "v") {
			return versionChoice{version: v}, nil
		}
	}
	if commitPattern.MatchString(user) {
		for _, v := range versions {
			commits := []string{v}
			if c, ok := releaseCommits[v]; ok {
				commits = append(commits, c)
			}
			for _, p := range versionPoints {
				if p.name == v {
					commits = append(commits, p.commits...)
				}
			}
			for _, c := range commits {
				if commitPattern.MatchString(c) && (strings.HasPrefix(c, user) || strings.HasPrefix(user, c)) {
					return versionChoice{version: v}, nil
				}
			}
		}
		return versionChoice{}, fmt.Errorf("commit %s is not one kvcheck can place on TensorRT-LLM's history (it has not read it); the versions modelled are %s: give your release (tensorrt_llm_version: 1.3.0rc26) or the modelled version whose code yours has (kvcheck.version)", user, list())
	}
	want, ok := releaseOf(user)
	if !ok {
		return versionChoice{}, fmt.Errorf("expected a TensorRT-LLM release such as 1.3.0rc26 or a commit hash, got %q; the versions modelled are %s", user, list())
	}
	best := ""
	var bestRel release
	for _, v := range versions {
		r, ok := releaseOf(v)
		if ok && r.compare(want) <= 0 && (best == "" || r.compare(bestRel) > 0) {
			best, bestRel = v, r
		}
	}
	if best == "" {
		return versionChoice{}, fmt.Errorf("release %s is older than every version kvcheck models (%s): the KV cache code it runs is not modelled", user, list())
	}
	var later []string
	for _, p := range versionPoints {
		if r, ok := releaseOf(p.follows); ok && r.compare(bestRel) >= 0 && contains(versions, p.name) {
			later = append(later, fmt.Sprintf("at %s: %s", p.name, p.since))
		}
	}
	warning := fmt.Sprintf("TensorRT-LLM %s is later than %s, the newest release kvcheck models at or before it, so %s's behaviour is checked.", user, best, best)
	if len(later) > 0 {
		warning += " kvcheck models changes merged after " + best + " " + strings.Join(later, "; ") + "; if your release has them, give kvcheck.version instead."
	}
	warning += " Anything else merged between " + best + " and " + user + " is not modelled."
	return versionChoice{version: best, warning: warning}, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
