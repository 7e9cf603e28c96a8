package counterexamples

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// cutBefore returns the transcript data up to the blank line before the
// first line that starts with prefix after the banner.
func cutBefore(t *testing.T, data, prefix string) string {
	t.Helper()
	i := strings.Index(data, "\n"+prefix)
	if i < 0 {
		t.Fatalf("no line starts with %q", prefix)
	}
	return data[:i]
}

// TestTruncatedCrashTranscriptFailsReplay: a crash transcript cut before
// its [*] step replays without a difference in the outputs left, but no
// longer shows the crash its banner claims: replay fails.
func TestTruncatedCrashTranscriptFailsReplay(t *testing.T) {
	const file = "testdata/draft-admission.real-code.no-crash-on-refusal.txt"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Replay(file, data)
	if err != nil || !whole.Matches() {
		t.Fatalf("the whole transcript does not replay: %v %s", err, whole.Diff())
	}
	cut := cutBefore(t, string(data), "# "+Marker+" step 13\n")
	res, err := Replay(file, []byte(cut))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Expected) != string(res.Actual) {
		t.Fatalf("the cut transcript's outputs differ; the test wants only the lost verdict:\n%s", res.Diff())
	}
	if res.Matches() || !strings.Contains(res.LostVerdict, "ends after step") || !strings.Contains(res.Diff(), res.LostVerdict) {
		t.Errorf("the cut transcript replays: matches %v, lost verdict %q", res.Matches(), res.LostVerdict)
	}
}

// TestLivelockTranscriptReplaysItsCycle: the livelock transcript's cycle
// returns to its first state with no progress and nobody finishing; cut
// before the cycle, replay fails.
func TestLivelockTranscriptReplaysItsCycle(t *testing.T) {
	const file = "testdata/adp-empty-batch-veto.real-code.livelock.txt"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(file, data)
	if err != nil || !res.Matches() {
		t.Fatalf("the livelock transcript does not replay: %v %s", err, res.Diff())
	}
	last := res.Outputs[len(res.Outputs)-1]
	for _, want := range []string{"back to the state after step 34", "no step of the cycle makes progress", "no run from the state after step 34 finishes every request (livelock)"} {
		if !strings.Contains(last, want) {
			t.Errorf("the cycle's output lacks %q:\n%s", want, last)
		}
	}
	var page bytes.Buffer
	if err := Explain(&page, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"No invariant breaks, but nothing progresses", "↺ back to after step 34", `class="cycle"`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the explain page lacks %q", want)
		}
	}
	cut := cutBefore(t, string(data), "# the livelock's cycle")
	res, err = Replay(file, []byte(cut))
	if err != nil {
		t.Fatal(err)
	}
	if res.Matches() || !strings.Contains(res.LostVerdict, "no cycle directive shows one") {
		t.Errorf("without its cycle the transcript replays: lost verdict %q", res.LostVerdict)
	}
	// A cycle that no longer returns shows in its output: its first step
	// taken once more at its end leaves the state it started from.
	text := string(data)
	start := strings.LastIndex(text, "\ncycle\n")
	end := strings.Index(text[start+1:], "\n----") + start + 1
	if start < 0 || end <= start {
		t.Fatal("no cycle directive")
	}
	first := strings.SplitN(text[start+len("\ncycle\n"):], "\n", 2)[0]
	broken := text[:end] + "\n" + first + text[end:]
	res, err = Replay(file, []byte(broken))
	if err != nil {
		t.Fatal(err)
	}
	if res.Matches() || !strings.Contains(res.Outputs[len(res.Outputs)-1], "does not return") {
		t.Errorf("a cycle with one more step still returns:\n%s", res.Outputs[len(res.Outputs)-1])
	}
}
