package configfile

import (
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Range is one range of a file's sweep ranges (`kvcheck sweep --config
// FILE`): "KEY=VALUES" as spec.NewConfigSpace reads it, and its line.
type Range struct {
	Text string
	Line int
}

// parseSweep reads kvcheck.sweep: a mapping of range keys to values,
// `requests: 1..3`, `target_blocks: 4..8`, `version: all`. Keys and values
// are checked by spec.NewConfigSpace, which the error then names at the
// line.
func (f *reader) parseSweep(fl field) ([]Range, error) {
	if fl.node.Kind != yaml.MappingNode {
		return nil, f.errAt(fl.line, "sweep: expected a mapping of range keys to values (requests: 1..3, target_blocks: 4..8, version: all), got %s", kindName(fl.node))
	}
	fields, err := f.mappingFields(fl.node, "sweep")
	if err != nil {
		return nil, err
	}
	var out []Range
	for _, v := range fields {
		if v.node.Kind != yaml.ScalarNode {
			return nil, f.errAt(v.line, "sweep: %s: expected values such as 1..3, 4,6,8 or all, got %s", v.key, kindName(v.node))
		}
		out = append(out, Range{Text: v.key + "=" + v.node.Value, Line: v.line})
	}
	return out, nil
}

// splitSweepLines takes the `sweep KEY=VALUES ...` lines out of
// configuration text, leaving blank lines so the others keep their line
// numbers.
func splitSweepLines(data []byte) ([]byte, []Range) {
	lines := strings.Split(string(data), "\n")
	var ranges []Range
	for i, line := range lines {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "sweep ")
		if !ok {
			continue
		}
		for _, r := range strings.Fields(spacedEquals.ReplaceAllString(rest, "=")) {
			ranges = append(ranges, Range{Text: r, Line: i + 1})
		}
		lines[i] = ""
	}
	return []byte(strings.Join(lines, "\n")), ranges
}

// spacedEquals is an "=" with blanks around it ("requests = 1..3").
var spacedEquals = regexp.MustCompile(`[ \t]*=[ \t]*`)
