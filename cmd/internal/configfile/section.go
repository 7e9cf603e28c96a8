package configfile

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kvcheck/kvcheck/spec"

	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/yamlconf"
	"gopkg.in/yaml.v3"
)

// section is what the kvcheck: section of a TensorRT-LLM options file
// adds to a scenario's own keys (scenario.ParseSection): what the
// model needs to stay finite.
type section struct {
	// tokensPerBlock is the model's page size.
	tokensPerBlock int64
	has            map[string]yamlconf.Field // every key given, for the derivation
	requests       []request
	// sweep are the ranges of kvcheck.sweep (kvcheck sweep --config).
	sweep []Range
	// line is the kvcheck: key's, where errors about a key it lacks point.
	line int
}

// request is one item of kvcheck.requests.
type request struct {
	line                                int
	promptPages, newTokens, sharedPages int64
	family, rank                        int64 // -1: not given (no family; the router places the request)
	receivingKV                         bool
}

// sectionKeys are the keys of the kvcheck: section besides the
// scenario's own (name, doc, report, depth, max_states, goals, variants,
// config).
var sectionKeys = []string{"tokens_per_block", "target_pages", "draft_pages", "stage_target_pages", "stage_draft_pages",
	"host_pages", "index_slots", "max_batch_size", "chunk_pages", "ranks", "draft_pool", "draft_view", "version",
	"tensorrt_llm_version", "recompute_pause", "early_finish", "max_num_active_requests", "ignore_options", "requests", "sweep"}

// key takes one key of the kvcheck: section that is not the scenario's
// own.
func (ks *section) key(r *yamlconf.Reader, fl yamlconf.Field) error {
	if !slices.Contains(sectionKeys, fl.Key) {
		msg := fmt.Sprintf("kvcheck: unknown key %s", yamlconf.Quote(fl.Key))
		if near := nearestKeys(fl.Key, append(append([]string(nil), ownKeys...), sectionKeys...)); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		return r.Errorf(fl.Line, "%s; expected one of: %s, %s", msg, strings.Join(ownKeys, ", "), strings.Join(sectionKeys, ", "))
	}
	ks.has[fl.Key] = fl
	switch fl.Key {
	case "tokens_per_block":
		n, err := r.Int(fl, 1, 16)
		ks.tokensPerBlock = n
		return err
	case "requests":
		return ks.parseRequests(r, fl)
	case "sweep":
		var err error
		ks.sweep, err = parseSweep(r, fl)
		return err
	}
	return nil
}

// parseRequests reads kvcheck.requests: a list of {prompt_pages: N,
// new_tokens: N, family: F, shared_pages: N, rank: R, receiving_kv: B}.
func (ks *section) parseRequests(r *yamlconf.Reader, fl yamlconf.Field) error {
	if fl.Node.Kind == yaml.SequenceNode && len(fl.Node.Content) == 0 {
		return r.Errorf(fl.Line, "requests: expected at least one request {prompt_pages: N, new_tokens: N, family: F, shared_pages: N}, got an empty list")
	}
	if fl.Node.Kind != yaml.SequenceNode {
		return r.Errorf(fl.Line, "requests: expected a list of {prompt_pages: N, new_tokens: N, family: F, shared_pages: N}, got %s", yamlconf.KindName(fl.Node))
	}
	for _, item := range fl.Node.Content {
		fields, err := r.Fields(item, "requests")
		if err != nil {
			return err
		}
		req := request{line: item.Line, family: -1, rank: -1}
		for _, v := range fields {
			var err error
			switch v.Key {
			case "prompt_pages":
				req.promptPages, err = r.Int(v, 1, 60)
			case "new_tokens":
				req.newTokens, err = r.Int(v, 1, 60)
			case "shared_pages":
				req.sharedPages, err = r.Int(v, 0, 60)
			case "family":
				req.family, err = r.Int(v, 0, spec.MaxFamilies-1)
			case "rank":
				req.rank, err = r.Int(v, 0, spec.MaxRanks-1)
			case "receiving_kv":
				req.receivingKV, err = readBool(r, v)
			default:
				err = r.Errorf(v.Line, "requests: unknown key %s; expected prompt_pages, new_tokens, family, shared_pages, rank, receiving_kv", yamlconf.Quote(v.Key))
			}
			if err != nil {
				return err
			}
		}
		if req.promptPages == 0 || req.newTokens == 0 {
			return r.Errorf(item.Line, "requests: expected prompt_pages: N and new_tokens: N (N >= 1) in every request")
		}
		if req.sharedPages > 0 && req.family < 0 {
			return r.Errorf(item.Line, "requests: shared_pages needs a family: F (requests of one family share their first pages)")
		}
		ks.requests = append(ks.requests, req)
	}
	return nil
}

// ownKeys are the scenario's own keys of a kvcheck: section
// (scenario.ParseSection reads them, scenario.Keys lists them).
var ownKeys = scenario.Keys()

// nearestKeys returns the keys of known at edit distance at most 2 from
// key, nearest first.
func nearestKeys(key string, known []string) []string {
	var out []string
	for _, k := range known {
		if d := editDistance(key, k); d <= max(2, len(key)/4) && d > 0 {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return editDistance(key, out[i]) < editDistance(key, out[j]) })
	return out
}
