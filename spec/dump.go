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
	for i := 0; i < int(s.PipelineLen); i++ {
		it := &s.Pipeline[i]
		fmt.Fprintf(&b, "pipeline iteration %d: batch [%s] forwarded %s handled %s done %s", i, it.Batch.describe(),
			rankSet(it.Forwarded), rankSet(it.Handled), rankSet(it.Done))
		if it.HandleCount > 0 {
			fmt.Fprintf(&b, " handle-count %d", it.HandleCount-1)
		}
		b.WriteString("\n")
	}
	for r := uint8(0); r < sp.Config.Ranks; r++ {
		v := s.view(&sp.Config, r)
		fmt.Fprintf(&b, "rank %d: phase %s", r, v.rank.Phase)
		if v.rank.Batch.Count > 0 {
			fmt.Fprintf(&b, ", batch [%s]", v.rank.Batch.describe())
		}
		if v.rank.Previous.Count > 0 {
			fmt.Fprintf(&b, ", previous batch [%s]", v.rank.Previous.describe())
		}
		if v.rank.Phase == PhaseQueued || v.rank.Phase == PhasePrepared || v.rank.Phase == PhaseForwarded {
			if sp.Config.Loop == OverlapLoop {
				fmt.Fprintf(&b, ", can_queue %v this rank %v", v.rank.CanQueue, v.rank.CanQueueThisRank)
			}
		}
		if sp.Config.AttentionDP {
			fmt.Fprintf(&b, ", expected active %d", v.rank.ExpectedActive)
		}
		if sp.Config.Loop == PipelineLoop {
			fmt.Fprintf(&b, ", at pipeline iteration %d", v.rank.PipelinePos)
		}
		b.WriteString("\n")
		for id := uint8(0); id < MaxIDs; id++ {
			if line := v.describeRequest(id); line != "" {
				fmt.Fprintf(&b, "  %s\n", line)
			}
		}
		for p := Target; p < numPools; p++ {
			if !sp.Config.hasPool(r, p) {
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

// describeRequest renders one request, or "" when it is not arrived.
func (v rankView) describeRequest(id uint8) string {
	r := v.request(id)
	if r.State == NotArrived || (id == dummyID && r.State == Finished) {
		return ""
	}
	name := fmt.Sprintf("req %d", id)
	if id == 0 {
		name = "dummy 0"
	}
	line := fmt.Sprintf("%s#%d %s prompt %d", name, r.Incarnation, r.State, r.Prompt)
	if r.Flags&requestFlagPendingDummy != 0 {
		line += " pending"
	}
	if r.Flags&requestFlagInflight != 0 {
		line += " inflight"
	}
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
	line := fmt.Sprintf("%s pool: %d/%d free, %d slots used", p, pool.Free, v.cfg.poolBlocksOn(v.r, p), v.liveCaches(p))
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
