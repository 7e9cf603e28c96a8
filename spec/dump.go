package spec

import (
	"fmt"
	"reflect"
	"strings"
)

// Dump renders the whole state as stable lines in the words of Describe,
// which the transcripts' step summaries share: one line per entity with
// its non-zero fields ("rank 0 target cache 3: active, incarnation 1,
// capacity 12"). Transcripts print it for the `state` directive.
func (sp *Spec) Dump(s *State) string {
	var b strings.Builder
	for _, e := range sp.Describe(s) {
		if name := e.Name(); name != "" {
			b.WriteString(name + ": ")
		}
		b.WriteString(e.List() + "\n")
	}
	return b.String()
}

// rankSet renders a rank bit set as "{0,1}".
func rankSet(mask uint8) string {
	var parts []string
	for r := 0; r < 8; r++ {
		if mask&(1<<r) != 0 {
			parts = append(parts, fmt.Sprint(r))
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// describe renders the batch as "ctx 1 chunk 8, gen 2#1 accept 1".
func (b *Batch) describe() string {
	parts := make([]string, 0, b.Count)
	for i := 0; i < int(b.Count); i++ {
		e := b.Entries[i]
		if e.Kind == ContextChunk {
			last := ""
			if e.Last {
				last = " last"
			}
			parts = append(parts, fmt.Sprintf("ctx %d chunk %d%s", e.ID, e.Chunk, last))
		} else {
			part := fmt.Sprintf("gen %d", e.ID)
			if e.ID == dummyID {
				part = fmt.Sprintf("gen dummy#%d", e.Incarnation)
			}
			if e.Accepted > 0 {
				part += fmt.Sprintf(" accepted %d", e.Accepted)
			}
			if e.EOS {
				part += " eos"
			}
			parts = append(parts, part)
		}
	}
	return strings.Join(parts, ", ")
}

// describePool renders a pool's page accounting in Dump's words, with the
// pool size and the caches it holds.
func (v rankView) describePool(p PoolKind) string { return v.core(p).describe() }

// describeCache renders one cache in Dump's words.
func (v rankView) describeCache(id uint8, c *Cache) string {
	return v.core(Target).describeCache(id, c)
}

// describe renders the pool's page accounting in Dump's words, at any
// width of the counts (the sequential model of lin describes its pools
// with it too).
func (c poolCore[T]) describe() string {
	return fmt.Sprintf("%s pool of %d pages, %d caches: %s", c.p, c.cfg.poolBlocksOn(c.r, c.p), c.liveCaches(), listFields(fields(reflect.ValueOf(*c.pool))))
}

// describeCache renders cache x of request id in Dump's words.
func (c poolCore[T]) describeCache(id uint8, x *CacheOf[T]) string {
	return fmt.Sprintf("cache %d: %s", id, listFields(fields(reflect.ValueOf(*x))))
}
