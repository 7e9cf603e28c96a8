package configfile

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// draftKV says, for each speculative_config.decoding_type TensorRT-LLM's
// PyTorch backend takes (the SpeculativeConfig union of llm_args.py at
// 0004396, plus names of earlier releases), whether its drafter keeps a
// KV cache of its own (kvcheck's draft pool) and, when kvcheck cannot
// model it, why not.
var draftKV = map[string]struct {
	pool    bool
	refused string
}{
	"mtp":           {pool: true},
	"eagle":         {pool: true},
	"eagle3":        {pool: true},
	"draft_target":  {pool: true},
	"drafttarget":   {pool: true},
	"dflash":        {pool: true},
	"dspark":        {pool: true},
	"ngram":         {},
	"sa":            {},
	"user_provided": {},
	"auto":          {},
	"pard":          {refused: "PARD runs 2 x max_draft_len tokens per generation step (PARDDecodingConfig.tokens_per_gen_step); the spec models 1 + max_draft_len"},
	"savestate":     {refused: "SaveState captures hidden states with max_batch_size 1 and no overlap; it is not a serving mode"},
	"medusa":        {refused: "Medusa runs on the TensorRT backend, whose KV cache manager kvcheck does not model"},
}

// speculative maps speculative_config onto the draft length and the draft
// pool: "none", "unpaired" or "paired".
func (d *deriver) speculative() (int64, string, error) {
	ks := d.ks
	fl, ok := d.option("speculative_config.decoding_type")
	if !ok {
		if sc, ok := d.option("speculative_config"); ok {
			return 0, "", d.r.Errorf(sc.Line, "speculative_config: expected decoding_type: (MTP, Eagle3, NGram, ...), which TensorRT-LLM's SpeculativeConfig needs to pick the drafter")
		}
		for _, k := range []string{"draft_pool", "draft_pages", "stage_draft_pages"} {
			kf, given := ks.has[k]
			if !given || (k == "draft_pool" && kf.Node.Kind == yaml.ScalarNode && kf.Node.Value == "none") {
				continue
			}
			return 0, "", d.r.Errorf(kf.Line, "kvcheck.%s: the file has no speculative_config, so there is no draft KV cache for it to describe; give the speculative_config your deployment runs, or remove kvcheck.%s", k, k)
		}
		return 0, "none", nil
	}
	kind, err := d.r.String(fl)
	if err != nil {
		return 0, "", err
	}
	lower := strings.ToLower(kind)
	info, known := draftKV[lower]
	if !known {
		var names []string
		for n := range draftKV {
			names = append(names, n)
		}
		sort.Strings(names)
		return 0, "", d.r.Errorf(fl.Line, "speculative_config.decoding_type: unknown decoding type %q; expected one of (any case): %s", kind, strings.Join(names, ", "))
	}
	if info.refused != "" {
		return 0, "", d.r.Errorf(fl.Line, "speculative_config.decoding_type: %s: %s, so kvcheck cannot check it", kind, info.refused)
	}
	n, line, opt, why, err := d.draftLen(lower)
	if err != nil {
		return 0, "", err
	}
	draftLen := min(n, 3)
	if n > 3 {
		why += "; capped at 3, the most drafts per step the state keeps"
	}
	d.emit(line, opt, why, fmt.Sprintf("max_draft_len=%d", draftLen), fmt.Sprintf("kv_reserve_draft_tokens=%d", draftLen))
	if !info.pool {
		if pf, ok := ks.has["draft_pool"]; ok && pf.Node.Value != "none" {
			return 0, "", d.r.Errorf(pf.Line, "kvcheck.draft_pool: %s: decoding type %s drafts without a KV cache of its own, so there is no draft pool to pair", pf.Node.Value, kind)
		}
		d.emit(fl.Line, "speculative_config.decoding_type: "+kind, "drafts without a draft KV cache: no draft pool", "draft_pool=none")
		return draftLen, "none", nil
	}
	draftPool := "unpaired"
	why = "a draft KV cache manager (MTP's draft layers; with DSA also the indexer cache) that the V2 scheduler leaves out of admission, as at v1.3.0rc25; kvcheck.draft_pool: paired models enable_joint_kv_cache_reuse"
	if pf, ok := ks.has["draft_pool"]; ok {
		s, err := d.r.String(pf)
		if err != nil {
			return 0, "", err
		}
		if s != "unpaired" && s != "paired" && s != "none" {
			return 0, "", d.r.Errorf(pf.Line, "draft_pool: expected unpaired, paired or none, got %q", s)
		}
		draftPool, why = s, "kvcheck.draft_pool"
	}
	d.emit(fl.Line, "speculative_config.decoding_type: "+kind, why, "draft_pool="+draftPool)
	return draftLen, draftPool, nil
}

