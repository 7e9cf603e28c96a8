package counterexamples

import (
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/kvcheck/kvcheck/spec"
)

// Change is what one step changed on one entity (a rank, a request, a
// cache, a pool), in words: one output line of a transcript.
type Change struct {
	// Rank is the rank the entity belongs to, -1 for the engine as a whole.
	Rank int
	// Entity names it ("rank 0 draft cache 3"); "" for the engine.
	Entity string
	// Text lists the changed fields ("capacity 0 → 12, status suspended →
	// active").
	Text string
	// Pool is the pool kind the entity belongs to, -1 for none.
	Pool int
	// Kind is the array field the entity is an element of ("Requests",
	// "Caches", "Pools", "Ranks", "Pipeline"), "" for the engine.
	Kind string
	// ID is the entity's index in that array (the request or cache ID, the
	// pool kind, the rank, the pipeline iteration), -1 for the engine.
	ID int
	// Appeared and Gone say the entity appeared from its zero value (a
	// created cache, an arrived request) or went back to it (a closed
	// cache); Fields then list its non-zero fields after (Appeared) or
	// before (Gone).
	Appeared, Gone bool
	// Fields are the changed fields, in the order Text lists them.
	Fields []FieldChange

	order, visit int
}

// FieldChange is one changed field of an entity, in words.
type FieldChange struct {
	// Key names the Go field, "Type.Field" ("Cache.Capacity"), or for an
	// element of an array of numbers "Type.Field[i]".
	Key string
	// Name is the field in words ("capacity"); nested fields carry their
	// parent's words ("batch dummy state").
	Name string
	// Bare says the value names itself and is listed without Name (an
	// enum such as "active", in the fields of an entity that appeared).
	Bare bool
	// Before and After are the values in words; Before is "" in the
	// fields of an entity that appeared, After "" in those of one that went.
	Before, After string
	// Whole says the values are whole values shown in brackets or
	// parentheses (a batch "[gen 1]", a nested record "(complete, ...)"),
	// or the crash.
	Whole bool
}

// String is the output line: "rank 0 draft cache 3: capacity 0 → 12".
func (c Change) String() string {
	if c.Entity == "" {
		return c.Text
	}
	return c.Entity + ": " + c.Text
}

// Changes compares two states with go-cmp and returns what changed, one
// Change per entity: the engine first, then per rank its own line, its
// requests, its caches and its pools, and a crash last. It walks the state
// by reflection, so fields the spec gains later show up without changes
// here (named by fieldWordings or their Go names).
func Changes(before, after *spec.State) []Change {
	var r changeReporter
	cmp.Equal(*before, *after, cmp.Reporter(&r), arraysByIndex, cmp.Exporter(func(reflect.Type) bool { return true }))
	return r.changes()
}

// leafChange is one changed field found by the go-cmp walk.
type leafChange struct {
	entity      []string
	entityKind  string // the array field the innermost entity is an element of
	entityIndex int    // its index in that array
	rank, pool  int
	// entityBefore and entityAfter are the innermost entity's whole values,
	// so an entity that appears or disappears is told as such.
	entityBefore, entityAfter reflect.Value
	owner                     reflect.Type
	field                     string // Go field name
	words                     string // the field in words
	before, after             reflect.Value
	whole                     bool // a describer shown whole
	// nested is a struct field (not an entity, not a describer) that
	// appears from or goes to its zero value, shown whole.
	nested bool
	index  int // element of an array-of-numbers field, -1 if none
}

// changeReporter is a cmp.Reporter collecting the leaves that differ.
type changeReporter struct {
	path   cmp.Path
	leaves []leafChange
	seen   map[string]bool
}

func (r *changeReporter) PushStep(ps cmp.PathStep) { r.path = append(r.path, ps) }
func (r *changeReporter) PopStep()                 { r.path = r.path[:len(r.path)-1] }

