package counterexamples

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// regenerate is the one command that rewrites the repository's
// transcripts from the current spec.
const regenerate = "go run ./cmd/kvcheck check --out counterexamples/testdata --rewrite"

// transcriptFiles lists the repository's transcripts.
func transcriptFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no transcript in testdata/; regenerate them with: %s", regenerate)
	}
	return files
}

// directiveFromTestData is the datadriven view of a directive in the
// form Replayer.Exec takes.
func directiveFromTestData(td *datadriven.TestData) Directive {
	line := 0
	if i := strings.LastIndex(td.Pos, ":"); i >= 0 {
		line, _ = strconv.Atoi(td.Pos[i+1:])
	}
	d := Directive{Line: line, Text: td.FullCmd(), Cmd: td.Cmd, Args: td.CmdArgs, Input: td.Input, Expected: td.Expected}
	if d.Input != "" {
		d.InputLine = line + 1
	}
	return d
}

// TestTranscripts replays every transcript in testdata/ through
// cockroachdb/datadriven, so the test fails with datadriven's diff when the
// spec drifts, and `go test ./counterexamples -run TestTranscripts
// -rewrite` rewrites the expected outputs.
func TestTranscripts(t *testing.T) {
	for _, path := range transcriptFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			r := &Replayer{File: path}
			datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
				d := directiveFromTestData(td)
				out, err := r.Exec(&d)
				if err != nil {
					t.Fatalf("%v\nreproduce: go run ./cmd/kvcheck replay counterexamples/%s", err, path)
				}
				return out
			})
		})
	}
}

// TestReaderAgreesWithDatadriven: this package's reader (used by `kvcheck
// replay`) sees the same directives, inputs and expected outputs as
// datadriven's, and replays every transcript to exactly its text.
func TestReaderAgreesWithDatadriven(t *testing.T) {
	for _, path := range transcriptFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Parse(path, data)
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			seen = append(seen, td.FullCmd()+"|"+td.Input+"|"+td.Expected)
			return td.Expected
		})
		var mine []string
		for _, d := range tr.Directives {
			mine = append(mine, d.Text+"|"+d.Input+"|"+d.Expected)
		}
		if strings.Join(seen, "\n") != strings.Join(mine, "\n") {
			t.Errorf("%s: the readers disagree:\ndatadriven: %q\nthis reader: %q", path, seen, mine)
		}
		res, err := Replay(path, data)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Matches() {
			t.Errorf("%s does not replay as written:\n%s\nreproduce: go run ./cmd/kvcheck replay counterexamples/%s", path, res.Diff(), path)
		}
	}
}

