package space

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
)

// SpaceConfig is one configuration of a ConfigSpace, canonical, with the
// measures that order the space smallest first.
type SpaceConfig struct {
	Config spec.Config
	// Key is a compact encoding of the canonical configuration: its
	// identity within one build of the spec (see ConfigIdentity).
	Key string
	// Requests, Pages and Ranks order the space: fewest requests, then
	// pages, then ranks. Pages counts every GPU page of every pool on every
	// rank.
	Requests, Pages, Ranks int
	// Tokens is the requests' prompt and generation tokens, the next
	// tiebreak.
	Tokens int
}

// Text is the configuration's text form (configtext.Format).
func (c *SpaceConfig) Text() string { return configtext.Format(&c.Config) }

// SizeKey is the (requests, pages, ranks) a smallest counterexample is
// judged by, before its trace length.
func (c *SpaceConfig) SizeKey() [3]int { return [3]int{c.Requests, c.Pages, c.Ranks} }

// SpaceStats counts what enumeration saw.
type SpaceStats struct {
	// Combinations is the number of combinations of the ranges' values.
	Combinations int
	// Invalid failed Config.Validate; Equivalent were the same canonical
	// configuration as an earlier one (renamed ranks or families, or a
	// setting that cannot matter).
	Invalid, Equivalent int
}

// MaxSpaceCombinations bounds the combinations Enumerate walks, so a typo
// in a range fails at once instead of filling memory.
const MaxSpaceCombinations = 20_000_000

// Enumerate returns every valid configuration of the space, canonical and
// each once, smallest first: by requests, pages, ranks, tokens, then text.
// The order is deterministic, so an index into it names a configuration
// (sharding relies on this).
func (cs *ConfigSpace) Enumerate() ([]SpaceConfig, SpaceStats, error) {
	return cs.EnumerateUntil(nil)
}

// ErrEnumerationStopped is EnumerateUntil's error when stop ended it.
var ErrEnumerationStopped = errors.New("the enumeration was stopped")

// EnumerateUntil is Enumerate that asks stop (when not nil), after every
// 4,096 combinations, whether to give up, and then returns
// ErrEnumerationStopped: a sweep's --time budget and its interrupt bound
// the enumeration of a large space too (a small one is always enumerated).
func (cs *ConfigSpace) EnumerateUntil(stop func() bool) ([]SpaceConfig, SpaceStats, error) {
	var stats SpaceStats
	if err := cs.checkSpaceSize(); err != nil {
		return nil, stats, err
	}
	settings := 1
	for _, s := range cs.Settings {
		settings *= len(s.Values)
	}
	sequences := [][]spec.RequestTemplate{cs.Base.Requests}
	if cs.Mix != nil {
		sequences = nil
	}
	// The request sequences depend on tokens_per_block and ranks, so they
	// are made per setting combination (and memoized).
	type seqKey struct {
		tpb   uint32
		ranks uint8
	}
	memo := map[seqKey][][]spec.RequestTemplate{}
	seen := map[string]bool{}
	var out []SpaceConfig
	idx := make([]int, len(cs.Settings))
	setters := make([]func(*spec.Config, string) error, len(cs.Settings))
	for i, s := range cs.Settings {
		set, err := s.setter()
		if err != nil {
			return nil, stats, err
		}
		setters[i] = set
	}
	for step := 0; ; step++ {
		if stop != nil && step > 0 && step%4096 == 0 && stop() {
			return nil, stats, ErrEnumerationStopped
		}
		cfg := cs.Base
		for i, s := range cs.Settings {
			if err := setters[i](&cfg, s.Values[idx[i]]); err != nil {
				return nil, stats, fmt.Errorf("%s=%s: %v", s.Key, s.Values[idx[i]], err)
			}
		}
		seqs := sequences
		if cs.Mix != nil {
			k := seqKey{cfg.TokensPerBlock, cfg.Ranks}
			if cfg.Loop == spec.PipelineLoop || !cs.Mix.Spread {
				k.ranks = 1
			}
			if _, ok := memo[k]; !ok {
				if err := cs.Mix.checkSequences(k.ranks); err != nil {
					return nil, stats, err
				}
				memo[k] = cs.Mix.sequences(k.tpb, k.ranks)
			}
			seqs = memo[k]
		}
		stats.Combinations += len(seqs)
		if stats.Combinations > MaxSpaceCombinations {
			return nil, stats, fmt.Errorf("the ranges give more than %d combinations (%d setting combinations times the request sequences); narrow them", MaxSpaceCombinations, settings)
		}
		for _, seq := range seqs {
			c := cfg
			c.Requests = seq
			if c.Validate() != nil {
				stats.Invalid++
				continue
			}
			c = Canonical(c)
			key := ConfigIdentity(&c)
			if seen[key] {
				stats.Equivalent++
				continue
			}
			seen[key] = true
			out = append(out, measure(c, key))
		}
		if !nextIndex(idx, cs.Settings) {
			break
		}
	}
	slices.SortFunc(out, compareSpaceConfigs)
	return out, stats, nil
}