// pathStep is one step of a go-cmp path with the transform steps folded
// away: a struct field or an array element, with the type and values
// after it.
type pathStep struct {
	field  string // the field name, "" for an element
	index  int
	typ    reflect.Type
	vx, vy reflect.Value
	text   string
}

// simplify folds the path that arraysByIndex produces (field, Transform,
// MapIndex, TypeAssertion) into field and element steps.
func simplify(path cmp.Path) []pathStep {
	var out []pathStep
	for _, step := range path[1:] {
		vx, vy := step.Values()
		switch s := step.(type) {
		case cmp.StructField:
			out = append(out, pathStep{field: s.Name(), typ: s.Type(), vx: vx, vy: vy, text: s.String()})
		case cmp.MapIndex:
			out = append(out, pathStep{index: int(s.Key().Int()), typ: s.Type(), vx: vx, vy: vy, text: s.String()})
		case cmp.SliceIndex:
			out = append(out, pathStep{index: s.Key(), typ: s.Type(), vx: vx, vy: vy, text: s.String()})
		case cmp.TypeAssertion:
			if n := len(out); n > 0 {
				out[n-1].typ, out[n-1].vx, out[n-1].vy = s.Type(), vx, vy
			}
		}
	}
	return out
}

// arraysByIndex makes go-cmp compare every array element by element, as a
// map from index to value: compared as a sequence it would pair elements by
// an edit script and report a created cache as an insertion elsewhere.
var arraysByIndex = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().Type().Kind() == reflect.Array
}, cmp.Transformer("index", func(a any) map[int]any {
	v := reflect.ValueOf(a)
	m := make(map[int]any, v.Len())
	for i := 0; i < v.Len(); i++ {
		m[i] = v.Index(i).Interface()
	}
	return m
}))

