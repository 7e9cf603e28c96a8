package triage

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/cmd/internal/sweep"
)

// root is the repository's root, from this package's directory.
const root = "../../.."

// docFiles are the Markdown files that hold triage blocks: the README and
// docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// TestTriageDocsInStep: every triage block of the README and docs/ is what
// `kvcheck triage` gives today on the transcript it names (the CLI's
// default budget, a cache of the test's own).
func TestTriageDocsInStep(t *testing.T) {
	cache, err := sweep.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	opts := Options{MaxStates: DefaultMaxStates, Cache: cache}
	stale, err := UpdateDocs(root, docFiles(t), false, func(path string) (*Report, string, error) { return FileWithHeading(path, opts) })
	if err != nil {
		t.Fatalf("%v\nreproduce: make triage-docs", err)
	}
	if len(stale) > 0 {
		t.Errorf("%d triage block(s) differ from what kvcheck triage gives on their transcripts: %s\nreproduce: make triage-docs (regenerates the transcripts, then the blocks; review the diff)",
			len(stale), strings.Join(stale, ", "))
	}
}

// TestEveryFindingIsTriaged: every transcript of a violation in
// counterexamples/testdata, counterexamples/testdata/sweep and
// counterexamples/testdata/findings (the findings the README and docs/
// describe) has a triage block there.
func TestEveryFindingIsTriaged(t *testing.T) {
	named, err := DocTranscripts(root, docFiles(t))
	if err != nil {
		t.Fatal(err)
	}
	has := map[string]bool{}
	for _, n := range named {
		has[n] = true
	}
	var missing []string
	for _, pattern := range []string{"counterexamples/testdata/*.txt", "counterexamples/testdata/sweep/*.txt"} {
		files, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(root, f)
			rel = filepath.ToSlash(rel)
			if !strings.HasSuffix(rel, ".ok.txt") && !has[rel] {
				missing = append(missing, rel)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no triage block names these findings' transcripts; add <!-- kvcheck triage FILE --> and <!-- /kvcheck triage --> where the finding is described, then run make triage-docs:\n  %s", strings.Join(missing, "\n  "))
	}
}
