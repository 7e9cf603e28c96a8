package counterexamples

import (
	"embed"
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// stories holds one hand-written paragraph per built-in scenario
// (stories/NAME.txt): what happens in the engine, in TensorRT-LLM's words.
// The banner of the scenario's real-code transcript points to it.
//
//go:embed stories
var stories embed.FS

// Story returns the story of the scenario, "" if it has none.
func Story(scenario string) string {
	data, err := stories.ReadFile("stories/" + scenario + ".txt")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// StoryPath is where the story of a scenario lives in the repository.
func StoryPath(scenario string) string { return "counterexamples/stories/" + scenario + ".txt" }

// bannerWidth is where banner text wraps.
const bannerWidth = 130

// banner composes the comment block at the top of a transcript, each fact
// once: the title; the report it reproduces and where its story is; how it
// was found (or, for a fix transcript, what it replays under which fix);
// the `[*]` step; the fixes checked against it; the actions a fix
// transcript had to adapt. The config directive below is the setup, and
// the directives are the test.
func banner(ce Counterexample, steps []Step, marked int) []string {
	sp := ce.Spec
	var out []string
	add := func(text string) { out = append(out, wrap(text, "  ")...) }
	docs := fixDocs{}                   // each fix's doc once
	out = append(out, title(ce, steps)) // one line: the explain page's title
	if sc := sp.Scenario; sc != nil {
		text := "Reproduces: " + sc.Report + ": " + sc.Doc + "."
		if Story(sc.Name) != "" && ce.ReplayOf == "" && sp.Fixes == 0 {
			text += " What happens: " + StoryPath(sc.Name) + "."
		}
		add(text)
	}
	switch {
	case ce.ReplayOf != "":
		var fixes []string
		for _, f := range sp.Fixes.List() {
			fixes = append(fixes, f.String()+", "+f.Doc())
		}
		add(fmt.Sprintf("Replays: the actions of %s under %s.", ce.ReplayOf, strings.Join(fixes, "; ")))
		add(checkedBy + ce.FoundBy + " (" + ce.Search + ").")
	case ce.FoundBy != "":
		add(foundBy + ce.FoundBy + " (" + ce.Search + ").")
	}
	if marked >= 0 {
		s := steps[marked]
		add(fmt.Sprintf("[*] step %d %s: %s.", marked+1, s.Text, stepOutcome(ce, s)))
	}
	for _, n := range ce.FixedBy {
		add(fixVerdict(n, docs))
	}
	for _, a := range ce.Adapted {
		add(a.String())
	}
	if ce.Triage != "" {
		add(ce.Triage)
	}
	return out
}

// TriagePrefix starts the banner's triage paragraph.
const TriagePrefix = "Triage (kvcheck triage"

// BannerTriage is the triage paragraph of a transcript's banner, its
// wrapped lines joined, or "" when it has none.
func BannerTriage(banner []string) string {
	var words []string
	for i, line := range banner {
		if !strings.HasPrefix(line, TriagePrefix) {
			continue
		}
		words = append(words, line)
		for _, more := range banner[i+1:] {
			if !strings.HasPrefix(more, "  ") {
				break
			}
			words = append(words, strings.TrimSpace(more))
		}
		break
	}
	return strings.Join(words, " ")
}

// title is the banner's first line.
func title(ce Counterexample, steps []Step) string {
	name := scenarioName(ce.Spec) + " (" + fixesWords(ce.Spec.Fixes, "real code") + ")"
	for _, s := range steps {
		if c := s.After.Crash; c.Happened {
			return fmt.Sprintf("%s: %s raises %q", name, c.Function, c.String())
		}
	}
	switch {
	case ce.Invariant != "":
		return fmt.Sprintf("%s: %s: %s", name, ce.Invariant, ce.Message)
	case ce.ReplayOf != "":
		return name + ": the same actions, and no invariant breaks"
	}
	return name + ": no invariant breaks"
}

// fixDocs are the fixes a banner has described.
type fixDocs map[spec.Fix]bool

// words names each fix of a set, with its doc the first time the banner
// names it ("joint-admission, PR #19006: admit ...,"), joined by sep.
func (d fixDocs) words(fixes spec.Fixes, sep string) string {
	var words []string
	for _, f := range fixes.List() {
		word := f.String()
		if !d[f] {
			word += ", " + f.Doc() + ","
			d[f] = true
		}
		words = append(words, word)
	}
	return strings.Join(words, sep)
}

// fixVerdict says what one checked fix set does to the violation, with
// its transcript: "Fix joint-admission, PR #19006: ..., close it (671 states,
// all reachable): draft-admission.joint-admission.ok.txt".
func fixVerdict(n FixNote, docs fixDocs) string {
	var text string
	verbs := [3]string{"closes", "does not close", "shows"}
	if len(n.Fixes.List()) == 1 {
		text = "Fix " + docs.words(n.Fixes, "")
	} else {
		text, verbs = "Fixes "+docs.words(n.Fixes, " and ")+" together", [3]string{"close", "do not close", "show"}
	}
	switch {
	case n.Invariant != "":
		text += fmt.Sprintf(" %s it (%s after %d steps)", verbs[1], n.Invariant, n.Steps)
	case !n.Complete:
		// A search cut by its bounds proves nothing: no "closes", no file,
		// and a goal it missed may lie past the cut.
		return text + fmt.Sprintf(" %s no violation in %d states, but its search stopped before every reachable state: nothing is proved.", verbs[2], n.States)
	case len(n.MissedGoals) > 0:
		return text + " " + verbs[2] + " no violation, but the goal " + strings.Join(n.MissedGoals, ", ") + " is never reached."
	default:
		text += fmt.Sprintf(" %s it (%d states, all reachable)", verbs[0], n.States)
	}
	return text + ": " + n.File + "."
}

// wrap breaks text into banner lines of at most bannerWidth, continuation
// lines indented.
func wrap(text, indent string) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > bannerWidth {
			lines = append(lines, line)
			line = indent + w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// The banner lines that name the command behind a transcript: every
// transcript Write renders from a search has one of them.
const (
	foundBy   = "Found by: "
	checkedBy = "Checked by: "
)

// Written reports whether head, the start of a file, is a transcript
// kvcheck wrote: its first line is a banner comment and its banner names
// the command that found or checked it. A hand-written file with a
// transcript's name is not, so --out --rewrite leaves it alone.
func Written(head []byte) bool {
	text := string(head)
	if !strings.HasPrefix(text, "# ") {
		return false
	}
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "#") {
			return false // past the banner
		}
		if strings.HasPrefix(line, "# "+foundBy) || strings.HasPrefix(line, "# "+checkedBy) {
			return true
		}
	}
	return false
}
