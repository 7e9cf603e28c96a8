package configfile

import (
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
)

// Pressure is how `kvcheck check --config` checks a TensorRT-LLM options
// file by default: not its one derived configuration, whose pools a handful
// of requests may never fill, but a sweep of the sizes the derivation
// chose (every pool from the derived size down to one where the longest
// request barely fits, the batch size, the token budget), and a verdict
// that counts as ok only when some configuration of the sweep reached
// every pressure goal: each pool full, a request refused, one evicted. A
// sweep that reaches them all and breaks nothing has checked the code
// where it refuses and evicts; one that does not is vacuous and says so.
type Pressure struct {
	// Ranges are the sweep's ranges ("KEY=VALUES", space.NewConfigSpace's
	// form); the file's kvcheck.sweep replaces the range of each key it
	// names.
	Ranges []Range
	// Goals are the pressure goals, all required.
	Goals []string
	// Why says, a line per range, where it comes from.
	Why []string
}

// maxPressureValues bounds the values of one pool's range: a pool of many
// pages is swept at this many sizes, both ends included.
const maxPressureValues = 6

// pressureOf builds the pressure sweep around cfg, the file's derived
// configuration; user are the file's kvcheck.sweep ranges.
func pressureOf(cfg spec.Config, user []Range) *Pressure {
	p := &Pressure{Goals: []string{spec.GoalTargetPoolFull.Name}}
	if cfg.DraftPool != spec.NoDraftPool {
		p.Goals = append(p.Goals, spec.GoalDraftPoolFull.Name)
	}
	p.Goals = append(p.Goals, spec.GoalRequestRefused.Name, spec.GoalRequestEvicted.Name)
	userKeys := map[string]bool{}
	for _, r := range user {
		key, _, _ := strings.Cut(r.Text, "=")
		userKeys[strings.TrimSpace(key)] = true
	}
	add := func(key string, values []int, why string) {
		if userKeys[key] || len(values) < 2 {
			return
		}
		p.Ranges = append(p.Ranges, Range{Text: key + "=" + joinValues(values)})
		p.Why = append(p.Why, fmt.Sprintf("%s=%s: %s", key, joinValues(values), why))
	}
	stagePools := cfg.Loop == spec.PipelineLoop && cfg.StageTargetBlocks != [spec.MaxRanks]uint32{}
	if !stagePools {
		lo := smallestValid(cfg, "target_blocks", int(cfg.TargetBlocks))
		add("target_blocks", spread(lo, int(cfg.TargetBlocks)), fmt.Sprintf("the target pool from the derived %d pages down to %d, where the longest request barely fits", cfg.TargetBlocks, lo))
	} else {
		p.Why = append(p.Why, "target_blocks: not swept, every pipeline stage's target pool is kvcheck.stage_target_pages")
	}
	if cfg.DraftPool != spec.NoDraftPool && (!stagePools || cfg.StageDraftBlocks == [spec.MaxRanks]uint32{}) {
		lo := smallestValid(cfg, "draft_blocks", int(cfg.DraftBlocks))
		add("draft_blocks", spread(lo, int(cfg.DraftBlocks)), fmt.Sprintf("the draft pool from the derived %d pages down to %d, where the longest request barely fits", cfg.DraftBlocks, lo))
	}
	if cfg.MaxBatchSize > 1 {
		add("max_batch_size", interval(1, int(cfg.MaxBatchSize)), fmt.Sprintf("every batch size up to the derived %d", cfg.MaxBatchSize))
	}
	if cfg.ChunkedPrefill && cfg.TokensPerBlock > 0 {
		tpb := int(cfg.TokensPerBlock)
		var budgets []int
		for t := tpb; t <= int(cfg.MaxNumTokens); t += tpb {
			budgets = append(budgets, t)
		}
		if len(budgets) > maxPressureValues {
			budgets = pick(budgets, maxPressureValues)
		}
		add("max_num_tokens", budgets, fmt.Sprintf("every token budget of whole chunks up to the derived %d tokens (one page of %d a chunk at the least)", cfg.MaxNumTokens, tpb))
	}
	for _, r := range user {
		p.Ranges = append(p.Ranges, r)
		p.Why = append(p.Why, fmt.Sprintf("%s: kvcheck.sweep (line %d)", r.Text, r.Line))
	}
	return p
}

// smallestValid is the smallest value of key at most hi for which cfg is
// still a configuration kvcheck checks (Config.Validate: each pool holds
// the longest request).
func smallestValid(cfg spec.Config, key string, hi int) int {
	for v := 1; v < hi; v++ {
		if _, err := configtext.Parse(cfg, fmt.Sprintf("%s=%d", key, v)); err == nil {
			return v
		}
	}
	return hi
}

// spread is lo..hi, or maxPressureValues values of it, both ends included.
func spread(lo, hi int) []int {
	return pick(interval(lo, hi), maxPressureValues)
}

func interval(lo, hi int) []int {
	var out []int
	for v := lo; v <= hi; v++ {
		out = append(out, v)
	}
	return out
}

// pick keeps n values of xs evenly spaced, the first and last included.
func pick(xs []int, n int) []int {
	if len(xs) <= n {
		return xs
	}
	var out []int
	for i := 0; i < n; i++ {
		v := xs[i*(len(xs)-1)/(n-1)]
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

func joinValues(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}
