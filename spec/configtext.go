package spec

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// configField is one key of the configuration's text form, named after the
// TensorRT-LLM option it stands for.
type configField struct {
	key   string
	doc   string
	value func(c *Config) string
	set   func(c *Config, text string) error
}

func uint8Field(key, doc string, field func(c *Config) *uint8) configField {
	return configField{key, doc,
		func(c *Config) string { return strconv.Itoa(int(*field(c))) },
		func(c *Config, text string) error {
			n, err := strconv.Atoi(text)
			if err != nil || n < 0 || n > 255 {
				return fmt.Errorf("expected an integer 0..255, got %q", text)
			}
			*field(c) = uint8(n)
			return nil
		}}
}

func boolField(key, doc string, field func(c *Config) *bool) configField {
	return configField{key, doc,
		func(c *Config) string { return strconv.FormatBool(*field(c)) },
		func(c *Config, text string) error {
			b, err := strconv.ParseBool(text)
			if err != nil {
				return fmt.Errorf("expected true or false, got %q", text)
			}
			*field(c) = b
			return nil
		}}
}

func enumField[E ~uint8](key, doc string, names []string, field func(c *Config) *E) configField {
	return configField{key, doc,
		func(c *Config) string { return names[*field(c)] },
		func(c *Config, text string) error {
			for i, n := range names {
				if n == text {
					*field(c) = E(i)
					return nil
				}
			}
			return fmt.Errorf("expected one of %s, got %q", strings.Join(names, ", "), text)
		}}
}

// configFields lists every scalar key of the text form in a stable order.
var configFields = []configField{
	uint8Field("tokens_per_block", "tokens per KV block (page)", func(c *Config) *uint8 { return &c.TokensPerBlock }),
	uint8Field("max_draft_len", "max_total_draft_tokens D", func(c *Config) *uint8 { return &c.MaxDraftLen }),
	uint8Field("num_extra_kv_tokens", "num_extra_kv_tokens", func(c *Config) *uint8 { return &c.ExtraKVTokens }),
	uint8Field("kv_reserve_draft_tokens", "_kv_reserve_draft_tokens of a draft pool", func(c *Config) *uint8 { return &c.ReserveDraftTokens }),
	uint8Field("max_batch_size", "max_batch_size", func(c *Config) *uint8 { return &c.MaxBatchSize }),
	uint8Field("max_num_tokens", "max_num_tokens", func(c *Config) *uint8 { return &c.MaxNumTokens }),
	boolField("enable_chunked_prefill", "chunked prefill", func(c *Config) *bool { return &c.ChunkedPrefill }),
	uint8Field("chunk_unit_size", "chunk unit size", func(c *Config) *uint8 { return &c.ChunkUnitSize }),
	uint8Field("target_blocks", "GPU pages of the target pool per rank", func(c *Config) *uint8 { return &c.TargetBlocks }),
	uint8Field("draft_blocks", "GPU pages of the draft pool per rank", func(c *Config) *uint8 { return &c.DraftBlocks }),
	uint8Field("target_index_slots", "IndexMapper slots of the target manager", func(c *Config) *uint8 { return &c.TargetIndexSlots }),
	uint8Field("draft_index_slots", "IndexMapper slots of the draft manager", func(c *Config) *uint8 { return &c.DraftIndexSlots }),
	uint8Field("max_util_for_resume", "resume gate in percent", func(c *Config) *uint8 { return &c.ResumeGatePercent }),
	boolField("host_tier", "a cache tier below GPU exists", func(c *Config) *bool { return &c.HostTier }),
	boolField("enable_recompute_pause", "the scheduler may recompute-pause victims", func(c *Config) *bool { return &c.RecomputePause }),
	boolField("enable_block_reuse", "kv_cache_config.enable_block_reuse", func(c *Config) *bool { return &c.BlockReuse }),
	enumField("draft_pool", "none, unpaired or paired (enable_joint_kv_cache_reuse)", []string{"none", "unpaired", "paired"}, func(c *Config) *DraftPoolMode { return &c.DraftPool }),
	enumField("draft_view", "the unpaired mirror's context cursor", []string{"same-as-target", "lag-by-reuse"}, func(c *Config) *DraftViewMode { return &c.DraftView }),
	enumField("version", "modeled version of the real code", []string{"v1.3.0rc25", "00746ef"}, func(c *Config) *CodeVersion { return &c.Version }),
	boolField("early_finish", "the environment may end a request at EOS", func(c *Config) *bool { return &c.EarlyFinish }),
	uint8Field("ranks", "number of ranks", func(c *Config) *uint8 { return &c.Ranks }),
	enumField("loop", "executor loop", []string{"non-overlap", "overlap", "pipeline"}, func(c *Config) *LoopKind { return &c.Loop }),
	boolField("enable_attention_dp", "attention data parallelism", func(c *Config) *bool { return &c.AttentionDP }),
	uint8Field("max_num_active_requests", "pad cap of _pad_empty_attention_dp_batch (0 = none)", func(c *Config) *uint8 { return &c.MaxNumActiveRequests }),
	boolField("kv_cache_transceiver", "disaggregated serving (a KV cache transceiver exists)", func(c *Config) *bool { return &c.KVTransceiver }),
	boolField("enable_adp_dummy_fixes", "_enable_adp_dummy_fixes", func(c *Config) *bool { return &c.AdpDummyFixes }),
	boolField("pad_draft_after_allocation", "MTP pads py_draft_tokens after try_allocate_generation", func(c *Config) *bool { return &c.PadDraftAfterAllocation }),
	uint8Field("last_stage_target_blocks", "target pages of the last pipeline stage (0 = target_blocks)", func(c *Config) *uint8 { return &c.LastStageTargetBlocks }),
}

