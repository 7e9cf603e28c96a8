// Package yamlconf reads kvcheck's YAML files (scenario files and the
// configuration files of `kvcheck --config`) with gopkg.in/yaml.v3 so that
// every error names the file, the line and the expected form.
package yamlconf

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is an error at a line of a file (1-based; 0 when it concerns the
// whole file).
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// MaxQuoted bounds how much of a value a message quotes.
const MaxQuoted = 60

// Quote is %q of s, cut to MaxQuoted bytes with "..." when longer.
func Quote(s string) string {
	if len(s) > MaxQuoted {
		return fmt.Sprintf("%q...", s[:MaxQuoted])
	}
	return fmt.Sprintf("%q", s)
}

// Field is one key of a YAML mapping with its value node.
type Field struct {
	Key  string
	Line int
	Node *yaml.Node
}

// Reader reads the nodes of one file; File names it in errors.
type Reader struct {
	File string
	// Expected says what the file should be, for syntax errors.
	Expected string
}

// Errorf is an *Error at line.
func (r *Reader) Errorf(line int, format string, args ...any) error {
	return &Error{File: r.File, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Decode parses data into its document node's content, nil for an empty
// file.
func (r *Reader) Decode(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if err.Error() == "EOF" {
			return nil, nil
		}
		// yaml.v3 says "yaml: line N: ...".
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		var line int
		if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
			msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
		}
		return nil, r.Errorf(line, "not valid YAML (%s); expected %s", msg, r.Expected)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// Fields returns the keys of a mapping node in file order, or an error
// when the node is not a mapping or a key repeats; what names the mapping.
func (r *Reader) Fields(n *yaml.Node, what string) ([]Field, error) {
	if n.Kind != yaml.MappingNode {
		return nil, r.Errorf(n.Line, "%s: expected a mapping of key: value lines, got %s", what, KindName(n))
	}
	var out []Field
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if prev, ok := seen[k.Value]; ok {
			return nil, r.Errorf(k.Line, "%s: key %s given twice (first on line %d)", what, Quote(k.Value), prev)
		}
		seen[k.Value] = k.Line
		out = append(out, Field{Key: k.Value, Line: k.Line, Node: v})
	}
	return out, nil
}

// KindName says what a node is, for messages.
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "the value " + Quote(n.Value)
	}
	return "something else"
}

// Int reads an integer in lo..hi.
func (r *Reader) Int(fl Field, lo, hi int64) (int64, error) {
	if fl.Node.Kind == yaml.ScalarNode {
		if n, err := strconv.ParseInt(fl.Node.Value, 0, 64); err == nil && n >= lo && n <= hi {
			return n, nil
		}
	}
	bound := fmt.Sprintf("%d..%d", lo, hi)
	if hi == math.MaxInt64 {
		bound = fmt.Sprintf("at least %d", lo)
	}
	return 0, r.Errorf(fl.Line, "%s: expected an integer %s, got %s", fl.Key, bound, KindName(fl.Node))
}

// Float reads a number in lo..hi.
func (r *Reader) Float(fl Field, lo, hi float64) (float64, error) {
	if fl.Node.Kind == yaml.ScalarNode {
		if x, err := strconv.ParseFloat(fl.Node.Value, 64); err == nil && x >= lo && x <= hi {
			return x, nil
		}
	}
	return 0, r.Errorf(fl.Line, "%s: expected a number %g..%g, got %s", fl.Key, lo, hi, KindName(fl.Node))
}

// Bool reads true or false.
func (r *Reader) Bool(fl Field) (bool, error) {
	if fl.Node.Kind == yaml.ScalarNode {
		switch fl.Node.Value {
		case "true", "True", "TRUE":
			return true, nil
		case "false", "False", "FALSE":
			return false, nil
		}
	}
	return false, r.Errorf(fl.Line, "%s: expected true or false, got %s", fl.Key, KindName(fl.Node))
}

// String reads a scalar.
func (r *Reader) String(fl Field) (string, error) {
	if fl.Node.Kind != yaml.ScalarNode {
		return "", r.Errorf(fl.Line, "%s: expected a text value, got %s", fl.Key, KindName(fl.Node))
	}
	return fl.Node.Value, nil
}

// StringList reads a list of scalars.
func (r *Reader) StringList(fl Field) ([]string, error) {
	if fl.Node.Kind != yaml.SequenceNode {
		return nil, r.Errorf(fl.Line, "%s: expected a list like [a, b], got %s", fl.Key, KindName(fl.Node))
	}
	var out []string
	for _, item := range fl.Node.Content {
		if item.Kind != yaml.ScalarNode {
			return nil, r.Errorf(item.Line, "%s: expected a text item, got %s", fl.Key, KindName(item))
		}
		out = append(out, item.Value)
	}
	return out, nil
}

// IntList reads a list of at most maxLen integers in lo..hi.
func (r *Reader) IntList(fl Field, lo, hi int64, maxLen int) ([]int64, error) {
	if fl.Node.Kind != yaml.SequenceNode || len(fl.Node.Content) == 0 || len(fl.Node.Content) > maxLen {
		return nil, r.Errorf(fl.Line, "%s: expected a list of 1..%d integers like [10, 9], got %s", fl.Key, maxLen, KindName(fl.Node))
	}
	var out []int64
	for _, item := range fl.Node.Content {
		n, err := r.Int(Field{Key: fl.Key, Line: item.Line, Node: item}, lo, hi)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// TextLine is one line of a block of text and the file line it is on.
type TextLine struct {
	Text string
	Line int
}

// TextLines splits a block of text (config: |) into lines with the file
// line each is on.
func TextLines(fl Field) []TextLine {
	first := fl.Node.Line
	if fl.Node.Style == yaml.LiteralStyle || fl.Node.Style == yaml.FoldedStyle {
		first++ // a block scalar starts on the next line
	}
	var out []TextLine
	for i, line := range strings.Split(strings.TrimRight(fl.Node.Value, "\n"), "\n") {
		out = append(out, TextLine{Text: line, Line: first + i})
	}
	return out
}
