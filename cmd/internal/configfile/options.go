package configfile

import (
	"sort"
	"strings"
)

// optionKind says what kvcheck does with a TensorRT-LLM LLM API option.
type optionKind uint8

const (
	// optRead: the derivation reads it (derive.go) and the mapping says
	// how.
	optRead optionKind = iota + 1
	// optIgnored: known not to change a KV-cache decision the spec models;
	// listed as ignored, with the reason.
	optIgnored
	// optUnmodelled: it can change what the KV cache manager or its
	// scheduler does and the spec does not model it. A file that sets it
	// to anything but its default is refused, unless kvcheck.ignore_options
	// names it (the user accepts the gap; the check says so).
	optUnmodelled
	// optSection: a mapping whose options are read one by one under
	// "section.option" names.
	optSection
)

// optionInfo is what kvcheck knows of one option: its kind, why, and for
// an unmodelled option its TensorRT-LLM default as YAML writes it (a file
// may state the default; "" when a value set is always refused).
type optionInfo struct {
	kind optionKind
	why  string
	def  string
}

// The reasons shared by many options.
const (
	whyLoading  = "model, tokenizer and weight loading: what the engine computes with, not how its KV cache is managed"
	whyKernels  = "a kernel, compilation or communication choice: the forward's speed, not which requests hold which pages"
	whyMetrics  = "statistics, metrics, logging or tracing: reports what happens, changes nothing"
	whySampling = "how tokens are sampled or drafts accepted: kvcheck explores every count of accepted draft tokens and every end of a request"
	whyOutput   = "post-processing of the output: after the KV cache is done with a token"
	whyBytes    = "the bytes of a block (precision, layout, memory placement): kvcheck counts pages, not bytes"
	whyEvents   = "KV cache event reporting: reports what the manager does, changes nothing"
	whyPlacing  = "how processes are placed and launched"
	whyDrafting = "how the drafter proposes tokens: kvcheck models how many draft tokens a step carries, not which"
)

