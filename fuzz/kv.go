package fuzz

import (
	"fmt"

	"github.com/kvcheck/kvcheck/model"
	"github.com/kvcheck/kvcheck/spec"
)

// KVSpec is the model.Spec of the KV-cache spec.
type KVSpec = model.Spec[spec.State, spec.Action]

// KVShrinkOptions are the shrink options for the KV-cache spec: its
// configuration reductions.
func KVShrinkOptions() ShrinkOptions[spec.State, spec.Action] {
	return ShrinkOptions[spec.State, spec.Action]{Reduce: KVReductions}
}

// KVReductions proposes the smaller configurations of a *spec.Spec, most
// simplifying first: drop a request template (the later requests are
// renumbered, as they arrive in template order), drop a rank, one block
// fewer in a pool, a shorter prompt, fewer new tokens. Each keeps the fixes
// and passes spec.Config.Validate. Another spec gets none.
func KVReductions(s KVSpec) []Reduction[spec.State, spec.Action] {
	sp, ok := s.(*spec.Spec)
	if !ok {
		return nil
	}
	var out []Reduction[spec.State, spec.Action]
	add := func(name string, cfg spec.Config, m *spec.Renumbering) {
		reduced, err := spec.New(cfg, sp.Fixes)
		if err != nil {
			return
		}
		out = append(out, Reduction[spec.State, spec.Action]{Name: name, Spec: reduced, Map: renumberTrace(m)})
	}
	base := sp.Config
	for i := len(base.Requests); i >= 1 && len(base.Requests) > 1; i-- {
		cfg, m := dropRequest(base, i)
		add(fmt.Sprintf("drop request %d", i), cfg, &m)
	}
	for r := int(base.Ranks) - 1; r >= 0 && base.Ranks > 1; r-- {
		cfg, m := dropRank(base, uint8(r))
		add(fmt.Sprintf("drop rank %d", r), cfg, &m)
	}
	if base.TargetBlocks > 1 {
		cfg := withRequests(base)
		cfg.TargetBlocks--
		add(fmt.Sprintf("target blocks %d→%d", base.TargetBlocks, cfg.TargetBlocks), cfg, nil)
	}
	if base.DraftPool != spec.NoDraftPool && base.DraftBlocks > 1 {
		cfg := withRequests(base)
		cfg.DraftBlocks--
		add(fmt.Sprintf("draft blocks %d→%d", base.DraftBlocks, cfg.DraftBlocks), cfg, nil)
	}
	for i, r := range base.Requests {
		for _, prompt := range smaller(r.PromptLen) {
			cfg := withRequests(base)
			cfg.Requests[i].PromptLen = prompt
			cfg.Requests[i].SharedPrefix = min(r.SharedPrefix, prompt)
			add(fmt.Sprintf("request %d prompt %d→%d", i+1, r.PromptLen, prompt), cfg, nil)
		}
	}
	for i, r := range base.Requests {
		for _, n := range smaller(r.MaxNewTokens) {
			cfg := withRequests(base)
			cfg.Requests[i].MaxNewTokens = n
			add(fmt.Sprintf("request %d new tokens %d→%d", i+1, r.MaxNewTokens, n), cfg, nil)
		}
	}
	return out
}

// smaller returns n/2 and n-1 (when at least 1 and distinct).
func smaller(n uint32) []uint32 {
	var out []uint32
	if n/2 >= 1 && n/2 < n-1 {
		out = append(out, n/2)
	}
	if n > 1 {
		out = append(out, n-1)
	}
	return out
}

// withRequests copies cfg with its own request slice.
func withRequests(cfg spec.Config) spec.Config {
	cfg.Requests = append([]spec.RequestTemplate(nil), cfg.Requests...)
	return cfg
}

// dropRequest removes request template id (1-based); later IDs move down.
func dropRequest(base spec.Config, id int) (spec.Config, spec.Renumbering) {
	cfg := withRequests(base)
	cfg.Requests = append(cfg.Requests[:id-1], cfg.Requests[id:]...)
	m := spec.IdentityRenumbering()
	m.ID[id] = spec.Dropped
	for old := id + 1; old < spec.MaxIDs; old++ {
		m.ID[old] = uint8(old - 1)
	}
	return cfg, m
}

// dropRank removes rank r and the requests routed to it; later ranks and
// requests move down.
func dropRank(base spec.Config, r uint8) (spec.Config, spec.Renumbering) {
	cfg := withRequests(base)
	cfg.Ranks--
	m := spec.IdentityRenumbering()
	m.Rank[r] = spec.Dropped
	for old := int(r) + 1; old < spec.MaxRanks; old++ {
		m.Rank[old] = uint8(old - 1)
	}
	cfg.Requests = cfg.Requests[:0]
	for i, t := range base.Requests {
		if t.Rank == r {
			m.ID[i+1] = spec.Dropped
			continue
		}
		if t.Rank > r {
			t.Rank--
		}
		cfg.Requests = append(cfg.Requests, t)
		m.ID[i+1] = uint8(len(cfg.Requests))
	}
	return cfg, m
}

// renumberTrace maps a trace through m (nil: unchanged).
func renumberTrace(m *spec.Renumbering) func([]spec.Action) []spec.Action {
	return func(trace []spec.Action) []spec.Action {
		if m == nil {
			return trace
		}
		out := make([]spec.Action, 0, len(trace))
		for _, a := range trace {
			if b, ok := a.Renumber(m); ok {
				out = append(out, b)
			}
		}
		return out
	}
}
