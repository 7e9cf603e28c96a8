package configfile

import (
	"math"
	"slices"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"gopkg.in/yaml.v3"
)

// section is the kvcheck: section of a YAML file: what the model needs
// to stay finite, and the scenario's own description.
type section struct {
	name, doc, report string
	goals             []spec.GoalDef
	fixSets           [][]spec.Fix
	expect            map[string]string
	depth, maxStates  int

	// scale: the model's tokens per page, and the caps of the derivation.
	tokensPerBlock int64
	has            map[string]field // every key given, for the derivation
	requests       []request
	// config is configuration text applied after the derivation.
	config []textLine
	// sweep are the ranges of kvcheck.sweep (kvcheck sweep --config).
	sweep []Range
}

// request is one item of kvcheck.requests.
type request struct {
	line                                int
	promptPages, newTokens, sharedPages int64
	family, rank                        int64 // family -1: none
	receivingKV                         bool
}

// sectionKeys documents every key of the kvcheck: section.
var sectionKeys = []string{"name", "doc", "report", "goals", "variants", "depth", "max_states",
	"tokens_per_block", "target_pages", "draft_pages", "stage_target_pages", "stage_draft_pages", "host_pages", "index_slots",
	"max_batch_size", "chunk_pages", "ranks", "draft_pool", "draft_view", "version",
	"recompute_pause", "early_finish", "max_num_active_requests", "requests", "config", "sweep"}

// parseSection reads the kvcheck: section. Keys the derivation uses are
// kept in has and read there.
func (f *reader) parseSection(sec field) (*section, error) {
	fields, err := f.mappingFields(sec.node, "kvcheck")
	if err != nil {
		return nil, err
	}
	ks := &section{has: map[string]field{}, expect: map[string]string{}, depth: defaultDepth, tokensPerBlock: 4}
	goalsGiven := false
	for _, fl := range fields {
		if !slices.Contains(sectionKeys, fl.key) {
			return nil, f.errAt(fl.line, "kvcheck: unknown key %s; expected one of: %s", quote(fl.key), strings.Join(sectionKeys, ", "))
		}
		ks.has[fl.key] = fl
		switch fl.key {
		case "name", "doc", "report":
			s, err := f.stringValue(fl)
			if err != nil {
				return nil, err
			}
			switch fl.key {
			case "name":
				ks.name = s
			case "doc":
				ks.doc = s
			default:
				ks.report = s
			}
		case "goals":
			names, err := f.stringList(fl)
			if err != nil {
				return nil, err
			}
			goalsGiven = true
			for _, n := range names {
				g, err := spec.LookupGoal(n)
				if err != nil {
					return nil, f.errAt(fl.line, "goals: %v", err)
				}
				ks.goals = append(ks.goals, g)
			}
		case "variants":
			if err := f.parseVariants(fl, ks); err != nil {
				return nil, err
			}
		case "depth":
			n, err := f.intValue(fl, 1, 1<<20)
			if err != nil {
				return nil, err
			}
			ks.depth = int(n)
		case "max_states":
			n, err := f.intValue(fl, 0, math.MaxInt32)
			if err != nil {
				return nil, err
			}
			ks.maxStates = int(n)
		case "tokens_per_block":
			n, err := f.intValue(fl, 1, 16)
			if err != nil {
				return nil, err
			}
			ks.tokensPerBlock = n
		case "requests":
			if err := f.parseRequests(fl, ks); err != nil {
				return nil, err
			}
		case "sweep":
			if ks.sweep, err = f.parseSweep(fl); err != nil {
				return nil, err
			}
		case "config":
			text, err := f.stringValue(fl)
			if err != nil {
				return nil, err
			}
			// A literal block (config: |) starts on the next line.
			first := fl.node.Line
			if fl.node.Style == yaml.LiteralStyle || fl.node.Style == yaml.FoldedStyle {
				first++
			}
			for i, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
				ks.config = append(ks.config, textLine{text: line, line: first + i})
			}
		}
	}
	if !goalsGiven {
		ks.goals = []spec.GoalDef{spec.GoalAllFinished}
	}
	if len(ks.expect) == 0 {
		ks.expect["real-code"] = spec.VerdictOK
	}
	return ks, nil
}