// compareSpaceConfigs orders configurations smallest first.
func compareSpaceConfigs(a, b SpaceConfig) int {
	return cmp.Or(cmp.Compare(a.Requests, b.Requests), cmp.Compare(a.Pages, b.Pages), cmp.Compare(a.Ranks, b.Ranks),
		cmp.Compare(a.Tokens, b.Tokens), strings.Compare(a.Key, b.Key))
}

// ConfigIdentity encodes every field of cfg, requests included: equal
// encodings are equal configurations. Cheaper than configtext.Format by far, it
// identifies a configuration within one build of the spec; a result cache
// keyed on it must also key on the spec's SourceHash.
func ConfigIdentity(cfg *spec.Config) string {
	b := make([]byte, 0, 64)
	var enc func(v reflect.Value)
	enc = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				enc(v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			b = append(b, byte(v.Len()))
			for i := 0; i < v.Len(); i++ {
				enc(v.Index(i))
			}
		case reflect.Bool:
			if v.Bool() {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case reflect.Uint8:
			b = append(b, byte(v.Uint()))
		case reflect.Uint16, reflect.Uint32, reflect.Uint64:
			b = binary.LittleEndian.AppendUint64(b, v.Uint())
		default:
			panic(fmt.Sprintf("ConfigIdentity: a %s field; extend the encoding", v.Kind()))
		}
	}
	enc(reflect.ValueOf(cfg).Elem())
	return string(b)
}

// nextIndex advances the odometer idx over the settings' values; false
// when it wrapped.
func nextIndex(idx []int, settings []SettingRange) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		idx[i]++
		if idx[i] < len(settings[i].Values) {
			return true
		}
		idx[i] = 0
	}
	return false
}

// measure fills a SpaceConfig's measures.
func measure(c spec.Config, key string) SpaceConfig {
	sc := SpaceConfig{Config: c, Key: key, Requests: len(c.Requests), Ranks: int(c.Ranks), Pages: spec.ConfigPages(&c)}
	for _, t := range c.Requests {
		sc.Tokens += int(t.PromptLen) + int(t.MaxNewTokens)
	}
	return sc
}

// sequences returns every request sequence of the mix with tokens_per_block
// tpb over ranks ranks, routings up to renaming ranks.
func (m *RequestMix) sequences(tpb uint32, ranks uint8) [][]spec.RequestTemplate {
	kinds := m.kinds(tpb)
	var out [][]spec.RequestTemplate
	for _, count := range m.Count {
		seq := make([]spec.RequestTemplate, count)
		var fill func(i int, usedRanks uint8)
		fill = func(i int, usedRanks uint8) {
			if i == count {
				out = append(out, slices.Clone(seq))
				return
			}
			for _, k := range kinds {
				// Ranks are named in order of first use: a request goes to a
				// rank already used or to the next one.
				for r := uint8(0); r <= usedRanks && r < ranks; r++ {
					k.Rank = r
					seq[i] = k
					fill(i+1, max(usedRanks, r+1))
				}
			}
		}
		fill(0, 0)
	}
	return out
}

