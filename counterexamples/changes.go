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

// FieldChange is one changed field: the field after the step (before it,
// for an entity that went) and, unless the entity appeared or went, the
// field before it.
type FieldChange struct {
	spec.Field
	Before *spec.Field
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
				c.Fields = append(c.Fields, FieldChange{Field: f})
			case existed && prev[i].Value != f.Value:
				f.Bare = false // "status suspended → active"
				c.Fields = append(c.Fields, FieldChange{Field: f, Before: &prev[i]})
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
					c.Fields = append(c.Fields, FieldChange{Field: f})
				}
			}
			out = append(out, c)
		}
	}
	return out
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
		case f.Before == nil:
			parts[i] = f.String()
		case f.Whole && f.Before.Zero:
			parts[i] = f.Name + " " + f.Value
		default:
			parts[i] = f.Name + " " + f.Before.Value + " → " + f.Value
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