// Report records a differing leaf, attributing it to its innermost entity
// and cutting the path at the first type that describes itself.
func (r *changeReporter) Report(rs cmp.Result) {
	if rs.Equal() {
		return
	}
	leaf := leafChange{rank: -1, pool: -1, index: -1}
	owner := r.path.Index(0).Type()
	leaf.owner = owner
	steps := simplify(r.path)
	var prefix []string
	var key strings.Builder
	for i := 0; i < len(steps); i++ {
		step := steps[i]
		key.WriteString(step.text)
		if step.field == "" {
			continue
		}
		name := step.field
		var index pathStep
		hasIndex := i+1 < len(steps) && steps[i+1].field == ""
		if hasIndex {
			index = steps[i+1]
		}
		if hasIndex && index.typ.Kind() == reflect.Struct && !isDescriber(index.typ) {
			i++
			key.WriteString(index.text)
			k := index.index
			leaf.entity = append(leaf.entity, entityWord(name, k))
			leaf.entityKind = name
			leaf.entityIndex = k
			leaf.entityBefore, leaf.entityAfter = index.vx, index.vy
			switch name {
			case "Ranks":
				leaf.rank = k
			case "Pools":
				leaf.pool = k
			}
			owner = index.typ
			prefix = nil
			continue
		}
		if impliedFields[owner.Name()+"."+name] {
			return
		}
		leaf.owner, leaf.field = owner, name
		leaf.words = strings.Join(append(prefix, fieldName(owner, name)), " ")
		leaf.before, leaf.after = step.vx, step.vy
		if hasIndex {
			key.WriteString(index.text)
			leaf.index = index.index
			leaf.before, leaf.after = index.vx, index.vy
			if f, ok := indexedFieldWordings[owner.Name()+"."+name]; ok {
				leaf.words = f(index.index)
			} else {
				leaf.words += " " + strconv.Itoa(index.index)
			}
			break
		}
		if isDescriber(step.typ) && describeValue(step.vx) != describeValue(step.vy) {
			leaf.whole = true
			break
		}
		if step.typ.Kind() == reflect.Struct && !isDescriber(step.typ) && step.vx.IsZero() != step.vy.IsZero() {
			leaf.nested = true
			break
		}
		if step.typ.Kind() == reflect.Struct {
			// A nested value (or a describer whose description did not
			// change): name its fields after it.
			prefix = append(prefix, fieldName(owner, name))
			owner = step.typ
			continue
		}
		break
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if k := key.String(); leaf.whole || leaf.nested || leaf.index >= 0 {
		if r.seen[k] {
			return
		}
		r.seen[k] = true
	}
	r.leaves = append(r.leaves, leaf)
}

// entityWord names element i of the array field name.
func entityWord(name string, i int) string {
	if f, ok := entityWordings[name]; ok {
		return f(i)
	}
	return splitWords(strings.TrimSuffix(name, "s")) + " " + strconv.Itoa(i)
}

// joinEntity joins entity words, folding "draft pool" + "cache 3" into
// "draft cache 3".
func joinEntity(parts []string) string {
	var out []string
	for _, p := range parts {
		if n := len(out); n > 0 && strings.HasSuffix(out[n-1], " pool") && strings.HasPrefix(p, "cache ") {
			out[n-1] = strings.TrimSuffix(out[n-1], "pool") + p
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, " ")
}

// changes groups the leaves by entity and renders each entity's line.
func (r *changeReporter) changes() []Change {
	type group struct {
		change Change
		leaves []leafChange
	}
	var groups []*group
	byEntity := map[string]*group{}
	for i, l := range r.leaves {
		name := joinEntity(l.entity)
		if l.whole && len(l.entity) == 0 {
			name = "\x00" + l.words // an engine-wide whole value gets its own last line
		}
		g := byEntity[name]
		if g == nil {
			order := entityOrder[l.entityKind]
			if name != "" && name[0] == 0 {
				order = 9
			}
			id := -1
			if len(l.entity) > 0 {
				id = l.entityIndex
			}
			g = &group{change: Change{Rank: l.rank, Pool: l.pool, Entity: strings.TrimPrefix(name, "\x00"), Kind: l.entityKind, ID: id, order: order, visit: i}}
			if name != "" && name[0] == 0 {
				g.change.Entity = ""
			}
			byEntity[name] = g
			groups = append(groups, g)
		}
		g.leaves = append(g.leaves, l)
	}
	out := make([]Change, 0, len(groups))
	for _, g := range groups {
		g.change.Appeared, g.change.Gone, g.change.Fields = groupFields(g.leaves)
		g.change.Text = renderFields(g.leaves[0], g.change)
		out = append(out, g.change)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		ka, kb := sortRank(a), sortRank(b)
		if ka != kb {
			return ka < kb
		}
		if a.order != b.order {
			return a.order < b.order
		}
		return a.visit < b.visit
	})
	return out
}

// sortRank puts engine-wide lines first and engine-wide whole values
// (a crash) last.
func sortRank(c Change) int {
	if c.order == 9 {
		return 1 << 20
	}
	return c.Rank
}

// groupFields works out whether the entity of a group of leaves appeared
// or went and lists its changed fields.
func groupFields(leaves []leafChange) (appeared, gone bool, fields []FieldChange) {
	first := leaves[0]
	if len(first.entity) > 0 && first.entityBefore.IsValid() && first.entityAfter.IsValid() && isLeafEntity(leaves) {
		if first.entityBefore.IsZero() && !first.entityAfter.IsZero() {
			return true, false, listFieldChanges(first.entityAfter, false)
		}
		if !first.entityBefore.IsZero() && first.entityAfter.IsZero() {
			return false, true, listFieldChanges(first.entityBefore, true)
		}
	}
	for _, l := range leaves {
		fields = append(fields, leafField(l))
	}
	return false, false, fields
}

// renderFields is a Change's text: "created active, capacity 12",
// "closed (was ...)" or the changed fields.
func renderFields(first leafChange, c Change) string {
	verbs, ok := entityVerbs[first.entityKind]
	if !ok {
		verbs = [2]string{"new", "removed"}
	}
	switch {
	case c.Appeared:
		return verbs[0] + " " + listText(c.Fields, false)
	case c.Gone:
		return verbs[1] + " (was " + listText(c.Fields, true) + ")"
	}
	parts := make([]string, 0, len(c.Fields))
	for _, f := range c.Fields {
		parts = append(parts, f.String())
	}
	return strings.Join(parts, ", ")
}

// String renders a changed field: "capacity 0 → 12", "batch [gen 1]",
// "crashed: ...".
func (f FieldChange) String() string {
	switch {
	case f.Whole && f.Key == "State.Crash" && f.Before == "":
		return f.Name + ": " + f.After
	case f.Whole && (f.Before == "" || f.Before == "[]" || f.Before == "none"):
		return f.Name + " " + f.After
	}
	return f.Name + " " + f.Before + " → " + f.After
}

// listText lists the fields of an entity that appeared (or, gone, the
// values it had): enum values bare, others "name value".
func listText(fields []FieldChange, gone bool) string {
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		v := f.After
		if gone {
			v = f.Before
		}
		if f.Bare {
			parts = append(parts, v)
		} else {
			parts = append(parts, f.Name+" "+v)
		}
	}
	return strings.Join(parts, ", ")
}

