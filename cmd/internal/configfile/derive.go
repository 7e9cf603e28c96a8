package configfile

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/yamlconf"
	"gopkg.in/yaml.v3"
)

// deriver maps TensorRT-LLM LLM API options (tensorrt_llm/llmapi/
// llm_args.py: TorchLlmArgs and its KvCacheConfig, speculative and cache
// transceiver configs) and the kvcheck: section onto the settings of
// spec.Config's text form.
type deriver struct {
	r        *yamlconf.Reader
	ks       *section
	options  map[string]yamlconf.Field // dotted option names ("kv_cache_config.tokens_per_block")
	mapping  []Mapping
	warnings []string
	lines    []yamlconf.TextLine
}

// optionSections are the options whose value is a mapping of options
// read one by one.
var optionSections = map[string]bool{"kv_cache_config": true, "speculative_config": true}

// handledOptions are the options the derivation reads; any other is
// listed in a warning. cache_transceiver_config is read as a whole.
var handledOptions = map[string]bool{
	"kv_cache_config.enable_block_reuse": true, "kv_cache_config.tokens_per_block": true,
	"kv_cache_config.max_tokens": true, "kv_cache_config.free_gpu_memory_fraction": true,
	"kv_cache_config.host_cache_size": true, "kv_cache_config.max_util_for_resume": true,
	"kv_cache_config.use_kv_cache_manager_v2": true,
	"max_batch_size": true, "max_num_tokens": true, "max_seq_len": true,
	"enable_chunked_prefill": true, "enable_attention_dp": true,
	"tensor_parallel_size": true, "pipeline_parallel_size": true, "moe_expert_parallel_size": true,
	"speculative_config.decoding_type": true, "speculative_config.max_draft_len": true,
	"disable_overlap_scheduler": true, "cache_transceiver_config": true, "backend": true,
}

// emit records one mapping step and its settings.
func (d *deriver) emit(line int, option, why string, settings ...string) {
	d.mapping = append(d.mapping, Mapping{Line: line, Option: option, Settings: settings, Why: why})
	for _, s := range settings {
		d.lines = append(d.lines, yamlconf.TextLine{Text: s, Line: line})
	}
}

// option returns an option's field; ok is false when the file does not
// give it.
func (d *deriver) option(key string) (yamlconf.Field, bool) {
	fl, ok := d.options[key]
	return fl, ok
}

func (d *deriver) intOption(key string, def, lo, hi int64) (int64, int, string, error) {
	fl, ok := d.option(key)
	if !ok {
		return def, 0, fmt.Sprintf("%s (default %d)", key, def), nil
	}
	n, err := d.r.Int(fl, lo, hi)
	return n, fl.Line, fmt.Sprintf("%s: %d", key, n), err
}

func (d *deriver) boolOption(key string, def bool) (bool, int, string, error) {
	fl, ok := d.option(key)
	if !ok {
		return def, 0, fmt.Sprintf("%s (default %v)", key, def), nil
	}
	b, err := d.r.Bool(fl)
	return b, fl.Line, fmt.Sprintf("%s: %v", key, b), err
}

// sectionInt reads an integer key of the kvcheck: section.
func (d *deriver) sectionInt(key string, def, lo, hi int64) (int64, bool, error) {
	fl, ok := d.ks.has[key]
	if !ok {
		return def, false, nil
	}
	n, err := d.r.Int(fl, lo, hi)
	return n, true, err
}

// collect flattens the options into dotted names and warns about the
// ones not modeled.
func (d *deriver) collect(options []yamlconf.Field) error {
	d.options = map[string]yamlconf.Field{}
	var unmodeled []string
	for _, fl := range options {
		if optionSections[fl.Key] {
			if fl.Node.Kind == yaml.ScalarNode && fl.Node.Tag == "!!null" {
				continue
			}
			inner, err := d.r.Fields(fl.Node, fl.Key)
			if err != nil {
				return err
			}
			for _, in := range inner {
				name := fl.Key + "." + in.Key
				in.Key = name
				d.options[name] = in
				if !handledOptions[name] {
					unmodeled = append(unmodeled, fmt.Sprintf("%s (line %d)", name, in.Line))
				}
			}
			continue
		}
		d.options[fl.Key] = fl
		if !handledOptions[fl.Key] {
			unmodeled = append(unmodeled, fmt.Sprintf("%s (line %d)", fl.Key, fl.Line))
		}
	}
	if len(unmodeled) > 0 {
		d.warnings = append(d.warnings, "options kvcheck does not model, left out of the check: "+strings.Join(unmodeled, ", "))
	}
	return nil
}

