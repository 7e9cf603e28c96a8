package space

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
)

// ConfigSpace is a bounded set of configurations, the input of `kvcheck
// sweep`: a base configuration (a scenario's), ranges over settings of the
// configuration's text form (the keys of configtext.Format), and ranges over the
// request mix. Settings without a range keep the base's value; without a
// request-mix range the base's requests are kept.
type ConfigSpace struct {
	Base spec.Config
	// Settings are the ranged settings, in the registry's order.
	Settings []SettingRange
	// Mix ranges over the requests; nil keeps Base.Requests.
	Mix *RequestMix
}

// SettingRange is the values one setting of the text form takes, as text
// configtext.Parse reads ("4", "true", "00746ef", "10,9"). Key may name one
// stage of a per-stage setting: "stage_target_blocks.1".
type SettingRange struct {
	Key    string
	Values []string
}

// setter returns the function that sets the range's key from text, or an
// error naming what keys are expected.
func (s SettingRange) setter() (func(c *spec.Config, text string) error, error) {
	name, stage, indexed := strings.Cut(s.Key, ".")
	f := configtext.Lookup(name)
	if f == nil {
		return nil, fmt.Errorf("unknown range key %q; expected one of: %s", s.Key, strings.Join(RangeKeys(), ", "))
	}
	if !indexed {
		return f.Set, nil
	}
	n, err := strconv.Atoi(stage)
	field := reflect.TypeOf(spec.Config{}).FieldByIndex(f.Index)
	if err != nil || field.Type.Kind() != reflect.Array || n < 0 || n >= field.Type.Len() {
		return nil, fmt.Errorf("range key %q: only a per-stage setting takes a stage, and the stage must be 0..%d", s.Key, spec.MaxRanks-1)
	}
	return func(c *spec.Config, text string) error {
		return configtext.ParseValue(reflect.ValueOf(c).Elem().FieldByIndex(f.Index).Index(n), text)
	}, nil
}

// listValued reports whether a key's values are themselves lists (a
// per-stage setting, the pre-fix set): its range separates values by ";".
func listValued(key string) bool {
	if strings.Contains(key, ".") {
		return false
	}
	f := configtext.Lookup(key)
	if f == nil {
		return false
	}
	t := reflect.TypeOf(spec.Config{}).FieldByIndex(f.Index).Type
	return t.Kind() == reflect.Array || reflect.PointerTo(t).Implements(reflect.TypeOf((*interface{ UnmarshalText([]byte) error })(nil)).Elem())
}

// RequestMix ranges over the requests a configuration sends, in arrival
// order. Lengths are in pages of the configuration's tokens_per_block, so a
// range stays meaningful when tokens_per_block ranges too.
type RequestMix struct {
	// Count is the number of requests.
	Count []int
	// PromptPages is each request's prompt length in pages.
	PromptPages []int
	// NewTokens is each request's max_tokens (generation length), in
	// tokens: generations of a few tokens are what reach the crashes.
	NewTokens []int
	// SharedPages is each request's prefix shared with the other requests
	// that share one (one prompt family), in pages; 0 shares none.
	SharedPages []int
	// ReceivingKV says whether a request may be a disaggregated-generation
	// request that receives its KV; SendingKV whether it may be a
	// context-only request whose KV is sent after its prefill.
	ReceivingKV, SendingKV []bool
	// Spread routes the requests over the ranks in every way (up to
	// renaming ranks); otherwise every request enters at rank 0.
	Spread bool
}

// mixKeys are the range keys of the request mix, with what they take.
var mixKeys = []struct{ key, doc string }{
	{"requests", "number of requests (integers)"},
	{"prompt_pages", "each request's prompt length in pages (integers)"},
	{"new_tokens", "each request's max_tokens (integers)"},
	{"shared_pages", "each request's shared prefix in pages, 0 for none (integers)"},
	{"receiving_kv", "whether a request may receive its KV (true, false)"},
	{"sending_kv", "whether a request may be context-only, its KV sent after the prefill (true, false)"},
	{"spread", "route the requests over the ranks in every way (true or false)"},
}

// RangeKeys lists every key a range may name: the settings of the text form
// (a per-stage one also as KEY.STAGE), then the request mix's.
func RangeKeys() []string {
	var keys []string
	for _, f := range configtext.Fields {
		keys = append(keys, f.Key)
		if reflect.TypeOf(spec.Config{}).FieldByIndex(f.Index).Type.Kind() == reflect.Array {
			keys = append(keys, f.Key+".STAGE")
		}
	}
	for _, m := range mixKeys {
		keys = append(keys, m.key)
	}
	return keys
}

// RangeError is a range that does not parse, at a line of its source (0
// when it came from a flag).
type RangeError struct {
	Line int
	Msg  string
}

