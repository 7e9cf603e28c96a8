package counterexamples

import (
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// Change is what one step changed on one entity of the state (the engine,
// a rank, a request, a cache, a pool, a pipeline iteration), in the spec's
// words (spec.Spec.Describe), so fields the spec gains later show up
// without a change here.
type Change struct {
	spec.EntityID
	// Appeared and Gone say the entity appeared from its zero value (an
	// arrived request, a created cache) or went back to it (a closed
	// cache); Fields then list its non-zero fields after (Appeared) or
	// before (Gone).
	Appeared, Gone bool
	Fields         []FieldChange
}

// FieldChange is one changed field: its key, words and values before and
// after ("" before for an entity that appeared, after for one that went).
type FieldChange struct {
	Key           spec.FieldKey
	Index         int
	Name          string
	Before, After string
	Bare, Whole   bool
}

// Changes compares the spec's descriptions of two states and returns
// what changed, one Change per entity, in Describe's order: the engine,
// the pipeline, then per rank the rank, its pools and caches, its
// requests; entities that went come last.
func Changes(sp *spec.Spec, before, after *spec.State) []Change {
	was := map[spec.EntityID][]spec.Field{}
	old := sp.Describe(before)
	for _, e := range old {
		was[e.EntityID] = e.Fields
	}
	var out []Change
	for _, e := range sp.Describe(after) {
		prev, existed := was[e.EntityID]
		delete(was, e.EntityID)
		c := Change{EntityID: e.EntityID, Appeared: !existed}
		for i, f := range e.Fields {
			switch {
			case !existed && !f.Zero:
				c.Fields = append(c.Fields, fieldChange(f, "", f.Value))
			case existed && prev[i].Value != f.Value:
				c.Fields = append(c.Fields, fieldChange(f, prev[i].Value, f.Value))
			}
		}
		if len(c.Fields) > 0 {
			out = append(out, c)
		}
	}
	for _, e := range old {
		if _, gone := was[e.EntityID]; gone {
			c := Change{EntityID: e.EntityID, Gone: true}
			for _, f := range e.Fields {
				if !f.Zero {
					c.Fields = append(c.Fields, fieldChange(f, f.Value, ""))
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// fieldChange is a changed field; only in the fields of an entity that
// appeared or went is an enum bare ("created active", but "status
// suspended → active").
func fieldChange(f spec.Field, before, after string) FieldChange {
	bare := f.Bare && (before == "" || after == "")
	return FieldChange{Key: f.Key, Index: f.Index, Name: f.Name, Before: before, After: after, Bare: bare, Whole: f.Whole}
}

// verbs are the words for an entity that appears and one that goes.
func verbs(kind spec.EntityKind) (appeared, gone string) {
	switch kind {
	case spec.CacheEntity:
		return "created", "closed"
	case spec.RequestEntity:
		return "arrived", "removed"
	}
	return "new", "removed"
}

// String is the change as one line: "rank 0 draft cache 3: capacity 0 →
// 12", "rank 0 draft cache 3: closed (was active, capacity 14)".
func (c Change) String() string {
	appeared, gone := verbs(c.Kind)
	parts := make([]string, len(c.Fields))
	for i, f := range c.Fields {
		switch {
		case c.Appeared || c.Gone:
			parts[i] = spec.Field{Name: f.Name, Value: f.After + f.Before, Bare: f.Bare}.String()
		case f.Whole && (f.Before == "" || f.Before == "[]" || f.Before == "none"):
			parts[i] = f.Name + " " + f.After
		default:
			parts[i] = f.Name + " " + f.Before + " → " + f.After
		}
	}
	text := strings.Join(parts, ", ")
	switch {
	case c.Appeared:
		text = appeared + " " + text
	case c.Gone:
		text = gone + " (was " + text + ")"
	}
	if name := c.Name(); name != "" {
		return name + ": " + text
	}
	return text
}
