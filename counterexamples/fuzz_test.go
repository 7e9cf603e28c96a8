package counterexamples

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReplay: any input either replays or is an *InputError pointing at a
// line of it, never a panic; and what a replay would rewrite the file to
// replays as written (rewriting is a fixed point).
func FuzzReplay(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, path := range files {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("config fixes=none\ntokens_per_block=4\n----\n"))
	f.Add([]byte("# banner\n\n----\n----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Replay("fuzz.txt", data)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is a %T, want *InputError", err, err)
			}
			if lines := strings.Count(string(data), "\n") + 1; ie.Line < 1 || ie.Line > lines+1 || ie.Msg == "" {
				t.Fatalf("error at line %d of a %d-line input: %v", ie.Line, lines, err)
			}
			return
		}
		again, err := Replay("fuzz.txt", res.Actual)
		if err != nil {
			t.Fatalf("the rewritten input does not replay: %v\n%s", err, res.Actual)
		}
		if !again.Matches() {
			t.Fatalf("the rewritten input does not replay as written:\n%s", again.Diff())
		}
	})
}
