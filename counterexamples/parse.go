package counterexamples

import (
	"fmt"
	"strings"

	"github.com/cockroachdb/datadriven"
)

// InputError is a malformed transcript: the file, the 1-based line and what
// was expected there.
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Directive is one command of a transcript in cockroachdb/datadriven's
// layout: the directive line, optional input lines, then `----` and the
// expected output.
type Directive struct {
	// Line is the 1-based line of the directive.
	Line int
	// Text is the directive line as written, trimmed (continuation lines
	// joined).
	Text string
	// Cmd and Args are the directive parsed by datadriven.ParseLine.
	Cmd  string
	Args []datadriven.CmdArg
	// Input is the text between the directive line and `----`, trimmed, and
	// InputLine the line its first line is on (0 without input).
	Input     string
	InputLine int
	// Expected is the expected output, each line ending in a newline; it is
	// "" when the directive has no `----` (rewriting adds it).
	Expected     string
	HasSeparator bool
	// Comments are the `#` lines right above the directive, without the
	// `#` and one following space.
	Comments []string
	// Marked says one of the comments starts with Marker: the directive
	// holds the step the banner's `[*]` line is about.
	Marked bool

	// outputStart and outputEnd delimit, as 0-based line indices, the lines
	// that hold the separator and expected output (end exclusive), so a
	// rewrite replaces exactly them.
	outputStart, outputEnd int
}

// Marker starts the comment above the directive that holds the step a
// transcript is about (`# [*] step 17`), which the banner's `[*]` line
// describes and the explain page highlights.
const Marker = "[*]"

// Transcript is a parsed transcript file.
type Transcript struct {
	File       string
	Directives []Directive
	// Banner is the comment block at the top of the file, before the first
	// directive, without the `#` prefixes.
	Banner []string
	lines  []string
}

// Parse reads a transcript with the grammar of cockroachdb/datadriven:
// `#` comment lines, a directive line (datadriven.ParseLine syntax, `\`
// continues it), input lines up to `----`, then the expected output up to a
// blank line (or, after a doubled `----`, up to a doubled `----`). It
// reports the first malformed line as an *InputError.
func Parse(file string, data []byte) (*Transcript, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	t := &Transcript{File: file, lines: lines}
	var comments []string
	marked, seenDirective := false, false
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if strings.HasPrefix(trimmed, "#") {
			c := strings.TrimPrefix(strings.TrimPrefix(trimmed, "#"), " ")
			comments = append(comments, c)
			marked = marked || strings.HasPrefix(c, Marker)
			if !seenDirective {
				t.Banner = append(t.Banner, c)
			}
			continue
		}
		if trimmed == "" {
			if seenDirective {
				comments, marked = nil, false
			} else if len(t.Banner) > 0 {
				t.Banner = append(t.Banner, "")
			}
			continue
		}
		if trimmed == "----" {
			return nil, &InputError{file, i + 1, "---- without a directive above it; expected a directive line (e.g. a config directive or an action)"}
		}
		d := Directive{Line: i + 1, Comments: comments, Marked: marked && seenDirective}
		comments, marked = nil, false
		seenDirective = true
		for strings.HasSuffix(trimmed, `\`) && i+1 < len(lines) {
			i++
			trimmed = strings.TrimSuffix(trimmed, `\`) + " " + strings.TrimSpace(lines[i])
		}
		d.Text = trimmed
		cmd, args, err := datadriven.ParseLine(trimmed)
		if err != nil {
			return nil, &InputError{file, d.Line, fmt.Sprintf("%v; expected a directive: a command followed by key=value arguments", err)}
		}
		d.Cmd, d.Args = cmd, args
		var input []string
		for i+1 < len(lines) && lines[i+1] != "----" {
			i++
			if d.InputLine == 0 && strings.TrimSpace(lines[i]) != "" {
				d.InputLine = i + 1
			}
			input = append(input, lines[i])
		}
		d.Input = strings.TrimSpace(strings.Join(input, "\n"))
		if i+1 < len(lines) {
			i++ // the ----
			d.HasSeparator = true
			d.outputStart = i
			end, expected, err := readExpected(file, lines, i+1)
			if err != nil {
				return nil, err
			}
			d.Expected = expected
			d.outputEnd = end
			i = end - 1
		} else {
			d.outputStart, d.outputEnd = i+1, i+1
		}
		t.Directives = append(t.Directives, d)
	}
	for len(t.Banner) > 0 && t.Banner[len(t.Banner)-1] == "" {
		t.Banner = t.Banner[:len(t.Banner)-1]
	}
	return t, nil
}

// readExpected reads the expected output starting at line index start and
// returns the index just past it and the text, the way datadriven does.
func readExpected(file string, lines []string, start int) (int, string, error) {
	var b strings.Builder
	if start < len(lines) && lines[start] == "----" {
		for i := start + 1; i < len(lines); i++ {
			if lines[i] == "----" && i+1 < len(lines) && lines[i+1] == "----" {
				end := i + 2
				if end < len(lines) && strings.TrimSpace(lines[end]) != "" {
					return 0, "", &InputError{file, end + 1, "expected a blank line after the closing ---- ---- of an output with blank lines"}
				}
				return end, b.String(), nil
			}
			b.WriteString(lines[i])
			b.WriteString("\n")
		}
		return 0, "", &InputError{file, start + 1, "output opened with ---- ---- is never closed; expected a ---- ---- line pair after it"}
	}
	i := start
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		b.WriteString(lines[i])
		b.WriteString("\n")
	}
	return i, b.String(), nil
}

// Rewrite returns the file with the expected output of directive i replaced
// by outputs[i] (every other byte kept), in the layout datadriven's
// -rewrite writes: `----`, the output, and a doubled `----` around an
// output that has blank lines; like it, it drops one trailing blank line.
func (t *Transcript) Rewrite(outputs []string) []byte {
	var b strings.Builder
	next := 0
	for i, d := range t.Directives {
		for ; next < d.outputStart; next++ {
			b.WriteString(t.lines[next])
			b.WriteString("\n")
		}
		out := outputs[i]
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if hasBlankLine(out) {
			b.WriteString("----\n----\n")
			b.WriteString(out)
			b.WriteString("----\n----\n")
		} else {
			b.WriteString("----\n")
			b.WriteString(out)
			if out == "" {
				b.WriteString("\n")
			}
		}
		next = d.outputEnd
		if !d.HasSeparator && i+1 < len(t.Directives) {
			b.WriteString("\n")
		}
	}
	for ; next < len(t.lines); next++ {
		b.WriteString(t.lines[next])
		b.WriteString("\n")
	}
	out := b.String()
	// Like datadriven's -rewrite, drop one trailing blank line.
	if n := len(out); n > 2 && out[n-1] == '\n' && out[n-2] == '\n' {
		out = out[:n-1]
	}
	return []byte(out)
}

// hasBlankLine reports whether the output has an empty or all-blank line.
func hasBlankLine(s string) bool {
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if strings.TrimSpace(line) == "" && s != "" {
			return true
		}
	}
	return false
}

// normalizeOutput is the actual output as datadriven compares it: a
// non-empty output ends in a newline.
func normalizeOutput(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