// kinds are the requests the mix draws from with tokens_per_block tpb,
// before routing.
func (m *RequestMix) kinds(tpb uint32) []spec.RequestTemplate {
	var kinds []spec.RequestTemplate
	for _, p := range m.PromptPages {
		for _, n := range m.NewTokens {
			for _, s := range m.SharedPages {
				for _, kv := range m.ReceivingKV {
					for _, send := range m.SendingKV {
						prompt := p * int(tpb)
						// A context-only request produces only its first
						// token (Validate).
						if s > p || (kv && send) || (send && n != 1) {
							continue
						}
						r := spec.RequestTemplate{PromptLen: uint32(prompt), MaxNewTokens: uint32(n), Family: spec.NoFamily, ReceivingKV: kv, SendingKV: send}
						if s > 0 {
							r.Family = 0
							r.SharedPrefix = uint32(s * int(tpb))
						}
						kinds = append(kinds, r)
					}
				}
			}
		}
	}
	return kinds
}

// Canonical returns the representative of cfg's class of configurations
// that check the same: settings that cannot matter are reset (the draft
// pool's sizes without a draft pool, the host tier's without a host tier,
// the chunk unit without chunked prefill, a stage's own pool size where it
// equals the uniform one, the attention-DP settings without attention DP,
// prompt families without block reuse, the draft view without an unpaired
// mirror),
// shared prefixes are rounded down to whole blocks when partial reuse is
// off (only those are reused then; with enable_partial_reuse a match may
// end inside a block, so a prefix of 6 tokens reuses more than one of 4),
// and ranks and families are renamed in order of first use. Requests are
// never reordered: a request's ID is its arrival order.
func Canonical(cfg spec.Config) spec.Config {
	c := cfg
	c.Requests = slices.Clone(cfg.Requests)
	if c.DraftPool == spec.NoDraftPool {
		c.DraftBlocks, c.DraftIndexSlots, c.ReserveDraftTokens = 0, 0, 0
		c.StageDraftBlocks = [spec.MaxRanks]uint32{}
	}
	if !c.HostTier {
		c.HostBlocks, c.StageHostBlocks = 0, [spec.MaxRanks]uint32{}
	}
	for r := range spec.MaxRanks {
		if c.StageTargetBlocks[r] == c.TargetBlocks {
			c.StageTargetBlocks[r] = 0
		}
		if c.StageDraftBlocks[r] == c.DraftBlocks {
			c.StageDraftBlocks[r] = 0
		}
		if c.HostBlocks != 0 && c.StageHostBlocks[r] == c.HostBlocks {
			c.StageHostBlocks[r] = 0
		}
	}
	if c.DraftPool != spec.UnpairedDraftPool {
		c.DraftView = spec.DraftViewSameAsTarget
	}
	if !c.ChunkedPrefill {
		c.ChunkUnitSize = 0
	}
	if !c.AttentionDP {
		c.MaxNumActiveRequests, c.KVTransceiver, c.AdpDummyFixes = 0, false, false
	}
	if !c.BlockReuse {
		// the policy says when published blocks are committed, and
		// without reuse the budget's before- and after-reuse lengths agree
		c.ReusePolicy, c.PrefixAwareScheduling = spec.AllReusable, spec.SwitchOn
	}
	if c.Loop != spec.PipelineLoop || !c.RecomputePause {
		c.PPPropagatesRecomputePause = spec.SwitchOn
	}
	if !c.CountsStalledPasses() {
		c.DeadlockStallPasses = 0 // only the counting detector that raises reads it
	}
	families := map[uint8]uint8{}
	for i := range c.Requests {
		r := &c.Requests[i]
		if tpb := c.TokensPerBlock; tpb > 0 && !c.PartialReuse {
			r.SharedPrefix = r.SharedPrefix / tpb * tpb
		}
		if !c.BlockReuse || r.Family == spec.NoFamily || r.SharedPrefix == 0 {
			r.Family, r.SharedPrefix = spec.NoFamily, 0
			continue
		}
		f, ok := families[r.Family]
		if !ok {
			f = uint8(len(families))
			families[r.Family] = f
		}
		r.Family = f
	}
	if c.Loop != spec.PipelineLoop {
		ranks := map[uint8]uint8{}
		for i := range c.Requests {
			r := &c.Requests[i]
			n, ok := ranks[r.Rank]
			if !ok {
				n = uint8(len(ranks))
				ranks[r.Rank] = n
			}
			r.Rank = n
		}
	}
	return c
}
