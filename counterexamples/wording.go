package counterexamples

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/kvcheck/kvcheck/spec"
)

// fieldWording says how one field of a spec state type is put into words:
// its name, and for a field whose raw value is encoded, how to decode it.
type fieldWording struct {
	name   string
	decode func(v reflect.Value) string
}

// fieldWordings are the fields whose words differ from their Go names,
// keyed "Type.Field". A field not listed is named by splitting its Go name
// ("DraftPosition" → "draft position") and shown with fmt, so fields the
// spec gains later still show up. TestFieldWordingsExist keeps the keys in
// step with the spec.
var fieldWordings = map[string]fieldWording{
	"State.Crash":                   {name: "crashed"},
	"Pool.Free":                     {name: "free pages"},
	"Cache.Shared":                  {name: "shared blocks"},
	"Cache.Offloaded":               {name: "offloaded blocks"},
	"Cache.Flags":                   {name: "flags", decode: decodeCacheFlags},
	"Cache.AllocatedDraft":          {name: "_allocated_draft_lens", decode: decodePlusOne},
	"Request.NumTokens":             {name: "tokens"},
	"Request.DraftLen":              {name: "draft tokens"},
	"Request.Accepted":              {name: "accepted drafts"},
	"Request.Reused":                {name: "reused prefix"},
	"Request.PreResizeCapacity":     {name: "py_ctx_pre_resize_cap", decode: decodePlusOne},
	"Request.Flags":                 {name: "flags", decode: decodeRequestFlags},
	"Rank.Previous":                 {name: "previous batch"},
	"Rank.CanQueue":                 {name: "can_queue"},
	"Rank.CanQueueThisRank":         {name: "can_queue_this_rank"},
	"Rank.ExpectedActive":           {name: "expected_num_active_requests"},
	"Rank.PipelinePos":              {name: "pipeline iteration"},
	"PipelineIteration.Forwarded":   {name: "forwarded by ranks", decode: decodeRankSet},
	"PipelineIteration.Handled":     {name: "handled by ranks", decode: decodeRankSet},
	"PipelineIteration.Done":        {name: "done by ranks", decode: decodeRankSet},
	"PipelineIteration.HandleCount": {name: "handle count", decode: decodePlusOne},
	"Batch.Dummy":                   {name: "dummy copy"},
}

// impliedFields are left out of step outputs because the action line says
// them already: the executor phase an action moves its rank to, and the
// count of arrived requests. `state` still dumps them.
var impliedFields = map[string]bool{
	"Rank.Phase":    true,
	"State.Arrived": true,
}

// indexedFieldWordings name one element of an array-of-numbers field,
// keyed "Type.Field".
var indexedFieldWordings = map[string]func(i int) string{
	"Pool.Tree": func(i int) string { return fmt.Sprintf("family %d tree blocks", i) },
}

// entityWordings name one element of an array of structs (an entity whose
// changes share a line), keyed by the field name.
var entityWordings = map[string]func(i int) string{
	"Ranks":    func(i int) string { return fmt.Sprintf("rank %d", i) },
	"Pools":    func(i int) string { return spec.PoolKind(i).String() + " pool" },
	"Caches":   func(i int) string { return fmt.Sprintf("cache %d", i) },
	"Requests": func(i int) string { return fmt.Sprintf("req %d", i) },
	"Entries":  func(i int) string { return fmt.Sprintf("batch entry %d", i) },
	"Pipeline": func(i int) string { return fmt.Sprintf("pipeline iteration %d", i) },
}

// entityVerbs are the words for an entity that appears (from the zero
// value) or disappears (to it), keyed by the array's field name.
var entityVerbs = map[string][2]string{
	"Caches":   {"created", "closed"},
	"Requests": {"arrived", "removed"},
}

// entityOrder sorts the lines of one rank: the rank's own line, its
// requests, its caches, then its pools' page counts.
var entityOrder = map[string]int{"Ranks": 1, "Requests": 2, "Caches": 3, "Pools": 4}

// decodePlusOne shows a count stored as value + 1 (0 = no entry).
func decodePlusOne(v reflect.Value) string {
	n := v.Uint()
	if n == 0 {
		return "none"
	}
	return strconv.FormatUint(n-1, 10)
}

// decodeCacheFlags names a Cache's flag bits.
func decodeCacheFlags(v reflect.Value) string {
	names := spec.CacheFlagNames(uint8(v.Uint()))
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// decodeRequestFlags names a Request's flag bits.
func decodeRequestFlags(v reflect.Value) string {
	names := spec.RequestFlagNames(uint8(v.Uint()))
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// decodeRankSet shows a bit set of ranks as "{0,1}".
func decodeRankSet(v reflect.Value) string {
	var parts []string
	for r := 0; r < 8; r++ {
		if v.Uint()&(1<<r) != 0 {
			parts = append(parts, strconv.Itoa(r))
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// fieldName is the words for field of struct type owner.
func fieldName(owner reflect.Type, field string) string {
	if w, ok := fieldWordings[owner.Name()+"."+field]; ok {
		return w.name
	}
	return splitWords(field)
}

// splitWords turns a Go name into lower-case words: "NumTokens" →
// "num tokens".
func splitWords(name string) string {
	var b strings.Builder
	runes := []rune(name)
	for i, r := range runes {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(runes[i-1]) || i+1 < len(runes) && unicode.IsLower(runes[i+1])) {
				b.WriteByte(' ')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// describer is implemented by state types that render themselves whole
// (spec.Batch, spec.Crash); a change inside one is shown as the whole
// value before and after.
type describer interface{ Describe() string }

var describerType = reflect.TypeFor[describer]()

// isDescriber reports whether t or *t renders itself.
func isDescriber(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && (t.Implements(describerType) || reflect.PointerTo(t).Implements(describerType))
}

// describeValue renders a describer value, "" for its zero value.
func describeValue(v reflect.Value) string {
	if !v.IsValid() || v.IsZero() {
		return ""
	}
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p.Interface().(describer).Describe()
}

// fieldValue renders the value of field of struct type owner.
func fieldValue(owner reflect.Type, field string, v reflect.Value) string {
	if w, ok := fieldWordings[owner.Name()+"."+field]; ok && w.decode != nil {
		return w.decode(v)
	}
	return plainValue(v)
}

// plainValue renders a value with its String method if it has one.
func plainValue(v reflect.Value) string {
	if !v.IsValid() {
		return "none"
	}
	if v.CanInterface() {
		if s, ok := v.Interface().(fmt.Stringer); ok {
			return s.String()
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return "yes"
		}
		return "no"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	}
	return fmt.Sprint(v)
}

// isEnum reports whether a field's value names itself (a type with a
// String method, like spec.CacheStatus), so an entity that appears lists it
// without the field name: "created active" rather than "status active".
func isEnum(t reflect.Type) bool {
	return t.Kind() != reflect.Struct && t.Implements(reflect.TypeFor[fmt.Stringer]())
}
