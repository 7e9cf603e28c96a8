package configfile

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/yamlconf"
)

// deriver maps TensorRT-LLM LLM API options (tensorrt_llm/llmapi/
// llm_args.py: TorchLlmArgs and its KvCacheConfig, speculative, attention
// DP, scheduler and cache transceiver configs) and the kvcheck: section
// onto the settings of spec.Config's text form.
type deriver struct {
	r        *yamlconf.Reader
	ks       *section
	options  map[string]yamlconf.Field // dotted option names ("kv_cache_config.tokens_per_block")
	mapping  []Mapping
	warnings []string
	ignored  []string
	lines    []yamlconf.TextLine
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
	b, err := readBool(d.r, fl)
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
	if err := d.manager(); err != nil {
		return err
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
	partial, line, opt, err := d.boolOption("kv_cache_config.enable_partial_reuse", true)
	if err != nil {
		return err
	}
	if reuse {
		d.emit(line, opt, "kept: a reuse match may end inside a block, whose tokens a fresh page copies (copy_on_partial_reuse)", fmt.Sprintf("enable_partial_reuse=%v", partial))
	} else if line > 0 {
		d.emit(line, opt, "no effect without block reuse")
	}

	// Requests, in pages of the model.
	longest := int64(0)
	for _, r := range ks.requests {
		if r.sharedPages > r.promptPages {
			return d.r.Errorf(r.line, "requests: shared_pages %d is more than prompt_pages %d", r.sharedPages, r.promptPages)
		}
		longest = max(longest, r.promptPages*tpb)
	}

	draftLen, draftPool, err := d.speculative()
	if err != nil {
		return err
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

	adp, ranks, err := d.parallelism()
	if err != nil {
		return err
	}
	if fl, ok := d.option("moe_expert_parallel_size"); ok {
		d.emit(fl.Line, "moe_expert_parallel_size", "expert parallelism does not change the KV cache's decisions")
	}
	if fl, ok := d.option("cache_transceiver_config"); ok {
		d.emit(fl.Line, "cache_transceiver_config", "disaggregated serving: a KV cache transceiver exists; requests with receiving_kv: true arrive as generation requests receiving their KV", "kv_cache_transceiver=true")
	}
	if err := d.cudaGraphs(); err != nil {
		return err
	}

	// Pools, in pages.
	perRequest := (longest + extra + 4*tpb + tpb - 1) / tpb // prompt, drafts and new tokens, rounded up
	defTarget := (3*perRequest + 1) / 2
	target, given, err := d.sectionInt("target_pages", defTarget, 1, 250)
	if err != nil {
		return err
	}
	if err := d.poolSize(target, given, perRequest); err != nil {
		return err
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
		if err == nil && x == 0 {
			err = d.r.Errorf(fl.Line, "kv_cache_config.max_util_for_resume: expected a number above 0 and at most 1 (llm_args.py: gt=0, le=1), got the value %q", fl.Node.Value)
		}
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
	} else if fl, ok := ks.has["host_pages"]; ok {
		return d.r.Errorf(fl.Line, "kvcheck.host_pages: the file sets no kv_cache_config.host_cache_size, so there is no host tier for these pages")
	}
	if fl, ok := d.option("max_seq_len"); ok {
		if _, err := d.r.Int(fl, 1, math.MaxInt32); err != nil {
			return err
		}
		d.emit(fl.Line, "max_seq_len: "+fl.Node.Value, "bounds the real prompts; the model's are kvcheck.requests")
	}

	// The rest of the kvcheck: section.
	_, transceiver := d.option("cache_transceiver_config")
	recompute := !transceiver
	why = "the V2 scheduler's enable_recompute_pause (True in TensorRT-LLM; kvcheck.recompute_pause)"
	if transceiver {
		why = "the V2 scheduler's enable_recompute_pause is gated off with a KV cache transceiver (TensorRT-LLM PR #15252; kvcheck.recompute_pause)"
	}
	if fl, ok := ks.has["recompute_pause"]; ok {
		if recompute, err = readBool(d.r, fl); err != nil {
			return err
		}
		why = "kvcheck.recompute_pause"
	}
	d.emit(ks.has["recompute_pause"].Line, "scheduler recompute pause", why, fmt.Sprintf("enable_recompute_pause=%v", recompute))
	for _, k := range []struct{ key, setting string }{{"draft_view", "draft_view"}, {"early_finish", "early_finish"}, {"max_num_active_requests", "max_num_active_requests"}} {
		if fl, ok := ks.has[k.key]; ok {
			d.emit(fl.Line, "kvcheck."+k.key, "kvcheck: section", k.setting+"="+fl.Node.Value)
		}
	}
	if err := d.version(); err != nil {
		return err
	}
	return d.requests(adp, ranks)
}

// manager refuses a KV cache manager kvcheck does not model: the V1 (C++)
// manager, which use_kv_cache_manager_v2: false and the TensorRT backend
// select. Unset, TensorRT-LLM picks per model ("auto" at 0004396: the
// model's preference, else V1; False in earlier releases), so the check
// says what it assumes.
func (d *deriver) manager() error {
	if fl, ok := d.option("backend"); ok {
		b, err := d.r.String(fl)
		if err != nil {
			return err
		}
		switch strings.ToLower(b) {
		case "pytorch":
			d.emit(fl.Line, "backend: "+b, "the PyTorch backend, which runs KVCacheManagerV2 and its V2 scheduler")
		case "tensorrt", "trt":
			return d.r.Errorf(fl.Line, "backend: %s runs the C++ KV cache manager (V1); kvcheck models KVCacheManagerV2 of the PyTorch backend only, so it cannot check this deployment", b)
		default:
			return d.r.Errorf(fl.Line, "backend: %s has its own KV cache management; kvcheck models KVCacheManagerV2 of the PyTorch backend only (backend: pytorch)", b)
		}
	}
	fl, ok := d.option("kv_cache_config.use_kv_cache_manager_v2")
	if !ok {
		d.warnings = append(d.warnings, "kv_cache_config.use_kv_cache_manager_v2 is not given: TensorRT-LLM picks the manager per model (llm_args.py at 0004396: \"auto\", the model's preference, else V1; earlier releases: V1). kvcheck checks KVCacheManagerV2; set use_kv_cache_manager_v2: true if that is what your deployment runs")
		return nil
	}
	if fl.Node.Value == "auto" {
		d.warnings = append(d.warnings, fmt.Sprintf("kv_cache_config.use_kv_cache_manager_v2: auto (line %d) lets the model choose (V1 unless it prefers V2); kvcheck checks KVCacheManagerV2", fl.Line))
		return nil
	}
	v2, err := readBool(d.r, fl)
	if err != nil {
		return err
	}
	if !v2 {
		return d.r.Errorf(fl.Line, "kv_cache_config.use_kv_cache_manager_v2: false selects the V1 (C++) KV cache manager; kvcheck models KVCacheManagerV2 and its V2 scheduler only, so it cannot check this deployment (set it to true to check the V2 manager with these options)")
	}
	d.emit(fl.Line, "kv_cache_config.use_kv_cache_manager_v2: true", "KVCacheManagerV2 and the V2 scheduler, which the spec models")
	return nil
}

// poolSize maps the real pool's size onto the model's target pool.
func (d *deriver) poolSize(target int64, given bool, perRequest int64) error {
	line, opt := 0, "kv_cache_config.max_tokens / free_gpu_memory_fraction"
	if fl, ok := d.option("kv_cache_config.free_gpu_memory_fraction"); ok {
		x, err := d.r.Float(fl, 0, 1)
		if err != nil {
			return err
		}
		line, opt = fl.Line, fmt.Sprintf("kv_cache_config.free_gpu_memory_fraction: %g", x)
	}
	for _, k := range []string{"kv_cache_config.max_gpu_total_bytes", "kv_cache_config.max_tokens"} {
		if fl, ok := d.option(k); ok {
			lo := int64(1)
			if strings.HasSuffix(k, "bytes") {
				lo = 0
			}
			n, err := d.r.Int(fl, lo, math.MaxInt64)
			if err != nil {
				return err
			}
			line, opt = fl.Line, fmt.Sprintf("%s: %d", k, n)
		}
	}
	why := fmt.Sprintf("the real pool's size is scaled to what the model's requests contend for: kvcheck.target_pages %d; the pressure sweep tries every size down to one request barely fitting", target)
	if !given {
		why = fmt.Sprintf("the real pool's size is scaled to what the model's requests contend for: kvcheck.target_pages not given, 1.5 times the longest request's ~%d pages; the pressure sweep tries every size down to one request barely fitting", perRequest)
	}
	d.emit(line, opt, why, fmt.Sprintf("target_blocks=%d", target))
	if given {
		// An error about the size points at the key that gave it.
		d.lines[len(d.lines)-1].Line = d.ks.has["target_pages"].Line
	}
	return nil
}

// cudaGraphs maps cuda_graph_config: with enable_padding, batches are
// padded with CUDA-graph dummy requests, each holding an IndexMapper slot
// in every manager for the run (the slots PR #17347 reserves).
func (d *deriver) cudaGraphs() error {
	fl, ok := d.option("cuda_graph_config.enable_padding")
	if !ok {
		return nil
	}
	pad, err := readBool(d.r, fl)
	if err != nil {
		return err
	}
	if pad {
		d.emit(fl.Line, "cuda_graph_config.enable_padding: true", "batches are padded to a captured size with CUDA-graph dummy requests, one IndexMapper slot each in every manager", "cuda_graph_padding_dummies=1")
	} else {
		d.emit(fl.Line, "cuda_graph_config.enable_padding: false", "no CUDA-graph padding dummies")
	}
	return nil
}

// version maps kvcheck.version (a version the spec models, exactly) or
// kvcheck.tensorrt_llm_version (the user's release or commit, mapped onto
// the nearest modelled version with a warning, or refused).
func (d *deriver) version() error {
	versions := SpecVersions()
	exact, hasExact := d.ks.has["version"]
	user, hasUser := d.ks.has["tensorrt_llm_version"]
	switch {
	case hasExact && hasUser:
		return d.r.Errorf(user.Line, "kvcheck.tensorrt_llm_version and kvcheck.version (line %d) both given; expected one: your release (tensorrt_llm_version) or a version kvcheck models (version)", exact.Line)
	case hasExact:
		v, err := d.r.String(exact)
		if err != nil {
			return err
		}
		if !contains(versions, v) {
			return d.r.Errorf(exact.Line, "version: expected one of the versions kvcheck models, %s, got %q (your own release goes in kvcheck.tensorrt_llm_version, which maps it)", strings.Join(versions, ", "), v)
		}
		d.emit(exact.Line, "kvcheck.version: "+v, "a version the spec models", "version="+v)
	case hasUser:
		v, err := d.r.String(user)
		if err != nil {
			return err
		}
		choice, err := chooseVersion(v)
		if err != nil {
			return d.r.Errorf(user.Line, "tensorrt_llm_version: %v", err)
		}
		why := "the version the spec models for it"
		if choice.warning != "" {
			d.warnings = append(d.warnings, fmt.Sprintf("kvcheck.tensorrt_llm_version (line %d): %s", user.Line, choice.warning))
			why = "the nearest version the spec models (see the warning)"
		}
		d.emit(user.Line, "kvcheck.tensorrt_llm_version: "+v, why, "version="+choice.version)
	default:
		d.emit(0, "kvcheck.version (not given)", fmt.Sprintf("the spec's default, %s (versions modelled: %s; kvcheck.tensorrt_llm_version maps your release)", versions[0], strings.Join(versions, ", ")), "version="+versions[0])
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