// derive maps the options onto settings. Every number of the real engine
// that a finite model cannot keep is scaled or capped, and the mapping
// says how and why.
func (d *deriver) derive(options []yamlconf.Field) error {
	if err := d.collect(options); err != nil {
		return err
	}
	ks := d.ks
	if len(ks.requests) == 0 {
		return d.r.Errorf(ks.line, "kvcheck.requests: expected the requests the model sends, e.g. requests: [{prompt_pages: 3, new_tokens: 4, family: 0, shared_pages: 2}]")
	}
	if fl, ok := d.option("kv_cache_config.use_kv_cache_manager_v2"); ok {
		if v2, err := d.r.Bool(fl); err != nil {
			return err
		} else if !v2 {
			d.warnings = append(d.warnings, fmt.Sprintf("kv_cache_config.use_kv_cache_manager_v2: false (line %d) selects the V1 manager; kvcheck models KVCacheManagerV2 and checks that instead", fl.Line))
		}
	}

	// Scale: a model page stands for a real block.
	tpb := ks.tokensPerBlock
	realTPB, line, opt, err := d.intOption("kv_cache_config.tokens_per_block", 32, 1, 1<<20)
	if err != nil {
		return err
	}
	d.emit(line, opt, fmt.Sprintf("a model page of %d tokens (kvcheck.tokens_per_block) stands for a real block of %d: token counts are counted in pages", tpb, realTPB),
		fmt.Sprintf("tokens_per_block=%d", tpb))

	reuse, line, opt, err := d.boolOption("kv_cache_config.enable_block_reuse", true)
	if err != nil {
		return err
	}
	d.emit(line, opt, "kept", fmt.Sprintf("enable_block_reuse=%v", reuse))

	// Requests, in pages of the model.
	longest := int64(0)
	for _, r := range ks.requests {
		if r.sharedPages > r.promptPages {
			return d.r.Errorf(r.line, "requests: shared_pages %d is more than prompt_pages %d", r.sharedPages, r.promptPages)
		}
		longest = max(longest, r.promptPages*tpb)
	}

	// Speculative decoding and the draft pool.
	draftLen := int64(0)
	draftPool := "none"
	if fl, ok := d.option("speculative_config.decoding_type"); ok {
		kind, err := d.r.String(fl)
		if err != nil {
			return err
		}
		n, line, opt, err := d.intOption("speculative_config.max_draft_len", 1, 1, 64)
		if err != nil {
			return err
		}
		draftLen = min(n, 3)
		why := "kept"
		if n > 3 {
			why = "capped at 3, the most drafts per step the state keeps"
		}
		d.emit(line, opt, why, fmt.Sprintf("max_draft_len=%d", draftLen), fmt.Sprintf("kv_reserve_draft_tokens=%d", draftLen))
		switch strings.ToLower(kind) {
		case "ngram", "user_provided":
			d.emit(fl.Line, "speculative_config.decoding_type: "+kind, "drafts without a draft KV cache: no draft pool", "draft_pool=none")
		default:
			draftPool = "unpaired"
			why := "a draft KV cache manager (MTP's draft layers; with DSA also the indexer cache) that the V2 scheduler leaves out of admission, as at v1.3.0rc25; kvcheck.draft_pool: paired models enable_joint_kv_cache_reuse"
			if fl, ok := ks.has["draft_pool"]; ok {
				s, err := d.r.String(fl)
				if err != nil {
					return err
				}
				draftPool, why = s, "kvcheck.draft_pool"
			}
			d.emit(fl.Line, "speculative_config.decoding_type: "+kind, why, "draft_pool="+draftPool)
		}
	}
	extra := 2*draftLen + 1

	// Batch size: every batch the model's requests can form.
	realBatch, line, opt, err := d.intOption("max_batch_size", 2048, 1, math.MaxInt32)
	if err != nil {
		return err
	}
	capBatch, given, err := d.sectionInt("max_batch_size", int64(min(len(ks.requests)+1, spec.MaxBatch)), 1, spec.MaxBatch)
	if err != nil {
		return err
	}
	batch := min(realBatch, capBatch)
	why := fmt.Sprintf("kept: at most the %d requests the model sends are in flight", len(ks.requests))
	if batch < realBatch {
		why = fmt.Sprintf("the model sends %d requests, so a batch of %d forms every batch they can (kvcheck.max_batch_size to change it)", len(ks.requests), batch)
		if given {
			why = "kvcheck.max_batch_size"
		}
	}
	d.emit(line, opt, why, fmt.Sprintf("max_batch_size=%d", batch))

	// Chunked prefill and the token budget.
	chunked, line, opt, err := d.boolOption("enable_chunked_prefill", false)
	if err != nil {
		return err
	}
	d.emit(line, opt, "kept; a chunk is a whole number of pages", fmt.Sprintf("enable_chunked_prefill=%v", chunked), fmt.Sprintf("chunk_unit_size=%d", tpb))
	realTokens, line, opt, err := d.intOption("max_num_tokens", 8192, 1, math.MaxInt32)
	if err != nil {
		return err
	}
	chunkPages, given, err := d.sectionInt("chunk_pages", 2, 1, 30)
	if err != nil {
		return err
	}
	realPages := max(1, realTokens/realTPB)
	pages := min(realPages, chunkPages)
	tokens := pages * tpb
	why = fmt.Sprintf("%d real blocks per iteration; the model keeps %d page(s) (kvcheck.chunk_pages: %d), so a prompt of more pages still takes several chunks", realPages, pages, chunkPages)
	if !given {
		why = fmt.Sprintf("%d real blocks per iteration; the model keeps %d page(s) (kvcheck.chunk_pages, default 2), so a prompt of more pages still takes several chunks", realPages, pages)
	}
	if !chunked {
		tokens = max(tokens, longest)
		why = fmt.Sprintf("without chunked prefill a prompt is scheduled whole: at least the longest prompt, %d model tokens", longest)
	}
	d.emit(line, opt, why, fmt.Sprintf("max_num_tokens=%d", min(tokens, spec.MaxTokens)))

	// Parallelism and the executor loop.
	tp, tpLine, tpOpt, err := d.intOption("tensor_parallel_size", 1, 1, 1<<16)
	if err != nil {
		return err
	}
	pp, ppLine, ppOpt, err := d.intOption("pipeline_parallel_size", 1, 1, 1<<16)
	if err != nil {
		return err
	}
	adp, adpLine, adpOpt, err := d.boolOption("enable_attention_dp", false)
	if err != nil {
		return err
	}
	noOverlap, olLine, olOpt, err := d.boolOption("disable_overlap_scheduler", false)
	if err != nil {
		return err
	}
	ranksCap, ranksGiven, err := d.sectionInt("ranks", 2, 1, spec.MaxRanks)
	if err != nil {
		return err
	}
	loop := "overlap"
	if noOverlap {
		loop = "non-overlap"
	}
	switch {
	case pp > 1 && adp && tp > 1:
		stages := min(pp, spec.MaxRanks/2)
		d.emit(ppLine, ppOpt, fmt.Sprintf("%d pipeline stages run PyExecutor._executor_loop_pp, each with its attention-DP ranks", stages), fmt.Sprintf("ranks=%d", 2*stages), "loop=pipeline")
		d.emit(adpLine, adpOpt, "each first-stage attention-DP rank schedules its own micro-batch; _can_queue vetoes a stage with an empty one", "enable_attention_dp=true")
		d.emit(tpLine, tpOpt, "2 attention-DP ranks per stage show every interaction between them (kvcheck.ranks does not apply)", "stage_adp_ranks=2")
		d.emit(olLine, olOpt, "the pipeline loop has its own overlap of micro-batches")
	case pp > 1:
		ranks := min(pp, spec.MaxRanks)
		why := fmt.Sprintf("%d pipeline stages run PyExecutor._executor_loop_pp: rank 0 schedules micro-batches, the others follow", ranks)
		if ranksGiven {
			ranks = min(ranks, ranksCap)
			why += " (kvcheck.ranks)"
		}
		d.emit(ppLine, ppOpt, why, fmt.Sprintf("ranks=%d", ranks), "loop=pipeline")
		if tp > 1 {
			d.emit(tpLine, tpOpt, "the tensor-parallel ranks of a stage shard heads and make the same KV-cache decisions: one rank per stage stands for them")
		}
		d.emit(olLine, olOpt, "the pipeline loop has its own overlap of micro-batches")
	case adp:
		ranks := min(tp, ranksCap)
		d.emit(adpLine, adpOpt, "each attention-DP rank schedules its own requests and pads empty batches with dummies", "enable_attention_dp=true")
		d.emit(tpLine, tpOpt, fmt.Sprintf("%d attention-DP ranks show every interaction between ranks (kvcheck.ranks, default 2)", ranks), fmt.Sprintf("ranks=%d", ranks))
		d.emit(olLine, olOpt, "kept", "loop="+loop)
	default:
		why := "one rank"
		if tp > 1 {
			why = "without attention DP the tensor-parallel ranks shard heads and make the same KV-cache decisions: one rank stands for them"
		}
		d.emit(tpLine, tpOpt, why, "ranks=1")
		d.emit(olLine, olOpt, "kept", "loop="+loop)
	}
	if fl, ok := d.option("moe_expert_parallel_size"); ok {
		d.emit(fl.Line, "moe_expert_parallel_size", "expert parallelism does not change the KV cache's decisions")
	}
	if fl, ok := d.option("cache_transceiver_config"); ok {
		d.emit(fl.Line, "cache_transceiver_config", "disaggregated serving: a KV cache transceiver exists; requests with receiving_kv: true arrive as generation requests receiving their KV", "kv_cache_transceiver=true")
	}

	// Pools, in pages.
	perRequest := (longest + extra + 4*tpb + tpb - 1) / tpb // prompt, drafts and new tokens, rounded up
	defTarget := (3*perRequest + 1) / 2
	target, given, err := d.sectionInt("target_pages", defTarget, 1, 250)
	if err != nil {
		return err
	}
	line, opt = 0, "kv_cache_config.max_tokens / free_gpu_memory_fraction"
	for _, k := range []string{"kv_cache_config.max_tokens", "kv_cache_config.free_gpu_memory_fraction"} {
		if fl, ok := d.option(k); ok {
			line, opt = fl.Line, fmt.Sprintf("%s: %s", k, fl.Node.Value)
			break
		}
	}
	why = fmt.Sprintf("the real pool's size is scaled to what the model's requests contend for: kvcheck.target_pages %d", target)
	if !given {
		why = fmt.Sprintf("the real pool's size is scaled to what the model's requests contend for: kvcheck.target_pages not given, 1.5 times the longest request's ~%d pages", perRequest)
	}
	d.emit(line, opt, why, fmt.Sprintf("target_blocks=%d", target))
	if given {
		// An error about the size points at the key that gave it.
		d.lines[len(d.lines)-1].Line = d.ks.has["target_pages"].Line
	}
	if draftPool != "none" {
		draft, given, err := d.sectionInt("draft_pages", target, 1, 250)
		if err != nil {
			return err
		}
		why := "the draft pool is sized to the same token count as the target (kvcheck.draft_pages to change it)"
		if given {
			why = "kvcheck.draft_pages"
		}
		d.emit(d.ks.has["draft_pages"].Line, "draft pool pages", why, fmt.Sprintf("draft_blocks=%d", draft))
	}
	for _, k := range []struct{ key, setting, why string }{
		{"stage_target_pages", "stage_target_blocks", "each pipeline stage's own target pool, stage 0 first (0 = target_pages): the last stage splits its budget with the MTP layers"},
		{"stage_draft_pages", "stage_draft_blocks", "each pipeline stage's own draft pool, stage 0 first (0 = draft_pages)"},
	} {
		fl, ok := ks.has[k.key]
		if !ok {
			continue
		}
		pages, err := d.r.IntList(fl, 0, 250, spec.MaxRanks)
		if err != nil {
			return err
		}
		d.emit(fl.Line, "kvcheck."+k.key, k.why, k.setting+"="+joinInts(pages))
	}
	slots, given, err := d.sectionInt("index_slots", batch+1, 1, 250)
	if err != nil {
		return err
	}
	why = "one IndexMapper slot more than a batch holds (kvcheck.index_slots to change it)"
	if given {
		why = "kvcheck.index_slots"
	}
	d.emit(d.ks.has["index_slots"].Line, "index slots", why, fmt.Sprintf("target_index_slots=%d", slots), fmt.Sprintf("draft_index_slots=%d", slots))
	if fl, ok := d.option("kv_cache_config.max_util_for_resume"); ok {
		x, err := d.r.Float(fl, 0, 1)
		if err != nil {
			return err
		}
		d.emit(fl.Line, fmt.Sprintf("kv_cache_config.max_util_for_resume: %g", x), "a ratio: kept, in percent", fmt.Sprintf("max_util_for_resume=%d", int(math.Round(x*100))))
	} else {
		d.emit(0, "kv_cache_config.max_util_for_resume (default 0.95)", "TensorRT-LLM's default resume gate, in percent", "max_util_for_resume=95")
	}
	if fl, ok := d.option("kv_cache_config.host_cache_size"); ok {
		n, err := d.r.Int(fl, 0, math.MaxInt64)
		if err != nil {
			return err
		}
		settings := []string{fmt.Sprintf("host_tier=%v", n > 0)}
		why := "a host tier exists when it is above 0; as many host pages as GPU pages (kvcheck.host_pages to change it)"
		if hp, given, err := d.sectionInt("host_pages", 0, 0, 250); err != nil {
			return err
		} else if given && n > 0 {
			settings = append(settings, fmt.Sprintf("host_blocks=%d", hp))
			why = "a host tier exists when it is above 0, of kvcheck.host_pages pages"
		}
		d.emit(fl.Line, fmt.Sprintf("kv_cache_config.host_cache_size: %d", n), why, settings...)
	}
	if fl, ok := d.option("max_seq_len"); ok {
		d.emit(fl.Line, "max_seq_len: "+fl.Node.Value, "bounds the real prompts; the model's are kvcheck.requests")
	}

	// The rest of the kvcheck: section.
	recompute := true
	if fl, ok := ks.has["recompute_pause"]; ok {
		if recompute, err = d.r.Bool(fl); err != nil {
			return err
		}
	}
	d.emit(ks.has["recompute_pause"].Line, "scheduler recompute pause", "the V2 scheduler's enable_recompute_pause (True in TensorRT-LLM; kvcheck.recompute_pause)", fmt.Sprintf("enable_recompute_pause=%v", recompute))
	for _, k := range []struct{ key, setting string }{{"draft_view", "draft_view"}, {"version", "version"}, {"early_finish", "early_finish"}, {"max_num_active_requests", "max_num_active_requests"}} {
		if fl, ok := ks.has[k.key]; ok {
			d.emit(fl.Line, "kvcheck."+k.key, "kvcheck: section", k.setting+"="+fl.Node.Value)
		}
	}
	if _, ok := ks.has["version"]; !ok {
		d.emit(0, "kvcheck.version (not given)", "v1.3.0rc25 (785c948): the mirror is created only in _prepare_draft_resources; 00746ef adds admit_mirror", "version=v1.3.0rc25")
	}
	for i, r := range ks.requests {
		family := "none"
		if r.family >= 0 {
			family = fmt.Sprint(r.family)
		}
		line := fmt.Sprintf("request prompt=%d new=%d family=%s shared=%d rank=%d", r.promptPages*tpb, r.newTokens, family, r.sharedPages*tpb, r.rank)
		if r.receivingKV {
			line += " receiving_kv=true"
		}
		d.emit(r.line, fmt.Sprintf("kvcheck.requests[%d]", i), "pages of the model's tokens_per_block", line)
	}
	return nil
}

// joinInts is "10,9".
func joinInts(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}