// isLeafEntity reports whether every leaf belongs to the same innermost
// entity (so the entity's whole value tells the story).
func isLeafEntity(leaves []leafChange) bool {
	for _, l := range leaves {
		if len(l.entity) != len(leaves[0].entity) {
			return false
		}
	}
	return true
}

// leafField puts one changed field into words.
func leafField(l leafChange) FieldChange {
	f := FieldChange{Key: l.owner.Name() + "." + l.field, Name: l.words}
	switch {
	case l.whole:
		f.Whole = true
		f.Before, f.After = describeValue(l.before), describeValue(l.after)
		if f.Key != "State.Crash" {
			f.Before, f.After = "["+f.Before+"]", "["+f.After+"]"
		}
	case l.nested:
		f.Whole = true
		f.Before, f.After = nestedValue(l.before), nestedValue(l.after)
	case l.index >= 0:
		f.Key += "[" + strconv.Itoa(l.index) + "]"
		f.Before, f.After = plainValue(l.before), plainValue(l.after)
	default:
		f.Before, f.After = fieldValue(l.owner, l.field, l.before), fieldValue(l.owner, l.field, l.after)
	}
	return f
}

// nestedValue is a nested record in parentheses, "none" for its zero value.
func nestedValue(v reflect.Value) string {
	if !v.IsValid() || v.IsZero() {
		return "none"
	}
	return "(" + listText(listFieldChanges(v, false), false) + ")"
}

// listFieldChanges lists the non-zero fields of an entity as the fields of
// one that appeared (After set) or, gone, went (Before set): enum values
// bare ("active"), flags by name, others as "name value".
func listFieldChanges(v reflect.Value, gone bool) []FieldChange {
	t := v.Type()
	var out []FieldChange
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		fv := v.Field(i)
		if fv.IsZero() {
			continue
		}
		f := FieldChange{Key: t.Name() + "." + sf.Name, Name: fieldName(t, sf.Name)}
		var value string
		switch {
		case isDescriber(sf.Type):
			f.Whole = true
			value = "[" + describeValue(fv) + "]"
		case isEnum(sf.Type):
			f.Bare = true
			value = plainValue(fv)
		case sf.Type.Kind() == reflect.Struct:
			f.Whole = true
			value = nestedValue(fv)
		case sf.Type.Kind() == reflect.Array:
			value = strings.TrimSpace(plainValue(fv))
		default:
			value = fieldValue(t, sf.Name, fv)
		}
		if gone {
			f.Before = value
		} else {
			f.After = value
		}
		out = append(out, f)
	}
	return out
}