// TestEditedExpectedLineFailsWithDiff: changing one expected line makes
// the replay differ with a unified diff naming that line, and the actual
// text (what --rewrite writes) is the file as it was.
func TestEditedExpectedLineFailsWithDiff(t *testing.T) {
	path := transcriptFiles(t)[0]
	original, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(path, original)
	if err != nil {
		t.Fatal(err)
	}
	var target string
	for _, out := range res.Outputs {
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "pages in use: ") && target == "" {
				target = line
			}
		}
	}
	if target == "" {
		t.Fatalf("%s has no output line about pages in use", path)
	}
	edited := strings.Replace(string(original), target+"\n", target+" (edited)\n", 1)
	if edited == string(original) {
		t.Fatalf("could not edit %q", target)
	}
	res, err = Replay(path, []byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	if res.Matches() {
		t.Fatal("an edited expected line still matches")
	}
	diff := res.Diff()
	for _, want := range []string{"-" + target + " (edited)", "+" + target, "@@", "(expected)", "(actual)"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if string(res.Actual) != string(original) {
		t.Errorf("the rewritten text differs from the original file")
	}
}

// TestRealCodeTranscriptsEndInTheirViolation: each transcript named after
// an invariant breaks it at its `[*]` step, the last, and nowhere before;
// its banner names that step and how it was found, points to the
// scenario's story when it has one, and leaves the setup to the config
// directive.
func TestRealCodeTranscriptsEndInTheirViolation(t *testing.T) {
	for _, path := range transcriptFiles(t) {
		if strings.HasSuffix(path, ".ok.txt") {
			continue
		}
		res, err := ReplayFile(path)
		if err != nil {
			t.Fatal(err)
		}
		steps := res.Replayer.Steps
		invariant := strings.Split(filepath.Base(path), ".")[2]
		if invariant == model.LivelockInvariant {
			// A livelock's steps end in its cycle (cycle_test.go); the
			// [*] step is the stem's last, where the cycle starts.
			if res.Replayer.livelockAfter == 0 {
				t.Errorf("%s: no cycle directive shows the livelock", path)
				continue
			}
			steps = steps[:res.Replayer.livelockAfter]
		}
		last := steps[len(steps)-1]
		if invariant != model.LivelockInvariant && !hasViolation(last, invariant) {
			t.Errorf("%s: the last step %q does not break %s", path, last.Text, invariant)
		}
		for i, s := range steps[:len(steps)-1] {
			if hasViolation(s, invariant) {
				t.Errorf("%s: step %d already breaks %s", path, i+1, invariant)
			}
		}
		if !last.Marked {
			t.Errorf("%s: no [*] comment above the directive of the last step", path)
		}
		banner := strings.Join(res.Transcript.Banner, "\n")
		for _, want := range []string{"[*] step " + strconv.Itoa(len(steps)) + " " + last.Text + ":", "Found by:"} {
			if !strings.Contains(banner, want) {
				t.Errorf("%s: banner lacks %q", path, want)
			}
		}
		for _, repeated := range []string{"Setup:", "Test (", "closed by"} {
			if strings.Contains(banner, repeated) {
				t.Errorf("%s: banner says %q, which the directives or the fix lines say", path, repeated)
			}
		}
		words := strings.Join(strings.Fields(banner), " ")
		for _, f := range spec.AllFixes() {
			if n := strings.Count(words, strings.Join(strings.Fields(f.Doc()), " ")); n > 1 {
				t.Errorf("%s: the banner gives the doc of %s %d times", path, f, n)
			}
		}
		if sc := res.Replayer.Scenario; sc != nil && res.Replayer.Spec.Fixes == 0 {
			if !strings.Contains(strings.ReplaceAll(banner, "\n  ", " "), "What happens: "+StoryPath(sc.Name)) {
				t.Errorf("%s: banner does not point to the story %s", path, StoryPath(sc.Name))
			}
		}
	}
}

func hasViolation(s Step, invariant string) bool {
	for _, v := range s.Violations {
		if v.Invariant == invariant {
			return true
		}
	}
	return false
}

// firstIncarnationText is an entity that appeared, listed with incarnation 1.
var firstIncarnationText = regexp.MustCompile(`(created|arrived) [a-z-]+(, [a-z _]+ \d+)*, incarnation 1\b`)

// TestFixTranscriptsReplayTheRealActions: a fix transcript breaks nothing,
// ends with every invariant holding, and takes the real code's actions
// except the substitutions its banner names.
func TestFixTranscriptsReplayTheRealActions(t *testing.T) {
	for _, path := range transcriptFiles(t) {
		if !strings.HasSuffix(path, ".ok.txt") {
			continue
		}
		res, err := ReplayFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range res.Replayer.Steps {
			if len(s.Violations) > 0 || !s.Enabled {
				t.Errorf("%s: step %d %q breaks %v (enabled %v)", path, i+1, s.Text, s.Violations, s.Enabled)
			}
		}
		last := res.Outputs[len(res.Outputs)-1]
		if strings.Contains(last, "violated") || !strings.Contains(last, "holds") {
			t.Errorf("%s: final invariants output:\n%s", path, last)
		}
		scenario := strings.Split(filepath.Base(path), ".")[0]
		realFiles, _ := filepath.Glob(filepath.Join("testdata", scenario+".real-code.*.txt"))
		if len(realFiles) != 1 {
			t.Fatalf("%s: expected one real-code transcript of %s, found %v", path, scenario, realFiles)
		}
		real, err := ReplayFile(realFiles[0])
		if err != nil {
			t.Fatal(err)
		}
		banner := strings.Join(res.Transcript.Banner, " ")
		realSteps := real.Replayer.Steps
		if n := real.Replayer.livelockAfter; n > 0 {
			realSteps = realSteps[:n] // a fix transcript replays a livelock's stem
		}
		var realTrace []spec.Action
		for _, s := range realSteps {
			realTrace = append(realTrace, s.Action)
		}
		_, adapted := Adapt(res.Replayer.Spec, realTrace)
		substituted, ended := map[int]bool{}, false
		for _, a := range adapted {
			substituted[a.Step], ended = true, ended || a.Ended
			if !strings.Contains(strings.Join(strings.Fields(banner), " "), a.String()) {
				t.Errorf("%s: the banner does not say %q", path, a.String())
			}
		}
		fixSteps := res.Replayer.Steps
		if len(fixSteps) > len(realSteps) {
			t.Errorf("%s has %d steps, the real code's transcript %d", path, len(fixSteps), len(realSteps))
		}
		if len(fixSteps) < len(realSteps) && !ended {
			t.Errorf("%s stops after %d of %d steps without saying why", path, len(fixSteps), len(realSteps))
		}
		for i := range min(len(fixSteps), len(realSteps)) {
			if fixSteps[i].Text != realSteps[i].Text && !substituted[i+1] {
				t.Errorf("%s: step %d is %q, the real code's %q, and the banner does not say why", path, i+1, fixSteps[i].Text, realSteps[i].Text)
			}
		}
	}
}

// TestCommittedTranscriptsAreTheGeneratedSet: the folder holds exactly the
// transcripts the current spec produces, so a new scenario, a renamed
// invariant or a fix that changed its verdict shows up as a missing or
// stale file.
func TestCommittedTranscriptsAreTheGeneratedSet(t *testing.T) {
	found, err := Check(DefaultVariants(), model.Options{Workers: 1, Liveness: true}, "go run ./cmd/kvcheck")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Transcripts(found)
	if err != nil {
		t.Fatal(err)
	}
	var generated, committed []string
	for _, f := range files {
		generated = append(generated, f.Name)
		res, err := Replay(f.Name, f.Data)
		if err != nil {
			t.Fatalf("%s as written does not replay: %v", f.Name, err)
		}
		if !res.Matches() {
			t.Errorf("%s as written does not match its own replay:\n%s", f.Name, res.Diff())
		}
	}
	for _, path := range transcriptFiles(t) {
		committed = append(committed, filepath.Base(path))
	}
	sort.Strings(generated)
	sort.Strings(committed)
	if strings.Join(generated, "\n") != strings.Join(committed, "\n") {
		t.Errorf("testdata holds\n  %s\nthe spec now produces\n  %s\nregenerate with: %s (and delete the stale files it names)",
			strings.Join(committed, "\n  "), strings.Join(generated, "\n  "), regenerate)
	}
}

// TestActionLinesParseBack: every action line of every transcript parses
// to an action that prints as the same line.
func TestActionLinesParseBack(t *testing.T) {
	for _, path := range transcriptFiles(t) {
		res, err := ReplayFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Replayer.Steps {
			a, err := res.Replayer.Spec.ParseAction(s.Text)
			if err != nil || a.String() != s.Text {
				t.Errorf("%s:%d: %q parses to %q (%v)", path, s.Line, s.Text, a.String(), err)
			}
		}
	}
}

// TestConfigTextIsSelfContained: the config directive's text, applied to
// the zero configuration, gives back every scenario's configuration.
func TestConfigTextIsSelfContained(t *testing.T) {
	for _, sc := range scenario.All() {
		cfg, err := configtext.Parse(spec.Config{}, ConfigText(&sc.Config))
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		if fmt.Sprint(cfg) != fmt.Sprint(sc.Config) {
			t.Errorf("%s: round trip gives %+v, want %+v", sc.Name, cfg, sc.Config)
		}
	}
}

// TestSeedTranscriptsFitAScreen: the real-code transcript of every seed
// scenario is at most MaxLines lines with a banner of at most 17, and
// every transcript keeps to MaxLines.
func TestSeedTranscriptsFitAScreen(t *testing.T) {
	seeds := 0
	for _, path := range transcriptFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(string(data), "\n")
		tr, err := Parse(path, data)
		if err != nil {
			t.Fatal(err)
		}
		if lines > MaxLines {
			t.Errorf("%s has %d lines, more than %d", path, lines, MaxLines)
		}
		sc, err := scenario.Lookup(strings.Split(filepath.Base(path), ".")[0])
		if err != nil || !strings.HasPrefix(sc.Report, "seed ") || !strings.Contains(path, ".real-code.") {
			continue
		}
		seeds++
		if len(tr.Banner) > 17 {
			t.Errorf("%s: a banner of %d lines, more than 17", path, len(tr.Banner))
		}
	}
	var want []string
	for _, sc := range scenario.All() {
		if strings.HasPrefix(sc.Report, "seed ") {
			want = append(want, sc.Name)
		}
	}
	if seeds != len(want) {
		t.Errorf("%d real-code seed transcripts, want %d (%s)", seeds, len(want), strings.Join(want, ", "))
	}
}