// FormatConfig renders cfg as text that ParseConfig reads back: one
// "key=value" line per setting, then one "request ..." line per request.
func FormatConfig(cfg *Config) string {
	var b strings.Builder
	for _, f := range configFields {
		fmt.Fprintf(&b, "%s=%s\n", f.key, f.value(cfg))
	}
	for _, r := range cfg.Requests {
		b.WriteString(formatRequest(r))
		b.WriteString("\n")
	}
	return b.String()
}

func formatRequest(r RequestTemplate) string {
	family := "none"
	if r.Family != NoFamily {
		family = strconv.Itoa(int(r.Family))
	}
	line := fmt.Sprintf("request prompt=%d new=%d family=%s shared=%d rank=%d", r.PromptLen, r.MaxNewTokens, family, r.SharedPrefix, r.Rank)
	if r.ReceivingKV {
		line += " receiving_kv=true"
	}
	return line
}

// ConfigError is a configuration text error at a line (1-based, relative to
// the text given to ParseConfig).
type ConfigError struct {
	Line int
	Msg  string
}

func (e *ConfigError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ParseConfig applies the settings in text to a copy of base and returns
// it, validated. A line holds one or more "key=value" settings separated by
// spaces, or one "request ..." line; keys not given keep base's values, and
// "request" lines, if any, replace base's requests. Blank lines and lines
// starting with '#' are ignored. Errors name the line and what was
// expected.
func ParseConfig(base Config, text string) (Config, error) {
	cfg := base
	cfg.Requests = append([]RequestTemplate(nil), base.Requests...)
	var requests []RequestTemplate
	seen := map[string]int{}
	for i, line := range strings.Split(text, "\n") {
		lineNo := i + 1
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "request ") || line == "request" {
			r, err := parseRequest(line)
			if err != nil {
				return Config{}, &ConfigError{lineNo, err.Error()}
			}
			requests = append(requests, r)
			continue
		}
		for _, pair := range strings.Fields(spacedEquals.ReplaceAllString(line, "=")) {
			if pair == "request" {
				return Config{}, &ConfigError{lineNo, "a request must be on a line of its own, starting with \"request\""}
			}
			key, value, ok := strings.Cut(pair, "=")
			if !ok {
				return Config{}, &ConfigError{lineNo, fmt.Sprintf("expected key=value settings separated by spaces, or a request line, got %q", pair)}
			}
			f := lookupConfigField(key)
			if f == nil {
				return Config{}, &ConfigError{lineNo, fmt.Sprintf("unknown setting %q; expected one of: %s", key, configKeys())}
			}
			if prev, dup := seen[key]; dup {
				return Config{}, &ConfigError{lineNo, fmt.Sprintf("%s already set on line %d", key, prev)}
			}
			seen[key] = lineNo
			if err := f.set(&cfg, value); err != nil {
				return Config{}, &ConfigError{lineNo, fmt.Sprintf("%s: %v", key, err)}
			}
		}
	}
	if requests != nil {
		cfg.Requests = requests
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// spacedEquals is an "=" with blanks around it ("ranks = 2"), which a
// setting may have.
var spacedEquals = regexp.MustCompile(`[ \t]*=[ \t]*`)

func lookupConfigField(key string) *configField {
	for i := range configFields {
		if configFields[i].key == key {
			return &configFields[i]
		}
	}
	return nil
}

func configKeys() string {
	keys := make([]string, len(configFields))
	for i, f := range configFields {
		keys[i] = f.key
	}
	return strings.Join(keys, ", ")
}

// parseRequest parses "request prompt=12 new=4 family=0 shared=8 rank=0
// receiving_kv=false"; family, shared, rank and receiving_kv are optional
// (none, 0, 0, false).
func parseRequest(line string) (RequestTemplate, error) {
	r := RequestTemplate{Family: NoFamily}
	fields := strings.Fields(line)[1:]
	got := map[string]bool{}
	for _, f := range fields {
		key, value, ok := strings.Cut(f, "=")
		if !ok {
			return r, fmt.Errorf("request: argument %q is not key=value", f)
		}
		if got[key] {
			return r, fmt.Errorf("request: %s given twice", key)
		}
		got[key] = true
		if key == "family" && value == "none" {
			continue
		}
		if key == "receiving_kv" {
			b, err := strconv.ParseBool(value)
			if err != nil {
				return r, fmt.Errorf("request: receiving_kv: expected true or false, got %q", value)
			}
			r.ReceivingKV = b
			continue
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 || n > 255 {
			return r, fmt.Errorf("request: %s: expected an integer 0..255, got %q", key, value)
		}
		switch key {
		case "prompt":
			r.PromptLen = uint8(n)
		case "new":
			r.MaxNewTokens = uint8(n)
		case "family":
			r.Family = uint8(n)
		case "shared":
			r.SharedPrefix = uint8(n)
		case "rank":
			r.Rank = uint8(n)
		default:
			return r, fmt.Errorf("request: unknown argument %q; expected prompt, new, family, shared, rank, receiving_kv", key)
		}
	}
	if !got["prompt"] || !got["new"] {
		return r, fmt.Errorf("request: prompt=N and new=N are required")
	}
	return r, nil
}
