package spec

import (
	"fmt"
	"strings"
)

// Dump renders the whole state as stable, sorted lines: the crash, then per
// rank its phase and batch, each live request, and each pool with its
// caches. Transcripts print it for the `state` directive.
func (sp *Spec) Dump(s *State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "arrived %d/%d\n", s.Arrived, len(sp.Config.Requests))
	if s.Crash.Happened {
		fmt.Fprintf(&b, "crashed: %s\n", s.Crash.Describe())
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		v := s.view(&sp.Config, r)
		fmt.Fprintf(&b, "rank %d: phase %s", r, v.rank.Phase)
		if v.rank.Batch.Count > 0 {
			fmt.Fprintf(&b, ", batch %s", v.rank.Batch.describe())
		}
		b.WriteString("\n")
		for id := uint8(0); id < MaxIDs; id++ {
			if line := v.describeRequest(id); line != "" {
				fmt.Fprintf(&b, "  %s\n", line)
			}
		}
		for p := Target; p < numPools; p++ {
			if p == Draft && sp.Config.DraftPool == NoDraftPool {
				continue
			}
			fmt.Fprintf(&b, "  %s\n", v.describePool(p))
			for id := uint8(0); id < MaxIDs; id++ {
				if c := v.cache(p, id); c.Status != Absent {
					fmt.Fprintf(&b, "    %s\n", v.describeCache(id, c))
				}
			}
		}
	}
	return b.String()
}

// describe renders the batch as "ctx 1[0+8], gen 2".
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
			parts = append(parts, fmt.Sprintf("gen %d", e.ID))
		}
	}
	return strings.Join(parts, ", ")
}

// describeRequest renders one request, or "" when it is not arrived.
func (v rankView) describeRequest(id uint8) string {
	r := v.request(id)
	if r.State == NotArrived {
		return ""
	}
	name := fmt.Sprintf("req %d", id)
	if id == 0 {
		name = "dummy 0"
	}
	line := fmt.Sprintf("%s#%d %s prompt %d", name, r.Incarnation, r.State, r.Prompt)
	switch r.State {
	case ContextInit:
		line += fmt.Sprintf(" pos %d draft-pos %d reused %d", r.Position, r.DraftPosition, r.Reused)
	case GenerationInProgress, GenerationComplete:
		line += fmt.Sprintf(" tokens %d drafts %d accepted %d", r.NumTokens, r.DraftLen, r.Accepted)
	}
	return line
}

// describePool renders a pool's page accounting.
func (v rankView) describePool(p PoolKind) string {
	pool := v.pool(p)
	line := fmt.Sprintf("%s pool: %d/%d free, %d slots used", p, pool.Free, v.cfg.poolBlocks(p), v.liveCaches(p))
	var tree []string
	for f, n := range pool.Tree {
		if n > 0 {
			tree = append(tree, fmt.Sprintf("family %d: %d", f, n))
		}
	}
	if len(tree) > 0 {
		line += ", tree " + strings.Join(tree, ", ")
	}
	return line
}

// describeCache renders one cache.
func (v rankView) describeCache(id uint8, c *Cache) string {
	line := fmt.Sprintf("cache %d#%d %s cap %d hist %d committed %d blocks %d",
		id, c.Incarnation, c.Status, c.Capacity, c.History, c.Committed, v.cfg.blocksFor(c.Capacity))
	if c.Shared > 0 {
		line += fmt.Sprintf(" shared %d", c.Shared)
	}
	if c.Offloaded > 0 {
		line += fmt.Sprintf(" offloaded %d", c.Offloaded)
	}
	if c.AllocatedDraft > 0 {
		line += fmt.Sprintf(" allocated-draft %d", c.AllocatedDraft-1)
	}
	if c.Flags&flagStopCommitting != 0 {
		line += " stop-committing"
	}
	return line
}
