package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docCommand is one "$ kvcheck ..." line of a document's indented block
// and the lines shown after it.
type docCommand struct {
	args   []string
	stdout string // "> FILE": where stdout goes
	want   []string
}

// docCommands reads the "$ kvcheck ..." commands of a markdown document
// with the output lines each block shows.
func docCommands(text string) []docCommand {
	var out []docCommand
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		cmd, ok := strings.CutPrefix(lines[i], "    $ kvcheck ")
		if !ok {
			continue
		}
		c := docCommand{}
		if before, file, ok := strings.Cut(cmd, " > "); ok {
			cmd, c.stdout = before, strings.TrimSpace(file)
		}
		c.args = strings.Fields(cmd)
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    ") && !strings.HasPrefix(lines[i+1], "    $ ") {
			i++
			c.want = append(c.want, strings.TrimRight(strings.TrimPrefix(lines[i], "    "), " "))
		}
		out = append(out, c)
	}
	return out
}

// fromFile matches a code block quoted from a file: <!-- from PATH -->, then
// a fenced block.
var fromFile = regexp.MustCompile("(?s)<!-- from ([^ ]+) -->\n```[a-z]*\n(.*?)```")

// TestYourFixWalkthrough replays docs/your-fix.md: its kvcheck commands run
// in a fresh directory (a "> FILE" writes the file there) and print the
// lines the document shows; the code it quotes from the repository's files
// is in them; every file it names as touched exists; the function it finds
// by grep is where it says.
func TestYourFixWalkthrough(t *testing.T) {
	data, err := os.ReadFile("../../docs/your-fix.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	quotes := fromFile.FindAllStringSubmatch(doc, -1)
	if len(quotes) < 4 {
		t.Fatalf("%d quoted blocks, want the fix, the switch, the error text and the scenario's", len(quotes))
	}
	for _, q := range quotes {
		src, err := os.ReadFile(filepath.Join(root, q[1]))
		if err != nil {
			t.Errorf("quoted from %s: %v", q[1], err)
			continue
		}
		if !strings.Contains(string(src), q[2]) {
			t.Errorf("docs/your-fix.md quotes %s, which no longer holds:\n%s", q[1], q[2])
		}
	}
	touched := doc[strings.Index(doc, "## Every file touched"):strings.Index(doc, "## What cannot be expressed")]
	paths := regexp.MustCompile("`([a-zA-Z_./*-]+/[a-zA-Z_./*-]+)`").FindAllStringSubmatch(touched, -1)
	if len(paths) < 8 {
		t.Fatalf("%d files named as touched", len(paths))
	}
	for _, p := range paths {
		if matches, _ := filepath.Glob(filepath.Join(root, p[1])); len(matches) == 0 {
			t.Errorf("docs/your-fix.md names %s as touched; there is no such file", p[1])
		}
	}
	adp, _ := os.ReadFile(filepath.Join(root, "spec/adp.go"))
	if !strings.Contains(string(adp), "_pad_attention_dp_dummy_request") || !strings.Contains(string(adp), "func (v rankView) padAttentionDPDummyRequest()") {
		t.Errorf("spec/adp.go no longer models _pad_attention_dp_dummy_request as padAttentionDPDummyRequest")
	}

	commands := docCommands(doc)
	if len(commands) < 4 {
		t.Fatalf("%d commands in docs/your-fix.md", len(commands))
	}
	t.Chdir(t.TempDir())
	for _, c := range commands {
		code, out, errOut := runKvcheck(c.args...)
		if c.stdout != "" {
			if err := os.WriteFile(c.stdout, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if code != exitOK && code != exitViolation {
			t.Errorf("kvcheck %s: exit %d\n%s", strings.Join(c.args, " "), code, errOut)
		}
		for _, want := range c.want {
			if !strings.Contains(out+errOut, want) {
				t.Errorf("kvcheck %s: output lacks %q (docs/your-fix.md):\n%s%s", strings.Join(c.args, " "), want, out, errOut)
			}
		}
	}
}
