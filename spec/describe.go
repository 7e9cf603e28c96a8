package spec

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// This file puts a state into words, once for every reader: Dump (the
// transcripts' `state` directive) lists what Describe returns, and the
// transcripts' step summaries diff two Describe results. Like porcupine's
// DescribeState or stateright's format_step it lives beside the types it
// words. Describe walks the state by reflection, so a field the spec gains
// later shows up, named after its Go name ("DraftPosition" → "draft
// position"), without a change here; fieldWords and fieldValues hold the
// fields whose words differ from their Go names or whose values are
// encoded.

// FieldKey names one field of a state type, "Type.Field". The constants
// are the keys the transcripts' summaries single out; TestFieldKeys keeps
// every key here naming a field.
type FieldKey string

const (
	KeyArrived           FieldKey = "State.Arrived"
	KeyPipelineLen       FieldKey = "State.PipelineLen"
	KeyCrash             FieldKey = "State.Crash"
	KeyPipelineBatch     FieldKey = "PipelineIteration.Batch"
	KeyPhase             FieldKey = "Rank.Phase"
	KeyBatch             FieldKey = "Rank.Batch"
	KeyPrevious          FieldKey = "Rank.Previous"
	KeyPipelinePos       FieldKey = "Rank.PipelinePos"
	KeyRequestIncarn     FieldKey = "Request.Incarnation"
	KeyPosition          FieldKey = "Request.Position"
	KeyDraftPosition     FieldKey = "Request.DraftPosition"
	KeyPreResizeCapacity FieldKey = "Request.PreResizeCapacity"
	KeyRequestFlags      FieldKey = "Request.Flags"
	KeyCacheIncarn       FieldKey = "Cache.Incarnation"
	KeyPoolTree          FieldKey = "Pool.Tree"
)

// fieldWords are the fields whose words are not their split Go names.
var fieldWords = map[FieldKey]string{
	KeyCrash:                            "crashed:",
	"Pool.Free":                         "free pages",
	"Cache.Shared":                      "shared blocks",
	"Cache.Offloaded":                   "offloaded blocks",
	"Cache.AllocatedDraft":              "_allocated_draft_lens",
	"Request.NumTokens":                 "tokens",
	"Request.DraftLen":                  "draft tokens",
	"Request.Accepted":                  "accepted drafts",
	"Request.Reused":                    "reused prefix",
	KeyPreResizeCapacity:                "py_ctx_pre_resize_cap",
	KeyPipelinePos:                      "pipeline iteration",
	"Rank.Previous":                     "previous batch",
	"Rank.CanQueue":                     "can_queue",
	"Rank.CanQueueThisRank":             "can_queue_this_rank",
	"Rank.ExpectedActive":               "expected_num_active_requests",
	"PipelineIteration.Forwarded":       "forwarded by ranks",
	"PipelineIteration.Handled":         "handled by ranks",
	"PipelineIteration.Done":            "done by ranks",
	"PipelineIteration.HandleCount":     "handle count",
	"State.Hazard":                      "hazard:",
	"Rank.AdpDummyRole":                 "ADP dummy role",
	"Rank.StalledPasses":                "_stalled_schedules",
	"Rank.PendingPause":                 "victims to pause (ID bits)",
	"PipelineIteration.RecomputePaused": "recompute-paused (ID bits)",
	"Rank.DummyAfter":                   "dummy after arrival",
}

// ghostFields are the spec's own accounting, not fields of the real
// objects: transcripts and dumps leave them out (the invariant that reads
// one says its value when it fails).
var ghostFields = map[FieldKey]bool{"Request.Produced": true, "State.Hazard": true}

// fieldValues word the fields whose numbers encode something else.
var fieldValues = map[FieldKey]func(n uint8) string{
	"Cache.AllocatedDraft":          plusOne,
	KeyPreResizeCapacity:            plusOne,
	"PipelineIteration.HandleCount": plusOne,
	"Cache.Flags":                   func(n uint8) string { return flagNames(n, cacheFlagNames) },
	KeyRequestFlags:                 func(n uint8) string { return flagNames(n, requestFlagNames) },
	"PipelineIteration.Forwarded":   rankSet,
	"PipelineIteration.Handled":     rankSet,
	"PipelineIteration.Done":        rankSet,
	"Rank.AdpDummyRole":             func(n uint8) string { return flagNames(n, adpRoleNames) },
}

