// SPDX-License-Identifier: MIT
// vLLM (the V1 engine, and V0 as vllm_version 0.6): its defaults, the profiling run that sizes its activations, its
// budget and the KV cache blocks it allocates from what the budget leaves (runtime.hpp has the arithmetic), and how
// it runs each architecture. Sources: docs/methodology.md ("Runtimes"), docs/runtimes.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "runtimes/runtime_def.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {
namespace {

// vLLM V1: EngineArgs.get_batch_defaults (API server). From 0.21 (PR #38284) gpu_memory_utilization defaults to
// 0.92 and the budget holds an estimate of the CUDA graphs (0.84 GiB, calibrated on a v0.19 Llama 3.1 8B log);
// before, 0.90 and graphs captured after the KV cache is sized, outside the budget. Non-torch memory: 0.14 GiB
// measured on v0.11.0 (H100, DEBUG "non-torch forward increase": 0.13-0.14 GiB at tp 1, 0.54-0.55 at tp 2, NCCL's
// buffers connected during the profiling run); from 0.17 the 0.32 GiB calibrated on Llama 3.1 8B logs, + 0.41 GiB
// at tp > 1 (docs/methodology.md).
// The V0 engine (vllm_version 0.6: 0.6 - 0.10 with VLLM_USE_V1=0) profiles the whole prompt: chunked prefill is on
// by default only past a 32K context without a sliding window (EngineArgs.create_engine_config, v0.6.3), then 512
// tokens a step; otherwise max_num_batched_tokens = max(max_model_len, 2048) (SchedulerConfig, v0.6.3 - v0.8.5) and
// max_num_seqs 256.
vllm_batch_defaults v0_defaults(const setting_values& v) {
  constexpr std::int64_t long_context = 32768, chunk = 512, shortest = 2048, seqs = 256;
  if (v.seq > long_context && v.sliding_window == 0) return {chunk, seqs};
  return {std::max(v.seq, shortest), seqs};
}

settings profile(const setting_values& v) {
  settings p = engine_common();
  const bool a100 = v.gpu.find("a100") != std::string::npos;
  const bool v0 = v.vllm_version == "0.6";
  const vllm_batch_defaults d = v0 ? v0_defaults(v) : vllm_defaults(v.gpu_memory, a100);
  p.emplace("max_num_batched_tokens", std::to_string(d.batched_tokens));
  p.emplace("max_num_seqs", std::to_string(d.seqs));
  const bool v0_21 = v.vllm_version == "0.21", v0_11 = v.vllm_version == "0.11" || v0;
  if (!v0_21) p.emplace("gpu_memory_utilization", "0.9");
  // V0's non-torch memory: the 0.11 measurement (NCCL and cuBLAS are the same libraries; no V0 figure is logged).
  p.emplace("non_torch_memory", v0_11 ? (v.tp > 1 ? "0.55GiB" : "0.14GiB") : (v.tp > 1 ? "0.73GiB" : "0.32GiB"));
  p.emplace("cuda_graph_memory", v0_21 ? "0.84GiB" : "0");
  return p;
}

// Per architecture (docs/runtimes.md). V1 (0.11 on) runs every window config.json declares: an all-sliding model
// through CacheConfig.sliding_window (EngineArgs.create_engine_config sets it unless is_interleaved), an interleaved
// one per layer (Attention's per_layer_sliding_window: gemma2.py, gemma3.py, cohere2.py, gpt_oss.py, olmo3.py,
// llama.py from layer_types), each group paged on its own (the hybrid KV cache manager). V0 (0.6) pages every layer
// alike: CacheEngine allocates num_gpu_blocks blocks per layer and one block table serves every layer of a sequence
// (vllm/worker/cache_engine.py), and an interleaved model gets no CacheConfig.sliding_window, so its sliding layers
// hold the whole context as the full ones do. An all-sliding model (Mistral 7B v0.1) keeps its window in V0 too: the
// block manager frees the blocks that leave it (BlockSpaceManager's block_sliding_window).
constexpr std::array<std::string_view, 4> v0_interleaved{"gemma2", "gemma3", "gemma3_text", "cohere2"};

// Llama 4's chunked local attention (llama4.py: ChunkedLocalAttention where the layer ropes; its KV spec
// ChunkedLocalAttentionSpec): paged by chunk only under the hybrid KV cache manager, which VllmConfig turns off for
// a model with attention_chunk_size unless VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE (PR #21761, v0.10.1:
// default off; PR #29627 turned it on, before 0.17). Without the manager unify_hybrid_kv_cache_specs makes every
// layer a FullAttentionSpec: the whole context (V0 pages every layer alike too).
architecture_rule chunk_rule(const setting_values& v) {
  if (v.vllm_version == "0.17" || v.vllm_version == "0.21")
    return chunks_as_window(v, v.attention_chunk_size, "vLLM",
                            "the hybrid KV cache manager's ChunkedLocalAttentionSpec groups, "
                            "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE on by default from PR #29627");
  if (v.attention_chunk_size <= 0 || v.sliding_window > 0) return {};
  return {{},
          "vLLM " + v.vllm_version + " keeps " + v.model_type + "'s chunked-attention layers at the whole context (" +
              (v.vllm_version == "0.6" ? "V0: one block table for every layer"
                                       : "VllmConfig disables the hybrid KV cache manager for attention_chunk_size, "
                                         "PR #21761") +
              ")"};
}

// Nemotron-H's SSM state: vLLM's NemotronHForCausalLMConfig.verify_and_update_config (vllm/model_executor/models/
// config.py) replaces cache_config.mamba_ssm_cache_dtype "auto" by getattr(hf_config, "mamba_ssm_cache_dtype",
// DEFAULT_MAMBA_SSM_CACHE_DTYPE = "float32"), and transformers' NemotronHConfig defaults that field to "float32":
// without the field (nemotron_h_fields reads it when present) the state is fp32, not the model's dtype. V0 (0.6) ran
// no Nemotron-H.
architecture_rule nemotron_h_state(const setting_values& v) {
  if (v.state_dtype != "auto" || v.vllm_version == "0.6") return {};
  architecture_rule rule;
  rule.model.emplace("state_dtype", "fp32");
  rule.note =
      "vLLM keeps nemotron_h's SSM state in float32 without mamba_ssm_cache_dtype in its config "
      "(NemotronHForCausalLMConfig: DEFAULT_MAMBA_SSM_CACHE_DTYPE)";
  return rule;
}

architecture_rule architecture(const setting_values& v) {
  if (v.model_type == "nemotron_h") return nemotron_h_state(v);
  if (v.attention_chunk_size > 0) return chunk_rule(v);
  if (v.vllm_version != "0.6") return {};
  for (const std::string_view type : v0_interleaved)
    if (type == v.model_type)
      return without_window(v, "vLLM's V0 engine",
                            "interleaved sliding window: CacheEngine gives every layer num_gpu_blocks blocks, one "
                            "block table per sequence (vllm/worker/cache_engine.py, v0.6.3 - v0.8.5)");
  return {};
}

// vLLM's rotary embedding keeps a cos/sin cache of max_position x rotary_dim in the model dtype (rotary_embedding
// _compute_cos_sin_cache); "Model loading took" includes it.
void rotary_cache(const context& c, builder& params) {
  const run_spec& r = c.r;
  if (r.model.choices.position == position_kind::rope && r.values.max_position_embeddings > 0)
    params.add("rotary cos/sin cache", static_cast<double>(r.values.max_position_embeddings) * c.m.head_dim * c.act,
               "max_position_embeddings " + std::to_string(r.values.max_position_embeddings) + " x head_dim " +
                   n(c.m.head_dim) + " x " + n(c.act) + " B");
}

// Whether the GPU preset runs GateLinear's specialised router kernels: CUDA capability 9.0 (H100, H200, H20, GH200)
// or the 10.x family (B200, B300, GB200, GB300); not 8.x, 12.x (RTX 50, RTX PRO 6000, DGX Spark) or ROCm.
bool hopper_or_blackwell(std::string_view gpu) {
  for (const std::string_view prefix : {"h100", "h200", "h20-", "gh200", "b200", "b300", "gb200", "gb300"})
    if (gpu.starts_with(prefix)) return true;
  return false;
}

// Nemotron-H's router is a GateLinear(force_fp32_compute=True) with no bias: off those GPUs it stores its weight in
// fp32 (params_dtype = torch.float32) so that F.linear computes in fp32 (vllm/model_executor/layers/fused_moe/router/
// gate_linear.py @0487d5c2, models/nemotron_h.py @00b08dc4 NemotronHMoE). The weights bucket holds it 16-bit: the
// other 2 B a weight here. No GPU preset: the GPU is not known, 16-bit.
void fp32_gate(const context& c, builder& params) {
  if (c.s.model_type != "nemotron_h" || c.s.gpu.empty() || hopper_or_blackwell(c.s.gpu) || c.s.params > 0) return;
  const dtype_info& w = info(c.r.weights);
  const double stored = w.family == dtype_family::floating ? w.bytes_per_value() : 2;
  const double moe_layers = c.layers_on_stage / static_cast<double>(c.m.layers) *
                            c.m.params.over_layers([](const layer_params& l) { return l.router > 0 ? 1.0 : 0.0; });
  const double gates = moe_layers * c.m.hidden * static_cast<double>(c.s.num_experts);
  if (gates > 0 && stored < fp32_bytes && w.family != dtype_family::gguf_mix)
    params.add("router in fp32 (GateLinear off Hopper and Blackwell)", gates * (fp32_bytes - stored),
               n(moe_layers) + " layers x hidden " + n(c.m.hidden) + " x " + std::to_string(c.s.num_experts) +
                   " experts x (4 - " + n(stored) + ") B");
}

void extra_weights(const context& c, builder& params) {
  rotary_cache(c, params);
  fp32_gate(c, params);
}

// vLLM's profiling run: a forward at the chunk, then the sampler over max_num_seqs rows; not at once.
runtime_term profile_peak(const context& c) {
  const double N = chunk_tokens(c);
  const double seqs = std::min(static_cast<double>(c.s.max_num_seqs), N);
  const double forward = vllm_forward_peak(N, c.act, mlp_inner(c), c.m.hidden, c.t);
  const double held = N * c.m.hidden * c.act;  // profile_run's hidden_states, alive while the sampler runs
  const double sampler = vllm_sampler_peak(c.r.vllm, seqs, c.m.vocab, held);
  if (forward >= sampler)
    return {
        "profiling forward at the prefill chunk", forward,
        n(N) + " tokens x " + n(c.act) + " B x (3 x inner " + n(mlp_inner(c)) + " / tp + 3 x h " + n(c.m.hidden) + ")"};
  return {"profiling sampler over max_num_seqs", sampler,
          n(seqs) + " sequences x V " + n(c.m.vocab) + " x " + n(vllm_sampler_bytes_per_logit(c.r.vllm, seqs)) +
              " B per logit (vllm_version " + c.s.vllm_version + ") + the forward's hidden states " + n(N) +
              " tokens x h " + n(c.m.hidden) + " x " + n(c.act) + " B"};
}

bucket activations(const context& c) {
  builder out = workspace();
  const runtime_term t = profile_peak(c);
  out.b.assumes =
      "vLLM's profiling run: the larger of a forward at max_num_batched_tokens (calibrated on Llama 3.1 8B "
      "logs) and the dummy sampler over max_num_seqs rows (its top-k/top-p path by vllm_version)";
  out.add(t.name, t.bytes, t.formula);
  return std::move(out.b);
}

void overhead(const context& c, double /*allocated*/, double /*weights*/, builder& over) {
  const setting_values& s = c.s;
  const double T = s.gpu_memory;
  over.add("non-torch memory (NCCL, cuBLAS)", s.non_torch_memory, "non_torch_memory setting");
  over.add("CUDA graphs", s.cuda_graph_memory, "cuda_graph_memory setting (0 = enforce_eager)");
  // Allocated at start-up, before vLLM's memory snapshot: part of what lies outside its budget.
  const double all_reduce = custom_all_reduce_bytes(s.tp);
  if (all_reduce > 0)
    over.add("custom all-reduce buffers (tp " + std::to_string(s.tp) + ", outside the budget)", all_reduce,
             "3 x max_size 8 MiB (CustomAllreduce: IPC buffer, meta + buffer, rank_data)");
  over.add("outside vLLM's budget (CUDA context, other processes)",
           std::max(0.0, T - vllm_budget(T, s.gpu_memory_utilization) - all_reduce),
           "gpu_memory - ceil(gpu_memory x gpu_memory_utilization " + n(s.gpu_memory_utilization) + ")" +
               (all_reduce > 0 ? " - the custom all-reduce buffers" : ""));
}

// The full-attention and sliding-window layers' pages, each of its own heads (FullAttentionSpec / SlidingWindowSpec
// of each layer's Attention: Gemma 4's full layers have global_head_dim and num_global_key_value_heads, vLLM
// gemma4.py @eee7972f Gemma4DecoderLayer), made one page size as kv_cache_utils.py does.
vllm_hybrid_pages hybrid_pages(const context& c) {
  const auto& s = c.s;
  const double kv = bytes_per_value(c.r.kv);
  const double full = vllm_page_bytes(s.block_size, kv_heads_per_rank(c.m.full_kv_heads, s.tp), c.m.full_head_dim, kv);
  const double sliding = vllm_page_bytes(s.block_size, kv_heads_per_rank(c.m.kv_heads, s.tp), c.m.head_dim, kv);
  return vllm_unify_pages(s.block_size, full, sliding);
}

// vLLM with sliding-window and full-attention layers (one page size, hybrid KV cache manager): groups of
// group_size layers, num_blocks = available // page // group_size, the token line num_blocks // groups x block
// (kv_cache_utils.py at 001cabc1be16), the concurrency num_blocks / the blocks one request takes over the groups.
void report_hybrid(const context& c, runtime_report& out, std::vector<std::string>& notes) {
  const auto& s = c.s;
  if (c.m.mla) {  // no sliding MLA model in the presets: the concurrency from the request's bytes
    out.max_concurrency = out.kv_available / kv_bytes_per_request(c);
    return;
  }
  // The stage's layers with a cache: a KV-shared layer (Gemma 3n) gets no KV cache spec (gpu_model_runner.py
  // get_kv_cache_spec skips layers with kv_sharing_target_layer_name).
  const auto L = static_cast<std::int64_t>(c.layers_on_stage - c.m.shared_layers_in(c.layers_on_stage));
  // The full-attention layers of the stage, as the model's layer kinds count them (kv_cache()).
  const auto full = static_cast<std::int64_t>(c.m.cached_layers_of(layer_kind::attention, c.layers_on_stage));
  const vllm_hybrid_groups g = vllm_hybrid_grouping(full, L - full);
  const vllm_hybrid_pages p = hybrid_pages(c);
  if (p.page <= 0) {
    notes.push_back(
        "vLLM raises NotImplementedError: the full-attention and sliding-window layers' pages do not "
        "divide one another (unify_kv_cache_spec_page_size)");
    return;
  }
  const auto N = static_cast<std::int64_t>(chunk_tokens(c));
  const std::int64_t blocks = vllm_num_blocks(out.kv_available, p.page, static_cast<double>(g.group_size));
  out.kv_capacity_tokens = static_cast<double>(vllm_hybrid_tokens(blocks, g, std::min(p.full_block, p.sliding_block)));
  // Llama 4's chunked layers (the rule above made them a window of attention_chunk_size): ChunkedLocalAttentionSpec.
  const bool chunked = s.attention_chunk_size > 0 && s.sliding_window == s.attention_chunk_size;
  out.max_concurrency = static_cast<double>(blocks) /
                        static_cast<double>(vllm_hybrid_blocks_per_request(g, s.seq, s.sliding_window, N, p, chunked));
  const setting_def* seq_row = find_setting("seq");
  const auto limit = static_cast<std::int64_t>(seq_row != nullptr ? seq_row->max_value : 0);
  out.max_context = vllm_hybrid_max_model_len(out.kv_available, p, full, L - full, s.sliding_window, N, limit, chunked);
  if (s.seq > out.max_context)
    notes.push_back("vLLM refuses to start at max_model_len " + std::to_string(s.seq) +
                    ": the estimated maximum model length is " + std::to_string(out.max_context));
}

// vLLM with recurrent layers (Gated DeltaNet, Mamba, short convolution; v0.11, mamba prefix caching off): one pool
// of one page size. HybridAttentionMambaModelConfig.verify_and_update_config (vllm/model_executor/models/config.py)
// raises the attention block to 16 x cdiv(state page, 16 x one token's attention page) tokens when the block_size
// setting is smaller, then pads the state's page up to the attention page (mamba_page_size_padded).
struct recurrent_pages {
  double token = 0;         // one token's K and V in one attention layer [bytes]
  double state = 0;         // one recurrent layer's state per sequence, unpadded [bytes]
  std::int64_t block = 0;   // the attention block [tokens]
  std::int64_t raised = 0;  // the block the state needs; above block_size vLLM sets it [tokens]
  double page = 0;          // the one page size: the attention block's, the state padded to it [bytes]
};

recurrent_pages pages_of(const context& c) {
  recurrent_pages p;
  p.token = 2 * kv_heads_per_rank(c.m.kv_heads, c.s.tp) * c.m.head_dim * bytes_per_value(c.r.kv);
  p.state = state_bytes_per_layer(c);
  constexpr double align = 16;  // kernel_block_alignment_size (FlashAttention)
  p.raised = static_cast<std::int64_t>(align * std::ceil(p.state / (align * p.token)));
  p.block = std::max(c.s.block_size, p.raised);
  p.page = static_cast<double>(p.block) * p.token;
  return p;
}

// The KV cache bucket: kv_cache()'s items, plus each state's padding to the attention page.
bucket kv(const context& c, double& cpu) {
  builder out{device_kv(c, cpu)};
  const double R = recurrent_layers(c);
  if (R == 0 || attention_layers(c) == 0 || c.m.mla) return std::move(out.b);
  const recurrent_pages p = pages_of(c);
  const double b = static_cast<double>(c.s.batch);
  out.add("recurrent state padded to the attention page (mamba_page_size_padded)", R * b * (p.page - p.state),
          n(R) + " layers x b " + n(b) + " x (page " + n(p.page) + " B = block " + std::to_string(p.block) + " x " +
              n(p.token) + " B - state " + n(p.state) + " B)");
  return std::move(out.b);
}

// kv_cache_utils.py groups the layers by type into groups of group_size (vllm_hybrid_grouping); each running request
// takes cdiv(max_model_len, block) blocks per attention group and one block per state group (MambaSpec
// max_memory_usage_bytes = its page); "GPU KV cache size" = num_blocks // groups x block tokens.
void report_recurrent(const context& c, runtime_report& out, std::vector<std::string>& notes) {
  const auto& s = c.s;
  const auto A = static_cast<std::int64_t>(attention_layers(c)), R = static_cast<std::int64_t>(recurrent_layers(c));
  if (A == 0 || c.m.mla || c.m.kv_heads <= 0) {  // a state-only model: one unpadded page per layer and sequence
    const double per_sequence = static_cast<double>(R) * state_bytes_per_layer(c);
    if (per_sequence > 0) out.max_concurrency = std::floor(out.kv_available / per_sequence);
    return;
  }
  const recurrent_pages p = pages_of(c);
  if (p.raised > s.block_size)
    notes.push_back("vLLM: Setting attention block size to " + std::to_string(p.block) +
                    " tokens to ensure that attention page size is >= mamba page size.");
  if (p.state > 0 && p.page > p.state) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.2f", 100 * (p.page - p.state) / p.state);
    notes.push_back(std::string("vLLM: Padding mamba page size by ") + pct +
                    "% to ensure that mamba page size and attention page size are exactly equal.");
  }
  const vllm_hybrid_groups g = vllm_hybrid_grouping(A, R);
  const std::int64_t blocks = vllm_num_blocks(out.kv_available, p.page, static_cast<double>(g.group_size));
  out.kv_capacity_tokens = static_cast<double>(vllm_hybrid_tokens(blocks, g, p.block));
  const std::int64_t per_request = g.full_groups * ((s.seq + p.block - 1) / p.block) + g.sliding_groups;
  out.max_concurrency = static_cast<double>(blocks) / static_cast<double>(per_request);
  // check_enough_kv_cache_memory: every layer's max_memory_usage_bytes, A x cdiv(M, block) + R pages.
  const double spare = out.kv_available / p.page - static_cast<double>(R);
  out.max_context = spare <= 0 ? 0 : static_cast<std::int64_t>(std::floor(spare / static_cast<double>(A))) * p.block;
  if (s.seq > out.max_context)
    notes.push_back("vLLM refuses to start at max_model_len " + std::to_string(s.seq) +
                    ": the estimated maximum model length is " + std::to_string(out.max_context));
}