// trtllmOptions are the TensorRT-LLM LLM API options (TorchLlmArgs and the
// configs it nests, tensorrt_llm/llmapi/llm_args.py at 0004396, and names
// of earlier releases) by their dotted names. Every key of a file that is
// neither here nor kvcheck: is an error with the nearest known names.
var trtllmOptions = map[string]optionInfo{
	// Read by the derivation.
	"kv_cache_config":           {kind: optSection},
	"speculative_config":        {kind: optSection},
	"cache_transceiver_config":  {kind: optSection},
	"attention_dp_config":       {kind: optSection},
	"scheduler_config":          {kind: optSection},
	"cuda_graph_config":         {kind: optSection},
	"max_batch_size":            {kind: optRead},
	"max_num_tokens":            {kind: optRead},
	"max_seq_len":               {kind: optRead},
	"enable_chunked_prefill":    {kind: optRead},
	"enable_attention_dp":       {kind: optRead},
	"tensor_parallel_size":      {kind: optRead},
	"pipeline_parallel_size":    {kind: optRead},
	"moe_expert_parallel_size":  {kind: optRead},
	"disable_overlap_scheduler": {kind: optRead},
	"backend":                   {kind: optRead},

	// Ignored: known not to matter to the KV cache's decisions.
	"model": {kind: optIgnored, why: whyLoading}, "tokenizer": {kind: optIgnored, why: whyLoading},
	"tokenizer_mode": {kind: optIgnored, why: whyLoading}, "custom_tokenizer": {kind: optIgnored, why: whyLoading},
	"skip_tokenizer_init": {kind: optIgnored, why: whyLoading}, "trust_remote_code": {kind: optIgnored, why: whyLoading},
	"revision": {kind: optIgnored, why: whyLoading}, "tokenizer_revision": {kind: optIgnored, why: whyLoading},
	"load_format": {kind: optIgnored, why: whyLoading}, "checkpoint_format": {kind: optIgnored, why: whyLoading},
	"checkpoint_loader": {kind: optIgnored, why: whyLoading}, "checkpoint_io_policy": {kind: optIgnored, why: whyLoading},
	"mx_config": {kind: optIgnored, why: whyLoading}, "gms_config": {kind: optIgnored, why: whyLoading},
	"quant_config": {kind: optIgnored, why: whyBytes}, "dtype": {kind: optIgnored, why: whyBytes},
	"moe_cluster_parallel_size": {kind: optIgnored, why: "how experts' weights are sharded: the KV cache is per attention rank"},
	"moe_tensor_parallel_size":  {kind: optIgnored, why: "how experts' weights are sharded: the KV cache is per attention rank"},
	"moe_config":                {kind: optIgnored, why: whyKernels}, "enable_lm_head_tp_in_adp": {kind: optIgnored, why: whyKernels},
	"gpus_per_node": {kind: optIgnored, why: whyPlacing}, "orchestrator_type": {kind: optIgnored, why: whyPlacing},
	"ray_worker_extension_cls": {kind: optIgnored, why: whyPlacing}, "ray_placement_config": {kind: optIgnored, why: whyPlacing},
	"pp_partition": {kind: optIgnored, why: "which layers each pipeline stage holds: sizes a stage's pool in bytes; a stage's pages are kvcheck.stage_target_pages"},
	"attn_backend": {kind: optIgnored, why: whyKernels}, "nvfp4_gemm_config": {kind: optIgnored, why: whyKernels},
	"torch_compile_config": {kind: optIgnored, why: whyKernels}, "enable_autotuner": {kind: optIgnored, why: whyKernels},
	"allreduce_strategy": {kind: optIgnored, why: whyKernels}, "force_dynamic_quantization": {kind: optIgnored, why: whyKernels},
	"use_cute_dsl_blockscaling_mm": {kind: optIgnored, why: whyKernels}, "use_cute_dsl_blockscaling_bmm": {kind: optIgnored, why: whyKernels},
	"enable_min_latency": {kind: optIgnored, why: whyKernels}, "use_fine_grained_sync": {kind: optIgnored, why: whyKernels},
	"enable_mla_skip_correction": {kind: optIgnored, why: whyKernels}, "mla_skip_correction_threshold": {kind: optIgnored, why: whyKernels},
	"enable_low_latency_host_dispatch": {kind: optIgnored, why: whyKernels}, "prefill_cuda_graph_backend": {kind: optIgnored, why: whyKernels},
	"prefill_capture_num_tokens": {kind: optIgnored, why: whyKernels}, "enable_layerwise_nvtx_marker": {kind: optIgnored, why: whyMetrics},
	"garbage_collection_gen0_threshold": {kind: optIgnored, why: "Python's garbage collector"},
	"sampler_type":                      {kind: optIgnored, why: whySampling}, "sampler_force_async_worker": {kind: optIgnored, why: whySampling},
	"disable_flashinfer_sampling": {kind: optIgnored, why: whySampling}, "enable_in_graph_sampling": {kind: optIgnored, why: whySampling},
	"guided_decoding_backend": {kind: optIgnored, why: whySampling}, "batched_logits_processor": {kind: optIgnored, why: whySampling},
	"gather_generation_logits": {kind: optIgnored, why: whyOutput}, "num_postprocess_workers": {kind: optIgnored, why: whyOutput},
	"postprocess_tokenizer_dir": {kind: optIgnored, why: whyOutput}, "reasoning_parser": {kind: optIgnored, why: whyOutput},
	"stream_interval": {kind: optIgnored, why: whyOutput}, "enable_early_first_token_response": {kind: optIgnored, why: whyOutput},
	"enable_speculative_beam_history_d2h": {kind: optIgnored, why: whyKernels},
	"return_perf_metrics":                 {kind: optIgnored, why: whyMetrics}, "perf_metrics_max_requests": {kind: optIgnored, why: whyMetrics},
	"iter_stats_max_iterations": {kind: optIgnored, why: whyMetrics}, "request_stats_max_iterations": {kind: optIgnored, why: whyMetrics},
	"enable_iter_perf_stats": {kind: optIgnored, why: whyMetrics}, "enable_iter_req_stats": {kind: optIgnored, why: whyMetrics},
	"print_iter_log": {kind: optIgnored, why: whyMetrics}, "otlp_traces_endpoint": {kind: optIgnored, why: whyMetrics},
	"prometheus_metrics_config": {kind: optIgnored, why: whyMetrics}, "enable_energy_metrics": {kind: optIgnored, why: whyMetrics},
	"telemetry_config": {kind: optIgnored, why: whyMetrics}, "max_stats_len": {kind: optIgnored, why: whyMetrics},
	"layer_wise_benchmarks_config": {kind: optIgnored, why: whyMetrics},
	"enable_sleep":                 {kind: optIgnored, why: "sleeping releases the GPU between runs; kvcheck checks a running engine"},
	"max_input_len":                {kind: optIgnored, why: "bounds the real prompts; the model's are kvcheck.requests"},
	"decoding_config":              {kind: optIgnored, why: "deprecated in TensorRT-LLM in favour of speculative_config, which kvcheck reads"},

	// Unmodelled: each can change what the KV cache does.
	"max_beam_width":              {kind: optUnmodelled, def: "1", why: "beam search keeps several sequences per request; the spec models one"},
	"context_parallel_size":       {kind: optUnmodelled, def: "1", why: "context parallelism splits one request's KV over ranks; the spec keeps a request's KV on one rank"},
	"cp_config":                   {kind: optUnmodelled, why: "context parallelism splits one request's KV over ranks; the spec keeps a request's KV on one rank"},
	"enable_lora":                 {kind: optUnmodelled, def: "false", why: "LoRA adapters take PEFT cache pages the scheduler accounts for; the spec models the KV pools only"},
	"lora_config":                 {kind: optUnmodelled, why: "LoRA adapters take PEFT cache pages the scheduler accounts for; the spec models the KV pools only"},
	"peft_cache_config":           {kind: optUnmodelled, why: "LoRA adapters take PEFT cache pages the scheduler accounts for; the spec models the KV pools only"},
	"kv_connector_config":         {kind: optUnmodelled, why: "a KV cache connector loads and saves KV blocks outside the manager; the spec does not model it"},
	"sparse_attention_config":     {kind: optUnmodelled, why: "sparse attention changes which blocks are kept (and DSA adds an indexer cache); kvcheck's draft pool stands for an indexer cache only beside MTP"},
	"batch_wait_timeout_iters":    {kind: optUnmodelled, def: "0", why: "PyExecutor._waiting_requests drops the scheduled context requests from a batch the V2 scheduler already allocated for; the spec does not model that"},
	"batch_wait_timeout_ms":       {kind: optUnmodelled, def: "0", why: "the request queue holds requests back while the engine runs; kvcheck fixes the arrival order (request IDs), not the waits, and does not model this queue"},
	"batch_wait_max_tokens_ratio": {kind: optUnmodelled, def: "0", why: "PyExecutor._waiting_requests drops the scheduled context requests from a batch the V2 scheduler already allocated for; the spec does not model that"},
	"multimodal_config":           {kind: optUnmodelled, why: "multimodal encoders take their own memory and scheduling budget; the spec models text requests"},
	"mm_encoder_only":             {kind: optUnmodelled, def: "false", why: "an encoder-only engine has no decoder KV cache to check"},
	"disable_mm_encoder":          {kind: optIgnored, why: "serves a multimodal checkpoint text-only: the KV cache is the text model's"},
	"encode_only":                 {kind: optUnmodelled, def: "false", why: "the encode() path bypasses the scheduler and the KV cache"},
	"env_overrides":               {kind: optUnmodelled, why: "environment variables can switch behaviour of the executor (e.g. TRTLLM_DISABLE_KV_CACHE_TRANSFER_OVERLAP); kvcheck cannot tell which"},

	// kv_cache_config (KvCacheConfig).
	"kv_cache_config.enable_block_reuse":                             {kind: optRead},
	"kv_cache_config.enable_partial_reuse":                           {kind: optRead},
	"kv_cache_config.tokens_per_block":                               {kind: optRead},
	"kv_cache_config.max_tokens":                                     {kind: optRead},
	"kv_cache_config.free_gpu_memory_fraction":                       {kind: optRead},
	"kv_cache_config.max_gpu_total_bytes":                            {kind: optRead},
	"kv_cache_config.host_cache_size":                                {kind: optRead},
	"kv_cache_config.max_util_for_resume":                            {kind: optRead},
	"kv_cache_config.use_kv_cache_manager_v2":                        {kind: optRead},
	"kv_cache_config.copy_on_partial_reuse":                          {kind: optUnmodelled, def: "true", why: "without the copy a partially matched block in use cannot be reused; the spec models the copy"},
	"kv_cache_config.dtype":                                          {kind: optIgnored, why: whyBytes},
	"kv_cache_config.mamba_ssm_cache_dtype":                          {kind: optIgnored, why: whyBytes},
	"kv_cache_config.mamba_ssm_stochastic_rounding":                  {kind: optIgnored, why: whyBytes},
	"kv_cache_config.mamba_ssm_philox_rounds":                        {kind: optIgnored, why: whyBytes},
	"kv_cache_config.use_uvm":                                        {kind: optIgnored, why: whyBytes},
	"kv_cache_config.sink_token_length":                              {kind: optIgnored, why: "deprecated and dropped by the PyTorch backend (llm_args.py)"},
	"kv_cache_config.onboard_blocks":                                 {kind: optIgnored, why: "a setting of the V1 (C++) manager; KVCacheManagerV2 does not read it"},
	"kv_cache_config.event_buffer_max_size":                          {kind: optIgnored, why: whyEvents},
	"kv_cache_config.attention_dp_events_gather_period_ms":           {kind: optIgnored, why: whyEvents},
	"kv_cache_config.kv_events_config":                               {kind: optIgnored, why: whyEvents},
	"kv_cache_config.kv_cache_event_hash_algo":                       {kind: optIgnored, why: whyEvents},
	"kv_cache_config.iteration_stats_interval":                       {kind: optIgnored, why: whyMetrics},
	"kv_cache_config.max_attention_window":                           {kind: optUnmodelled, why: "a sliding window frees blocks behind it; the spec keeps every block of a request"},
	"kv_cache_config.enable_swa_scratch_reuse":                       {kind: optUnmodelled, def: "false", why: "a sliding window frees blocks behind it; the spec keeps every block of a request"},
	"kv_cache_config.cross_kv_cache_fraction":                        {kind: optUnmodelled, why: "encoder-decoder models have a cross-attention pool; the spec models decoder pools"},
	"kv_cache_config.secondary_offload_min_priority":                 {kind: optUnmodelled, why: "block priorities decide what is offloaded; the spec gives every block one priority"},
	"kv_cache_config.disk_cache_size":                                {kind: optUnmodelled, def: "0", why: "a disk tier below host: the spec models one tier below GPU"},
	"kv_cache_config.disk_cache_path":                                {kind: optIgnored, why: "where the disk tier's files are (kv_cache_config.disk_cache_size decides whether there is one)"},
	"kv_cache_config.disk_prefetch_num_reqs":                         {kind: optUnmodelled, def: "0", why: "prefetching from a disk tier: the spec models one tier below GPU"},
	"kv_cache_config.mamba_state_config":                             {kind: optUnmodelled, why: "Mamba state snapshots are caches of their own; the spec models attention KV pools"},
	"kv_cache_config.mamba_state_cache_interval":                     {kind: optUnmodelled, why: "Mamba state snapshots are caches of their own; the spec models attention KV pools"},
	"kv_cache_config.enable_kv_pool_rebalance":                       {kind: optUnmodelled, def: "false", why: "KVCacheManagerV2.adjust() resizes pool groups between iterations; the spec's pools keep their sizes"},
	"kv_cache_config.pool_ratio":                                     {kind: optUnmodelled, why: "layer-group byte ratios of hybrid models; the spec sizes pool groups with kvcheck's config: target_pool_groups"},
	"kv_cache_config.avg_seq_len":                                    {kind: optIgnored, why: "sizes the typical step KVCacheManagerV2 provisions pool groups for: bytes, which kvcheck scales to pages"},
	"kv_cache_config.block_reuse_config":                             {kind: optUnmodelled, why: "the V2 reuse policy (all_reusable, per_request, per_conversation) decides when blocks are committed; the spec commits as all_reusable does only in part (docs/spec.md)"},
	"kv_cache_config.fp8_context_mla_kv_len_cap":                     {kind: optUnmodelled, why: "defers context requests whose attended KV would exceed the cap; the spec's scheduler has no such budget"},
	"kv_cache_config.kv_pool_rebalance_min_sampled_kv_caches":        {kind: optIgnored, why: "tunes kv_cache_config.enable_kv_pool_rebalance, which decides whether pools are rebalanced"},
	"kv_cache_config.kv_pool_rebalance_cooldown_secs":                {kind: optIgnored, why: "tunes kv_cache_config.enable_kv_pool_rebalance, which decides whether pools are rebalanced"},
	"kv_cache_config.kv_pool_rebalance_target_ratio_update_interval": {kind: optIgnored, why: "tunes kv_cache_config.enable_kv_pool_rebalance, which decides whether pools are rebalanced"},
	"kv_cache_config.kv_pool_rebalance_ratio_threshold":              {kind: optIgnored, why: "tunes kv_cache_config.enable_kv_pool_rebalance, which decides whether pools are rebalanced"},
	"kv_cache_config.kv_pool_rebalance_moving_average_decay":         {kind: optIgnored, why: "tunes kv_cache_config.enable_kv_pool_rebalance, which decides whether pools are rebalanced"},
	"kv_cache_config.kv_pool_rebalance_check_interval":               {kind: optIgnored, why: "tunes kv_cache_config.enable_kv_pool_rebalance, which decides whether pools are rebalanced"},

	// speculative_config (DecodingBaseConfig and its subclasses).
	"speculative_config.decoding_type":                       {kind: optRead},
	"speculative_config.max_draft_len":                       {kind: optRead},
	"speculative_config.num_nextn_predict_layers":            {kind: optRead},
	"speculative_config.max_total_draft_tokens":              {kind: optUnmodelled, why: "a draft tree carries more draft tokens per step than max_draft_len; the spec models a linear chain"},
	"speculative_config.use_dynamic_tree":                    {kind: optUnmodelled, def: "false", why: "a draft tree carries more draft tokens per step than max_draft_len; the spec models a linear chain"},
	"speculative_config.dynamic_tree_max_topK":               {kind: optIgnored, why: "used only with speculative_config.use_dynamic_tree, which kvcheck reads"},
	"speculative_config.eagle_choices":                       {kind: optUnmodelled, why: "a static draft tree carries more draft tokens per step than max_draft_len; the spec models a linear chain"},
	"speculative_config.max_concurrency":                     {kind: optUnmodelled, why: "turns speculation off above a batch size (draft_len_schedule); the spec keeps max_draft_len for every batch"},
	"speculative_config.draft_len_schedule":                  {kind: optUnmodelled, why: "changes the draft length with the batch size; the spec keeps max_draft_len for every batch"},
	"speculative_config.acceptance_rate_window_size":         {kind: optUnmodelled, why: "turns speculation off when acceptance falls; the spec keeps max_draft_len for the whole run"},
	"speculative_config.acceptance_rate_threshold":           {kind: optUnmodelled, why: "turns speculation off when acceptance falls; the spec keeps max_draft_len for the whole run"},
	"speculative_config.speculative_model":                   {kind: optIgnored, why: whyLoading},
	"speculative_config.speculative_model_dir":               {kind: optIgnored, why: whyLoading},
	"speculative_config.load_format":                         {kind: optIgnored, why: whyLoading},
	"speculative_config.pytorch_weights_path":                {kind: optIgnored, why: whyLoading},
	"speculative_config.use_rejection_sampling":              {kind: optIgnored, why: whySampling},
	"speculative_config.allow_advanced_sampling":             {kind: optIgnored, why: whySampling},
	"speculative_config.advanced_sampling_mode":              {kind: optIgnored, why: whySampling},
	"speculative_config.enable_penalty":                      {kind: optIgnored, why: whySampling},
	"speculative_config.use_relaxed_acceptance_for_thinking": {kind: optIgnored, why: whySampling},
	"speculative_config.relaxed_topk":                        {kind: optIgnored, why: whySampling},
	"speculative_config.relaxed_delta":                       {kind: optIgnored, why: whySampling},
	"speculative_config.begin_thinking_phase_token":          {kind: optIgnored, why: whySampling},
	"speculative_config.end_thinking_phase_token":            {kind: optIgnored, why: whySampling},
	"speculative_config.BEGIN_THINKING_PHASE_TOKEN":          {kind: optIgnored, why: whySampling},
	"speculative_config.END_THINKING_PHASE_TOKEN":            {kind: optIgnored, why: whySampling},
	"speculative_config.greedy_sampling":                     {kind: optIgnored, why: whySampling},
	"speculative_config.posterior_threshold":                 {kind: optIgnored, why: whySampling},
	"speculative_config.use_mtp_vanilla":                     {kind: optIgnored, why: whyDrafting},
	"speculative_config.mtp_eagle_one_model":                 {kind: optIgnored, why: whyDrafting},
	"speculative_config.eagle3_one_model":                    {kind: optIgnored, why: whyDrafting},
	"speculative_config.eagle3_layers_to_capture":            {kind: optIgnored, why: whyDrafting},
	"speculative_config.num_eagle_layers":                    {kind: optIgnored, why: whyDrafting},
	"speculative_config.max_non_leaves_per_layer":            {kind: optIgnored, why: whyDrafting},
	"speculative_config.sa_config":                           {kind: optIgnored, why: whyDrafting},
	"speculative_config.max_matching_ngram_size":             {kind: optIgnored, why: whyDrafting},
	"speculative_config.is_keep_all":                         {kind: optIgnored, why: whyDrafting},
	"speculative_config.is_use_oldest":                       {kind: optIgnored, why: whyDrafting},
	"speculative_config.is_public_pool":                      {kind: optIgnored, why: whyDrafting},
	"speculative_config.mask_token_id":                       {kind: optIgnored, why: whyDrafting},
	"speculative_config.target_layer_ids":                    {kind: optIgnored, why: whyDrafting},
	"speculative_config.attention_backend":                   {kind: optIgnored, why: whyKernels},

	// cache_transceiver_config (CacheTransceiverConfig).
	"cache_transceiver_config.backend":                              {kind: optRead},
	"cache_transceiver_config.transceiver_runtime":                  {kind: optIgnored, why: "the C++ or Python transceiver: both send a finished context's KV and hold its caches until the send completes, which the spec models"},
	"cache_transceiver_config.max_tokens_in_buffer":                 {kind: optIgnored, why: "the transfer buffer's size: how fast KV moves, not when its caches are freed"},
	"cache_transceiver_config.kv_transfer_sender_future_timeout_ms": {kind: optIgnored, why: "how long one poll of a send blocks; kvcheck explores every order in which transfers complete"},
	"cache_transceiver_config.kv_transfer_poll_interval_ms":         {kind: optIgnored, why: "how long one poll of a transfer blocks; kvcheck explores every order in which transfers complete"},
	"cache_transceiver_config.kv_cache_bounce_size_mb":              {kind: optIgnored, why: "a bounce buffer for the transfer: how KV moves, not when its caches are freed"},
	"cache_transceiver_config.kv_transfer_timeout_ms":               {kind: optUnmodelled, why: "a transfer that times out is cancelled and its request terminated; kvcheck's transfers always complete"},
	"cache_transceiver_config.enable_pipelined_transfer":            {kind: optUnmodelled, def: "false", why: "sends each prefill chunk's KV while later chunks compute; the spec sends a context's KV once, after its last chunk"},

	// attention_dp_config (AttentionDpConfig).
	"attention_dp_config.enable_balance":                           {kind: optRead},
	"attention_dp_config.timeout_iters":                            {kind: optRead},
	"attention_dp_config.batching_wait_iters":                      {kind: optRead},
	"attention_dp_config.enable_kv_cache_aware_routing":            {kind: optRead},
	"attention_dp_config.kv_cache_routing_conversation_affinity":   {kind: optRead},
	"attention_dp_config.kv_cache_routing_load_balance_weight":     {kind: optIgnored, why: "tunes attention_dp_config.enable_kv_cache_aware_routing, which kvcheck reads"},
	"attention_dp_config.kv_cache_routing_match_rate_threshold":    {kind: optIgnored, why: "tunes attention_dp_config.enable_kv_cache_aware_routing, which kvcheck reads"},
	"attention_dp_config.kv_cache_routing_fair_share_multiplier":   {kind: optIgnored, why: "tunes attention_dp_config.enable_kv_cache_aware_routing, which kvcheck reads"},
	"attention_dp_config.kv_cache_routing_cold_start_warmup":       {kind: optIgnored, why: "tunes attention_dp_config.enable_kv_cache_aware_routing, which kvcheck reads"},
	"attention_dp_config.kv_cache_routing_account_for_in_transfer": {kind: optIgnored, why: "tunes attention_dp_config.enable_kv_cache_aware_routing, which kvcheck reads"},
	"attention_dp_config.kv_cache_routing_max_sessions":            {kind: optIgnored, why: "tunes attention_dp_config.kv_cache_routing_conversation_affinity, which kvcheck reads"},

	// scheduler_config (SchedulerConfig).
	"scheduler_config.capacity_scheduler_policy":      {kind: optUnmodelled, def: "GUARANTEED_NO_EVICT", why: "selects the capacity policy; the spec models KVCacheV2Scheduler as it runs by default"},
	"scheduler_config.context_chunking_policy":        {kind: optUnmodelled, why: "orders and sizes context chunks; the spec models the V2 scheduler's default chunking"},
	"scheduler_config.dynamic_batch_config":           {kind: optUnmodelled, why: "tunes the batch size at run time (TensorRT backend); the spec keeps max_batch_size"},
	"scheduler_config.waiting_queue_policy":           {kind: optUnmodelled, def: "fcfs", why: "a priority queue reorders arrivals; the spec's requests arrive in ID order"},
	"scheduler_config.use_python_scheduler":           {kind: optUnmodelled, def: "false", why: "selects another scheduler implementation than the one the spec models"},
	"scheduler_config.enable_prefix_aware_scheduling": {kind: optUnmodelled, def: "true", why: "turning it off changes the V2 scheduler's admission and token budget; the spec models the default"},

	// cuda_graph_config (CudaGraphConfig).
	"cuda_graph_config.enable_padding": {kind: optRead},
	"cuda_graph_config.batch_sizes":    {kind: optIgnored, why: "which batch sizes get a captured CUDA graph: the forward's speed"},
	"cuda_graph_config.max_batch_size": {kind: optIgnored, why: "which batch sizes get a captured CUDA graph: the forward's speed"},
	"cuda_graph_config.mode":           {kind: optIgnored, why: "which requests a CUDA graph serves: the forward's speed"},
}