// indexWords name one element of an array-of-numbers field.
var indexWords = map[FieldKey]string{KeyPoolTree: "family %d tree blocks"}

var (
	cacheFlagNames   = []string{"stop-committing", "never-resumed", "partial-copy", "history-lags"}
	adpRoleNames     = []string{"context", "context-arrived", "generation-arrived"}
	requestFlagNames = []string{"adp-dummy", "skip-gen-revert", "pending-dummy", "inflight", "kv-sent"}
)

// RequestFlagInflight is the bit of Request.Flags the pipeline loop sets
// at every forward and clears at every handle (inflight_request_ids).
const RequestFlagInflight = requestFlagInflight

// WordField words the value raw of the number field key, as Describe does.
func WordField(key FieldKey, raw uint64) string {
	if word := fieldValues[key]; word != nil {
		return word(uint8(raw))
	}
	return strconv.FormatUint(raw, 10)
}

// EntityKind is the array of the state an entity is an element of.
type EntityKind uint8

const (
	EngineEntity EntityKind = iota
	PipelineEntity
	RankEntity
	PoolEntity
	CacheEntity
	RequestEntity
)

// entityArrays are the array fields whose elements are entities.
var entityArrays = map[string]EntityKind{
	"Pipeline": PipelineEntity, "Ranks": RankEntity, "Pools": PoolEntity, "Caches": CacheEntity, "Requests": RequestEntity,
}

// EntityID says which part of a state an entity is: Rank is -1 for the
// engine and the pipeline, ID the pipeline iteration or the request (and
// its cache), -1 otherwise.
type EntityID struct {
	Kind EntityKind
	Rank int
	Pool PoolKind
	ID   int
}

// Name is the entity in words: "rank 0 draft cache 3", "" for the engine.
func (e EntityID) Name() string {
	switch e.Kind {
	case PipelineEntity:
		return fmt.Sprintf("pipeline iteration %d", e.ID)
	case RankEntity:
		return fmt.Sprintf("rank %d", e.Rank)
	case PoolEntity:
		return fmt.Sprintf("rank %d %s pool", e.Rank, e.Pool)
	case CacheEntity:
		return fmt.Sprintf("rank %d %s cache %d", e.Rank, e.Pool, e.ID)
	case RequestEntity:
		return fmt.Sprintf("rank %d req %d", e.Rank, e.ID)
	}
	return ""
}

// Entity is one part of a state with its fields, in words.
type Entity struct {
	EntityID
	Fields []Field
}

// Field is one field of an entity in words.
type Field struct {
	Key FieldKey
	// Index is the element of an array field (a family of Pool.Tree), -1
	// for none.
	Index int
	// Name is the field in words ("capacity"), Value its value ("12").
	Name, Value string
	// Raw is the number behind Value for a number, flag set, enum or bool
	// field, 0 for others.
	Raw uint64
	// Zero says the field holds its zero value.
	Zero bool
	// Bare says the value names itself (an enum such as "active"), so a
	// list of fields gives it without Name.
	Bare bool
	// Whole says the value is a whole value: a batch "[gen 1]", a nested
	// record "(...)", the crash.
	Whole bool
}

// String is the field as a list gives it: "capacity 12", "active".
func (f Field) String() string {
	if f.Bare {
		return f.Value
	}
	return f.Name + " " + f.Value
}

// List words the entity's enums and non-zero fields: "active, capacity
// 12".
func (e Entity) List() string { return listFields(e.Fields) }

func listFields(fields []Field) string {
	var parts []string
	for _, f := range fields {
		if !f.Zero || f.Bare {
			parts = append(parts, f.String())
		}
	}
	return strings.Join(parts, ", ")
}

// Describe lists the entities of s in words: the engine, each pipeline
// iteration in flight, then per rank the rank, each pool it has with its
// caches, and each request that arrived.
func (sp *Spec) Describe(s *State) []Entity {
	var out []Entity
	sp.describe(reflect.ValueOf(s).Elem(), EntityID{Rank: -1, ID: -1}, &out)
	return out
}