func (e *RangeError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// NewConfigSpace returns the space of base under ranges, each "key=values"
// where values is a comma-separated list of values and integer intervals
// ("4..8,10"), "all" for every value of a boolean or enumerated setting;
// values that are lists themselves (a per-stage setting, pre_fix) are
// separated by ";" ("stage_target_blocks=10,9;9,10"), and KEY.STAGE ranges
// one stage of a per-stage setting ("stage_target_blocks.1=4..10").
// lines[i] is reported as line lineNos[i] (nil: no line numbers). A key
// given twice, an unknown key or a value the setting does not take is an
// error naming the line, the key and what was expected.
func NewConfigSpace(base spec.Config, ranges []string, lineNos []int) (*ConfigSpace, error) {
	cs := &ConfigSpace{Base: base}
	cs.Base.Requests = slices.Clone(base.Requests)
	given := map[string][]string{}
	lineOf := map[string]int{}
	for i, r := range ranges {
		line := 0
		if lineNos != nil {
			line = lineNos[i]
		}
		key, values, ok := strings.Cut(strings.TrimSpace(r), "=")
		key, values = strings.TrimSpace(key), strings.TrimSpace(values)
		if !ok || key == "" || values == "" {
			return nil, &RangeError{line, fmt.Sprintf("expected key=values (e.g. target_blocks=4..8 or version=all), got %q", r)}
		}
		if !isMixKey(key) {
			if _, err := (SettingRange{Key: key}).setter(); err != nil {
				return nil, &RangeError{line, err.Error()}
			}
		}
		if prev, dup := lineOf[key]; dup {
			return nil, &RangeError{line, fmt.Sprintf("%s already ranged (line %d)", key, prev)}
		}
		lineOf[key] = max(line, 1)
		list, err := expandValues(key, values)
		if err != nil {
			return nil, &RangeError{line, fmt.Sprintf("%s: %v", key, err)}
		}
		given[key] = list
	}
	var keys []string
	for key := range given {
		if !isMixKey(key) {
			keys = append(keys, key)
		}
	}
	// In the registry's order, a stage's range after the whole setting's.
	order := func(key string) int {
		name, _, _ := strings.Cut(key, ".")
		for i, f := range configtext.Fields {
			if f.Key == name {
				return i
			}
		}
		return len(configtext.Fields)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(order(a), order(b)), strings.Compare(a, b)) })
	for _, key := range keys {
		r := SettingRange{key, given[key]}
		set, _ := r.setter()
		for _, v := range r.Values {
			scratch := base
			if err := set(&scratch, v); err != nil {
				return nil, &RangeError{lineOf[key], fmt.Sprintf("%s: %v", key, err)}
			}
		}
		cs.Settings = append(cs.Settings, r)
	}
	mix, err := requestMix(base, given, lineOf)
	if err != nil {
		return nil, err
	}
	cs.Mix = mix
	return cs, nil
}

// isMixKey reports whether key ranges over the request mix.
func isMixKey(key string) bool {
	for _, m := range mixKeys {
		if m.key == key {
			return true
		}
	}
	return false
}

// maxIntervalValues bounds the values of one LO..HI interval.
const maxIntervalValues = 4096

// expandValues expands "1..3,5" into its values and "all" into every value
// of a boolean or enumerated setting.
func expandValues(key, text string) ([]string, error) {
	var out []string
	sep := ","
	if listValued(key) {
		sep = ";"
	}
	for _, part := range strings.Split(text, sep) {
		part = strings.TrimSpace(part)
		if part == "all" {
			all := allValues(key)
			if all == nil {
				return nil, fmt.Errorf("\"all\" needs a boolean or enumerated setting; give integers as LO..HI")
			}
			out = append(out, all...)
			continue
		}
		lo, hi, isInterval := strings.Cut(part, "..")
		if !isInterval {
			if part == "" {
				return nil, fmt.Errorf("empty value in %q", text)
			}
			out = append(out, part)
			continue
		}
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		if errA != nil || errB != nil || a < 0 || a > b || b-a >= maxIntervalValues {
			return nil, fmt.Errorf("expected an interval LO..HI of integers with 0 <= LO <= HI and at most %d values, got %q", maxIntervalValues, part)
		}
		for n := a; n <= b; n++ {
			out = append(out, strconv.Itoa(n))
		}
	}
	seen := map[string]bool{}
	var unique []string
	for _, v := range out {
		if !seen[v] {
			seen[v] = true
			unique = append(unique, v)
		}
	}
	return unique, nil
}

