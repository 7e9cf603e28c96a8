package triage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/space"
)

// change is one knob changed alone: the row it fills and the
// configuration and fixes it runs under.
type change struct {
	row   Row
	cfg   spec.Config
	fixes spec.Fixes
}

// knobChanges lists the dependency re-checks of a finding: each fix added
// or taken away (and every fix at once: --fix none), the version, the
// draft pool's mode and size, the host tier, recompute pause, chunked
// prefill, block reuse, the transceiver, each pool size and
// max_num_active_requests and max_batch_size one up and one down. A change
// that leaves the configuration canonically the same (a setting that
// cannot matter here, space.Canonical) is left out.
func knobChanges(f *Finding) []change {
	var out []change
	same := space.ConfigIdentity(ptr(space.Canonical(f.Config)))
	add := func(knob, from, to string, edit func(c *spec.Config)) {
		cfg := f.Config
		cfg.Requests = append([]spec.RequestTemplate(nil), f.Config.Requests...)
		edit(&cfg)
		if space.ConfigIdentity(ptr(space.Canonical(cfg))) == same {
			return
		}
		out = append(out, change{row: Row{Knob: knob, Change: from + " → " + to, from: from, to: to}, cfg: cfg, fixes: f.Fixes})
	}
	// Fixes.
	if len(f.Fixes.List()) > 1 {
		out = append(out, change{row: Row{Knob: "fixes", Change: fixWords(f.Fixes) + " → none", fixRow: 2}, cfg: f.Config, fixes: 0})
	}
	for _, fix := range spec.AllFixes() {
		switch {
		case f.Fixes.Has(fix):
			out = append(out, change{row: Row{Knob: "fix " + fix.String(), Change: "without " + fix.String(), fixRow: -1, fix: fix},
				cfg: f.Config, fixes: f.Fixes &^ (spec.Fixes(0).With(fix))})
		case fix.Reverts() != 0 && f.Config.PreFixes&fix.Reverts() == 0:
			// A historical bug's fix only turns its pre-fix switch off.
		default:
			out = append(out, change{row: Row{Knob: "fix " + fix.String(), Change: "with " + fix.String(), fixRow: 1, fix: fix},
				cfg: f.Config, fixes: f.Fixes.With(fix)})
		}
	}
	c := &f.Config
	// The version and the draft pool.
	for _, v := range []spec.CodeVersion{spec.VersionRC25, spec.Version00746ef} {
		if v != c.Version {
			add("version", c.Version.String(), v.String(), func(c *spec.Config) { c.Version = v })
		}
	}
	for _, m := range []spec.DraftPoolMode{spec.NoDraftPool, spec.UnpairedDraftPool, spec.PairedDraftPool} {
		if m == c.DraftPool {
			continue
		}
		add("draft_pool", c.DraftPool.String(), m.String(), func(c *spec.Config) {
			if c.DraftPool == spec.NoDraftPool {
				// A new draft pool like the target, with one draft token.
				c.DraftBlocks, c.DraftIndexSlots = c.TargetBlocks, c.TargetIndexSlots
				c.MaxDraftLen = max(c.MaxDraftLen, 1)
			}
			c.DraftPool = m
		})
	}
	// Switches.
	toggle := func(key string, get func(c *spec.Config) *bool, prepare func(c *spec.Config)) {
		v := *get(c)
		add(key, fmt.Sprint(v), fmt.Sprint(!v), func(c *spec.Config) {
			*get(c) = !v
			if prepare != nil {
				prepare(c)
			}
		})
	}
	toggle("host_tier", func(c *spec.Config) *bool { return &c.HostTier }, nil)
	toggle("enable_recompute_pause", func(c *spec.Config) *bool { return &c.RecomputePause }, nil)
	toggle("enable_chunked_prefill", func(c *spec.Config) *bool { return &c.ChunkedPrefill }, func(c *spec.Config) {
		if c.ChunkUnitSize == 0 {
			c.ChunkUnitSize = c.TokensPerBlock
		}
	})
	toggle("enable_block_reuse", func(c *spec.Config) *bool { return &c.BlockReuse }, nil)
	toggle("kv_cache_transceiver", func(c *spec.Config) *bool { return &c.KVTransceiver }, nil)
	// Sizes one up and one down.
	step := func(key string, get func(c *spec.Config) *uint32) {
		v := *get(c)
		for _, d := range []int{-1, 1} {
			if int(v)+d < 0 {
				continue
			}
			add(key, fmt.Sprint(v), fmt.Sprint(int(v)+d), func(c *spec.Config) { *get(c) = uint32(int(v) + d) })
		}
	}
	step8 := func(key string, get func(c *spec.Config) *uint8) {
		v := *get(c)
		for _, d := range []int{-1, 1} {
			if int(v)+d < 0 || int(v)+d > 255 {
				continue
			}
			add(key, fmt.Sprint(v), fmt.Sprint(int(v)+d), func(c *spec.Config) { *get(c) = uint8(int(v) + d) })
		}
	}
	step("target_blocks", func(c *spec.Config) *uint32 { return &c.TargetBlocks })
	if c.DraftPool != spec.NoDraftPool {
		step("draft_blocks", func(c *spec.Config) *uint32 { return &c.DraftBlocks })
	}
	if c.HostTier && c.HostBlocks != 0 {
		step("host_blocks", func(c *spec.Config) *uint32 { return &c.HostBlocks })
	}
	for r := 0; r < spec.MaxRanks; r++ {
		if c.StageTargetBlocks[r] != 0 {
			step(fmt.Sprintf("stage_target_blocks.%d", r), func(c *spec.Config) *uint32 { return &c.StageTargetBlocks[r] })
		}
		if c.StageDraftBlocks[r] != 0 {
			step(fmt.Sprintf("stage_draft_blocks.%d", r), func(c *spec.Config) *uint32 { return &c.StageDraftBlocks[r] })
		}
	}
	if c.AttentionDP {
		step8("max_num_active_requests", func(c *spec.Config) *uint8 { return &c.MaxNumActiveRequests })
	}
	step8("max_batch_size", func(c *spec.Config) *uint8 { return &c.MaxBatchSize })
	return out
}

