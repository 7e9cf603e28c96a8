package counterexamples

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
)

// DirCycle is the directive of a livelock's cycle: its input lines are the
// actions that lead from the state the transcript stands in back to it.
// Its output says what they changed, whether they return, whether any of
// them made progress, and whether a run from that state can still finish
// every request (a bounded exhaustive search from it).
//
//	cycle
//	prepare-resources rank=1
//	update-resources rank=1 batch=deferred
//	...
//	----
//	...
//	back to the state after step 29: the cycle repeats forever
//	no step of the cycle makes progress
//	no run from the state after step 29 finishes every request (livelock)
const DirCycle = "cycle"

// cycleSearchStates bounds the search that says whether a run can still
// finish from a cycle's first state.
const cycleSearchStates = 1 << 18

// writeCycle renders the cycle directive of a livelock transcript: a
// comment naming what it is, then the directive with one action per line.
func writeCycle(b *strings.Builder, cycle []spec.Action, after int) {
	if len(cycle) == 0 {
		return
	}
	fmt.Fprintf(b, "# the livelock's cycle: these %d steps lead from the state after step %d back to it, forever\n", len(cycle), after)
	b.WriteString(DirCycle + "\n")
	for _, a := range cycle {
		b.WriteString(a.String() + "\n")
	}
	b.WriteString("----\n")
}

// execCycle runs a cycle directive.
func (r *Replayer) execCycle(d *Directive) (string, error) {
	if r.Spec == nil {
		return "", r.errorf(d.Line, "%s before the config directive; expected `config scenario=NAME fixes=LIST` first", d.Cmd)
	}
	if len(d.Args) > 0 || d.Input == "" {
		return "", r.errorf(d.Line, "%s: expected no arguments and the cycle's actions as input lines, one a line", d.Cmd)
	}
	after := len(r.Steps)
	start := r.State
	first := len(r.Steps)
	for k, text := range strings.Split(d.Input, "\n") {
		text = strings.TrimSpace(text)
		line := d.InputLine + k
		a, err := r.Spec.ParseAction(text)
		if err != nil {
			return "", r.errorf(line, "%s: %v (the lines between cycle and ---- are the cycle's actions)", d.Cmd, err)
		}
		r.step(a, text, line)
	}
	steps := r.Steps[first:]
	for i := range steps {
		steps[i].InCycle = true
	}
	var out []string
	for _, l := range summarize(r.Spec, steps, first+1) {
		out = append(out, l.String(int(r.Spec.Config.Ranks)))
	}
	returns := r.Spec.Fingerprint(&r.State) == r.Spec.Fingerprint(&start)
	for _, s := range steps {
		returns = returns && s.Enabled
	}
	if returns {
		out = append(out, fmt.Sprintf("back to the state after step %d: the cycle repeats forever", after))
	} else {
		out = append(out, fmt.Sprintf("does not return to the state after step %d", after))
	}
	progressed := ""
	for i, s := range steps {
		if s.Enabled && r.Spec.Progress(&s.Before, s.Action, &s.After) {
			progressed = fmt.Sprintf("cycle step %d (%s) makes progress", i+1, s.Text)
			break
		}
	}
	if progressed == "" {
		progressed = "no step of the cycle makes progress"
	}
	out = append(out, progressed)
	res := model.Check(model.From[spec.State, spec.Action](r.Spec, start), model.Options{Liveness: true, MaxStates: cycleSearchStates, Workers: 1})
	finishes := false
	for _, g := range res.Goals {
		finishes = finishes || g.Name == spec.GoalAllFinished.Name && g.Reached
	}
	switch {
	case !res.LivenessChecked:
		out = append(out, fmt.Sprintf("more than %d states from the state after step %d: whether a run still finishes is not known", cycleSearchStates, after))
	case finishes || len(res.Violations) == 0:
		out = append(out, fmt.Sprintf("a run from the state after step %d still finishes every request", after))
	default:
		out = append(out, fmt.Sprintf("no run from the state after step %d finishes every request (livelock)", after))
		r.livelockAfter = after
	}
	return strings.Join(out, "\n"), nil
}

// lostVerdict says why the transcript no longer shows what its banner
// claims, or "": the banner's `[*] step N` line needs the marked directive
// to end at step N, and a livelock banner a cycle directive that returns
// to the state after step N, from which no run finishes.
func lostVerdict(t *Transcript, r *Replayer) string {
	for _, line := range t.Banner {
		rest, ok := strings.CutPrefix(line, Marker+" step ")
		if !ok {
			continue
		}
		numText, _, _ := strings.Cut(rest, " ")
		n, err := strconv.Atoi(strings.TrimSuffix(numText, ":"))
		if err != nil {
			continue
		}
		switch {
		case len(r.Steps) < n:
			return fmt.Sprintf("the banner marks step %d (%s) but the transcript ends after step %d", n, Marker, len(r.Steps))
		case !r.Steps[n-1].Marked:
			return fmt.Sprintf("the banner marks step %d (%s) but no directive marked %s ends there", n, Marker, Marker)
		case strings.Contains(line, "ends in a "+model.LivelockInvariant) && r.livelockAfter != n:
			return fmt.Sprintf("the banner claims a livelock after step %d but no cycle directive shows one there", n)
		}
		return ""
	}
	return ""
}
