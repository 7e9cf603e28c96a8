package configtext

import (
	"encoding"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// Field is one key of the configuration's text form, named after the
// TensorRT-LLM option it stands for. Every field of spec.Config with a
// `kv` tag is one: the tag is its key and the `doc` tag its description,
// so a new setting is one tagged field and nothing else. Key is the tag,
// Doc the description and Index the field's index in spec.Config
// (reflect's), for the configuration spaces (spec/space) that range over
// the keys.
type Field struct {
	Key   string
	Doc   string
	Index []int
}

// Fields lists every scalar key of the text form in the order of
// spec.Config's fields. Nothing may change it: it is the text form.
var Fields = func() []Field {
	var out []Field
	t := reflect.TypeOf(spec.Config{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, ok := f.Tag.Lookup("kv")
		if !ok {
			continue
		}
		out = append(out, Field{Key: key, Doc: f.Tag.Get("doc"), Index: f.Index})
		if _, err := formatValue(reflect.New(f.Type).Elem()); err != nil {
			panic(fmt.Sprintf("configtext: configuration field %s: %v", f.Name, err))
		}
	}
	return out
}()

// Key is one setting of the text form: its key and description.
type Key struct{ Key, Doc string }

// Keys lists every setting of the text form, in order.
func Keys() []Key {
	out := make([]Key, len(Fields))
	for i, f := range Fields {
		out[i] = Key{f.Key, f.Doc}
	}
	return out
}

// EnumNamer is an enumeration of the configuration: Names are its value
// names, by value, as the text form writes them. spec's enumerations
// (DraftPoolMode, LoopKind, CodeVersion, ...) declare Names beside their
// String, which reads it.
type EnumNamer interface{ Names() []string }

// Value is the field's value in c as the text form writes it.
func (f *Field) Value(c *spec.Config) string {
	text, _ := formatValue(reflect.ValueOf(c).Elem().FieldByIndex(f.Index))
	return text
}

// Set parses text into the field of c; the error says what was expected.
func (f *Field) Set(c *spec.Config, text string) error {
	return ParseValue(reflect.ValueOf(c).Elem().FieldByIndex(f.Index), text)
}

// formatValue renders a field value: an integer, true/false, an enum's
// name, a per-stage list "10,9" (up to its last non-zero entry), or a
// TextMarshaler's text.
func formatValue(v reflect.Value) (string, error) {
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		b, err := m.MarshalText()
		return string(b), err
	}
	if e, ok := v.Interface().(EnumNamer); ok {
		return e.Names()[v.Uint()], nil
	}
	switch v.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Array:
		if k := v.Type().Elem().Kind(); k != reflect.Uint8 && k != reflect.Uint32 {
			break
		}
		n := 1
		for i := 0; i < v.Len(); i++ {
			if v.Index(i).Uint() != 0 {
				n = i + 1
			}
		}
		parts := make([]string, n)
		for i := range parts {
			parts[i] = strconv.FormatUint(v.Index(i).Uint(), 10)
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("type %s has no text form", v.Type())
}

// ParseValue parses text into a field value; the error says what was
// expected.
func ParseValue(v reflect.Value, text string) error {
	if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return u.UnmarshalText([]byte(text))
	}
	if e, ok := v.Interface().(EnumNamer); ok {
		for i, n := range e.Names() {
			if n == text {
				v.SetUint(uint64(i))
				return nil
			}
		}
		return fmt.Errorf("expected one of %s, got %q", strings.Join(e.Names(), ", "), text)
	}
	switch v.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		limit := min(uint64(1)<<(8*v.Type().Size())-1, spec.MaxRealTokens)
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil || n > limit {
			return fmt.Errorf("expected an integer 0..%d, got %q", limit, text)
		}
		v.SetUint(n)
		return nil
	case reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("expected true or false, got %q", text)
		}
		v.SetBool(b)
		return nil
	case reflect.Array:
		parts := strings.Split(text, ",")
		if len(parts) > v.Len() {
			return fmt.Errorf("expected at most %d comma-separated integers (one per stage), got %q", v.Len(), text)
		}
		v.SetZero()
		limit := min(uint64(1)<<(8*v.Type().Elem().Size())-1, spec.MaxRealPages)
		for i, part := range parts {
			n, err := strconv.ParseUint(part, 10, 64)
			if err != nil || n > limit {
				return fmt.Errorf("expected comma-separated integers 0..%d (one per stage), got %q", limit, text)
			}
			v.Index(i).SetUint(n)
		}
		return nil
	}
	return fmt.Errorf("type %s has no text form", v.Type())
}

// Format renders cfg as text that Parse reads back: one
// "key=value" line per setting, then one "request ..." line per request.
func Format(cfg *spec.Config) string {
	var b strings.Builder
	for _, f := range Fields {
		fmt.Fprintf(&b, "%s=%s\n", f.Key, f.Value(cfg))
	}
	for _, r := range cfg.Requests {
		b.WriteString(FormatRequest(r))
		b.WriteString("\n")
	}
	return b.String()
}

// FormatRequest writes a request line with prompt and new, and family,
// shared, rank and receiving_kv only where they differ from parseRequest's
// defaults (none, 0, 0, false).
func FormatRequest(r spec.RequestTemplate) string {
	line := fmt.Sprintf("request prompt=%d new=%d", r.PromptLen, r.MaxNewTokens)
	if r.Family != spec.NoFamily {
		line += fmt.Sprintf(" family=%d", r.Family)
	}
	if r.SharedPrefix != 0 {
		line += fmt.Sprintf(" shared=%d", r.SharedPrefix)
	}
	if r.Rank != 0 {
		line += fmt.Sprintf(" rank=%d", r.Rank)
	}
	if r.ReceivingKV {
		line += " receiving_kv=true"
	}
	if r.SendingKV {
		line += " sending_kv=true"
	}
	return line
}