// `bytes` in the run's display units, two decimals ("86.38 GiB").
std::string in_units(double bytes, display_units units) {
  const bool gib = units == display_units::gib;
  char text[48];
  std::snprintf(text, sizeof text, "%.2f %s", bytes / (gib ? 1073741824.0 : 1e9), gib ? "GiB" : "GB");
  return text;
}

void report(const context& c, const runtime_term& weights, runtime_report& out, std::vector<std::string>& notes) {
  const auto& s = c.s;
  out.budget = vllm_budget(s.gpu_memory, s.gpu_memory_utilization);
  out.terms = {weights,
               profile_peak(c),
               {"non-torch memory", s.non_torch_memory, "non_torch_memory"},
               {"CUDA graphs", s.cuda_graph_memory, "cuda_graph_memory"}};
  double used = 0;
  for (const auto& t : out.terms) used += t.bytes;
  // What is left is never negative: with nothing left vLLM refuses to start ("No available memory for the cache
  // blocks": vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory), and the note names the shortfall.
  out.kv_available = std::max(0.0, out.budget - used);
  out.kv_shortfall = std::max(0.0, used - out.budget);
  const double per_token = kv_bytes_per_token(c);
  if (out.kv_available <= 0) {
    notes.push_back(
        "vLLM stops: no available memory for the cache blocks (weights, activations, non-torch memory "
        "and CUDA graphs pass its budget by " +
        in_units(out.kv_shortfall, c.r.units) + "); raise gpu_memory_utilization or free memory");
    return;
  }
  if (recurrent_layers(c) > 0) {
    report_recurrent(c, out, notes);
    return;
  }
  if (per_token == 0) {
    report_hybrid(c, out, notes);
    return;
  }
  const double cached = c.layers_on_stage - c.m.shared_layers_in(c.layers_on_stage);
  const double page = per_token * static_cast<double>(s.block_size) / cached;
  const std::int64_t blocks = vllm_num_blocks(out.kv_available, page, cached);
  out.kv_capacity_tokens = static_cast<double>(blocks * s.block_size);
  out.max_concurrency = vllm_concurrency(blocks, s.seq, s.block_size);
  out.max_context = vllm_max_model_len(out.kv_available, page, cached, s.block_size);
  if (s.seq > out.max_context)
    notes.push_back("vLLM refuses to start at max_model_len " + std::to_string(s.seq) + ": its KV cache holds " +
                    std::to_string(static_cast<std::int64_t>(out.kv_capacity_tokens)) +
                    " tokens; the estimated maximum model length is " + std::to_string(out.max_context));
}

