// SPDX-License-Identifier: MIT
// SGLang: its defaults from the device's memory, and weights + KV cache within mem_fraction_static of the memory
// free at start (runtime.hpp has the arithmetic). Sources: docs/methodology.md ("Runtimes").
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"

namespace llm_memory::detail {
namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

constexpr double mib = 1048576;

std::string fixed3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// SGLang: chunked_prefill_size and mem_fraction_static from the device's memory (server_args.py).
settings profile(const setting_values& v) {
  settings p = engine_common();
  const double gpu_mib = v.gpu_memory / mib;
  p.emplace("max_num_batched_tokens", std::to_string(sglang_chunked_prefill(gpu_mib)));
  p.emplace("mem_fraction_static", fixed3(sglang_mem_fraction(gpu_mib, v.tp, v.pp)));
  p.emplace("block_size", "1");
  return p;
}

// The architectures SGLang runs without the sliding window their config.json declares: classes whose
// RadixAttention gets no sliding_window_size (sgl-project/sglang @00b08c49, python/sglang/srt/models/). Gemma 2/3,
// gpt-oss, Cohere 2 and OLMo 3 pass their window per layer and run it (docs/runtimes.md).
constexpr std::array full_attention_classes{
    windowless_arch{"mistral",
                    "mistral.py: MistralForCausalLM(LlamaForCausalLM), whose LlamaAttention passes "
                    "no sliding_window_size to RadixAttention"},
    windowless_arch{"phi3",
                    "llama.py: Phi3ForCausalLM(LlamaForCausalLM), whose LlamaAttention passes no "
                    "sliding_window_size to RadixAttention"},
};

// Llama 4: Llama4ForConditionalGeneration is a hybrid-SWA architecture (configs/model_config.py is_hybrid_swa_model;
// get_hybrid_layer_ids: layer i local unless (i + 1) % 4 == 0), its local layers in the SWA pool with the window
// attention_chunk_size, as gpt-oss's (the pool's swa_full_tokens_ratio split: window_pool_cell below).
architecture_rule architecture(const setting_values& v) {
  if (v.model_type == "llama4_text")
    return chunks_as_window(v, v.attention_chunk_size, "SGLang",
                            "model_config.py is_hybrid_swa_model: Llama4ForConditionalGeneration, the SWA pool");
  return windowless_rule(v, full_attention_classes, "SGLang");
}

bucket activations(const context& /*c*/) {
  builder out = workspace();
  out.b.assumes = "SGLang keeps activations and CUDA graphs in the share outside mem_fraction_static (overhead)";
  return std::move(out.b);
}

void overhead(const context& c, double /*allocated*/, double /*weights*/, builder& over) {
  const setting_values& s = c.s;
  const double T = s.gpu_memory;
  over.add("CUDA context", s.cuda_context, "cuda_context setting");
  const double all_reduce = custom_all_reduce_bytes(s.tp);
  if (all_reduce > 0)
    over.add("custom all-reduce buffers (tp " + std::to_string(s.tp) + ")", all_reduce,
             "3 x max_size 8 MiB (vLLM's CustomAllreduce, forked), before SGLang measures free memory");
  over.add("outside mem_fraction_static (activations, CUDA graphs)",
           (1 - s.mem_fraction_static) * (T - s.cuda_context - all_reduce),
           "(1 - " + n(s.mem_fraction_static) + ") x (gpu_memory - cuda_context" +
               (all_reduce > 0 ? " - custom all-reduce)" : ")"));
}

// SGLang with recurrent layers (HybridReqToTokenPool's MambaPool beside the KV pool; sgl-project/sglang @001ccef0
// python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py handle_max_mamba_cache, init_memory): without
// max_mamba_cache_size the memory left after the weights splits by mamba_full_memory_ratio (default 0.9): the mamba
// pool gets rest x r / (1 + r), max_mamba_cache_size = that // mamba_cache_per_req states, the KV pool what they leave
// (no speculative decoding). mamba_cache_per_req: every recurrent layer's conv and temporal state on this rank. With
// the radix cache (on by default) a running request holds MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO = 3 states
// (calculate_mamba_ratio; no extra buffer by default), so max_num_reqs <= max_mamba_cache_size // 3.
constexpr double mamba_full_memory_ratio = 0.9;
constexpr double mamba_states_per_request = 3;

// SGLang rounds the token pool down to whole pages (init_memory: max_total_num_tokens // page_size * page_size;
// --page-size is the block_size setting, 1 by default).
double whole_pages(const context& c, double tokens) {
  const auto page = static_cast<double>(std::max<std::int64_t>(1, c.s.block_size));
  return std::floor(tokens / page) * page;
}

void report_mamba_pool(const context& c, double rest, double per_token, runtime_report& out,
                       std::vector<std::string>& notes) {
  const double per_request = state_bytes_per_sequence(c, c.layers_on_stage);
  if (per_request <= 0 || rest <= 0) return;
  const double states = std::floor(rest * mamba_full_memory_ratio / (1 + mamba_full_memory_ratio) / per_request);
  const double pool = states * per_request;
  const double requests = std::floor(states / mamba_states_per_request);
  notes.push_back("SGLang's mamba pool: max_mamba_cache_size " + n(states) + " states of " + n(per_request) +
                  " B (mamba_cache_per_req) = " + n(pool) +
                  " B, mamba_full_memory_ratio 0.9 of what the weights leave; 3 states a running request with the "
                  "radix cache: at most " +
                  n(requests) + " requests");
  out.max_concurrency = requests;
  if (per_token <= 0) return;
  out.kv_capacity_tokens = whole_pages(c, std::floor((rest - pool) / per_token));
  out.max_concurrency = std::min(requests, out.kv_capacity_tokens / static_cast<double>(c.s.seq));
  out.max_context = static_cast<std::int64_t>(out.kv_capacity_tokens);
}

// MiniMax-Text-01 / M1 (python/sglang/srt/models/minimax_text_01.py @0400545e MiniMaxText01Model): the lightning
// layers' states live in a MinimaxCacheManager of their own, float32, shaped (lightning layers, max_slots, heads / tp,
// d, d) with max_slots = the scheduler_config's max_num_seqs, 32 as SGLang passes none; it is allocated with the model,
// before the KV pool is profiled, so it comes out of what the weights leave, and no more than 32 sequences run at once.
constexpr double minimax_cache_slots = 32;

void report_minimax_cache(const context& c, const runtime_term& weights, double total_free, double per_token,
                          runtime_report& out, std::vector<std::string>& notes) {
  const double layers = c.m.layers_of(layer_kind::lightning, c.layers_on_stage);
  const double cache = minimax_cache_slots * layers * layer_def(layer_kind::lightning).state_bytes(c);
  notes.push_back("SGLang's MinimaxCacheManager: 32 slots x " + n(layers) +
                  " lightning layers x heads x head_dim x head_dim x 4 B (float32) = " + n(cache) +
                  " B, allocated with the model; at most 32 sequences at once");
  out.terms.push_back({"MinimaxCacheManager (lightning states, 32 slots)", cache,
                       "32 x " + n(layers) + " layers x heads x head_dim x head_dim x 4 B"});
  out.kv_available = std::max(0.0, out.budget - weights.bytes - cache);
  out.kv_shortfall = std::max(0.0, weights.bytes + cache - out.budget);
  out.max_concurrency = minimax_cache_slots;
  if (per_token <= 0) return;
  out.kv_capacity_tokens =
      whole_pages(c, static_cast<double>(sglang_tokens(total_free, total_free - weights.bytes - cache,
                                                       c.s.mem_fraction_static, per_token)));
  out.max_concurrency = std::min(minimax_cache_slots, out.kv_capacity_tokens / static_cast<double>(c.s.seq));
  out.max_context = static_cast<std::int64_t>(out.kv_capacity_tokens);
}

// SGLang's KV pool beside sliding-window layers. configs/model_config.py is_hybrid_swa_model (sgl-project/sglang
// @001adf56) names the architectures that get a pool of their own for the sliding layers (gpt-oss, Gemma 4, Llama 4,
// MiMo V2, Step 3.5, Laguna); HybridSWAPoolConfigurator (model_executor/pool_configurator.py @003fca80) prices a
// token of the pool at full_per_token x full layers + swa_full_tokens_ratio (0.8, server_args.py) x swa_per_token x
// sliding layers, full_layer_tokens = available // that and swa_layer_tokens = 0.8 x full_layer_tokens (an
// all-sliding model: swa_per_token x layers, no ratio). Every other architecture (Gemma 2 / 3 / 3n, Cohere 2,
// OLMo 3) gets DefaultPoolConfigurator: each attention layer at full length per token, whatever its window.
constexpr double swa_full_tokens_ratio = 0.8;
constexpr std::array<std::string_view, 4> hybrid_swa_types{"gpt_oss", "gemma4", "gemma4_text", "llama4_text"};

// Bytes of one token of the pool; 0 where the model has no sliding layers or keeps a latent (MLA).
double window_pool_cell(const context& c, std::vector<std::string>& notes) {
  const double all = full_length_kv_bytes_per_token(c);
  const double sliding = c.m.cached_layers_of(layer_kind::sliding_attention, c.layers_on_stage);
  if (c.m.mla || all <= 0 || sliding <= 0) return 0;
  if (std::find(hybrid_swa_types.begin(), hybrid_swa_types.end(), c.s.model_type) == hybrid_swa_types.end()) {
    notes.push_back("SGLang's KV pool prices every attention layer at full length (DefaultPoolConfigurator: " +
                    std::string(c.s.model_type.empty() ? "this model" : c.s.model_type) +
                    " is not a hybrid-SWA architecture), " + n(all) + " B a token");
    return all;
  }
  const double swa = sliding * 2 * kv_heads_per_rank(c.m.kv_heads, c.s.tp) * c.m.head_dim * bytes_per_value(c.r.kv);
  const double full = all - swa;
  const double cell = full > 0 ? full + swa_full_tokens_ratio * swa : swa;
  notes.push_back("SGLang's sliding-window memory pool (HybridSWAPoolConfigurator): " + n(full) +
                  " B a token in the full-attention layers + swa_full_tokens_ratio 0.8 x " + n(swa) +
                  " B in the sliding ones; swa_layer_tokens = 0.8 x full_layer_tokens");
  return cell;
}

// SGLang: weights + KV cache within mem_fraction_static of the memory free at start.
void report(const context& c, const runtime_term& weights, runtime_report& out, std::vector<std::string>& notes) {
  const auto& s = c.s;
  const double total_free = s.gpu_memory - s.cuda_context - custom_all_reduce_bytes(s.tp);
  out.budget = total_free * s.mem_fraction_static;
  out.terms = {weights};
  out.kv_available = std::max(0.0, out.budget - weights.bytes);  // never negative: the shortfall is its own field
  out.kv_shortfall = std::max(0.0, weights.bytes - out.budget);
  const double per_token = kv_bytes_per_token(c);
  if (c.m.layers_of(layer_kind::lightning, c.layers_on_stage) > 0) {
    report_minimax_cache(c, weights, total_free, per_token, out, notes);
    return;
  }
  if (recurrent_layers(c) > 0) {
    report_mamba_pool(c, total_free - weights.bytes - total_free * (1 - s.mem_fraction_static), per_token, out, notes);
    return;
  }
  if (per_token > 0) {
    out.kv_capacity_tokens = whole_pages(c, static_cast<double>(sglang_tokens(total_free, total_free - weights.bytes,
                                                                              s.mem_fraction_static, per_token)));
    // The pool's buffers, "KV Cache is allocated. ... K size, V size" (srt/mem_cache/memory_pool.py @14c3feee
    // MHATokenToKVPool._create_buffers): size + page_size rows a layer, the padded slot 0 included.
    if (out.kv_capacity_tokens > 0)  // none when the weights leave no room: SGLang refuses to start
      out.kv_pool = (out.kv_capacity_tokens + static_cast<double>(std::max<std::int64_t>(1, s.block_size))) * per_token;
    out.max_concurrency = out.kv_capacity_tokens / static_cast<double>(s.seq);
    out.max_context = static_cast<std::int64_t>(out.kv_capacity_tokens);
  } else if (const double cell = s.sliding_window > 0 ? window_pool_cell(c, notes) : 0; cell > 0) {
    out.kv_capacity_tokens = whole_pages(
        c, static_cast<double>(sglang_tokens(total_free, total_free - weights.bytes, s.mem_fraction_static, cell)));
    out.max_concurrency = out.kv_capacity_tokens / static_cast<double>(s.seq);
    out.max_context = static_cast<std::int64_t>(out.kv_capacity_tokens);
  } else if (out.kv_available > 0) {
    out.max_concurrency = out.kv_available / kv_bytes_per_request(c);
  }
}

// The profile reads: chunked_prefill_size from the device's memory, mem_fraction_static from it, tp and pp.
profile_reads reads(const run_spec&) { return {.tp = true, .pp = true, .gpu_memory = true}; }

void check(const run_spec& r, std::vector<error>& errors) { check_kv_split(r, "SGLang", errors); }

}  // namespace rest_rows
}  // namespace

runtime_def sglang_runtime() {
  runtime_def d;
  d.kind = runtime_kind::sglang;
  d.profile = profile;
  d.reads = reads;
  d.check = check;
  d.architecture = architecture;
  d.router_unquantized = true;  // ReplicatedLinear(quant_config=None) gates: docs/methodology.md
  d.activations = activations;
  d.overhead = overhead;
  d.report = report;
  d.pooled_kv = true;
  // The SSM / delta-rule state: SGLANG_MAMBA_SSM_DTYPE, else the config's mamba_ssm_dtype, else "float32"; the conv
  // state bf16 (python/sglang/srt/configs/mamba_utils.py mamba2_state_dtype, CONV_DTYPE).
  d.state_dtype = dtype::fp32;
  d.lightning_state_dtype = dtype::fp32;  // MinimaxCacheManager(dtype=torch.float32): report_minimax_cache
  // vLLM's QKV split and serving layout: tp within a node, pp across nodes.
  d.splits = device_split::tensor_then_pipeline;
  d.split_limits = "tp within a node of 8, dividing the heads; pp across nodes, up to the layers";
  return d;
}

}  // namespace llm_memory::detail
