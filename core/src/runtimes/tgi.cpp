// SPDX-License-Identifier: MIT
// Text Generation Inference: its defaults by tgi_version, its KV heads' sharding, the uncompressed MLA cache and
// full-length sliding layers it pages, the tied head it copies, and the warmup prefill after which it sizes its KV
// cache (runtime.hpp has the arithmetic). Sources: docs/methodology.md ("Runtimes").
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {
namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

// TGI: --cuda-memory-fraction 1.0. From 2.4 flashinfer (BLOCK_SIZE 1) and max_batch_prefill_tokens 4096; the 1.4.1
// group (1.4.1 - 2.3) paged attention (BLOCK_SIZE 16; 2.3 already defaults to flashinfer) with
// max_batch_prefill_tokens = max_input_tokens + 50, max_input_tokens = max_total_tokens - 1 (2.0 - 2.3; 1.x: 4096)
// (launcher/src/main.rs, models/globals.py at each tag).
settings profile(const setting_values& v) {
  settings p = engine_common();
  p.emplace("gpu_memory_utilization", "1");
  const bool paged = v.tgi_version == "1.4.1" || v.tgi_version == "1.0";
  p.emplace("max_num_batched_tokens", v.tgi_version == "1.4.1" ? std::to_string(v.seq - 1 + 50) : "4096");
  p.emplace("block_size", paged ? "16" : "1");
  return p;
}

// TGI gives each shard num_kv_heads // tp heads: FlashCausalLM.__init__ asserts at least one, and the Llama
// family's attention refuses a remainder (flash_llama_modeling.py @v3.3.4); no KV head is replicated.
// TGI v3.3.x serves no Gated DeltaNet, Mamba-2 or short-convolution model: docs/source/supported_models.md and
// server/text_generation_server/models/__init__.py list no qwen3_next, qwen3_5, nemotron_h, granitemoehybrid,
// falcon_h1, jamba, lfm2 or minimax (MiniMax-Text-01); its one state-space model is Mamba-1
// (state-spaces/mamba-2.8b-slimpj). A recurrent kind is one that keeps a state per sequence
// (layer_kind_def::state_bytes), as the other runtimes size it. Checked on the layer_types setting: the runtime's
// checks run before the model is built (resolve.cpp).
bool recurrent(const setting_values& v) {
  const auto runs = parse_layer_types(v.layer_types);
  return runs.ok() && std::any_of(runs.value().begin(), runs.value().end(),
                                  [](const layer_run& run) { return layer_def(run.kind).state_bytes != nullptr; });
}

void check_recurrent(const run_spec& r, std::vector<error>& errors) {
  if (recurrent(r.values))
    errors.push_back({"runtime",
                      "TGI does not serve models with linear-attention, Mamba or short-convolution layers (no "
                      "qwen3_next, nemotron_h, granitemoehybrid, falcon_h1, jamba or lfm2 in its model list); choose "
                      "runtime vllm, sglang, llamacpp or transformers"});
}

void check(const run_spec& r, std::vector<error>& errors) {
  check_recurrent(r, errors);
  const setting_values& v = r.values;
  const std::int64_t kv_heads = v.num_key_value_heads > 0 ? v.num_key_value_heads : v.num_attention_heads;
  if (kv_heads > 1 && kv_heads % v.tp != 0)
    errors.push_back({"tp", "TGI shards the " + std::to_string(kv_heads) +
                                " KV heads (num_key_value_heads // tp per shard, no remainder, none replicated), so "
                                "tp must divide them, got " +
                                std::to_string(v.tp)});
}

void tied_head_copy(const context& c, builder& params) {
  const run_spec& r = c.r;
  if (!r.values.tie_word_embeddings || !c.last_stage) return;
  // TGI loads a tied head from the embedding's tensor as a tensor of its own, in 16-bit for quantised weights.
  const double rows = tgi_tied_head_rows(c.m.vocab, r.values.tp);
  const double w = info(r.weights).family == dtype_family::floating ? bytes_per_value(r.weights) : 2;
  params.add("tied lm_head's own copy (TGI's TensorParallelHead.load)", rows * c.m.hidden * w,
             n(rows) + " vocabulary rows x h " + n(c.m.hidden) + " x " + n(w) + " B");
}

double mla_bytes_per_token_layer(const context& c) {
  const double head_size = std::max(128.0 + 64.0, static_cast<double>(c.s.v_head_dim));
  return 2 * kv_heads_per_rank(c.m.kv_heads, c.s.tp) * head_size * bytes_per_value(c.r.kv);
}

void mla_cache(const context& c, double L, builder& kv) {
  const double b = static_cast<double>(c.s.batch), sq = static_cast<double>(c.s.seq);
  kv.add("keys and values, uncompressed (TGI does not cache MLA's latent)", L * b * sq * mla_bytes_per_token_layer(c),
         "2 x " + n(L) + " layers x b x s x n_kv / tp " + n(kv_heads_per_rank(c.m.kv_heads, c.s.tp)) +
             " x head_size max(128 + 64, v_head_dim) x " + n(bytes_per_value(c.r.kv)) + " B");
}

// KV bytes of one token in every layer of this device, each layer at full length. TGI pages every layer so,
// sliding-window layers included (FlashCausalLM.init_kv_cache gives each of num_layers a KVCache of num_blocks).
double bytes_per_token(const context& c) {
  if (c.m.mla) return c.layers_on_stage * mla_bytes_per_token_layer(c);
  return full_length_kv_bytes_per_token(c);
}

// One TGI block of every layer on this device [bytes].
double block_bytes(const context& c) { return bytes_per_token(c) * static_cast<double>(c.s.block_size); }

// TGI's warmup prefill of max_batch_prefill_tokens, kept by the caching allocator (no empty_cache before sizing):
// the forward, then the head's logits and their log_softmax: of every prefill token up to 2.4 (the warmup asks
// prefill_logprobs), of each request's last position from 3.0 (prefill logprobs off unless enabled). Both in the
// activations' dtype, none in fp32: at v2.2.0 (db7e043d) the head is FastLinear's F.linear over the 16-bit weights
// (layers/linear.py, layers/tensor_parallel.py TensorParallelHead.forward), generate_token keeps `out` and takes
// torch.log_softmax(out, -1) in that dtype (models/flash_causal_lm.py), and the sampler's processors see only each
// request's row (out[prefill_next_token_indices]); the router's warmup requests ask prefill_logprobs: true
// (router/client/src/v3/client.rs).
runtime_term prefill_forward(const context& c) {
  const double N = chunk_tokens(c);
  return {"warmup prefill forward", vllm_forward_peak(N, c.act, mlp_inner(c), c.m.hidden, c.t),
          n(N) + " tokens x " + n(c.act) + " B x (3 x inner / tp + 3 x h)"};
}

runtime_term prefill_logits(const context& c) {
  const auto N = static_cast<std::int64_t>(chunk_tokens(c));
  const auto rows = static_cast<double>(tgi_warmup_logit_rows(c.r.tgi, N, c.s.seq - 1));
  const bool all = rows == static_cast<double>(N);
  return {all ? "warmup prefill logits and log_softmax (prefill_logprobs)"
              : "warmup logits and log_softmax of each request's last position",
          tgi_warmup_logits(rows, c.m.vocab, c.act, c.s.tp),
          n(rows) + (all ? " tokens" : " requests (cdiv(N, seq - 1))") + " x V " + n(c.m.vocab) + " x " + n(c.act) +
              " B x (2" + (c.s.tp > 1 ? " + 1 / tp)" : ")")};
}

// What TGI's warmup leaves for the KV cache (tgi_version's rule), and the blocks of its warmup batch.
struct sizing {
  double free_after = 0;           // cudaMemGetInfo free after the warmup prefill [bytes]
  double kv_memory = 0;            // turned into new blocks [bytes]
  std::int64_t warmup_blocks = 0;  // the warmup batch's blocks, added back [blocks]
};

sizing size_kv(const context& c, double weights, double block) {
  const auto& s = c.s;
  sizing z;
  z.warmup_blocks = tgi_warmup_blocks(static_cast<std::int64_t>(chunk_tokens(c)), s.seq - 1, s.seq, s.block_size);
  const double warm = static_cast<double>(z.warmup_blocks) * block;
  z.free_after = s.gpu_memory - s.cuda_context - weights - warm - prefill_forward(c).bytes - prefill_logits(c).bytes;
  z.kv_memory = tgi_kv_memory(c.r.tgi, std::max(0.0, z.free_after), s.gpu_memory, s.gpu_memory_utilization);
  return z;
}

bucket activations(const context& c) {
  builder out = workspace();
  out.b.assumes =
      "TGI sizes its KV cache after a warmup prefill of max_batch_prefill_tokens (the head on every prefill "
      "token up to 2.4, on each request's last position from 3.0)";
  for (const runtime_term& t : {prefill_forward(c), prefill_logits(c)}) out.add(t.name, t.bytes, t.formula);
  return std::move(out.b);
}

void overhead(const context& c, double /*allocated*/, double weights, builder& over) {
  const setting_values& s = c.s;
  over.add("CUDA context", s.cuda_context, "cuda_context setting");
  // What warmup leaves free: the memory free after the warmup prefill that does not become KV blocks.
  const sizing z = size_kv(c, weights, block_bytes(c));
  over.add(
      "left free by TGI's warmup (tgi_version " + s.tgi_version + ")", std::max(0.0, z.free_after) - z.kv_memory,
      "free after warmup - its KV share (TGI_WIGGLE_ROOM, --cuda-memory-fraction " + n(s.gpu_memory_utilization) + ")");
}

// TGI: the warmup prefill runs with its batch's blocks allocated; the KV share of what it leaves free (tgi_version)
// becomes new blocks, and the warmup's blocks are added back (FlashCausalLM.warmup).
void report(const context& c, const runtime_term& weights, runtime_report& out, std::vector<std::string>& /*notes*/) {
  const auto& s = c.s;
  out.terms = {weights, prefill_forward(c), prefill_logits(c)};
  const double per_token = bytes_per_token(c);
  const double block = block_bytes(c);
  const sizing z = size_kv(c, weights.bytes, block);
  const double warm = static_cast<double>(z.warmup_blocks) * block;
  out.kv_available = z.kv_memory + warm;
  out.budget = out.kv_available + weights.bytes + out.terms[1].bytes + out.terms[2].bytes;
  if (per_token > 0 && z.kv_memory > 0) {
    out.kv_capacity_tokens = static_cast<double>(tgi_blocks(z.kv_memory, block, z.warmup_blocks) * s.block_size);
    out.max_concurrency = out.kv_capacity_tokens / static_cast<double>(s.seq);
    out.max_context = static_cast<std::int64_t>(out.kv_capacity_tokens);
  }
}

// 1.4.1 - 2.3: max_batch_prefill_tokens = max_input_tokens + 50 = seq - 1 + 50; the others a constant.
profile_reads reads(const run_spec& r) { return {.seq = r.tgi == tgi_release::v1_4_1}; }

}  // namespace rest_rows
}  // namespace

runtime_def tgi_runtime() {
  runtime_def d;
  d.kind = runtime_kind::tgi;
  d.profile = profile;
  d.reads = reads;
  d.check = check;
  d.extra_weights = tied_head_copy;
  d.router_unquantized = true;  // FastLinear.load: the gate as its tensor, unquantised
  d.mla_cache = mla_cache;
  // TGI pages sliding-window layers at full length (FlashCausalLM.init_kv_cache): they hold the whole context.
  d.sliding_at_full_length = true;
  d.activations = activations;
  d.overhead = overhead;
  d.report = report;
  d.pooled_kv = true;
  // TGI shards by tensor parallelism only (num_shard, no pipeline).
  d.splits = device_split::tensor;
  d.split_limits = "TGI shards by tensor parallel only, up to 8";
  // TGI's warmup batch asks max_total_tokens (seq) per request in whole blocks, and the memory it leaves free
  // depends on it: a step function of seq.
  d.lowerable = false;
  return d;
}

}  // namespace llm_memory::detail