// describe appends entity id, whose value is v, and then its entities.
func (sp *Spec) describe(v reflect.Value, id EntityID, out *[]Entity) {
	t := v.Type()
	*out = append(*out, Entity{EntityID: id, Fields: fields(v)})
	for i := 0; i < t.NumField(); i++ {
		kind, ok := entityArrays[t.Field(i).Name]
		if !ok {
			continue
		}
		for j := 0; j < v.Field(i).Len(); j++ {
			child, elem := id, v.Field(i).Index(j)
			child.Kind, child.ID = kind, j
			switch kind {
			case RankEntity:
				child.Rank, child.ID = j, -1
			case PoolEntity:
				child.Pool, child.ID = PoolKind(j), -1
			}
			shown := !elem.IsZero()
			switch kind {
			case RankEntity:
				shown = j < int(sp.Config.Ranks)
			case PoolEntity:
				shown = sp.Config.hasPool(uint8(id.Rank), PoolKind(j))
			}
			if shown {
				sp.describe(elem, child, out)
			}
		}
	}
}

// fields words the fields of struct v but its entity arrays.
func fields(v reflect.Value) []Field {
	t := v.Type()
	var out []Field
	for i := 0; i < t.NumField(); i++ {
		sf, fv := t.Field(i), v.Field(i)
		if _, ok := entityArrays[sf.Name]; ok || !sf.IsExported() {
			continue
		}
		key := FieldKey(typeName(t) + "." + sf.Name)
		if ghostFields[key] {
			continue
		}
		f := Field{Key: key, Index: -1, Name: fieldWords[key], Zero: fv.IsZero(), Raw: raw(fv)}
		if f.Name == "" {
			f.Name = splitWords(sf.Name)
		}
		switch x := fv.Interface().(type) {
		case Batch:
			f.Whole, f.Value = true, "["+x.describe()+"]"
			if x.Dummy != (Request{}) {
				f.Value += " with dummy copy (" + listFields(fields(reflect.ValueOf(x.Dummy))) + ")"
			}
			out = append(out, f)
			continue
		case Crash:
			if f.Whole = true; x.Happened {
				f.Value = x.Describe()
			}
			out = append(out, f)
			continue
		case Hazard:
			if f.Whole = true; x.Happened {
				f.Value = x.Describe()
			}
			out = append(out, f)
			continue
		}
		switch {
		case fieldValues[key] != nil:
			f.Value = fieldValues[key](uint8(fv.Uint()))
		case fv.Kind() == reflect.Array:
			for j := 0; j < fv.Len(); j++ {
				g := f
				g.Index, g.Zero, g.Raw = j, fv.Index(j).IsZero(), raw(fv.Index(j))
				g.Name = f.Name + " " + strconv.Itoa(j)
				if w, ok := indexWords[key]; ok {
					g.Name = fmt.Sprintf(w, j)
				}
				g.Value = value(fv.Index(j))
				out = append(out, g)
			}
			continue
		case fv.Kind() == reflect.Struct:
			f.Whole, f.Value = true, "none"
			if !f.Zero {
				f.Value = "(" + listFields(fields(fv)) + ")"
			}
		default:
			_, f.Bare = fv.Interface().(fmt.Stringer)
			f.Value = value(fv)
		}
		out = append(out, f)
	}
	return out
}

// raw is the number behind a number, enum or bool value, 0 for others.
func raw(v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return 1
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return uint64(v.Int())
	}
	return 0
}

// value words a plain value: its String, yes or no, or its number.
func value(v reflect.Value) string {
	if s, ok := v.Interface().(fmt.Stringer); ok {
		return s.String()
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
	return fmt.Sprint(v.Interface())
}

// plusOne words a count stored as value + 1 (0: no entry).
func plusOne(n uint8) string {
	if n == 0 {
		return "none"
	}
	return strconv.Itoa(int(n) - 1)
}

// flagNames words the bits of flags, bit i named names[i]: "a+b", "none".
func flagNames(flags uint8, names []string) string {
	var set []string
	for i, name := range names {
		if flags&(1<<i) != 0 {
			set = append(set, name)
		}
	}
	if len(set) == 0 {
		return "none"
	}
	return strings.Join(set, "+")
}

// splitWords turns a Go name into lower-case words: "NumTokens" → "num
// tokens".
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

// ActionKindNamed returns the action kind whose transcript name
// (ActionKind.String) is name.
func ActionKindNamed(name string) (ActionKind, bool) {
	for k := ActArrive; k < numActionKinds; k++ {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}

// typeName is the name the keys know a state type by: the generic core's
// instantiations (CacheOf[uint8], PoolOf[uint8]) by their explored-state
// names (Cache, Pool).
func typeName(t reflect.Type) string {
	if base, _, generic := strings.Cut(t.Name(), "Of["); generic {
		return base
	}
	return t.Name()
}
