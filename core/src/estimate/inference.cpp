// SPDX-License-Identifier: MIT
// The inference runtimes' terms (runtime.hpp): budgets, KV pools, activation buffers and the runtime's own report.
// Every formula is documented, with its source, in docs/methodology.md.
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "estimate/stage.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {

namespace {

// Under overhead = factor the whole inference estimate is weights x factor (seed 2's rule): no other bucket.
bool factor_rule(const context& c) { return !c.train && c.r.overhead == overhead_mode::factor; }

double mlp_inner(const context& c) {
  const auto& s = c.s;
  if (c.m.params.moe_layers == 0) return c.m.intermediate;
  const auto inner = static_cast<double>(s.moe_intermediate_size > 0 ? s.moe_intermediate_size : s.intermediate_size);
  return static_cast<double>(s.num_experts_per_tok) * inner;
}

// The prefill chunk: max_num_batched_tokens, or the whole prompt when 0 [tokens].
double chunk_tokens(const context& c) {
  return c.s.max_num_batched_tokens > 0 ? static_cast<double>(c.s.max_num_batched_tokens) : c.tokens;
}

// vLLM's profiling run: a forward at the chunk, then the sampler over max_num_seqs rows; not at once.
runtime_term vllm_profile_peak(const context& c) {
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

// TGI's warmup prefill of max_batch_prefill_tokens, kept by the caching allocator (no empty_cache before sizing):
// the forward, then the head's logits and their log_softmax: of every prefill token up to 2.4 (the warmup asks
// prefill_logprobs), of each request's last position from 3.0 (prefill logprobs off unless enabled).
runtime_term tgi_prefill_forward(const context& c) {
  const double N = chunk_tokens(c);
  return {"warmup prefill forward", vllm_forward_peak(N, c.act, mlp_inner(c), c.m.hidden, c.t),
          n(N) + " tokens x " + n(c.act) + " B x (3 x inner / tp + 3 x h)"};
}

runtime_term tgi_prefill_logits(const context& c) {
  const auto N = static_cast<std::int64_t>(chunk_tokens(c));
  const auto rows = static_cast<double>(tgi_warmup_logit_rows(c.r.tgi, N, c.s.seq - 1));
  const bool all = rows == static_cast<double>(N);
  return {all ? "warmup prefill logits and log_softmax (prefill_logprobs)"
              : "warmup logits and log_softmax of each request's last position",
          tgi_warmup_logits(rows, c.m.vocab, c.act, c.s.tp),
          n(rows) + (all ? " tokens" : " requests (cdiv(N, seq - 1))") + " x V " + n(c.m.vocab) + " x " + n(c.act) +
              " B x (2" + (c.s.tp > 1 ? " + 1 / tp)" : ")")};
}

// KV bytes of one token in every layer of this device, each layer at full length. TGI pages every layer so,
// sliding-window layers included (FlashCausalLM.init_kv_cache gives each of num_layers a KVCache of num_blocks).
double full_length_kv_bytes_per_token(const context& c) {
  const double kv = bytes_per_value(c.r.kv);
  if (c.m.mla && c.r.runtime == runtime_kind::tgi) return c.layers_on_stage * tgi_mla_bytes_per_token_layer(c);
  if (c.m.mla) return c.layers_on_stage * static_cast<double>(c.s.kv_lora_rank + c.s.qk_rope_head_dim) * kv;
  return c.layers_on_stage * 2 * kv_heads_per_rank(c.m.kv_heads, c.s.tp) * c.m.head_dim * kv;
}

// One TGI block of every layer on this device [bytes].
double tgi_block_bytes(const context& c) {
  return full_length_kv_bytes_per_token(c) * static_cast<double>(c.s.block_size);
}

// What TGI's warmup leaves for the KV cache (tgi_version's rule), and the blocks of its warmup batch.
struct tgi_sizing {
  double free_after = 0;           // cudaMemGetInfo free after the warmup prefill [bytes]
  double kv_memory = 0;            // turned into new blocks [bytes]
  std::int64_t warmup_blocks = 0;  // the warmup batch's blocks, added back [blocks]
};

tgi_sizing size_tgi(const context& c, double weights, double block_bytes) {
  const auto& s = c.s;
  tgi_sizing z;
  z.warmup_blocks = tgi_warmup_blocks(static_cast<std::int64_t>(chunk_tokens(c)), s.seq - 1, s.seq, s.block_size);
  const double warm = static_cast<double>(z.warmup_blocks) * block_bytes;
  z.free_after =
      s.gpu_memory - s.cuda_context - weights - warm - tgi_prefill_forward(c).bytes - tgi_prefill_logits(c).bytes;
  z.kv_memory = tgi_kv_memory(c.r.tgi, std::max(0.0, z.free_after), s.gpu_memory, s.gpu_memory_utilization);
  return z;
}

// llama.cpp's worst-case graph: n_ubatch tokens against the padded cells.
struct llamacpp_layout {
  llamacpp_cells cells;        // of the full-attention layers
  std::int64_t swa_cells = 0;  // of the sliding-window layers
  double gpu_layers = 0;       // repeating layers on the GPU
  bool output_on_gpu = true;   // ngl > n_layer
  llamacpp_graph graph;
  llamacpp_offload offload;  // what -ngl leaves on the CPU
};

// The largest matrix of the first layer (the first CPU layer under -ngl), at its GGUF type [bytes].
double llamacpp_first_layer_matrix(const context& c) {
  const auto& p = c.m.params;
  const layer_params& layer = p.is_moe(0) ? p.moe_layer : p.dense_layer;
  const bool gguf = info(c.r.weights).family == dtype_family::gguf_mix;
  const gguf_model_facts facts = gguf_facts(c);
  double largest = 0;
  for (const auto& l : layer.linears) {
    const double per_value =
        gguf ? info(gguf_matrix_type(c.r.weights, name_of(l.name), gguf_position(0, c.m.layers), facts, l.in_features))
                   .bytes_per_value()
             : bytes_per_value(c.r.weights);
    largest = std::max(largest, l.in_features * l.out_features * l.copies * per_value);
  }
  return largest;
}

// -ngl's split of the layers, and the bytes op offload copies to the GPU.
llamacpp_offload offload_llamacpp(const context& c, double gpu_layers, bool output_on_gpu) {
  const bool gguf = info(c.r.weights).family == dtype_family::gguf_mix;
  const double out_type = gguf ? gguf_edges(c).output : bytes_per_value(c.r.weights);
  const double head = c.s.tie_word_embeddings ? c.m.params.embedding : c.m.params.lm_head;
  return {gpu_layers > 0, gpu_layers < c.layers_on_stage, output_on_gpu, head * out_type,
          llamacpp_first_layer_matrix(c)};
}

llamacpp_layout layout_llamacpp(const context& c) {
  const auto& s = c.s;
  llamacpp_layout l;
  const auto slots = s.batch;  // llama-server -np: one stream per slot, -c = slots x seq, not unified
  l.cells = llamacpp_cell_count(slots * s.seq, slots, false);
  const std::int64_t ub = std::min({s.n_ubatch, s.n_batch, s.seq});
  if (s.sliding_window > 0)
    l.swa_cells = llamacpp_swa_cells(l.cells.per_stream, s.sliding_window, slots, false, ub) * slots;
  l.gpu_layers = std::min(static_cast<double>(s.n_gpu_layers), c.layers_on_stage);
  l.output_on_gpu = static_cast<double>(s.n_gpu_layers) > static_cast<double>(c.m.layers);
  l.graph = {static_cast<double>(ub),
             static_cast<double>(l.cells.per_stream),
             c.m.heads,
             c.m.hidden,
             mlp_inner(c),
             c.m.vocab,
             c.r.attention == attention_kernel::flash};
  l.offload = offload_llamacpp(c, l.gpu_layers, l.output_on_gpu);
  return l;
}

}  // namespace

bucket activations_inference(const context& c) {
  builder out{{"activations", "Activations", 0, "The runtime's transient workspace", "", {}}};
  if (factor_rule(c)) {
    out.b.assumes = "overhead = factor: the whole estimate is weights x overhead_factor (seed 2's rule)";
    return out.b;
  }
  switch (c.r.runtime) {
    case runtime_kind::vllm: {
      const runtime_term t = vllm_profile_peak(c);
      out.b.assumes =
          "vLLM's profiling run: the larger of a forward at max_num_batched_tokens (calibrated on Llama 3.1 8B "
          "logs) and the dummy sampler over max_num_seqs rows (its top-k/top-p path by vllm_version)";
      out.add(t.name, t.bytes, t.formula);
      return out.b;
    }
    case runtime_kind::sglang:
      out.b.assumes = "SGLang keeps activations and CUDA graphs in the share outside mem_fraction_static (overhead)";
      return out.b;
    case runtime_kind::tgi: {
      out.b.assumes =
          "TGI sizes its KV cache after a warmup prefill of max_batch_prefill_tokens (the head on every prefill "
          "token up to 2.4, on each request's last position from 3.0)";
      for (const runtime_term& t : {tgi_prefill_forward(c), tgi_prefill_logits(c)}) out.add(t.name, t.bytes, t.formula);
      return out.b;
    }
    case runtime_kind::llamacpp:
    case runtime_kind::ollama: {
      const llamacpp_layout l = layout_llamacpp(c);
      out.b.assumes = "llama.cpp's compute buffer: the largest phase of the worst-case graph (n_ubatch tokens)";
      out.add("compute buffer", llamacpp_compute_buffer(l.graph, l.offload),
              "max(attention, MLP, logits) phases at ubatch " + n(l.graph.ubatch) + ", " + n(l.graph.kv_cells) +
                  " cells" + (l.graph.flash ? ", flash attention" : "") +
                  (l.offload.output_on_gpu ? "" : "; the output matrix copied in for its op (op offload)"));
      return out.b;
    }
    case runtime_kind::transformers:
    case runtime_kind::automatic: break;
  }
  return activations_prefill(c);
}

namespace {

// llama.cpp's KV buffer: padded cells x (K + V) in the cache types, layers on the GPU only.
bucket llamacpp_kv(const context& c, double& cpu) {
  builder out{{"kv_cache",
               "KV cache",
               0,
               "llama.cpp's KV buffer: every cell of every layer on this device",
               "Cells = n_ctx padded to 256 per slot; K and V in cache_type_k / cache_type_v",
               {}}};
  const llamacpp_layout l = layout_llamacpp(c);
  const auto& m = c.m;
  const double kb = info(c.r.cache_k).bytes_per_value(), vb = info(c.r.cache_v).bytes_per_value();
  const double per_cell =
      m.mla ? static_cast<double>(c.s.kv_lora_rank + c.s.qk_rope_head_dim) * kb : m.kv_heads * m.head_dim * (kb + vb);
  const double L = c.layers_on_stage;
  double global = L;
  if (c.s.sliding_window > 0)
    global = c.s.sliding_window_pattern > 0 ? std::floor(L / static_cast<double>(c.s.sliding_window_pattern)) : 0;
  const double gpu_share = L > 0 ? l.gpu_layers / L : 0;
  const double full = global * static_cast<double>(l.cells.total) * per_cell;
  const double swa = (L - global) * static_cast<double>(l.swa_cells) * per_cell;
  cpu += std::ceil((full + swa) * (1 - gpu_share));
  if (global > 0)
    out.add("full-attention layers", full * gpu_share,
            n(global) + " layers x " + std::to_string(l.cells.total) + " cells x " + n(per_cell) + " B");
  if (L > global)
    out.add("sliding-window layers", swa * gpu_share,
            n(L - global) + " layers x " + std::to_string(l.swa_cells) + " cells x " + n(per_cell) + " B");
  return out.b;
}

}  // namespace

bucket inference_kv(const context& c, double& cpu) {
  if (factor_rule(c))
    return {"kv_cache",
            "KV cache",
            0,
            "Keys and values of every cached token",
            "overhead = factor: the whole estimate is weights x overhead_factor (seed 2's rule)",
            {}};
  return c.r.llamacpp() ? llamacpp_kv(c, cpu) : kv_cache(c);
}

// The runtime's own reserved terms beyond the tensors (overhead = detailed).
void runtime_overhead(const context& c, double allocated, double weights, builder& over) {
  const setting_values& s = c.s;
  const double T = s.gpu_memory;
  switch (c.r.runtime) {
    case runtime_kind::vllm: {
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
      return;
    }
    case runtime_kind::sglang: {
      over.add("CUDA context", s.cuda_context, "cuda_context setting");
      const double all_reduce = custom_all_reduce_bytes(s.tp);
      if (all_reduce > 0)
        over.add("custom all-reduce buffers (tp " + std::to_string(s.tp) + ")", all_reduce,
                 "3 x max_size 8 MiB (vLLM's CustomAllreduce, forked), before SGLang measures free memory");
      over.add("outside mem_fraction_static (activations, CUDA graphs)",
               (1 - s.mem_fraction_static) * (T - s.cuda_context - all_reduce),
               "(1 - " + n(s.mem_fraction_static) + ") x (gpu_memory - cuda_context" +
                   (all_reduce > 0 ? " - custom all-reduce)" : ")"));
      return;
    }
    case runtime_kind::tgi: {
      over.add("CUDA context", s.cuda_context, "cuda_context setting");
      // What warmup leaves free: the memory free after the warmup prefill that does not become KV blocks.
      const tgi_sizing z = size_tgi(c, weights, tgi_block_bytes(c));
      over.add("left free by TGI's warmup (tgi_version " + s.tgi_version + ")",
               std::max(0.0, z.free_after) - z.kv_memory,
               "free after warmup - its KV share (TGI_WIGGLE_ROOM, --cuda-memory-fraction " +
                   n(s.gpu_memory_utilization) + ")");
      return;
    }
    case runtime_kind::ollama:
      over.add("Ollama's per-GPU minimum", ollama_minimum_memory, "MinimumMemory() = 457 MiB");
      [[fallthrough]];
    case runtime_kind::llamacpp:
      over.add("beyond the logged buffers (CUDA context, cuBLAS)", s.cuda_context, "cuda_context setting");
      return;
    case runtime_kind::transformers:
    case runtime_kind::automatic: break;
  }
  over.add("CUDA context and framework", s.cuda_context, "cuda_context setting");
  over.add("allocator fragmentation reserve", allocated * s.fragmentation / 100,
           n(s.fragmentation) + " % of " + n(allocated) + " B");
}

namespace {

// KV bytes of one token in every layer of this device, when every layer attends to the whole context; 0 for
// hybrids (sliding windows), which vLLM groups and SGLang reports as concurrency only (TGI: full length above).
double kv_bytes_per_token(const context& c) { return c.s.sliding_window > 0 ? 0 : full_length_kv_bytes_per_token(c); }

// The KV bytes of one request of `seq` tokens on this device (sliding windows included).
double kv_bytes_per_request(const context& c) {
  const run_spec one = with_workload(c.r, 1, c.s.seq, c.s.devices);
  const context c1 = make_context(one, c.first_stage, c.last_stage, step_phase::inference);
  return kv_cache(c1).bytes;
}

// vLLM with sliding-window and full-attention layers (one page size, hybrid KV cache manager): groups of
// group_size layers, num_blocks = available // page // group_size, the token line num_blocks // groups x block
// (kv_cache_utils.py at 001cabc1be16), the concurrency num_blocks / the blocks one request takes over the groups.
void report_vllm_hybrid(const context& c, runtime_report& out, std::vector<std::string>& notes) {
  const auto& s = c.s;
  if (c.m.mla) {  // no sliding MLA model in the presets: the concurrency from the request's bytes
    out.max_concurrency = out.kv_available / kv_bytes_per_request(c);
    return;
  }
  const auto L = static_cast<std::int64_t>(c.layers_on_stage);
  const std::int64_t full =
      s.sliding_window_pattern > 0 ? L / s.sliding_window_pattern : 0;  // as kv_cache() counts them
  const vllm_hybrid_groups g = vllm_hybrid_grouping(full, L - full);
  const double page =
      vllm_page_bytes(s.block_size, kv_heads_per_rank(c.m.kv_heads, s.tp), c.m.head_dim, bytes_per_value(c.r.kv));
  const auto N = static_cast<std::int64_t>(chunk_tokens(c));
  const std::int64_t blocks = vllm_num_blocks(out.kv_available, page, static_cast<double>(g.group_size));
  out.kv_capacity_tokens = static_cast<double>(vllm_hybrid_tokens(blocks, g, s.block_size));
  out.max_concurrency = static_cast<double>(blocks) / static_cast<double>(vllm_hybrid_blocks_per_request(
                                                          g, s.seq, s.sliding_window, N, s.block_size));
  const setting_def* seq_row = find_setting("seq");
  const auto limit = static_cast<std::int64_t>(seq_row != nullptr ? seq_row->max_value : 0);
  out.max_context =
      vllm_hybrid_max_model_len(out.kv_available, page, full, L - full, s.sliding_window, N, s.block_size, limit);
  if (s.seq > out.max_context)
    notes.push_back("vLLM refuses to start at max_model_len " + std::to_string(s.seq) +
                    ": the estimated maximum model length is " + std::to_string(out.max_context));
}

void report_vllm(const context& c, const runtime_term& weights, runtime_report& out, std::vector<std::string>& notes) {
  const auto& s = c.s;
  out.budget = vllm_budget(s.gpu_memory, s.gpu_memory_utilization);
  out.terms = {weights,
               vllm_profile_peak(c),
               {"non-torch memory", s.non_torch_memory, "non_torch_memory"},
               {"CUDA graphs", s.cuda_graph_memory, "cuda_graph_memory"}};
  double used = 0;
  for (const auto& t : out.terms) used += t.bytes;
  out.kv_available = out.budget - used;
  const double per_token = kv_bytes_per_token(c);
  if (out.kv_available <= 0) {
    notes.emplace_back(
        "vLLM stops: no available memory for the cache blocks; raise gpu_memory_utilization or free memory");
    return;
  }
  if (per_token == 0) {
    report_vllm_hybrid(c, out, notes);
    return;
  }
  const double page = per_token * static_cast<double>(s.block_size) / c.layers_on_stage;
  const std::int64_t blocks = vllm_num_blocks(out.kv_available, page, c.layers_on_stage);
  out.kv_capacity_tokens = static_cast<double>(blocks * s.block_size);
  out.max_concurrency = vllm_concurrency(blocks, s.seq, s.block_size);
  out.max_context = vllm_max_model_len(out.kv_available, page, c.layers_on_stage, s.block_size);
  if (s.seq > out.max_context)
    notes.push_back("vLLM refuses to start at max_model_len " + std::to_string(s.seq) + ": its KV cache holds " +
                    std::to_string(static_cast<std::int64_t>(out.kv_capacity_tokens)) +
                    " tokens; the estimated maximum model length is " + std::to_string(out.max_context));
}

// SGLang: weights + KV cache within mem_fraction_static of the memory free at start.
void report_sglang(const context& c, const runtime_term& weights, runtime_report& out) {
  const auto& s = c.s;
  const double total_free = s.gpu_memory - s.cuda_context - custom_all_reduce_bytes(s.tp);
  out.budget = total_free * s.mem_fraction_static;
  out.terms = {weights};
  out.kv_available = out.budget - weights.bytes;
  const double per_token = kv_bytes_per_token(c);
  if (per_token > 0) {
    out.kv_capacity_tokens =
        static_cast<double>(sglang_tokens(total_free, total_free - weights.bytes, s.mem_fraction_static, per_token));
    out.max_concurrency = out.kv_capacity_tokens / static_cast<double>(s.seq);
    out.max_context = static_cast<std::int64_t>(out.kv_capacity_tokens);
  } else if (out.kv_available > 0) {
    out.max_concurrency = out.kv_available / kv_bytes_per_request(c);
  }
}

// TGI: the warmup prefill runs with its batch's blocks allocated; the KV share of what it leaves free (tgi_version)
// becomes new blocks, and the warmup's blocks are added back (FlashCausalLM.warmup).
void report_tgi(const context& c, const runtime_term& weights, runtime_report& out) {
  const auto& s = c.s;
  out.terms = {weights, tgi_prefill_forward(c), tgi_prefill_logits(c)};
  const double per_token = full_length_kv_bytes_per_token(c);
  const double block_bytes = tgi_block_bytes(c);
  const tgi_sizing z = size_tgi(c, weights.bytes, block_bytes);
  const double warm = static_cast<double>(z.warmup_blocks) * block_bytes;
  out.kv_available = z.kv_memory + warm;
  out.budget = out.kv_available + weights.bytes + out.terms[1].bytes + out.terms[2].bytes;
  if (per_token > 0 && z.kv_memory > 0) {
    out.kv_capacity_tokens = static_cast<double>(tgi_blocks(z.kv_memory, block_bytes, z.warmup_blocks) * s.block_size);
    out.max_concurrency = out.kv_capacity_tokens / static_cast<double>(s.seq);
    out.max_context = static_cast<std::int64_t>(out.kv_capacity_tokens);
  }
}

void report_llamacpp(const context& c, const estimate_result& r, runtime_report& out) {
  const llamacpp_layout l = layout_llamacpp(c);
  const weight_split split = split_llamacpp(c, count_stage(c));
  double cpu = 0;
  out.has_buffers = true;
  out.model_buffer = std::ceil(split.device);
  out.host_buffer = std::ceil(split.host);
  out.kv_buffer = llamacpp_kv(c, cpu).bytes;
  out.compute_buffer = llamacpp_compute_buffer(l.graph, l.offload);
  out.host_compute_buffer = llamacpp_host_compute_buffer(l.graph, l.offload);
  out.kv_cells = l.cells.total;
  out.kv_capacity_tokens = static_cast<double>(l.cells.total);
  out.max_concurrency = static_cast<double>(c.s.batch);
  out.max_context = l.cells.per_stream;
  (void)r;
}

}  // namespace

runtime_report report_runtime(const context& c, const estimate_result& r, std::vector<std::string>& notes) {
  runtime_report out;
  out.name = c.r.runtime;
  const runtime_term weights{"weights", r.buckets[0].bytes, "parameters bucket"};
  switch (c.r.runtime) {
    case runtime_kind::vllm: report_vllm(c, weights, out, notes); break;
    case runtime_kind::sglang: report_sglang(c, weights, out); break;
    case runtime_kind::tgi: report_tgi(c, weights, out); break;
    case runtime_kind::llamacpp:
    case runtime_kind::ollama: report_llamacpp(c, r, out); break;
    case runtime_kind::transformers:
    case runtime_kind::automatic: break;
  }
  const bool pooled = c.r.runtime == runtime_kind::sglang || c.r.runtime == runtime_kind::tgi;
  if (pooled && out.kv_capacity_tokens > 0 && out.kv_capacity_tokens < c.tokens)
    notes.push_back("the KV cache holds " + std::to_string(static_cast<std::int64_t>(out.kv_capacity_tokens)) +
                    " tokens, fewer than batch x seq = " + n(c.tokens));
  if (c.s.max_position_embeddings > 0 && c.s.seq > c.s.max_position_embeddings)
    notes.push_back("seq " + std::to_string(c.s.seq) + " exceeds the model's max_position_embeddings " +
                    std::to_string(c.s.max_position_embeddings) +
                    ": runtimes refuse a longer context unless rope scaling extends it");
  return out;
}

}  // namespace llm_memory::detail
