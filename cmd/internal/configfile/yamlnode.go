package configfile

import (
	"fmt"
	"math"
	"strconv"

	"gopkg.in/yaml.v3"
)

// field is one key of a YAML mapping with its value node.
type field struct {
	key  string
	line int
	node *yaml.Node
}

// mappingFields returns the keys of a mapping node in file order, or an
// error when the node is not a mapping or a key repeats.
func (f *reader) mappingFields(n *yaml.Node, what string) ([]field, error) {
	if n.Kind != yaml.MappingNode {
		return nil, f.errAt(n.Line, "%s: expected a mapping of key: value lines, got %s", what, kindName(n))
	}
	var out []field
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if prev, ok := seen[k.Value]; ok {
			return nil, f.errAt(k.Line, "%s: key %s given twice (first on line %d)", what, quote(k.Value), prev)
		}
		seen[k.Value] = k.Line
		out = append(out, field{key: k.Value, line: k.Line, node: v})
	}
	return out, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "the value " + quote(n.Value)
	}
	return "something else"
}

// intValue reads an integer in lo..hi.
func (f *reader) intValue(fl field, lo, hi int64) (int64, error) {
	if fl.node.Kind == yaml.ScalarNode {
		if n, err := strconv.ParseInt(fl.node.Value, 0, 64); err == nil && n >= lo && n <= hi {
			return n, nil
		}
	}
	bound := fmt.Sprintf("%d..%d", lo, hi)
	if hi == math.MaxInt64 {
		bound = fmt.Sprintf("at least %d", lo)
	}
	return 0, f.errAt(fl.line, "%s: expected an integer %s, got %s", fl.key, bound, kindName(fl.node))
}

// floatValue reads a number in lo..hi.
func (f *reader) floatValue(fl field, lo, hi float64) (float64, error) {
	if fl.node.Kind == yaml.ScalarNode {
		if x, err := strconv.ParseFloat(fl.node.Value, 64); err == nil && x >= lo && x <= hi {
			return x, nil
		}
	}
	return 0, f.errAt(fl.line, "%s: expected a number %g..%g, got %s", fl.key, lo, hi, kindName(fl.node))
}

// boolValue reads true or false.
func (f *reader) boolValue(fl field) (bool, error) {
	if fl.node.Kind == yaml.ScalarNode {
		switch fl.node.Value {
		case "true", "True", "TRUE":
			return true, nil
		case "false", "False", "FALSE":
			return false, nil
		}
	}
	return false, f.errAt(fl.line, "%s: expected true or false, got %s", fl.key, kindName(fl.node))
}

// stringValue reads a scalar.
func (f *reader) stringValue(fl field) (string, error) {
	if fl.node.Kind != yaml.ScalarNode {
		return "", f.errAt(fl.line, "%s: expected a text value, got %s", fl.key, kindName(fl.node))
	}
	return fl.node.Value, nil
}

// stringList reads a list of scalars.
func (f *reader) stringList(fl field) ([]string, error) {
	if fl.node.Kind != yaml.SequenceNode {
		return nil, f.errAt(fl.line, "%s: expected a list like [a, b], got %s", fl.key, kindName(fl.node))
	}
	var out []string
	for _, item := range fl.node.Content {
		if item.Kind != yaml.ScalarNode {
			return nil, f.errAt(item.Line, "%s: expected a text item, got %s", fl.key, kindName(item))
		}
		out = append(out, item.Value)
	}
	return out, nil
}

// intList reads a list of at most maxLen integers in lo..hi.
func (f *reader) intList(fl field, lo, hi int64, maxLen int) ([]int64, error) {
	if fl.node.Kind != yaml.SequenceNode || len(fl.node.Content) == 0 || len(fl.node.Content) > maxLen {
		return nil, f.errAt(fl.line, "%s: expected a list of 1..%d integers like [10, 9], got %s", fl.key, maxLen, kindName(fl.node))
	}
	var out []int64
	for _, item := range fl.node.Content {
		n, err := f.intValue(field{key: fl.key, line: item.Line, node: item}, lo, hi)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}