// allValues is every value of a boolean or enumerated key, nil for others.
func allValues(key string) []string {
	if key == "receiving_kv" || key == "sending_kv" || key == "spread" {
		return []string{"false", "true"}
	}
	f := configtext.Lookup(key)
	if f == nil {
		return nil
	}
	v := reflect.New(reflect.TypeOf(spec.Config{}).FieldByIndex(f.Index).Type).Elem()
	if e, ok := v.Interface().(configtext.EnumNamer); ok {
		return slices.Clone(e.Names())
	}
	if v.Kind() == reflect.Bool {
		return []string{"false", "true"}
	}
	return nil
}

// requestMix builds the request-mix ranges from the given keys, nil when
// none is given. Keys not given take the values found in base's requests.
func requestMix(base spec.Config, given map[string][]string, lineOf map[string]int) (*RequestMix, error) {
	any := false
	for _, m := range mixKeys {
		if _, ok := given[m.key]; ok {
			any = true
		}
	}
	if !any {
		return nil, nil
	}
	tpb := max(int(base.TokensPerBlock), 1)
	mix := &RequestMix{}
	ints := func(key string, dflt func(r spec.RequestTemplate) int, lo int) ([]int, error) {
		values, ok := given[key]
		if !ok {
			var out []int
			for _, r := range base.Requests {
				if v := dflt(r); !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
			slices.Sort(out)
			return out, nil
		}
		var out []int
		for _, v := range values {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo || n > 1<<20 {
				return nil, &RangeError{lineOf[key], fmt.Sprintf("%s: expected integers %d..%d, got %q", key, lo, 1<<20, v)}
			}
			out = append(out, n)
		}
		return out, nil
	}
	bools := func(key string, dflt func(r spec.RequestTemplate) bool) ([]bool, error) {
		values, ok := given[key]
		if !ok {
			var out []bool
			for _, r := range base.Requests {
				if v := dflt(r); !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
			return out, nil
		}
		var out []bool
		for _, v := range values {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, &RangeError{lineOf[key], fmt.Sprintf("%s: expected true or false, got %q", key, v)}
			}
			out = append(out, b)
		}
		return out, nil
	}
	var err error
	if values, ok := given["requests"]; ok {
		for _, v := range values {
			n, convErr := strconv.Atoi(v)
			if convErr != nil || n < 1 || n > spec.MaxRequests {
				return nil, &RangeError{lineOf["requests"], fmt.Sprintf("requests: expected integers 1..%d, got %q", spec.MaxRequests, v)}
			}
			mix.Count = append(mix.Count, n)
		}
	} else {
		mix.Count = []int{len(base.Requests)}
	}
	if mix.PromptPages, err = ints("prompt_pages", func(r spec.RequestTemplate) int { return (int(r.PromptLen) + tpb - 1) / tpb }, 1); err != nil {
		return nil, err
	}
	if mix.NewTokens, err = ints("new_tokens", func(r spec.RequestTemplate) int { return int(r.MaxNewTokens) }, 1); err != nil {
		return nil, err
	}
	if mix.SharedPages, err = ints("shared_pages", func(r spec.RequestTemplate) int {
		if r.Family == spec.NoFamily {
			return 0
		}
		return int(r.SharedPrefix) / tpb
	}, 0); err != nil {
		return nil, err
	}
	if mix.ReceivingKV, err = bools("receiving_kv", func(r spec.RequestTemplate) bool { return r.ReceivingKV }); err != nil {
		return nil, err
	}
	if mix.SendingKV, err = bools("sending_kv", func(r spec.RequestTemplate) bool { return r.SendingKV }); err != nil {
		return nil, err
	}
	spread, err := bools("spread", func(r spec.RequestTemplate) bool { return r.Rank != 0 })
	if err != nil {
		return nil, err
	}
	mix.Spread = slices.Contains(spread, true)
	return mix, nil
}

// Ranges renders the space's ranges as the "key=values" lines
// NewConfigSpace reads.
func (cs *ConfigSpace) Ranges() []string {
	var out []string
	for _, s := range cs.Settings {
		sep := ","
		if listValued(s.Key) {
			sep = ";"
		}
		out = append(out, s.Key+"="+strings.Join(s.Values, sep))
	}
	if m := cs.Mix; m != nil {
		join := func(xs []int) string {
			parts := make([]string, len(xs))
			for i, x := range xs {
				parts[i] = strconv.Itoa(x)
			}
			return strings.Join(parts, ",")
		}
		bools := func(bs []bool) string {
			parts := make([]string, len(bs))
			for i, b := range bs {
				parts[i] = strconv.FormatBool(b)
			}
			return strings.Join(parts, ",")
		}
		out = append(out, "requests="+join(m.Count), "prompt_pages="+join(m.PromptPages), "new_tokens="+join(m.NewTokens),
			"shared_pages="+join(m.SharedPages), "receiving_kv="+bools(m.ReceivingKV), "sending_kv="+bools(m.SendingKV),
			"spread="+strconv.FormatBool(m.Spread))
	}
	return out
}
