package spec

import (
	"fmt"
	"strings"
)

// passTally counts how the deadlock detector classified one rank's
// scheduler passes on a livelock's cycle (detectDeadlock's branches).
type passTally struct {
	passes, progress, idle, exempt, stalled, immediate int
}

// detectorPassBranches are the branches detectDeadlock marks every pass
// with, one of the first four each time.
var detectorPassBranches = [...]Branch{brPassProgress, brPassIdle, brPassExempt, brDeadlockStall}

// tallyPasses replays cycle from start and tallies, per rank whose action
// ran a scheduler pass, how the detector classified it.
func (sp *Spec) tallyPasses(start *State, cycle []Action) map[uint8]*passTally {
	probe := *sp
	s := *start
	out := map[uint8]*passTally{}
	for _, a := range cycle {
		probe.Cover = NewCoverage()
		s = probe.Next(&s, a)
		count := func(b Branch) int {
			n, _ := probe.Cover.Count(string(CoverBranch) + " " + b.Name())
			return int(n)
		}
		passes := 0
		for _, b := range detectorPassBranches {
			passes += count(b)
		}
		if passes == 0 {
			continue
		}
		t := out[a.Rank]
		if t == nil {
			t = &passTally{}
			out[a.Rank] = t
		}
		t.passes += passes
		t.progress += count(brPassProgress)
		t.idle += count(brPassIdle)
		t.exempt += count(brPassExempt)
		t.stalled += count(brDeadlockStall)
		t.immediate += count(brPassImmediate)
	}
	return out
}

// DetectorVerdict says what the V2 scheduler's deadlock detector does on
// a livelock whose cycle leads from start back to it: at the checked
// version whether it raises, warns or stays quiet, and why (the ranks
// whose passes make progress as it counts progress, have nothing to
// schedule, or hold a KV transfer); then what the other versions' checks
// would do with the same passes. The real _detect_deadlock counts 1000
// stalled passes in a row (_DEADLOCK_STALL_ITERS), so the cycles that take
// are given too.
func (sp *Spec) DetectorVerdict(start *State, cycle []Action) string {
	tallies := sp.tallyPasses(start, cycle)
	var ranks []uint8
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		if tallies[r] != nil {
			ranks = append(ranks, r)
		}
	}
	if len(ranks) == 0 {
		return "no scheduler pass runs on the cycle, so the deadlock detector never looks"
	}
	var stalledRanks, immediateRanks []uint8
	var quiet []string
	for _, r := range ranks {
		t := tallies[r]
		if t.stalled == t.passes {
			stalledRanks = append(stalledRanks, r)
		} else {
			quiet = append(quiet, fmt.Sprintf("rank %d %s", r, t.quietReason()))
		}
		if t.immediate > 0 {
			immediateRanks = append(immediateRanks, r)
		}
	}
	counted := func(rs []uint8) string {
		parts := make([]string, len(rs))
		for i, r := range rs {
			t := tallies[r]
			parts[i] = fmt.Sprintf("rank %d's %d pass(es) a cycle are all stalled: the 1000th in a row comes in cycle %d", r, t.passes, (1000+t.passes-1)/t.passes)
		}
		return strings.Join(parts, "; ")
	}
	var b strings.Builder
	switch sp.Config.deadlockDetector() {
	case deadlockRaises, deadlockWarns:
		if len(stalledRanks) == 0 {
			fmt.Fprintf(&b, "_detect_deadlock (%s) never raises on it: %s", sp.Config.Version, strings.Join(quiet, "; "))
		} else {
			fmt.Fprintf(&b, "_detect_deadlock (%s) counts the stall (%s) but, after PR #19181, only warns, then every 250 passes: nothing raises", sp.Config.Version, counted(stalledRanks))
		}
	case deadlockImmediate:
		fmt.Fprintf(&b, "v1.3.0rc25's inline deadlock check never fires on it (no pass with a generation request waiting schedules, evicts and pauses nothing with nothing in flight)")
		if len(quiet) > 0 {
			fmt.Fprintf(&b, "; _detect_deadlock's count would stay quiet too: %s", strings.Join(quiet, "; "))
		}
	}
	if sp.Config.deadlockDetector() != deadlockRaises && len(stalledRanks) > 0 {
		fmt.Fprintf(&b, "; the same passes at 00746ef, whose _detect_deadlock raises, would raise RuntimeError \"V2 scheduler deadlock\" (%s)", counted(stalledRanks))
	}
	if sp.Config.deadlockDetector() != deadlockImmediate && len(immediateRanks) > 0 {
		fmt.Fprintf(&b, "; at v1.3.0rc25 the inline check would raise on rank %d's first such pass", immediateRanks[0])
	}
	return b.String()
}

// quietReason says why the counting detector never reaches 1000 on a
// rank that is not stalled on every pass of the cycle.
func (t *passTally) quietReason() string {
	var why []string
	if t.progress > 0 {
		why = append(why, fmt.Sprintf("makes progress as the detector counts it on %d of its %d passes (a request, the ADP dummy among them, is scheduled, suspended or paused)", t.progress, t.passes))
	}
	if t.exempt > 0 {
		why = append(why, fmt.Sprintf("holds a KV transfer on %d (exempt)", t.exempt))
	}
	if t.idle > 0 {
		why = append(why, fmt.Sprintf("has nothing to schedule on %d", t.idle))
	}
	return strings.Join(why, ", ") + ", which resets the count"
}
