// Command historybug adds a synthetic historical TensorRT-LLM bug to a
// copy of the repository, from the template docs/history-bugs.md walks
// through, so `make history-bug-template` can show that adding one touches
// at most maxFiles files and that the bug gives its counterexample. It
// never runs on the repository itself: -apply refuses a directory that is
// not a scratch copy (one holding the file scratchMarker).
//
//	historybug -apply DIR   write the bug's declarations, hook, scenario, story and doc entries
//	historybug -row DIR     paste the scenario's row of `DIR/kvcheck list --markdown` into docs/history-bugs.md
//	historybug -count DIR   list the files git status shows touched in DIR; exit 1 above maxFiles
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// maxFiles is issue 23's bound on the files one historical bug touches:
// the mechanism's file, its scenario, its two transcripts, its story, the
// history-bugs and reading notes, and the pins.
const maxFiles = 8

// scratchMarker marks a scratch copy -apply may edit.
const scratchMarker = ".historybug-scratch"

// Name is the synthetic bug's scenario and pre-fix switch.
const Name = "synthetic-send-raise"

// edit is one change of an existing file: Anchor must occur exactly once,
// and Insert goes before it ("" Anchor: Insert is appended).
type edit struct{ File, Anchor, Insert string }

// edits are the template's changes to existing files. The mechanism is
// the send completion of a context-only request (receiveKV in
// spec/executor.go): with the switch on, it raises instead of freeing
// the request's caches. Everything the bug declares (the switch and its
// fix, the function, the raise) is declared in that file. (An invariant,
// declared there too with defineInvariant, would also rewrite the list of
// invariants docs/bad-input.md shows: KVCHECK_REWRITE=1 go test
// ./cmd/kvcheck -run TestBadInputTable.)
var edits = []edit{
	{File: "spec/executor.go", Anchor: "\t\tsp.view(s, a.Rank).freeResources(a.ID)\n\t\tr.State = Finished\n",
		Insert: "\t\tif sp.Config.PreFixes.Has(PreFixSyntheticSendRaise) {\n" +
			"\t\t\ts.crash(a.Rank, Target, a.ID, FnSyntheticSendPoll, ErrSyntheticSend, 0)\n" +
			"\t\t\treturn\n\t\t}\n"},
	{File: "spec/executor.go", Insert: `
// PreFixSyntheticSendRaise is the synthetic historical bug of
// docs/history-bugs.md's template (cmd/historybug): a completed context KV
// send raises where the real code frees the request's caches.
// FixSyntheticSendFix is its made-up PR, which frees them.
var PreFixSyntheticSendRaise, FixSyntheticSendFix = defineHistoricalBug(PreFixInfo{
	Name:   "synthetic-send-raise",
	PR:     "PR #0 (synthetic)",
	Before: "a completed context KV send raises instead of freeing the request's caches",
	Fix:    "synthetic-send-fix",
	After:  "a completed context KV send frees the request's caches",
})

// FnSyntheticSendPoll is the function the synthetic raise comes out of.
var FnSyntheticSendPoll = defineFunction("_check_disagg_ctx_cache_transfer_status")

// ErrSyntheticSend is the synthetic bug's raise.
var ErrSyntheticSend = defineRaise(RaiseInfo{Name: "synthetic-send-failed",
	Template: "RuntimeError: synthetic: context KV send of request {id} failed"})

`},
	{File: "docs/history-bugs.md", Anchor: "\nPR #17379 (pad an empty attention-DP batch",
		Insert: "| `" + Name + "` | #0 (synthetic) | `synthetic-send-raise` | a completed context KV send raises: `no-crash-on-refusal` after 19 steps | `synthetic-send-fix`: ok, complete |\n"},
	{File: "docs/history-bugs.md", Anchor: "\nThe three share one shape",
		Insert: "\n<!-- kvcheck triage counterexamples/testdata/" + Name + ".real-code.no-crash-on-refusal.txt short -->\n<!-- /kvcheck triage -->\n"},
	{File: "spec/reading-notes.md", Insert: "- **A synthetic send failure** [the template of docs/history-bugs.md, no real code]: a completed\n" +
		"  context KV send raises. → pre-fix switch `synthetic-send-raise`, scenario `" + Name + "`.\n"},
}