// draftLen reads the draft length: max_draft_len, or for MTP
// num_nextn_predict_layers, the form TensorRT-LLM's MTP examples use.
// MTPDecodingConfig reads it as max_draft_len: llm_args.py at 0004396
// (_remap_deprecated_num_nextn_predict_layers: it becomes max_draft_len
// when that is not given, and is dropped when it is), and earlier
// releases (set_max_total_draft_tokens: max_draft_len =
// num_nextn_predict_layers, "N modules produce N draft tokens"). When both
// are given and differ the releases disagree, so kvcheck refuses to guess.
// When neither is, MTP takes the checkpoint's num_nextn_predict_layers
// (update_spec_config_from_model_config), which kvcheck cannot read.
func (d *deriver) draftLen(kind string) (n int64, line int, opt, why string, err error) {
	maxFl, hasMax := d.option("speculative_config.max_draft_len")
	nextFl, hasNext := d.option("speculative_config.num_nextn_predict_layers")
	if hasNext && kind != "mtp" {
		return 0, 0, "", "", d.r.Errorf(nextFl.Line, "speculative_config.num_nextn_predict_layers: an option of MTP (MTPDecodingConfig); decoding type %s takes max_draft_len", kind)
	}
	switch {
	case hasMax && hasNext:
		a, err := d.r.Int(maxFl, 1, 64)
		if err != nil {
			return 0, 0, "", "", err
		}
		b, err := d.r.Int(nextFl, 1, 64)
		if err != nil {
			return 0, 0, "", "", err
		}
		if a != b {
			return 0, 0, "", "", d.r.Errorf(nextFl.Line, "speculative_config: num_nextn_predict_layers %d and max_draft_len %d (line %d) disagree, and TensorRT-LLM's releases read the pair differently (llm_args.py at 0004396 keeps max_draft_len, earlier releases num_nextn_predict_layers); give one", b, a, maxFl.Line)
		}
		return a, maxFl.Line, fmt.Sprintf("speculative_config.max_draft_len: %d", a), "kept (num_nextn_predict_layers agrees)", nil
	case hasNext:
		b, err := d.r.Int(nextFl, 1, 64)
		if err != nil {
			return 0, 0, "", "", err
		}
		return b, nextFl.Line, fmt.Sprintf("speculative_config.num_nextn_predict_layers: %d", b),
			fmt.Sprintf("MTP's draft length: %d MTP modules draft %d tokens (MTPDecodingConfig takes num_nextn_predict_layers as max_draft_len, llm_args.py)", b, b), nil
	case hasMax:
		a, err := d.r.Int(maxFl, 1, 64)
		if err != nil {
			return 0, 0, "", "", err
		}
		return a, maxFl.Line, fmt.Sprintf("speculative_config.max_draft_len: %d", a), "kept", nil
	}
	if kind == "mtp" {
		d.warnings = append(d.warnings, "speculative_config gives neither max_draft_len nor num_nextn_predict_layers: TensorRT-LLM takes the checkpoint's num_nextn_predict_layers, which kvcheck cannot read; it assumes 1 (DeepSeek-V3/R1 checkpoints have 1). Give max_draft_len to check your draft length")
		return 1, 0, "speculative_config.max_draft_len (not given)", "the checkpoint's num_nextn_predict_layers, assumed 1 (see the warning)", nil
	}
	return 0, 0, "", "", d.r.Errorf(d.options["speculative_config.decoding_type"].Line, "speculative_config: expected max_draft_len: N (N >= 1), which decoding type %s needs", kind)
}