// Error is a configuration text error at a line (1-based, relative to
// the text given to Parse).
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Parse applies the settings in text to a copy of base and returns it,
// validated. A line holds one or more "key=value" settings separated by
// spaces, or one "request ..." line; keys not given keep base's values, and
// "request" lines, if any, replace base's requests. Blank lines and lines
// starting with '#' are ignored. Errors name the line and what was
// expected. The result fits the explored state (spec.Config.Validate).
func Parse(base spec.Config, text string) (spec.Config, error) {
	return parse(base, text, (*spec.Config).Validate)
}

// ParseReal is Parse for a configuration at its real sizes
// (spec.Config.ValidateReal), as `kvcheck lin` checks histories against.
func ParseReal(base spec.Config, text string) (spec.Config, error) {
	return parse(base, text, (*spec.Config).ValidateReal)
}

// parse is Parse and ParseReal, with validate the check of the result.
func parse(base spec.Config, text string, validate func(*spec.Config) error) (spec.Config, error) {
	cfg := base
	cfg.Requests = append([]spec.RequestTemplate(nil), base.Requests...)
	var requests []spec.RequestTemplate
	seen := map[string]int{}
	for i, line := range strings.Split(text, "\n") {
		lineNo := i + 1
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "request ") || line == "request" {
			r, err := parseRequest(line)
			if err != nil {
				return spec.Config{}, &Error{lineNo, err.Error()}
			}
			requests = append(requests, r)
			continue
		}
		for _, pair := range strings.Fields(spacedEquals.ReplaceAllString(line, "=")) {
			if pair == "request" {
				return spec.Config{}, &Error{lineNo, "a request must be on a line of its own, starting with \"request\""}
			}
			key, value, ok := strings.Cut(pair, "=")
			if !ok {
				return spec.Config{}, &Error{lineNo, fmt.Sprintf("expected key=value settings separated by spaces, or a request line, got %q", pair)}
			}
			f := Lookup(key)
			if f == nil {
				return spec.Config{}, &Error{lineNo, fmt.Sprintf("unknown setting %q; expected one of: %s", key, keyList())}
			}
			if prev, dup := seen[key]; dup {
				return spec.Config{}, &Error{lineNo, fmt.Sprintf("%s already set on line %d", key, prev)}
			}
			seen[key] = lineNo
			if err := f.Set(&cfg, value); err != nil {
				return spec.Config{}, &Error{lineNo, fmt.Sprintf("%s: %v", key, err)}
			}
		}
	}
	if requests != nil {
		cfg.Requests = requests
	}
	if err := validate(&cfg); err != nil {
		return spec.Config{}, err
	}
	return cfg, nil
}

// spacedEquals is an "=" with blanks around it ("ranks = 2"), which a
// setting may have.
var spacedEquals = regexp.MustCompile(`[ \t]*=[ \t]*`)

// Lookup is the field of the text form's key, nil if none.
func Lookup(key string) *Field {
	for i := range Fields {
		if Fields[i].Key == key {
			return &Fields[i]
		}
	}
	return nil
}

// keyList is every key, comma-separated, for the error of an unknown one.
func keyList() string {
	keys := make([]string, len(Fields))
	for i, f := range Fields {
		keys[i] = f.Key
	}
	return strings.Join(keys, ", ")
}

// parseRequest parses "request prompt=12 new=4 family=0 shared=8 rank=0
// receiving_kv=false sending_kv=false"; family, shared, rank, receiving_kv
// and sending_kv are optional
// (none, 0, 0, false).
func parseRequest(line string) (spec.RequestTemplate, error) {
	r := spec.RequestTemplate{Family: spec.NoFamily}
	fields := strings.Fields(line)[1:]
	got := map[string]bool{}
	for _, f := range fields {
		key, value, ok := strings.Cut(f, "=")
		if !ok {
			return r, fmt.Errorf("request: argument %q is not key=value", f)
		}
		if got[key] {
			return r, fmt.Errorf("request: %s given twice", key)
		}
		got[key] = true
		if key == "family" && value == "none" {
			continue
		}
		if key == "receiving_kv" || key == "sending_kv" {
			b, err := strconv.ParseBool(value)
			if err != nil {
				return r, fmt.Errorf("request: %s: expected true or false, got %q", key, value)
			}
			if key == "receiving_kv" {
				r.ReceivingKV = b
			} else {
				r.SendingKV = b
			}
			continue
		}
		limit := 255
		if key == "prompt" || key == "new" || key == "shared" {
			limit = spec.MaxRealTokens
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 || n > limit {
			return r, fmt.Errorf("request: %s: expected an integer 0..%d, got %q", key, limit, value)
		}
		switch key {
		case "prompt":
			r.PromptLen = uint32(n)
		case "new":
			r.MaxNewTokens = uint32(n)
		case "family":
			r.Family = uint8(n)
		case "shared":
			r.SharedPrefix = uint32(n)
		case "rank":
			r.Rank = uint8(n)
		default:
			return r, fmt.Errorf("request: unknown argument %q; expected prompt, new, family, shared, rank, receiving_kv, sending_kv", key)
		}
	}
	if !got["prompt"] || !got["new"] {
		return r, fmt.Errorf("request: prompt=N and new=N are required")
	}
	return r, nil
}
