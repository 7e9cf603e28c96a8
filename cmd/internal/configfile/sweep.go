package configfile

import (
	"regexp"
	"strings"

	"github.com/kvcheck/kvcheck/spec/yamlconf"
	"gopkg.in/yaml.v3"
)

// Range is one range of a file's sweep ranges (`kvcheck sweep --config
// FILE`): "KEY=VALUES" as space.NewConfigSpace reads it, and its line.
type Range struct {
	Text string
	Line int
}

// parseSweep reads kvcheck.sweep: a mapping of range keys to values,
// `requests: 1..3`, `target_blocks: 4..8`, `version: all`. Keys and values
// are checked by space.NewConfigSpace, which the error then names at the
// line.
func parseSweep(r *yamlconf.Reader, fl yamlconf.Field) ([]Range, error) {
	if fl.Node.Kind != yaml.MappingNode {
		return nil, r.Errorf(fl.Line, "sweep: expected a mapping of range keys to values (requests: 1..3, target_blocks: 4..8, version: all), got %s", yamlconf.KindName(fl.Node))
	}
	fields, err := r.Fields(fl.Node, "sweep")
	if err != nil {
		return nil, err
	}
	var out []Range
	for _, v := range fields {
		if v.Node.Kind != yaml.ScalarNode {
			return nil, r.Errorf(v.Line, "sweep: %s: expected values such as 1..3, 4,6,8 or all, got %s", v.Key, yamlconf.KindName(v.Node))
		}
		out = append(out, Range{Text: v.Key + "=" + v.Node.Value, Line: v.Line})
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
