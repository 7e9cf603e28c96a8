package space

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
)

// ValueClass is one class of values of a configuration setting that a
// sweep should reach: on or off for a switch, each value of an
// enumeration, bounded or not for a size whose 0 means "no bound" (or "the
// default"), a whole number of pages or not for a token count where the
// page boundary matters, the minimum or another value for a plain size.
// When, if set ("enable_block_reuse=true"), is the setting the class is
// judged under: enable_partial_reuse=off means something only with block
// reuse on. `kvcheck sweep --cover` says which classes the checked
// configurations reached; every setting declares its classes in the
// `class` tag of its Config field (spec/config.go), next to its key.
type ValueClass struct {
	Key, Class, When string
}

// String is "key=class", with " (with WHEN)" when conditional.
func (c ValueClass) String() string {
	s := c.Key + "=" + c.Class
	if c.When != "" {
		s += " (with " + c.When + ")"
	}
	return s
}

// classSpec is a parsed `class` tag: KIND [OPTION=VALUE]... [if KEY=VALUE].
//
//	bool               on, off
//	enum               each value name
//	cap zero=NAME      NAME (the value 0: no bound, or the default), bounded
//	page [zero=NAME]   multiple-of-page, non-multiple-of-page (of tokens_per_block) [, NAME for 0]
//	size at=N          N (the minimum, or the value that matters), other
//	set zero=NAME      NAME (unset: all zero), set
type classSpec struct {
	field   *configtext.Field
	kind    string
	zero    string
	at      uint64
	classes []string
	// whenField, whenValue: the condition (nil: none).
	whenField *configtext.Field
	whenValue string
}

// valueClassSpecs are the settings' parsed class tags, in configtext.Fields'
// order; a setting without a tag has none (TestEverySettingHasValueClasses
// names it), and a malformed tag panics at start-up.
var valueClassSpecs = func() []classSpec {
	var out []classSpec
	t := reflect.TypeOf(spec.Config{})
	for i := range configtext.Fields {
		f := &configtext.Fields[i]
		tag, ok := t.FieldByIndex(f.Index).Tag.Lookup("class")
		if !ok {
			continue
		}
		cs, err := parseClassTag(f, tag)
		if err != nil {
			panic(fmt.Sprintf("spec/space: configuration field %s: class tag %q: %v", f.Key, tag, err))
		}
		out = append(out, cs)
	}
	return out
}()

func parseClassTag(f *configtext.Field, tag string) (classSpec, error) {
	cs := classSpec{field: f}
	main, cond, hasCond := strings.Cut(tag, " if ")
	if hasCond {
		k, v, ok := strings.Cut(strings.TrimSpace(cond), "=")
		cs.whenField = configtext.Lookup(k)
		if !ok || cs.whenField == nil {
			return cs, fmt.Errorf("condition %q: expected KEY=VALUE of a setting", cond)
		}
		cs.whenValue = v
	}
	words := strings.Fields(main)
	if len(words) == 0 {
		return cs, fmt.Errorf("no kind")
	}
	cs.kind = words[0]
	for _, w := range words[1:] {
		k, v, ok := strings.Cut(w, "=")
		switch {
		case ok && k == "zero":
			cs.zero = v
		case ok && k == "at":
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return cs, fmt.Errorf("at: expected an integer, got %q", v)
			}
			cs.at = n
		default:
			return cs, fmt.Errorf("unknown option %q", w)
		}
	}
	ft := reflect.TypeOf(spec.Config{}).FieldByIndex(f.Index).Type
	switch cs.kind {
	case "bool":
		cs.classes = []string{"on", "off"}
	case "enum":
		e, ok := reflect.Zero(ft).Interface().(configtext.EnumNamer)
		if !ok {
			return cs, fmt.Errorf("enum on a setting that is not an enumeration")
		}
		cs.classes = e.Names()
	case "cap", "set":
		if cs.zero == "" {
			return cs, fmt.Errorf("%s needs zero=NAME", cs.kind)
		}
		other := "bounded"
		if cs.kind == "set" {
			other = "set"
		}
		cs.classes = []string{cs.zero, other}
	case "page":
		cs.classes = []string{"multiple-of-page", "non-multiple-of-page"}
		if cs.zero != "" {
			cs.classes = append([]string{cs.zero}, cs.classes...)
		}
	case "size":
		cs.classes = []string{strconv.FormatUint(cs.at, 10), "other"}
	default:
		return cs, fmt.Errorf("unknown kind %q; expected bool, enum, cap, page, size or set", cs.kind)
	}
	return cs, nil
}

// ValueClasses lists every setting's value classes, in the text form's
// order.
func ValueClasses() []ValueClass {
	var out []ValueClass
	for i := range valueClassSpecs {
		cs := &valueClassSpecs[i]
		for _, c := range cs.classes {
			out = append(out, ValueClass{cs.field.Key, c, cs.when()})
		}
	}
	return out
}

func (cs *classSpec) when() string {
	if cs.whenField == nil {
		return ""
	}
	return cs.whenField.Key + "=" + cs.whenValue
}

// SettingsWithoutValueClasses lists the settings whose Config field has
// no class tag.
func SettingsWithoutValueClasses() []string {
	has := map[string]bool{}
	for _, cs := range valueClassSpecs {
		has[cs.field.Key] = true
	}
	var out []string
	for _, f := range configtext.Fields {
		if !has[f.Key] {
			out = append(out, f.Key)
		}
	}
	return out
}

// ConfigValueClasses appends to dst the index (in ValueClasses' list) of
// each class cfg's settings fall in: one per setting whose condition
// holds.
func ConfigValueClasses(cfg *spec.Config, dst []int) []int {
	v := reflect.ValueOf(cfg).Elem()
	base := 0
	for i := range valueClassSpecs {
		cs := &valueClassSpecs[i]
		if c := cs.classOf(cfg, v); c >= 0 {
			dst = append(dst, base+c)
		}
		base += len(cs.classes)
	}
	return dst
}

// classOf is the index of cfg's class among cs.classes, -1 when the
// condition does not hold.
func (cs *classSpec) classOf(cfg *spec.Config, v reflect.Value) int {
	if cs.whenField != nil && cs.whenField.Value(cfg) != cs.whenValue {
		return -1
	}
	fv := v.FieldByIndex(cs.field.Index)
	switch cs.kind {
	case "bool":
		if cs.field.Value(cfg) == "true" {
			return 0
		}
		return 1
	case "enum":
		return int(fv.Uint())
	case "cap", "set":
		if fv.IsZero() {
			return 0
		}
		return 1
	case "page":
		n, off := fv.Uint(), 0
		if cs.zero != "" {
			if n == 0 {
				return 0
			}
			off = 1
		}
		if tpb := uint64(cfg.TokensPerBlock); tpb != 0 && n%tpb == 0 {
			return off
		}
		return off + 1
	case "size":
		if fv.Uint() == cs.at {
			return 0
		}
		return 1
	}
	return -1
}

// MarkValueClasses sets reached[i] for each class (index in ValueClasses)
// cfg falls in; reached has len(ValueClasses()) entries.
func MarkValueClasses(cfg *spec.Config, reached []bool) {
	var buf [64]int
	for _, i := range ConfigValueClasses(cfg, buf[:0]) {
		reached[i] = true
	}
}
