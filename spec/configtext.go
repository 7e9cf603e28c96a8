package spec

import (
	"encoding"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// ConfigField is one key of the configuration's text form, named after the
// TensorRT-LLM option it stands for. Every field of Config with a `kv` tag
// is one: the tag is its key and the `doc` tag its description, so a new
// setting is one tagged field and nothing else. Key is the tag, Doc the
// description and Index the field's index in Config (reflect's), for the
// configuration spaces (spec/space) that range over the keys.
type ConfigField struct {
	Key   string
	Doc   string
	Index []int
}

// ConfigFields lists every scalar key of the text form in the order of
// Config's fields. Nothing may change it: it is the text form.
var ConfigFields = func() []ConfigField {
	var out []ConfigField
	t := reflect.TypeOf(Config{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, ok := f.Tag.Lookup("kv")
		if !ok {
			continue
		}
		out = append(out, ConfigField{Key: key, Doc: f.Tag.Get("doc"), Index: f.Index})
		if _, err := formatValue(reflect.New(f.Type).Elem()); err != nil {
			panic(fmt.Sprintf("spec: configuration field %s: %v", f.Name, err))
		}
	}
	return out
}()

// ConfigKey is one setting of the text form: its key and description.
type ConfigKey struct{ Key, Doc string }

// ConfigKeys lists every setting of the text form, in order.
func ConfigKeys() []ConfigKey {
	out := make([]ConfigKey, len(ConfigFields))
	for i, f := range ConfigFields {
		out[i] = ConfigKey{f.Key, f.Doc}
	}
	return out
}

// EnumNamer is an enumeration of the configuration: Names are its value
// names, by value, as the text form writes them.
type EnumNamer interface{ Names() []string }

func (DraftPoolMode) Names() []string { return []string{"none", "unpaired", "paired"} }
func (DraftViewMode) Names() []string { return []string{"same-as-target", "lag-by-reuse"} }
func (CodeVersion) Names() []string {
	out := make([]string, numVersions)
	for v := range versionRegistry {
		out[v] = versionRegistry[v].name
	}
	return out
}
func (LoopKind) Names() []string { return []string{"non-overlap", "overlap", "pipeline"} }
func (Switch) Names() []string   { return []string{"true", "false"} }
func (BlockReusePolicy) Names() []string {
	return []string{"all_reusable", "per_request"}
}

// Value is the field's value in c as the text form writes it.
func (f *ConfigField) Value(c *Config) string {
	text, _ := formatValue(reflect.ValueOf(c).Elem().FieldByIndex(f.Index))
	return text
}

// Set parses text into the field of c; the error says what was expected.
func (f *ConfigField) Set(c *Config, text string) error {
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
		limit := min(uint64(1)<<(8*v.Type().Size())-1, MaxRealTokens)
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
		limit := min(uint64(1)<<(8*v.Type().Elem().Size())-1, MaxRealPages)
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

// FormatConfig renders cfg as text that ParseConfig reads back: one
// "key=value" line per setting, then one "request ..." line per request.
func FormatConfig(cfg *Config) string {
	var b strings.Builder
	for _, f := range ConfigFields {
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
func FormatRequest(r RequestTemplate) string {
	line := fmt.Sprintf("request prompt=%d new=%d", r.PromptLen, r.MaxNewTokens)
	if r.Family != NoFamily {
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

// ConfigError is a configuration text error at a line (1-based, relative to
// the text given to ParseConfig).
type ConfigError struct {
	Line int
	Msg  string
}

func (e *ConfigError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ParseConfig applies the settings in text to a copy of base and returns
// it, validated. A line holds one or more "key=value" settings separated by
// spaces, or one "request ..." line; keys not given keep base's values, and
// "request" lines, if any, replace base's requests. Blank lines and lines
// starting with '#' are ignored. Errors name the line and what was
// expected. The result fits the explored state (Config.Validate).
func ParseConfig(base Config, text string) (Config, error) {
	return parseConfig(base, text, (*Config).Validate)
}

// ParseRealConfig is ParseConfig for a configuration at its real sizes
// (Config.ValidateReal), as `kvcheck lin` checks histories against.
func ParseRealConfig(base Config, text string) (Config, error) {
	return parseConfig(base, text, (*Config).ValidateReal)
}

func parseConfig(base Config, text string, validate func(*Config) error) (Config, error) {
	cfg := base
	cfg.Requests = append([]RequestTemplate(nil), base.Requests...)
	var requests []RequestTemplate
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
				return Config{}, &ConfigError{lineNo, err.Error()}
			}
			requests = append(requests, r)
			continue
		}
		for _, pair := range strings.Fields(spacedEquals.ReplaceAllString(line, "=")) {
			if pair == "request" {
				return Config{}, &ConfigError{lineNo, "a request must be on a line of its own, starting with \"request\""}
			}
			key, value, ok := strings.Cut(pair, "=")
			if !ok {
				return Config{}, &ConfigError{lineNo, fmt.Sprintf("expected key=value settings separated by spaces, or a request line, got %q", pair)}
			}
			f := LookupConfigField(key)
			if f == nil {
				return Config{}, &ConfigError{lineNo, fmt.Sprintf("unknown setting %q; expected one of: %s", key, configKeys())}
			}
			if prev, dup := seen[key]; dup {
				return Config{}, &ConfigError{lineNo, fmt.Sprintf("%s already set on line %d", key, prev)}
			}
			seen[key] = lineNo
			if err := f.Set(&cfg, value); err != nil {
				return Config{}, &ConfigError{lineNo, fmt.Sprintf("%s: %v", key, err)}
			}
		}
	}
	if requests != nil {
		cfg.Requests = requests
	}
	if err := validate(&cfg); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// spacedEquals is an "=" with blanks around it ("ranks = 2"), which a
// setting may have.
var spacedEquals = regexp.MustCompile(`[ \t]*=[ \t]*`)

// LookupConfigField is the field of the text form's key, nil if none.
func LookupConfigField(key string) *ConfigField {
	for i := range ConfigFields {
		if ConfigFields[i].Key == key {
			return &ConfigFields[i]
		}
	}
	return nil
}

func configKeys() string {
	keys := make([]string, len(ConfigFields))
	for i, f := range ConfigFields {
		keys[i] = f.Key
	}
	return strings.Join(keys, ", ")
}

// parseRequest parses "request prompt=12 new=4 family=0 shared=8 rank=0
// receiving_kv=false sending_kv=false"; family, shared, rank, receiving_kv
// and sending_kv are optional
// (none, 0, 0, false).
func parseRequest(line string) (RequestTemplate, error) {
	r := RequestTemplate{Family: NoFamily}
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
			limit = MaxRealTokens
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