// lookupOption returns what kvcheck knows of the option named name.
func lookupOption(name string) (optionInfo, bool) {
	info, ok := trtllmOptions[name]
	return info, ok
}

// suggestOptions returns the known options nearest to name (by edit
// distance of their last part, a section apart counting one more, and of
// the whole dotted name): those at the least distance, at most three; none
// when nothing is close.
func suggestOptions(name string) []string {
	last := name[strings.LastIndex(name, ".")+1:]
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	for known, info := range trtllmOptions {
		if info.kind == optSection && strings.Contains(name, ".") {
			continue
		}
		kl := known[strings.LastIndex(known, ".")+1:]
		d := min(editDistance(name, known), editDistance(last, kl)+sectionPenalty(name, known))
		if d <= max(2, len(last)/4) {
			cands = append(cands, cand{known, d})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].d != cands[j].d {
			return cands[i].d < cands[j].d
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < 3 && cands[i].d == cands[0].d; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// sectionPenalty is 0 when name and known are in the same section, else 1:
// a misspelled key in its own section is the likelier slip.
func sectionPenalty(name, known string) int {
	section := func(s string) string {
		if i := strings.LastIndex(s, "."); i >= 0 {
			return s[:i]
		}
		return ""
	}
	if section(name) == section(known) {
		return 0
	}
	return 1
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
