// SPDX-License-Identifier: MIT
// Inference as the runtimes run it: the arithmetic vLLM, SGLang, TGI, llama.cpp and Ollama apply to their memory
// (budget, KV pages and blocks, token capacity, concurrency, llama.cpp cells and buffers), each function citing the
// runtime's source in docs/methodology.md ("Runtimes"). estimate.cpp calls these for the buckets and the report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llm_memory/resolve.hpp"

namespace llm_memory {

/// One term of a runtime's budget.
struct runtime_term {
  std::string name;     ///< e.g. "weights"
  double bytes = 0;     ///< per device [bytes]
  std::string formula;  ///< how it was computed
};

/// What the runtime itself would report, in its own terms, for the most loaded device.
struct runtime_report {
  runtime_kind name = runtime_kind::vllm;  ///< the resolved runtime
  // vLLM / SGLang / TGI: a preallocated KV cache.
  double budget = 0;                ///< bytes per device the engine may use for weights and KV cache [bytes]
  std::vector<runtime_term> terms;  ///< what the budget holds before the KV cache
  double kv_available = 0;          ///< bytes per device left for the KV cache, never negative [bytes]
  double kv_shortfall = 0;          ///< bytes per device the budget lacks for what it holds before the KV cache [bytes]
  double kv_capacity_tokens = 0;    ///< tokens the KV cache holds for the instance, as logged; 0 if not logged [tokens]
  double kv_pool = 0;          ///< bytes per device of the KV pool as the runtime allocates and logs it (SGLang's K + V
                               ///< buffers); 0 where it is not modelled [bytes]
  double max_concurrency = 0;  ///< requests of `seq` tokens the cache holds at once [requests]
  std::int64_t max_context = 0;  ///< longest context one request may have (vLLM's maximum model length) [tokens]
  // llama.cpp / Ollama: buffers as llama.cpp logs them.
  bool has_buffers = false;        ///< llama.cpp-style buffers are reported
  double model_buffer = 0;         ///< weights on the first device ("CUDA0 model buffer") [bytes]
  double host_buffer = 0;          ///< weights in host memory (token_embd, layers not offloaded) [bytes]
  double kv_buffer = 0;            ///< KV cache on the device [bytes]
  double compute_buffer = 0;       ///< the device's compute buffer [bytes]
  double host_compute_buffer = 0;  ///< the host's compute buffer [bytes]
  std::int64_t kv_cells = 0;       ///< KV cells allocated (n_ctx padded) [tokens]
};

// ---- vLLM (V1 engine) -------------------------------------------------------------------------------------------

/// vLLM's memory request: ceil(total x gpu_memory_utilization) (Worker.init_device, request_memory) [bytes].
[[nodiscard]] double vllm_budget(double total_bytes, double utilization);
/// KV heads on one tensor-parallel rank: heads replicated when fewer than tp (ModelConfig.get_num_kv_heads).
[[nodiscard]] double kv_heads_per_rank(double kv_heads, std::int64_t tp);
/// FullAttentionSpec page of one layer: block x heads x (d_k + d_v) x bytes [bytes].
[[nodiscard]] double vllm_page_bytes(std::int64_t block_size, double heads, double head_dim, double kv_bytes);
/// MLAAttentionSpec page of one layer: block x (kv_lora_rank + qk_rope_head_dim) x bytes, no K/V factor [bytes].
[[nodiscard]] double vllm_mla_page_bytes(std::int64_t block_size, double latent, double kv_bytes);
/// get_num_blocks: int(available // page // layers); 0 when nothing is available [blocks].
[[nodiscard]] std::int64_t vllm_num_blocks(double available, double page, double layers);
/// "Maximum concurrency for M tokens per request": blocks / cdiv(M, block) [requests].
[[nodiscard]] double vllm_concurrency(std::int64_t blocks, std::int64_t max_model_len, std::int64_t block_size);
/// The "estimated maximum model length" of the refusal: floor(available / (layers x page)) x block [tokens].
[[nodiscard]] std::int64_t vllm_max_model_len(double available, double page, double layers, std::int64_t block_size);
/// Blocks a sliding-window layer needs per request: cdiv(min(w - 1 + N_bt, M), block) + 1 [blocks].
[[nodiscard]] std::int64_t vllm_sliding_blocks(std::int64_t window, std::int64_t batched_tokens,
                                               std::int64_t max_model_len, std::int64_t block_size);
/// Blocks a chunked-local-attention layer needs per request (ChunkedLocalAttentionSpec.max_memory_usage_bytes):
/// cdiv(min(chunk + N_bt, M), block) [blocks].
[[nodiscard]] std::int64_t vllm_chunked_blocks(std::int64_t chunk, std::int64_t batched_tokens,
                                               std::int64_t max_model_len, std::int64_t block_size);
/// vLLM's KV cache groups for a hybrid model of full-attention and sliding-window layers with one page size
/// (kv_cache_utils.py _get_kv_cache_groups_uniform_page_size): group_size = the smaller layer count, or the larger
/// when it is under 1.5 x the smaller; each type splits into cdiv(count, group_size) groups (the last one padded).
struct vllm_hybrid_groups {
  std::int64_t group_size = 0;      ///< layers per group: the memory is group_size pools of page x num_blocks
  std::int64_t full_groups = 0;     ///< groups of full-attention layers
  std::int64_t sliding_groups = 0;  ///< groups of sliding-window layers
};
[[nodiscard]] vllm_hybrid_groups vllm_hybrid_grouping(std::int64_t full_layers, std::int64_t sliding_layers);
/// The one page size of a hybrid's groups (kv_cache_utils.py unify_kv_cache_spec_page_size): the larger of the
/// full-attention and sliding-window layers' pages; the smaller page's layers take ratio x block_size tokens per
/// block (Gemma 4: its full-attention layers' wider, fewer heads). page 0: the pages do not divide, and vLLM raises
/// NotImplementedError.
struct vllm_hybrid_pages {
  double page = 0;                 ///< the one page [bytes]
  std::int64_t full_block = 0;     ///< a full-attention layer's block [tokens]
  std::int64_t sliding_block = 0;  ///< a sliding-window layer's block [tokens]
};
[[nodiscard]] vllm_hybrid_pages vllm_unify_pages(std::int64_t block_size, double full_page, double sliding_page);
/// Blocks one request of max_model_len M takes over every group (get_max_concurrency_for_kv_cache_config: the sum
/// over groups of max_memory_usage_bytes / page): full cdiv(M, full block), sliding cdiv(min(w - 1 + N_bt, M),
/// sliding block) + 1; `chunked`: the local layers are chunked attention of `window` tokens (vllm_chunked_blocks).
[[nodiscard]] std::int64_t vllm_hybrid_blocks_per_request(const vllm_hybrid_groups& g, std::int64_t max_model_len,
                                                          std::int64_t window, std::int64_t batched_tokens,
                                                          const vllm_hybrid_pages& p, bool chunked = false);
/// The logged "GPU KV cache size" of a multi-group config at the pinned version: num_blocks // groups x the
/// smallest block (_report_kv_cache_config's min_block_size) [tokens].
[[nodiscard]] std::int64_t vllm_hybrid_tokens(std::int64_t blocks, const vllm_hybrid_groups& g,
                                              std::int64_t block_size);
/// The "estimated maximum model length" (estimate_max_model_len): the largest M in [1, limit] whose per-layer need,
/// page x (full x cdiv(M, full block) + sliding x sliding blocks), fits `available`; 0 if none [tokens].
[[nodiscard]] std::int64_t vllm_hybrid_max_model_len(double available, const vllm_hybrid_pages& p,
                                                     std::int64_t full_layers, std::int64_t sliding_layers,
                                                     std::int64_t window, std::int64_t batched_tokens,
                                                     std::int64_t limit, bool chunked = false);
/// The profiling forward's peak: N_bt x bytes x (3 I / tp + 3 h) [bytes] (calibrated, docs/methodology.md).
[[nodiscard]] double vllm_forward_peak(double tokens, double act_bytes, double inner, double hidden, double tp);
/// Bytes per logit alive at the dummy sampler's peak (top_k = V - 1, top_p = 0.9), by release: bf16 logits 2 + fp32
/// logits 4, then from 0.17 (Triton masking in place, or FlashInfer's masked logits) 4 + fp32 probs 4 = 14; 0.11-0.16
/// PyTorch's sort: values 4 + int64 indices 8 + ATen's segmented sort, which from 128 rows holds int64 reverse
/// indices 8 and cub's alternate keys + values 4 + 8 = 38, below 128 rows (sort by full sort) two int2 index
/// buffers 16 + cub's 12 = 46 [bytes / logit].
[[nodiscard]] double vllm_sampler_bytes_per_logit(vllm_release release, double seqs);
/// The dummy sampler's peak: seqs x V x vllm_sampler_bytes_per_logit, plus the dummy forward's output hidden states
/// (N_bt x h x bytes), which profile_run holds until the sampler returns [bytes].
[[nodiscard]] double vllm_sampler_peak(vllm_release release, double seqs, double vocab, double held_hidden_bytes);

/// vLLM's scheduler defaults for the API server (EngineArgs.get_batch_defaults).
struct vllm_batch_defaults {
  std::int64_t batched_tokens = 2048;  ///< max_num_batched_tokens [tokens]
  std::int64_t seqs = 256;             ///< max_num_seqs [sequences]
};
/// >= 70 GiB and not an A100: 8192 / 1024, else 2048 / 256.
[[nodiscard]] vllm_batch_defaults vllm_defaults(double total_bytes, bool a100);

/// vLLM's custom all-reduce buffers per rank (distributed/device_communicators/custom_all_reduce.py,
/// CustomAllreduce.__init__, max_size = 8 MiB): the IPC buffer (max_size), the signal + intermediate buffer
/// (meta_size + max_size; meta_size, a few KB of flags, not counted) and rank_data (8 MiB), allocated at start-up
/// for tp in {2, 4, 6, 8} (_SUPPORTED_WORLD_SIZES); 0 otherwise [bytes]. SGLang's custom all-reduce is the same
/// code (forked).
[[nodiscard]] double custom_all_reduce_bytes(std::int64_t tp);
/// NCCL's buffers per channel per peer connection (src/init.cc: DEFAULT_BUFFSIZE 4 MiB for Simple,
/// DEFAULT_LL128_BUFFSIZE 120 x 640 x 8 x 8 = 4,915,200, DEFAULT_LL_BUFFSIZE 8 x 512 x 8 x 16 = 524,288) [bytes].
inline constexpr double nccl_connection_bytes = 4194304.0 + 4915200.0 + 524288.0;

// ---- SGLang ---------------------------------------------------------------------------------------------------

/// chunked_prefill_size for a device of `gpu_mem_mib` MiB (server_args._handle_gpu_memory_settings) [tokens].
[[nodiscard]] std::int64_t sglang_chunked_prefill(double gpu_mem_mib);
/// mem_fraction_static's default: round((gpu_mem - reserved) / gpu_mem, 3) (same function).
[[nodiscard]] double sglang_mem_fraction(double gpu_mem_mib, std::int64_t tp, std::int64_t pp);
/// max_total_num_tokens: (available - total x (1 - mfs)) // cell [tokens] (ModelRunner.profile_max_num_token).
[[nodiscard]] std::int64_t sglang_tokens(double total_free, double available_after_weights, double mfs, double cell);

// ---- TGI ------------------------------------------------------------------------------------------------------

/// get_cuda_free_memory: max(0, free - (1 - fraction) x total) [bytes].
[[nodiscard]] double tgi_free(double free_bytes, double total_bytes, double fraction);
/// KV blocks: floor(kv_memory / block bytes) + the warmup batch's blocks [blocks].
[[nodiscard]] std::int64_t tgi_blocks(double kv_memory, double block_bytes, std::int64_t warmup_blocks);
/// The memory TGI turns into new KV blocks after its warmup prefill, per release (FlashCausalLM.warmup and
/// TGI_WIGGLE_ROOM in models/globals.py at each tag): >= 3.3 tgi_free(free, total, 0.90 f), 3.1-3.2 0.93 f, 3.0
/// 0.95 f; 2.4 0.90 x tgi_free(free, total, f), 1.4.1-2.3 0.95 x; 1.0-1.4.0 tgi_free(free, total, f), with
/// f = --cuda-memory-fraction and `free` what cudaMemGetInfo reports after the warmup [bytes].
[[nodiscard]] double tgi_kv_memory(tgi_release release, double free_bytes, double total_bytes, double fraction);
/// The warmup batch's blocks (router client warmup: requests of up to max_input tokens until max_batch_prefill_tokens
/// are covered, each asking max_total - its input new tokens; FlashCausalLMBatch.from_pb gives a request
/// cdiv(input + new - 1, block) blocks): cdiv(prefill, max_input) x cdiv(max_total - 1, block) [blocks].
[[nodiscard]] std::int64_t tgi_warmup_blocks(std::int64_t prefill_tokens, std::int64_t max_input,
                                             std::int64_t max_total, std::int64_t block_size);
/// The rows the warmup's head computes logits for. Its requests ask prefill_logprobs; up to 2.4 the server honours
/// that and the head runs on every prefill token (N rows); from 3.0 FlashCausalLMBatch.from_pb clears it unless
/// REQUEST_LOGPROBS (--enable-prefill-logprobs, off by default), so the head runs on each request's last position
/// only (lm_head_indices = cu_seqlen_prefill[1:] - 1): cdiv(N, max_input) rows [rows].
[[nodiscard]] std::int64_t tgi_warmup_logit_rows(tgi_release release, std::int64_t prefill_tokens,
                                                 std::int64_t max_input);
/// The warmup's logits over `rows` rows and their log_softmax: 2 x rows x V x bytes; with tp > 1 the head's local
/// slice (rows x V / tp) sits beside the gathered logits (TensorParallelHead.forward) [bytes].
[[nodiscard]] double tgi_warmup_logits(double rows, double vocab, double act_bytes, std::int64_t tp);
/// Rows of a tied lm_head's own copy on one shard: TGI loads the head from the embedding's tensor as a tensor of
/// its own (TensorParallelHead.load: get_sharded along the vocabulary, or the whole matrix when the vocabulary does
/// not divide by tp) [rows].
[[nodiscard]] double tgi_tied_head_rows(double vocab, std::int64_t tp);

// ---- llama.cpp ------------------------------------------------------------------------------------------------

/// GGML_PAD(n, to): n rounded up to a multiple of `to`.
[[nodiscard]] std::int64_t ggml_pad(std::int64_t n, std::int64_t to);

/// KV cells of a context (llama-context.cpp): n_ctx padded to 256; without a unified cache each of n_seq
/// streams gets PAD(n_ctx / n_seq, 256).
struct llamacpp_cells {
  std::int64_t total = 0;       ///< cells over all streams [tokens]
  std::int64_t per_stream = 0;  ///< cells one stream (slot) may use [tokens]
};
[[nodiscard]] llamacpp_cells llamacpp_cell_count(std::int64_t n_ctx, std::int64_t n_seq, bool unified);
/// Cells of a sliding-window layer's cache: PAD(min(cells, n_swa x (unified ? n_seq : 1) + n_ubatch), 256).
[[nodiscard]] std::int64_t llamacpp_swa_cells(std::int64_t cells, std::int64_t window, std::int64_t n_seq, bool unified,
                                              std::int64_t n_ubatch);

/// The shapes the compute buffer depends on.
struct llamacpp_graph {
  double ubatch = 512;  ///< tokens of the worst-case graph: min(n_ctx, n_ubatch) [tokens]
  double kv_cells = 0;  ///< n_kv: cells attended (padded) [tokens]
  double heads = 0;     ///< query heads
  double hidden = 0;    ///< h
  double inner = 0;     ///< MLP inner width
  double vocab = 0;     ///< V
  bool flash = false;   ///< -fa on
};
/// The device's compute buffer: the largest phase of the worst-case graph (ggml-alloc reuses memory) [bytes].
/// output = this device holds the output layer (the logits phase).
[[nodiscard]] double llamacpp_compute_buffer(const llamacpp_graph& g, bool output);
/// The host's compute buffer: the input embeddings (+ the f32 mask without flash attention) [bytes].
[[nodiscard]] double llamacpp_host_compute_buffer(const llamacpp_graph& g);

/// Where -ngl puts the layers (llama-model.cpp load_tensors: layers below n_layer - ngl on the CPU, the output
/// layer on the GPU only when ngl > n_layer).
struct llamacpp_offload {
  bool gpu_layers = true;       ///< some repeating layer is on the GPU
  bool cpu_layers = false;      ///< some repeating layer is on the CPU
  bool output_on_gpu = true;    ///< the output layer is on the GPU
  double output_bytes = 0;      ///< the output matrix [bytes]
  double cpu_matrix_bytes = 0;  ///< the largest matrix of a CPU layer [bytes]
  /// The largest routed-expert tensor (every expert of one projection) --n-cpu-moe left on the CPU; 0: none [bytes]
  double expert_matrix_bytes = 0;
};
/// The smallest batch whose ops on host-held weights the CUDA backend runs on the GPU, copying the weight into its
/// compute buffer (ggml-cuda.cu ggml_backend_cuda_device_offload_op: min_batch_size 32) [tokens].
inline constexpr double llamacpp_op_offload_batch = 32;
/// The GPU's compute buffer with -ngl (partial offload included): the largest phase of the worst-case graph; with
/// op offload (ubatch >= 32) a host-held output layer or CPU-layer matrix is copied into it for its op [bytes].
[[nodiscard]] double llamacpp_compute_buffer(const llamacpp_graph& g, const llamacpp_offload& o);
/// The host's compute buffer with -ngl: the input embeddings, and with CPU layers the f32 mask and (without flash
/// attention) their KQ phase; the logits when the output layer stays on the host without op offload [bytes].
[[nodiscard]] double llamacpp_host_compute_buffer(const llamacpp_graph& g, const llamacpp_offload& o);

// ---- Ollama ---------------------------------------------------------------------------------------------------

/// Ollama's num_ctx default from the total VRAM (server/routes.go): >= 47 GiB 262144, >= 23 GiB 32768, else 4096,
/// capped at the model's training context when known [tokens].
[[nodiscard]] std::int64_t ollama_num_ctx(double total_vram_bytes, std::int64_t training_context);
/// Ollama's per-GPU reserve, MinimumMemory() (ml/device.go) [bytes].
inline constexpr double ollama_minimum_memory = 457.0 * 1048576;

}  // namespace llm_memory
