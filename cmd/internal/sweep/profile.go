package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// RaiseInvariant is the invariant whose violations a profile also counts
// by raising function.
const RaiseInvariant = "no-crash-on-refusal"

// Profile is a variant's verdict profile over a whole space: how many
// configurations hold, how many break each invariant, and of the raises
// (no-crash-on-refusal) how many come out of each real function. Unlike
// the smallest counterexample, it changes whenever any configuration's
// verdict changes, so a pinned profile shows a change of the spec's
// behaviour anywhere in the swept space (Digest names it in 12 hex
// digits). A profile is only computed over every configuration (the sweep
// kept going past its first violation): a sweep that stops at the
// smallest counterexample's size class checks a set that depends on the
// verdicts, and its counts would not compare.
type Profile struct {
	// Configurations is how many were counted; Total how many the space
	// holds (fewer counted: the sweep was cut by --time or an interrupt).
	Configurations int `json:"configurations"`
	Total          int `json:"total"`
	// OK counts the configurations whose search holds and is complete;
	// Incomplete those without a violation whose search was cut by
	// --depth or --max-states.
	OK         int `json:"ok"`
	Incomplete int `json:"incomplete"`
	// States is the sum of the configurations' distinct states: a change
	// of behaviour that moves no verdict (a bound that no longer binds, a
	// page freed late) still changes how many states some search reaches.
	States int `json:"states"`
	// Invariants counts the violating configurations by the invariant
	// (or "livelock") their shortest violation breaks.
	Invariants map[string]int `json:"invariants,omitempty"`
	// Raises counts the no-crash-on-refusal configurations by the real
	// function that raises (the first word of the failure group).
	Raises map[string]int `json:"raises,omitempty"`
	// Digest is the first 12 hex digits of the SHA-256 of Text.
	Digest string `json:"digest"`
}

// NewProfile counts the records (one per configuration) of a space of
// total configurations.
func NewProfile(records []Record, total int) *Profile {
	p := &Profile{Total: total, Invariants: map[string]int{}, Raises: map[string]int{}}
	for _, r := range records {
		p.Configurations++
		p.States += r.States
		switch {
		case r.Result == ResultViolation:
			p.Invariants[r.Invariant]++
			if r.Invariant == RaiseInvariant {
				p.Raises[RaiseFunction(r.Group)]++
			}
		case r.Complete:
			p.OK++
		default:
			p.Incomplete++
		}
	}
	p.Digest = ProfileDigest(p.Counts())
	return p
}

// RaiseFunction is the raising function a no-crash-on-refusal failure
// group names ("_prepare_draft_resources draft pool: RuntimeError" →
// "_prepare_draft_resources"), "unknown" when it names none.
func RaiseFunction(group string) string {
	fn, _, _ := strings.Cut(group, " ")
	if fn == "" {
		return "unknown"
	}
	return fn
}

// Counts is the profile as named counts: configurations, ok, incomplete,
// each invariant broken, and each raising function as
// no-crash-on-refusal/FUNCTION.
func (p *Profile) Counts() map[string]int {
	out := map[string]int{"configurations": p.Configurations, "ok": p.OK, "incomplete": p.Incomplete, "states": p.States}
	for inv, n := range p.Invariants {
		out[inv] = n
	}
	for fn, n := range p.Raises {
		out[RaiseInvariant+"/"+fn] = n
	}
	return out
}

// ProfileFixedCounts are the counts every profile line gives, in the order
// its canonical text starts with; the others are per invariant or raising
// function.
var ProfileFixedCounts = []string{"configurations", "ok", "incomplete", "states"}

// ProfileText is the canonical text of a profile's counts, the digest's
// input: configurations, ok, incomplete and states first, then the other counts
// sorted by name, as "name=count" separated by spaces.
func ProfileText(counts map[string]int) string {
	fixed := ProfileFixedCounts
	parts := make([]string, 0, len(counts))
	for _, k := range fixed {
		parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if !slices.Contains(fixed, k) {
			parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
		}
	}
	return strings.Join(parts, " ")
}

// ProfileDigest is the first 12 hex digits of the SHA-256 of counts'
// canonical text.
func ProfileDigest(counts map[string]int) string {
	h := sha256.Sum256([]byte(ProfileText(counts)))
	return hex.EncodeToString(h[:])[:12]
}

// Words is the profile in a line: "1234 configurations: ok 1100,
// no-crash-on-refusal 120 (_prepare_draft_resources 100, _detect_deadlock
// 20), livelock 14; digest ab12cd34ef56".
func (p *Profile) Words() string {
	parts := []string{fmt.Sprintf("ok %d", p.OK)}
	if p.Incomplete > 0 {
		parts = append(parts, fmt.Sprintf("incomplete %d", p.Incomplete))
	}
	for _, inv := range slices.Sorted(maps.Keys(p.Invariants)) {
		part := fmt.Sprintf("%s %d", inv, p.Invariants[inv])
		if inv == RaiseInvariant && len(p.Raises) > 0 {
			var fns []string
			for _, fn := range slices.Sorted(maps.Keys(p.Raises)) {
				fns = append(fns, fmt.Sprintf("%s %d", fn, p.Raises[fn]))
			}
			part += " (" + strings.Join(fns, ", ") + ")"
		}
		parts = append(parts, part)
	}
	head := fmt.Sprintf("%d configurations (%d states)", p.Configurations, p.States)
	if p.Configurations < p.Total {
		head = fmt.Sprintf("%d of %d configurations (partial: the sweep was cut)", p.Configurations, p.Total)
	}
	return fmt.Sprintf("%s: %s; digest %s", head, strings.Join(parts, ", "), p.Digest)
}
