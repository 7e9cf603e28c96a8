package configfile

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kvcheck/kvcheck/spec/yamlconf"
	"gopkg.in/yaml.v3"
)

// collect flattens the file's options into dotted names and holds each to
// the catalogue (options.go): an option kvcheck does not know is an error
// with the nearest known names; one known not to matter is listed as
// ignored with its reason; one that matters but is not modelled is an
// error unless the file gives its TensorRT-LLM default or
// kvcheck.ignore_options names it.
func (d *deriver) collect(options []yamlconf.Field) error {
	d.options = map[string]yamlconf.Field{}
	accepted, err := d.ignoreOptions()
	if err != nil {
		return err
	}
	var visit func(prefix string, fields []yamlconf.Field) error
	visit = func(prefix string, fields []yamlconf.Field) error {
		for _, fl := range fields {
			name := prefix + fl.Key
			info, ok := lookupOption(name)
			if !ok {
				return d.unknownOption(name, fl)
			}
			fl.Key = name
			switch info.kind {
			case optSection:
				if fl.Node.Kind == yaml.ScalarNode && fl.Node.Tag == "!!null" {
					continue
				}
				d.options[name] = fl
				inner, err := d.r.Fields(fl.Node, name)
				if err != nil {
					return err
				}
				if err := visit(name+".", inner); err != nil {
					return err
				}
			case optRead:
				d.options[name] = fl
			case optIgnored:
				d.ignored = append(d.ignored, fmt.Sprintf("%s (line %d): %s", name, fl.Line, info.why))
			case optUnmodelled:
				if info.def != "" && fl.Node.Kind == yaml.ScalarNode && sameScalar(fl.Node.Value, info.def) {
					d.ignored = append(d.ignored, fmt.Sprintf("%s (line %d): set to TensorRT-LLM's default, %s, which is what kvcheck models", name, fl.Line, info.def))
					continue
				}
				if line, ok := accepted[name]; ok {
					d.warnings = append(d.warnings, fmt.Sprintf("%s (line %d) is not modelled (%s); kvcheck.ignore_options (line %d) accepts that, so the check does not cover what it changes", name, fl.Line, info.why, line))
					delete(accepted, name)
					continue
				}
				def := ""
				if info.def != "" {
					def = fmt.Sprintf(" (TensorRT-LLM's default, %s, is what kvcheck models)", info.def)
				}
				return d.r.Errorf(fl.Line, "%s: %s is not modelled: %s%s. kvcheck refuses to check a deployment it would misread; remove the option from a copy of the file, or name it in kvcheck.ignore_options to check without it", name, yamlconf.KindName(fl.Node), info.why, def)
			}
		}
		return nil
	}
	if err := visit("", options); err != nil {
		return err
	}
	var unused []string
	for name, line := range accepted {
		unused = append(unused, fmt.Sprintf("%s (line %d)", name, line))
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return d.r.Errorf(d.ks.has["ignore_options"].Line, "kvcheck.ignore_options: %s not set in the file (or set to its default); expected only options the file sets that kvcheck does not model", strings.Join(unused, ", "))
	}
	return nil
}

// ignoreOptions reads kvcheck.ignore_options: the unmodelled options the
// user accepts the check does not cover, by name, with the line.
func (d *deriver) ignoreOptions() (map[string]int, error) {
	out := map[string]int{}
	fl, ok := d.ks.has["ignore_options"]
	if !ok {
		return out, nil
	}
	names, err := d.r.StringList(fl)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		info, ok := lookupOption(n)
		switch {
		case !ok:
			return nil, d.unknownOption(n, yamlconf.Field{Key: n, Line: fl.Line, Node: fl.Node})
		case info.kind != optUnmodelled:
			return nil, d.r.Errorf(fl.Line, "kvcheck.ignore_options: %s is not an option kvcheck refuses (it is read or ignored already); expected only unmodelled options", n)
		}
		out[n] = fl.Line
	}
	return out, nil
}

// unknownOption is the error for an option kvcheck does not know.
func (d *deriver) unknownOption(name string, fl yamlconf.Field) error {
	msg := fmt.Sprintf("%s: not a TensorRT-LLM option kvcheck knows", name)
	if near := suggestOptions(name); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	} else {
		msg += " (docs/configuration.md lists the options read and those ignored)"
	}
	return d.r.Errorf(fl.Line, "%s", msg)
}

// sameScalar reports whether a YAML scalar states the default def, as
// PyYAML would read both (booleans in their YAML 1.1 forms, enum names in
// any case).
func sameScalar(value, def string) bool {
	if a, ok := yaml11Bools[value]; ok {
		b, ok := yaml11Bools[def]
		return ok && a == b
	}
	return strings.EqualFold(value, def)
}