// parseVariants reads kvcheck.variants: a list of {fixes: LABEL, expect:
// VERDICT}, the real code among them.
func (f *reader) parseVariants(fl field, ks *section) error {
	if fl.node.Kind != yaml.SequenceNode {
		return f.errAt(fl.line, "variants: expected a list of {fixes: real-code|FIX[+FIX...], expect: ok|INVARIANT}, got %s", kindName(fl.node))
	}
	valid := []string{spec.VerdictOK}
	for _, inv := range invariantNames() {
		valid = append(valid, inv)
	}
	for _, item := range fl.node.Content {
		fields, err := f.mappingFields(item, "variants")
		if err != nil {
			return err
		}
		var label, verdict string
		for _, v := range fields {
			s, err := f.stringValue(v)
			if err != nil {
				return err
			}
			switch v.key {
			case "fixes":
				label = s
			case "expect":
				verdict = s
			default:
				return f.errAt(v.line, "variants: unknown key %s; expected fixes and expect", quote(v.key))
			}
		}
		if label == "" || verdict == "" {
			return f.errAt(item.Line, "variants: expected both fixes: (real-code or FIX[+FIX...]) and expect: (ok or an invariant)")
		}
		fixes, err := spec.ParseFixesLabel(label)
		if err != nil {
			return f.errAt(item.Line, "variants: %v", err)
		}
		if !slices.Contains(valid, verdict) {
			return f.errAt(item.Line, "variants: unknown verdict %s; expected one of: %s", quote(verdict), strings.Join(valid, ", "))
		}
		if _, dup := ks.expect[fixes.Label()]; dup {
			return f.errAt(item.Line, "variants: %s given twice", fixes.Label())
		}
		ks.expect[fixes.Label()] = verdict
		if fixes != 0 {
			ks.fixSets = append(ks.fixSets, fixes.List())
		}
	}
	if _, ok := ks.expect["real-code"]; !ok {
		return f.errAt(fl.line, "variants: expected the real code among them ({fixes: real-code, expect: ...})")
	}
	return nil
}

// invariantNames are the names of the spec's invariants.
func invariantNames() []string {
	sp, err := spec.Scenarios()[0].Spec(0)
	if err != nil {
		return nil
	}
	var out []string
	for _, inv := range sp.Invariants() {
		out = append(out, inv.Name)
	}
	return out
}

// parseRequests reads kvcheck.requests: a list of {prompt_pages: N,
// new_tokens: N, family: F, shared_pages: N, rank: R, receiving_kv: B}.
func (f *reader) parseRequests(fl field, ks *section) error {
	if fl.node.Kind != yaml.SequenceNode || len(fl.node.Content) == 0 {
		return f.errAt(fl.line, "requests: expected a list of {prompt_pages: N, new_tokens: N, family: F, shared_pages: N}, got %s", kindName(fl.node))
	}
	for _, item := range fl.node.Content {
		fields, err := f.mappingFields(item, "requests")
		if err != nil {
			return err
		}
		r := request{line: item.Line, family: -1}
		for _, v := range fields {
			var err error
			switch v.key {
			case "prompt_pages":
				r.promptPages, err = f.intValue(v, 1, 60)
			case "new_tokens":
				r.newTokens, err = f.intValue(v, 1, 60)
			case "shared_pages":
				r.sharedPages, err = f.intValue(v, 0, 60)
			case "family":
				r.family, err = f.intValue(v, 0, spec.MaxFamilies-1)
			case "rank":
				r.rank, err = f.intValue(v, 0, spec.MaxRanks-1)
			case "receiving_kv":
				r.receivingKV, err = f.boolValue(v)
			default:
				err = f.errAt(v.line, "requests: unknown key %s; expected prompt_pages, new_tokens, family, shared_pages, rank, receiving_kv", quote(v.key))
			}
			if err != nil {
				return err
			}
		}
		if r.promptPages == 0 || r.newTokens == 0 {
			return f.errAt(item.Line, "requests: expected prompt_pages: N and new_tokens: N (N >= 1) in every request")
		}
		if r.sharedPages > 0 && r.family < 0 {
			return f.errAt(item.Line, "requests: shared_pages needs a family: F (requests of one family share their first pages)")
		}
		ks.requests = append(ks.requests, r)
	}
	return nil
}