// The profile reads: max_num_batched_tokens and max_num_seqs from the device's memory and an A100's name
// (vllm_defaults), the non-torch memory from tp > 1.
profile_reads reads(const run_spec& r) {
  return {.seq = r.vllm == vllm_release::v0_6, .tp = true, .gpu = true, .gpu_memory = true};
}

void check(const run_spec& r, std::vector<error>& errors) { check_kv_split(r, "vLLM", errors); }

}  // namespace

// vLLM's and SGLang's attention layers assert that tp divides the KV heads, or they divide tp (each replicated
// tp / kv_heads times): vllm/model_executor/models/llama.py LlamaAttention (nemotron_h.py @00b08dc4 the same),
// python/sglang/srt/models/llama.py @00239548. resolve refuses a tp that does not divide the query heads (then nothing
// is added here).
void check_kv_split(const run_spec& r, std::string_view runtime, std::vector<error>& errors) {
  const setting_values& v = r.values;
  const std::int64_t kv = v.num_key_value_heads > 0 ? v.num_key_value_heads : v.num_attention_heads;
  if (v.num_attention_heads % v.tp == 0 && kv > 0 && kv % v.tp != 0 && v.tp % kv != 0)
    errors.push_back({"tp", std::string(runtime) + " splits the " + std::to_string(kv) +
                                " KV heads over the tp ranks or replicates them, so tp must divide them or be a "
                                "multiple of them, got " +
                                std::to_string(v.tp)});
}

runtime_def vllm_runtime() {
  runtime_def d;
  d.kind = runtime_kind::vllm;
  d.profile = profile;
  d.weights_free_profile = true;  // batch defaults by memory, A100 and version; the windows by version and chunking
  d.reads = reads;
  d.architecture = architecture;
  d.check = check;
  d.extra_weights = extra_weights;
  d.router_unquantized = true;  // ReplicatedLinear / GateLinear(quant_config=None): docs/methodology.md
  d.activations = activations;
  d.overhead = overhead;
  d.kv = kv;
  d.report = report;
  // Tensor parallel at a power of two within a node of 8, pipeline stages only across nodes (tp = the node's
  // largest valid degree, pp = nodes: vLLM's distributed serving guide).
  d.splits = device_split::tensor_then_pipeline;
  d.split_limits = "tp within a node of 8, dividing the heads; pp across nodes, up to the layers";
  return d;
}

}  // namespace llm_memory::detail