// TestEveryScenarioHasAStory: each built-in scenario has its story, the
// paragraph the banner points to and the explain page shows.
func TestEveryScenarioHasAStory(t *testing.T) {
	for _, sc := range scenario.All() {
		if story := Story(sc.Name); len(strings.Fields(story)) < 40 {
			t.Errorf("%s: story %s is missing or shorter than 40 words: %q", sc.Name, StoryPath(sc.Name), story)
		}
	}
}

// TestOutputsLeaveOutWhatOthersSay: no action output repeats what the
// action lines imply (the pipeline's bookkeeping, a stage's position in
// it, the inflight flag) or a batch being cleared, nor shows
// py_ctx_pre_resize_cap; every pool's page count and every cache capacity
// and history change is there: each step's pages in use and each cache's
// capacity and history after each step appear, in order, in its
// directive's output.
func TestOutputsLeaveOutWhatOthersSay(t *testing.T) {
	for _, path := range transcriptFiles(t) {
		res, err := ReplayFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range res.Transcript.Directives {
			if d.Cmd == DirConfig || d.Cmd == DirInvariants || d.Cmd == DirState {
				continue
			}
			for _, bad := range []string{"py_ctx_pre_resize_cap", "inflight", "pipeline iteration", "handled by", "forwarded by", "] → []"} {
				if strings.Contains(res.Outputs[i], bad) {
					t.Errorf("%s:%d: output shows %q:\n%s", path, d.Line, bad, res.Outputs[i])
				}
			}
			if m := firstIncarnationText.FindString(res.Outputs[i]); m != "" {
				t.Errorf("%s:%d: output shows a first incarnation %q:\n%s", path, d.Line, m, res.Outputs[i])
			}
		}
		sp := res.Replayer.Spec
		for i, st := range res.Replayer.Steps {
			if !st.Enabled {
				continue
			}
			out := outputOfStep(res, i)
			for r := 0; r < int(sp.Config.Ranks); r++ {
				for p := spec.Target; p <= spec.Draft; p++ {
					if !sp.Config.HasPool(uint8(r), p) {
						continue
					}
					size := int(sp.Config.PoolBlocks(uint8(r), p))
					before, after := size-int(st.Before.Ranks[r].Pools[p].Free), size-int(st.After.Ranks[r].Pools[p].Free)
					if before != after && !strings.Contains(out, fmt.Sprintf("%s %d", p, before)) && !strings.Contains(out, fmt.Sprintf("→ %d", after)) {
						t.Errorf("%s: step %d (%s): rank %d %s pages in use %d → %d not in its directive's output:\n%s", path, i+1, st.Text, r, p, before, after, out)
					}
					for id, c := range st.After.Ranks[r].Pools[p].Caches {
						b := st.Before.Ranks[r].Pools[p].Caches[id]
						if c.Status == spec.Absent || b.Status == spec.Absent {
							continue
						}
						if c.Capacity != b.Capacity && !strings.Contains(out, fmt.Sprintf("capacity %d → %d", b.Capacity, c.Capacity)) && !strings.Contains(out, fmt.Sprintf("→ %d → %d", b.Capacity, c.Capacity)) && !strings.Contains(out, fmt.Sprintf(" %d → %d", b.Capacity, c.Capacity)) {
							t.Errorf("%s: step %d (%s): rank %d %s cache %d capacity %d → %d not in its directive's output:\n%s", path, i+1, st.Text, r, p, id, b.Capacity, c.Capacity, out)
						}
						if c.History != b.History && !strings.Contains(out, fmt.Sprintf(" %d → %d", b.History, c.History)) {
							t.Errorf("%s: step %d (%s): rank %d %s cache %d history %d → %d not in its directive's output:\n%s", path, i+1, st.Text, r, p, id, b.History, c.History, out)
						}
					}
				}
			}
		}
	}
}

