package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Mutant is one plausible bug planted in the spec: in File, the snippet
// Old (which must occur exactly once) becomes New. Mechanism says in one
// line what it breaks; Equivalent, when set, says why no observable answer
// of the checker can change (the mutant then does not count).
type Mutant struct {
	ID, File, Old, New, Mechanism, Equivalent string
	// Source and Line are where the entry starts in the mutant file.
	Source string
	Line   int
}

// EntryError is a bad entry of a mutant file: the file, the 1-based line
// and what was expected there.
type EntryError struct {
	File string
	Line int
	Msg  string
}

func (e *EntryError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// ParseMutants reads a mutant file: entries that each start with a line
// "== ID", then "file: spec/FILE.go", "mechanism: ONE LINE", "old:" and
// "new:" (the rest of the line, verbatim after one space, and any
// following lines that start with "> ", joined with newlines; "old: |"
// starts with the next such line), and
// optionally "equivalent: REASON". Lines starting with '#' and blank lines
// between fields are skipped.
func ParseMutants(file string, r io.Reader) ([]Mutant, error) {
	var out []Mutant
	seen := map[string]int{}
	var cur *Mutant
	sc := bufio.NewScanner(r)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, &EntryError{file, len(lines) + 1, fmt.Sprintf("cannot read: %v", err)}
	}
	finish := func() error {
		if cur == nil {
			return nil
		}
		for _, f := range []struct{ name, v string }{{"file", cur.File}, {"mechanism", cur.Mechanism}, {"old", cur.Old}} {
			if f.v == "" {
				return &EntryError{file, cur.Line, fmt.Sprintf("mutant %s has no %s:; expected file:, mechanism:, old: and new: (equivalent: optional)", cur.ID, f.name)}
			}
		}
		if cur.Old == cur.New {
			return &EntryError{file, cur.Line, fmt.Sprintf("mutant %s: old and new are the same; expected a change", cur.ID)}
		}
		out = append(out, *cur)
		cur = nil
		return nil
	}
	haveNew := false
	for i := 0; i < len(lines); i++ {
		line, n := lines[i], i+1
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if id, ok := strings.CutPrefix(line, "== "); ok {
			if cur != nil && !haveNew {
				return nil, &EntryError{file, cur.Line, fmt.Sprintf("mutant %s has no new:; expected file:, mechanism:, old: and new:", cur.ID)}
			}
			if err := finish(); err != nil {
				return nil, err
			}
			id = strings.TrimSpace(id)
			if !idPattern.MatchString(id) {
				return nil, &EntryError{file, n, fmt.Sprintf("mutant id %q; expected lower-case letters, digits and dashes", id)}
			}
			if first, dup := seen[id]; dup {
				return nil, &EntryError{file, n, fmt.Sprintf("mutant %s already declared at line %d", id, first)}
			}
			seen[id] = n
			cur, haveNew = &Mutant{ID: id, Source: file, Line: n}, false
			continue
		}
		if cur == nil {
			return nil, &EntryError{file, n, fmt.Sprintf("%q before any entry; expected a line \"== ID\" to start one", trimmed)}
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, &EntryError{file, n, fmt.Sprintf("%q; expected KEY: VALUE with KEY one of file, mechanism, old, new, equivalent", trimmed)}
		}
		value = strings.TrimPrefix(value, " ")
		if key == "old" || key == "new" {
			var block []string
			if value != "|" {
				block = append(block, value)
			}
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], ">") {
				i++
				block = append(block, strings.TrimPrefix(strings.TrimPrefix(lines[i], ">"), " "))
			}
			if len(block) == 0 {
				return nil, &EntryError{file, n, fmt.Sprintf("mutant %s: %s: | with no lines; expected lines starting with \"> \"", cur.ID, key)}
			}
			value = strings.Join(block, "\n")
		}
		switch key {
		case "file":
			cur.File = value
		case "mechanism":
			cur.Mechanism = value
		case "old":
			cur.Old = value
		case "new":
			cur.New, haveNew = value, true
		case "equivalent":
			cur.Equivalent = value
		default:
			return nil, &EntryError{file, n, fmt.Sprintf("unknown key %q; expected file, mechanism, old, new or equivalent", key)}
		}
	}
	if cur != nil && !haveNew {
		return nil, &EntryError{file, cur.Line, fmt.Sprintf("mutant %s has no new:; expected file:, mechanism:, old: and new:", cur.ID)}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// Apply plants m in the repository copy at root: it refuses a stale entry
// (Old not found, or found more than once) with the entry's file and line.
func (m *Mutant) Apply(root string) error {
	path := filepath.Join(root, m.File)
	data, err := os.ReadFile(path)
	if err != nil {
		return &EntryError{m.Source, m.Line, fmt.Sprintf("mutant %s: %v", m.ID, err)}
	}
	text := string(data)
	switch n := strings.Count(text, m.Old); n {
	case 1:
	case 0:
		return &EntryError{m.Source, m.Line, fmt.Sprintf("mutant %s is stale: its old snippet %q does not occur in %s; expected it exactly once (update the entry)", m.ID, m.Old, m.File)}
	default:
		return &EntryError{m.Source, m.Line, fmt.Sprintf("mutant %s: its old snippet %q occurs %d times in %s; expected it exactly once (widen the snippet)", m.ID, m.Old, n, m.File)}
	}
	return os.WriteFile(path, []byte(strings.Replace(text, m.Old, m.New, 1)), 0o644)
}