// newFiles are the files the template creates.
var newFiles = map[string]string{
	"spec/scenario/scenarios/" + Name + ".yaml": `# synthetic-send-raise is the synthetic historical bug of docs/history-bugs.md's
# template (cmd/historybug): rank 0's context-only request prefills, and
# when its KV send completes the send raises.
kvcheck:
  name: synthetic-send-raise
  doc: 'a synthetic bug: a completed context KV send raises instead of freeing its caches'
  report: 'synthetic PR #0 (the template of docs/history-bugs.md)'
  depth: 200
  goals: [all-requests-finished]
  default_sweep: ["target_blocks=6..8", "max_batch_size=1..2"]
  variants:
    - {fixes: real-code, expect: no-crash-on-refusal}
    - {fixes: synthetic-send-fix, expect: ok}
  config: |
    tokens_per_block=4 max_draft_len=1 kv_reserve_draft_tokens=1 max_batch_size=2 max_num_tokens=8 enable_chunked_prefill=true
    chunk_unit_size=4 target_blocks=8 target_index_slots=2 max_util_for_resume=100 version=00746ef
    ranks=2 loop=overlap enable_attention_dp=true max_num_active_requests=2 kv_cache_transceiver=true enable_adp_dummy_fixes=true
    pre_fix=synthetic-send-raise
    request prompt=4 new=1 sending_kv=true
    request prompt=4 new=4 rank=1
`,
	"counterexamples/stories/" + Name + ".txt": `The synthetic historical bug of the template in docs/history-bugs.md. Two attention-DP ranks of a
disaggregated context worker: rank 0 prefills a context-only request, which leaves active_requests
and holds its caches until its KV send completes, while rank 1 generates its own request. When the
send completes, the synthetic pre-fix switch raises where the real code frees the request's caches,
and every rank stops; its made-up fix frees them, and both requests finish.
`,
}

func main() {
	apply := flag.String("apply", "", "scratch copy to add the synthetic bug to")
	row := flag.String("row", "", "scratch copy whose docs/history-bugs.md gets the scenario's table row")
	count := flag.String("count", "", "scratch copy whose touched files to count")
	flag.Parse()
	var err error
	switch {
	case *apply != "":
		err = Apply(*apply)
	case *row != "":
		err = pasteRow(*row)
	case *count != "":
		err = countFiles(*count)
	default:
		err = fmt.Errorf("one of -apply, -row, -count is needed")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "historybug: %v\nreproduce: make history-bug-template\n", err)
		os.Exit(1)
	}
}

// Apply adds the synthetic bug to the scratch copy dir.
func Apply(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, scratchMarker)); err != nil {
		return fmt.Errorf("%s is not a scratch copy (no %s): historybug edits only copies", dir, scratchMarker)
	}
	for _, e := range edits {
		path := filepath.Join(dir, e.File)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(data)
		if e.Anchor == "" {
			text += e.Insert
		} else if n := strings.Count(text, e.Anchor); n != 1 {
			return fmt.Errorf("%s: the template's anchor %q occurs %d times, want once: update cmd/historybug's edits to the file", e.File, e.Anchor, n)
		} else {
			text = strings.Replace(text, e.Anchor, e.Insert+e.Anchor, 1)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	for file, text := range newFiles {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// pasteRow puts the scenario's row of `kvcheck list --markdown` after the
// last row of docs/history-bugs.md's scenario table.
func pasteRow(dir string) error {
	bin, err := filepath.Abs(filepath.Join(dir, "kvcheck"))
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "list", "--markdown")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("kvcheck list --markdown: %v", err)
	}
	var row string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "| `"+Name+"` |") {
			row = l
		}
	}
	if row == "" {
		return fmt.Errorf("kvcheck list --markdown prints no row for %s", Name)
	}
	path := filepath.Join(dir, "docs/history-bugs.md")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	section, last := false, -1
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "## "):
			section = l == "## The scenarios"
		case section && strings.HasPrefix(l, "| `"):
			last = i
		}
	}
	if last < 0 {
		return fmt.Errorf("docs/history-bugs.md: no table under \"## The scenarios\"")
	}
	lines = append(lines[:last+1], append([]string{row}, lines[last+1:]...)...)
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// countFiles lists the files git status shows changed or new in dir and
// fails above maxFiles.
func countFiles(dir string) error {
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=all")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git status in %s: %v", dir, err)
	}
	var files []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if f := strings.TrimSpace(l[min(3, len(l)):]); f != "" && f != scratchMarker && f != "kvcheck" {
			files = append(files, f)
		}
	}
	fmt.Printf("a historical bug touched %d files (at most %d):\n", len(files), maxFiles)
	for _, f := range files {
		fmt.Println("  " + f)
	}
	if len(files) > maxFiles {
		return fmt.Errorf("%d files touched, more than %d", len(files), maxFiles)
	}
	return nil
}
