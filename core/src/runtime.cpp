// SPDX-License-Identifier: MIT
// The runtimes' own memory arithmetic (runtime.hpp). Sources, per function: docs/methodology.md ("Runtimes").
#include "llm_memory/runtime.hpp"

#include <algorithm>
#include <cmath>

namespace llm_memory {
namespace {

constexpr double gib = 1073741824;

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

// ---- vLLM -----------------------------------------------------------------------------------------------------

double vllm_budget(double total_bytes, double utilization) { return std::ceil(total_bytes * utilization); }

double kv_heads_per_rank(double kv_heads, std::int64_t tp) {
  return std::max(1.0, std::floor(kv_heads / static_cast<double>(tp)));
}

double vllm_page_bytes(std::int64_t block_size, double heads, double head_dim, double kv_bytes) {
  return static_cast<double>(block_size) * heads * 2 * head_dim * kv_bytes;
}

double vllm_mla_page_bytes(std::int64_t block_size, double latent, double kv_bytes) {
  return static_cast<double>(block_size) * latent * kv_bytes;
}

std::int64_t vllm_num_blocks(double available, double page, double layers) {
  if (available <= 0 || page <= 0 || layers <= 0) return 0;
  return static_cast<std::int64_t>(std::floor(std::floor(available / page) / layers));
}

double vllm_concurrency(std::int64_t blocks, std::int64_t max_model_len, std::int64_t block_size) {
  return static_cast<double>(blocks) / static_cast<double>(cdiv(max_model_len, block_size));
}

std::int64_t vllm_max_model_len(double available, double page, double layers, std::int64_t block_size) {
  if (available <= 0) return 0;
  return static_cast<std::int64_t>(std::floor(available / (layers * page))) * block_size;
}

std::int64_t vllm_sliding_blocks(std::int64_t window, std::int64_t batched_tokens, std::int64_t max_model_len,
                                 std::int64_t block_size) {
  return cdiv(std::min(window - 1 + batched_tokens, max_model_len), block_size) + 1;
}

std::int64_t vllm_chunked_blocks(std::int64_t chunk, std::int64_t batched_tokens, std::int64_t max_model_len,
                                 std::int64_t block_size) {
  return cdiv(std::min(chunk + batched_tokens, max_model_len), block_size);
}

namespace {
// A local layer's blocks per request: a sliding window's or a chunk's.
std::int64_t local_blocks(bool chunked, std::int64_t window, std::int64_t batched_tokens, std::int64_t max_model_len,
                          std::int64_t block_size) {
  return chunked ? vllm_chunked_blocks(window, batched_tokens, max_model_len, block_size)
                 : vllm_sliding_blocks(window, batched_tokens, max_model_len, block_size);
}
}  // namespace

double vllm_forward_peak(double tokens, double act_bytes, double inner, double hidden, double tp) {
  return tokens * act_bytes * (3 * inner / tp + 3 * hidden);
}

double vllm_sampler_bytes_per_logit(vllm_release release, double seqs) {
  constexpr double logits = 2 + 4;  // compute_logits' bf16 output, Sampler.forward's fp32 copy
  // FlashInfer (0.21): its masked logits and the fp32 probs; Triton (0.17): masks in place, then probs and the
  // exponential noise of random_sample.
  // V0 (0.6) sorts as 0.11 - 0.16 do (model_executor/layers/sampler.py _apply_top_k_top_p: logits.sort).
  if (release != vllm_release::v0_11 && release != vllm_release::v0_6) return logits + 4 + 4;
  // logits.sort: fp32 values and int64 indices, plus ATen's segmented sort (SortStable.cu): from 128 rows
  // segmented_sort_pairs (int64 reverse indices), below it segmented_sort_pairs_by_full_sort (two int2 buffers);
  // either way cub's radix sort without a double buffer holds alternate keys (4) and values (8).
  const double sort_buffers = seqs >= 128 || seqs <= 1 ? 8 : 16;
  return logits + 4 + 8 + sort_buffers + 4 + 8;
}

double vllm_sampler_peak(vllm_release release, double seqs, double vocab, double held_hidden_bytes) {
  return seqs * vocab * vllm_sampler_bytes_per_logit(release, seqs) + held_hidden_bytes;
}

vllm_batch_defaults vllm_defaults(double total_bytes, bool a100) {
  if (total_bytes >= 70 * gib && !a100) return {8192, 1024};
  return {2048, 256};
}

vllm_hybrid_groups vllm_hybrid_grouping(std::int64_t full_layers, std::int64_t sliding_layers) {
  vllm_hybrid_groups g;
  const std::int64_t lo = std::min(full_layers, sliding_layers), hi = std::max(full_layers, sliding_layers);
  if (hi <= 0) return g;
  g.group_size = lo == 0 ? hi : (static_cast<double>(hi) < 1.5 * static_cast<double>(lo) ? hi : lo);
  g.full_groups = cdiv(full_layers, g.group_size);
  g.sliding_groups = cdiv(sliding_layers, g.group_size);
  return g;
}

vllm_hybrid_pages vllm_unify_pages(std::int64_t block_size, double full_page, double sliding_page) {
  const double page = std::max(full_page, sliding_page);
  if (full_page <= 0 || sliding_page <= 0 || std::fmod(page, full_page) != 0 || std::fmod(page, sliding_page) != 0)
    return {};
  return {page, block_size * static_cast<std::int64_t>(page / full_page),
          block_size * static_cast<std::int64_t>(page / sliding_page)};
}

std::int64_t vllm_hybrid_blocks_per_request(const vllm_hybrid_groups& g, std::int64_t max_model_len,
                                            std::int64_t window, std::int64_t batched_tokens,
                                            const vllm_hybrid_pages& p, bool chunked) {
  return g.full_groups * cdiv(max_model_len, p.full_block) +
         g.sliding_groups * local_blocks(chunked, window, batched_tokens, max_model_len, p.sliding_block);
}

std::int64_t vllm_hybrid_tokens(std::int64_t blocks, const vllm_hybrid_groups& g, std::int64_t block_size) {
  const std::int64_t groups = g.full_groups + g.sliding_groups;
  return groups > 0 ? blocks / groups * block_size : 0;
}

std::int64_t vllm_hybrid_max_model_len(double available, const vllm_hybrid_pages& p, std::int64_t full_layers,
                                       std::int64_t sliding_layers, std::int64_t window, std::int64_t batched_tokens,
                                       std::int64_t limit, bool chunked) {
  auto fits = [&](std::int64_t m) {
    const auto blocks =
        static_cast<double>(full_layers * cdiv(m, p.full_block) +
                            sliding_layers * local_blocks(chunked, window, batched_tokens, m, p.sliding_block));
    return blocks * p.page <= available;
  };
  if (limit < 1 || p.page <= 0 || !fits(1)) return 0;
  std::int64_t good = 1, bad = limit + 1;
  while (bad - good > 1) {
    const std::int64_t mid = good + (bad - good) / 2;
    (fits(mid) ? good : bad) = mid;
  }
  return good;
}

double custom_all_reduce_bytes(std::int64_t tp) {
  constexpr double max_size = 8192.0 * 1024;
  const bool supported = tp == 2 || tp == 4 || tp == 6 || tp == 8;
  return supported ? 3 * max_size : 0;  // buffer + (meta + max_size) + rank_data
}

// ---- SGLang ---------------------------------------------------------------------------------------------------

namespace {

struct sglang_tier {
  double below_mib;
  std::int64_t chunk;
  std::int64_t graph_bs_small_tp;
  std::int64_t graph_bs_large_tp;
};

// server_args._handle_gpu_memory_settings: chunked_prefill_size and cuda_graph_max_bs by device memory.
constexpr sglang_tier sglang_tiers[] = {
    {20 * 1024, 2048, 8, 8},     {35 * 1024, 2048, 24, 80},    {60 * 1024, 4096, 32, 160},
    {90 * 1024, 8192, 256, 512}, {160 * 1024, 8192, 256, 512}, {1e300, 16384, 512, 512},
};

const sglang_tier& sglang_tier_for(double gpu_mem_mib) {
  for (const auto& t : sglang_tiers)
    if (gpu_mem_mib < t.below_mib) return t;
  return sglang_tiers[5];
}

}  // namespace

std::int64_t sglang_chunked_prefill(double gpu_mem_mib) { return sglang_tier_for(gpu_mem_mib).chunk; }

double sglang_mem_fraction(double gpu_mem_mib, std::int64_t tp, std::int64_t pp) {
  const sglang_tier& t = sglang_tier_for(gpu_mem_mib);
  const auto graph_bs = static_cast<double>(tp < 4 ? t.graph_bs_small_tp : t.graph_bs_large_tp);
  double reserved = 512 + static_cast<double>(std::max<std::int64_t>(t.chunk, 2048)) * 1.5 + graph_bs * 2 +
                    static_cast<double>(tp * pp) / 8 * 1024;
  if (gpu_mem_mib > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024);
  return std::round((gpu_mem_mib - reserved) / gpu_mem_mib * 1000) / 1000;
}

std::int64_t sglang_tokens(double total_free, double available_after_weights, double mfs, double cell) {
  const double rest = available_after_weights - total_free * (1 - mfs);
  return rest <= 0 ? 0 : static_cast<std::int64_t>(std::floor(rest / cell));
}

// ---- TGI ------------------------------------------------------------------------------------------------------

double tgi_free(double free_bytes, double total_bytes, double fraction) {
  return std::max(0.0, free_bytes - (1 - fraction) * total_bytes);
}

std::int64_t tgi_blocks(double kv_memory, double block_bytes, std::int64_t warmup_blocks) {
  return static_cast<std::int64_t>(std::floor(kv_memory / block_bytes)) + warmup_blocks;
}

double tgi_kv_memory(tgi_release release, double free_bytes, double total_bytes, double fraction) {
  switch (release) {
    case tgi_release::v3_3: return tgi_free(free_bytes, total_bytes, 0.90 * fraction);
    case tgi_release::v3_1: return tgi_free(free_bytes, total_bytes, 0.93 * fraction);
    case tgi_release::v3_0: return tgi_free(free_bytes, total_bytes, 0.95 * fraction);
    case tgi_release::v2_4: return 0.90 * tgi_free(free_bytes, total_bytes, fraction);
    case tgi_release::v1_4_1: return 0.95 * tgi_free(free_bytes, total_bytes, fraction);
    case tgi_release::v1_0: break;
  }
  return tgi_free(free_bytes, total_bytes, fraction);
}

std::int64_t tgi_warmup_blocks(std::int64_t prefill_tokens, std::int64_t max_input, std::int64_t max_total,
                               std::int64_t block_size) {
  if (prefill_tokens <= 0 || max_input <= 0 || max_total <= 1) return 0;
  return cdiv(prefill_tokens, max_input) * cdiv(max_total - 1, block_size);
}

std::int64_t tgi_warmup_logit_rows(tgi_release release, std::int64_t prefill_tokens, std::int64_t max_input) {
  if (prefill_tokens <= 0) return 0;
  const bool last_only = release == tgi_release::v3_3 || release == tgi_release::v3_1 || release == tgi_release::v3_0;
  if (!last_only) return prefill_tokens;
  return max_input > 0 ? cdiv(prefill_tokens, max_input) : 1;
}

double tgi_warmup_logits(double rows, double vocab, double act_bytes, std::int64_t tp) {
  const double gathered = tp > 1 ? 1.0 / static_cast<double>(tp) : 0;
  return rows * vocab * act_bytes * (2 + gathered);
}

double tgi_tied_head_rows(double vocab, std::int64_t tp) {
  const auto v = static_cast<std::int64_t>(vocab);
  return tp > 1 && v % tp == 0 ? static_cast<double>(v / tp) : vocab;
}

// ---- llama.cpp ------------------------------------------------------------------------------------------------

std::int64_t ggml_pad(std::int64_t n, std::int64_t to) { return cdiv(n, to) * to; }

llamacpp_cells llamacpp_cell_count(std::int64_t n_ctx, std::int64_t n_seq, bool unified) {
  const std::int64_t padded = ggml_pad(n_ctx, 256);
  if (unified || n_seq <= 1) return {padded, padded};
  const std::int64_t per_stream = ggml_pad(padded / n_seq, 256);
  return {per_stream * n_seq, per_stream};
}

std::int64_t llamacpp_swa_cells(std::int64_t cells, std::int64_t window, std::int64_t n_seq, bool unified,
                                std::int64_t n_ubatch) {
  return ggml_pad(std::min(cells, window * (unified ? n_seq : 1) + n_ubatch), 256);
}

double llamacpp_compute_buffer(const llamacpp_graph& g, bool output) {
  const double ub = g.ubatch, kv = g.kv_cells, h = g.hidden;
  // Without flash attention: KQ (f32, every head), the mask's f32 copy and four hidden-size f32 tensors; with it:
  // the f32 mask and its f16 cast live together, or the mask and the hidden-size tensors.
  const double attention = g.flash ? std::max(6 * ub * kv + 4 * ub * h, 2 * ub * kv + 16 * ub * h)
                                   : 4 * ub * kv * g.heads + 4 * ub * kv + 16 * ub * h;
  const double ffn = 4 * ub * (2 * g.inner + 2 * h);
  const double logits = output ? 4 * ub * g.vocab + 4 * ub * h : 0;
  return std::max({attention, ffn, logits});
}

double llamacpp_host_compute_buffer(const llamacpp_graph& g) {
  return 4 * g.ubatch * g.hidden + (g.flash ? 0 : 4 * g.ubatch * g.kv_cells);
}

namespace {

// The attention phase of one layer (see llamacpp_compute_buffer).
double llamacpp_attention_phase(const llamacpp_graph& g) {
  const double ub = g.ubatch, kv = g.kv_cells, h = g.hidden;
  return g.flash ? std::max(6 * ub * kv + 4 * ub * h, 2 * ub * kv + 16 * ub * h)
                 : 4 * ub * kv * g.heads + 4 * ub * kv + 16 * ub * h;
}

}  // namespace

double llamacpp_compute_buffer(const llamacpp_graph& g, const llamacpp_offload& o) {
  const double ub = g.ubatch, h = g.hidden;
  const bool op_offload = ub >= llamacpp_op_offload_batch;
  const double logits = 4 * ub * g.vocab + 4 * ub * h;
  // Layers on the GPU run there; a CPU layer's matrices run there too with op offload (the weight copied in).
  const double attention = o.gpu_layers ? llamacpp_attention_phase(g) : 0;
  const double ffn = o.gpu_layers || (o.cpu_layers && op_offload) ? 4 * ub * (2 * g.inner + 2 * h) : 0;
  const double output = o.output_on_gpu ? logits : op_offload ? o.output_bytes + logits : 0;
  const double cpu_copy = o.cpu_layers && op_offload ? o.cpu_matrix_bytes + 4 * ub * (g.inner + h) : 0;
  // Experts kept on the CPU (--n-cpu-moe): their MUL_MAT_ID is offloaded the same way, one expert tensor at a time.
  const double expert_copy =
      o.expert_matrix_bytes > 0 && op_offload ? o.expert_matrix_bytes + 4 * ub * (g.inner + h) : 0;
  return std::max({attention, ffn, output, cpu_copy, expert_copy});
}

double llamacpp_host_compute_buffer(const llamacpp_graph& g, const llamacpp_offload& o) {
  if (!o.cpu_layers && o.output_on_gpu) return llamacpp_host_compute_buffer(g);
  const double ub = g.ubatch, h = g.hidden;
  // CPU layers read the f32 mask on the host, flash attention or not; without flash attention their KQ is there.
  double host = 4 * ub * h + (o.cpu_layers || !g.flash ? 4 * ub * g.kv_cells : 0);
  if (o.cpu_layers && !g.flash) host = std::max(host, llamacpp_attention_phase(g));
  if (!o.output_on_gpu && ub < llamacpp_op_offload_batch) host = std::max(host, 4 * ub * g.vocab + 4 * ub * h);
  return host;
}

// ---- Ollama ---------------------------------------------------------------------------------------------------

std::int64_t ollama_num_ctx(double total_vram_bytes, std::int64_t training_context) {
  const std::int64_t tier = total_vram_bytes >= 47 * gib ? 262144 : total_vram_bytes >= 23 * gib ? 32768 : 4096;
  return training_context > 0 ? std::min(tier, training_context) : tier;
}

}  // namespace llm_memory