func ptr[T any](v T) *T { return &v }

// fixWords is a fix set's names joined by "+".
func fixWords(fixes spec.Fixes) string {
	if names := fixes.Names(); len(names) > 0 {
		return strings.Join(names, "+")
	}
	return "none"
}

// dependencies turns the knob rows into what the finding needs (a knob
// value without which it is gone), the fixes that close it (gone when
// added), what it is indifferent to (a knob it persists through in every
// direction tried) and what is undetermined (a re-check cut by the
// budget).
func dependencies(rows []Row) (needs, closedBy, indifferent, undetermined []string) {
	needs, closedBy, indifferent = []string{}, []string{}, []string{}
	var closeNothing []string // fixes added that do not close it
	var order []string
	byKnob := map[string][]Row{}
	for _, r := range rows {
		if _, ok := byKnob[r.Knob]; !ok {
			order = append(order, r.Knob)
		}
		byKnob[r.Knob] = append(byKnob[r.Knob], r)
	}
	for _, knob := range order {
		var rs []Row // the changes that are valid configurations
		for _, r := range byKnob[knob] {
			if r.Verdict != NA {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			continue
		}
		var gone, same, cut []Row
		for _, r := range rs {
			switch r.Verdict {
			case Gone:
				gone = append(gone, r)
			case Same:
				same = append(same, r)
			case Cut:
				cut = append(cut, r)
			}
		}
		if rs[0].fixRow != 0 {
			r := rs[0]
			switch {
			case r.Verdict == Gone && r.fixRow == 2:
				needs = append(needs, "its fixes "+r.Change[:len(r.Change)-len(" → none")]+" (gone with --fix none)")
			case r.Verdict == Gone && r.fixRow < 0:
				needs = append(needs, fmt.Sprintf("fix %s (gone without it: the fix's own failure)", r.fix))
			case r.Verdict == Gone && r.fix.Reverts() != 0:
				needs = append(needs, fmt.Sprintf("pre_fix %s (the bug before %s; %s closes it)", strings.Join(preFixNames(r.fix.Reverts()), ","), r.fix.Source(), r.fix))
			case r.Verdict == Gone:
				closedBy = append(closedBy, r.fix.String())
			case r.Verdict == Same && r.fixRow == 2:
				indifferent = append(indifferent, "--fix none")
			case r.Verdict == Same && r.fixRow == 1:
				if len(closeNothing) == 0 {
					indifferent = append(indifferent, "") // filled in below
				}
				closeNothing = append(closeNothing, r.fix.String())
			case r.Verdict == Same:
				indifferent = append(indifferent, r.Change)
			case r.Verdict == Cut:
				undetermined = append(undetermined, r.Change+" (search cut)")
			}
			continue
		}
		switch {
		case len(gone) > 0 && len(gone)+len(cut) == len(rs) && numeric(rs):
			needs = append(needs, numericNeed(knob, rs[0].from, gone))
		case len(gone) > 0 && len(gone)+len(cut) == len(rs):
			needs = append(needs, fmt.Sprintf("%s=%s (gone at %s)", knob, rs[0].from, toWords(gone)))
		case len(gone) > 0 && numeric(rs):
			needs = append(needs, numericNeed(knob, rs[0].from, gone))
		case len(gone) > 0:
			needs = append(needs, fmt.Sprintf("%s=%s (gone at %s; there at %s)", knob, rs[0].from, toWords(gone), toWords(same)))
		case len(same) == len(rs) && numeric(rs) && len(rs) == 2:
			indifferent = append(indifferent, knob+" ±1")
		case len(same) == len(rs) && numeric(rs):
			indifferent = append(indifferent, knob+" "+rs[0].to)
		case len(same) == len(rs):
			indifferent = append(indifferent, knob)
		}
		for _, r := range cut {
			undetermined = append(undetermined, knob+"="+r.to+" (search cut)")
		}
	}
	for i, text := range indifferent {
		if text == "" {
			indifferent[i] = "each of " + strings.Join(closeNothing, ", ") + " (none closes it)"
		}
	}
	return needs, closedBy, indifferent, undetermined
}

// numeric reports whether a knob's rows are sizes one up and one down.
func numeric(rs []Row) bool {
	_, err := strconv.Atoi(rs[0].from)
	return err == nil
}

// numericNeed says which side of a size the finding needs.
func numericNeed(knob, from string, gone []Row) string {
	var v, up, down int
	fmt.Sscan(from, &v)
	for _, r := range gone {
		var to int
		fmt.Sscan(r.to, &to)
		if to > v {
			up++
		} else {
			down++
		}
	}
	switch {
	case up > 0 && down > 0:
		return fmt.Sprintf("%s = %s exactly (gone at %s)", knob, from, toWords(gone))
	case up > 0 && v == 0:
		// Sizes are unsigned: a finding gone at every larger value needs
		// exactly 0, which for several knobs means no bound at all
		// (max_num_active_requests 0 = no cap, host_blocks 0 = as many as
		// on GPU); "≤ 0" would read as a negative size.
		return fmt.Sprintf("%s = 0 (gone at %s)", knob, toWords(gone))
	case up > 0:
		return fmt.Sprintf("%s ≤ %s (gone at %s)", knob, from, toWords(gone))
	}
	return fmt.Sprintf("%s ≥ %s (gone at %s)", knob, from, toWords(gone))
}

// toWords lists the values rows changed a knob to.
func toWords(rows []Row) string {
	var out []string
	for _, r := range rows {
		out = append(out, r.to)
	}
	return strings.Join(out, " and ")
}

// preFixNames names the switches of a set.
func preFixNames(set spec.PreFixes) []string {
	var out []string
	for _, p := range spec.AllPreFixes() {
		if set.Has(p) {
			out = append(out, p.String())
		}
	}
	return out
}
