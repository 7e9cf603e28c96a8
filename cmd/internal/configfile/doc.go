// Package configfile reads the configuration files `kvcheck check
// --config FILE` and `kvcheck fuzz --config FILE` take, and writes the
// scenario files `kvcheck show-config` prints. A file is one of:
//
//   - kvcheck's own configuration text, the key=value lines that
//     configtext.Parse reads and transcripts carry (detected by its first
//     setting line);
//   - a YAML file of TensorRT-LLM LLM API options, as given to
//     `trtllm-serve --extra_llm_api_options` (kv_cache_config,
//     speculative_config, max_batch_size, ...), with a `kvcheck:` section
//     for what the model needs to stay finite (pages per pool, the
//     requests, the scale). Every option is read, ignored with its reason,
//     or refused (options.go: an unknown key is an error with the nearest
//     names); those read become settings of a scaled-down spec.Config, each
//     recorded as a Mapping so the derivation is printed, never hidden. The
//     file is checked on its pressure sweep (pressure.go): the derived
//     sizes down to one request barely fitting, every pressure goal
//     required;
//   - a scenario file: the same YAML with only a `kvcheck:` section whose
//     `config:` holds the configuration text, plus the scenario's name,
//     doc, report, goals and variants with their expected verdicts. This
//     is what `kvcheck show-config NAME` prints for a built-in scenario.
//
// Every error names the file, the line and the expected form (Error).
package configfile