// outputOfStep is the output of the directive that holds step i.
func outputOfStep(res *Result, i int) string {
	line := res.Replayer.Steps[i].Line
	for k, d := range res.Transcript.Directives {
		end := d.outputStart
		if d.Line <= line && line < end+1 {
			return res.Outputs[k]
		}
	}
	return ""
}

// TestGroupSteps: the levels at which Write groups a pipeline trace into
// directives: one action each, one stage iteration (up to a handle), one
// round (up to the last stage's handle), two rounds; the marked step ends
// its directive; every level keeps every action once, in order.
func TestGroupSteps(t *testing.T) {
	res, err := ReplayFile("testdata/pp-history-capacity.real-code.no-crash-on-refusal.txt")
	if err != nil {
		t.Fatal(err)
	}
	sp := res.Replayer.Spec
	var trace []spec.Action
	for _, s := range res.Replayer.Steps {
		trace = append(trace, s.Action)
	}
	for level := 0; level <= 4; level++ {
		groups := groupSteps(sp, trace, level, 20)
		next := 0
		for gi, g := range groups {
			for _, i := range g {
				if i != next {
					t.Fatalf("level %d: step %d where %d was next", level, i, next)
				}
				next++
			}
			last := trace[g[len(g)-1]]
			switch {
			case g[len(g)-1] == 20 || gi == len(groups)-1:
			case level == 0:
				if len(g) != 1 {
					t.Errorf("level 0: a directive of %d actions", len(g))
				}
			case level == 1:
				if last.Kind != spec.ActHandle {
					t.Errorf("level 1: a directive ends with %s", last)
				}
			default:
				if last.Kind != spec.ActHandle || last.Rank != 1 {
					t.Errorf("level %d: a directive ends with %s", level, last)
				}
			}
			for _, i := range g[:len(g)-1] {
				if i == 20 {
					t.Errorf("level %d: the marked step 21 does not end its directive", level)
				}
			}
		}
		if next != len(trace) {
			t.Errorf("level %d keeps %d of %d actions", level, next, len(trace))
		}
		t.Logf("level %d: %d directives", level, len(groups))
	}
	if a, b := len(groupSteps(sp, trace, 2, -1)), len(groupSteps(sp, trace, 3, -1)); b != (a+1)/2 {
		t.Errorf("level 3 has %d directives, level 2 %d: want two rounds each", b, a)
	}
}
