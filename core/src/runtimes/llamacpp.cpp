// SPDX-License-Identifier: MIT
// llama.cpp (llama-server): its defaults, its check of the V cache, where -ngl puts the weights, its KV cells and
// the compute buffer of its worst-case graph, and the buffers it logs (runtime.hpp has the arithmetic). Sources:
// docs/methodology.md ("Runtimes").
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "formula_texts.hpp"
#include "layers/layer_kinds.hpp"
#include "runtimes/runtime_def.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {

// The weights a llama.cpp user loads when none are stated: the GGUF `llama-server -hf REPO` downloads when the repo
// is named without a quant, Q4_K_M (ggml-org/llama.cpp@145b6280 common/arg.cpp, -hf: "quant is optional,
// case-insensitive, default to Q4_K_M, or falls back to the first file in the repo if Q4_K_M doesn't exist"); the
// Hub serves Ollama's hf.co/ pulls the same default (huggingface/hub-docs@481c63a6 docs/hub/ollama.md: "By default,
// the Q4_K_M quantization scheme is used"), and Ollama's library tags without a type are Q4_K_M builds.
constexpr std::string_view llamacpp_default_weights = "q4_k_m";

// The run's weights are the profile's: neither stated nor from config.json, and no GGUF file's tensors.
bool weights_assumed(const run_spec& r) {
  if (!r.inputs || r.inputs->gguf_file != nullptr || r.values.weights_dtype != llamacpp_default_weights) return false;
  return !r.inputs->explicit_values.contains("weights_dtype") && !r.inputs->config.contains("weights_dtype");
}

// llama.cpp's notes; `served` says where the assumed Q4_K_M comes from in the runtime's words (Ollama's pull).
void llamacpp_notes(const context& c, std::string_view served, std::vector<std::string>& out) {
  if (weights_assumed(c.r)) out.push_back("weights Q4_K_M: " + std::string(served) + "; set weights_dtype to change");
  if (static_cast<double>(c.s.n_gpu_layers) <= static_cast<double>(c.m.layers))
    out.emplace_back(
        "n_gpu_layers <= num_hidden_layers: llama.cpp keeps the output layer (and the CPU layers) in host memory");
}

namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

// llama.cpp: -fa auto (on where the backend supports it), n_ubatch 512, n_batch 2048 (common/common.h); the
// ~0.45 GiB a device holds beyond the logged buffers (CUDA context, cuBLAS). Weights: the GGUF its users load when
// none is stated (llamacpp_default_weights), under the preset, config.json and explicit values as every default.
settings profile(const setting_values& /*v*/) {
  settings p = engine_common();
  p.emplace("weights_dtype", std::string(llamacpp_default_weights));
  return p;
}

bool picked_for(dtype weights) { return info(weights).family == dtype_family::gguf_mix; }

// The architectures llama.cpp runs without the sliding window their config.json declares (ggml-org/llama.cpp
// @069be0ae, src/models/<arch>.cpp load_arch_hparams; convert_hf_to_gguf.py maps the model_type to its llm_arch).
// The others with a window run it as config.json says (docs/runtimes.md has the whole table): gemma2, gemma3,
// gemma3n, gemma4, cohere2, gpt_oss (openai-moe) and olmo3 (olmo2 with sliding_window) build
// build_attn_inp_kv_iswa with set_swa_pattern.
constexpr std::array full_attention_archs{
    windowless_arch{"phi3",
                    "LLM_ARCH_PHI3: src/models/phi3.cpp sets swa_type NONE, \"Phi SWA is currently disabled\", "
                    "llama.cpp PR #13676"},
    windowless_arch{"mistral",
                    "MistralForCausalLM converts to LLM_ARCH_LLAMA: src/models/llama.cpp reads no sliding window "
                    "and builds build_attn_inp_kv"},
};

// Llama 4 (LLM_ARCH_LLAMA4, src/llama-model.cpp @a5410f04 llama_load_hparams_llama4): unless the GGUF states a
// sliding window of 0, swa_type LLAMA_SWA_TYPE_CHUNKED with n_swa fixed at 8192 (not read from the GGUF) and
// set_swa_pattern(4), 3 chunked - 1 full; the chunked layers live in llama_kv_cache_iswa's SWA cache, sized as any
// window's (llamacpp_swa_cells).
constexpr std::int64_t llama4_chunk = 8192;

architecture_rule architecture(const setting_values& v) {
  if (v.model_type == "llama4_text")
    return chunks_as_window(v, llama4_chunk, "llama.cpp",
                            "LLM_ARCH_LLAMA4: swa_type CHUNKED, n_swa 8192, set_swa_pattern(4), the iSWA cache");
  return windowless_rule(v, full_attention_archs, "llama.cpp");
}

// A layer kind no llama.cpp architecture has (its row's llamacpp_refusal): convert_hf_to_gguf.py writes no GGUF
// for the model, so neither llama.cpp nor Ollama loads it. Checked on the layer_types setting, as TGI's check is.
void check_kinds(const run_spec& r, std::vector<error>& errors) {
  const auto runs = parse_layer_types(r.values.layer_types);
  if (!runs.ok()) return;
  for (const layer_run& run : runs.value())
    if (const std::string_view why = layer_def(run.kind).llamacpp_refusal; !why.empty()) {
      errors.push_back({"runtime", std::string(why) + "; choose runtime vllm or transformers"});
      return;
    }
}

// llama.cpp refuses a quantized V cache without flash attention (llama-context.cpp).
void check(const run_spec& r, std::vector<error>& errors) {
  check_kinds(r, errors);
  const bool float_v = r.cache_v == ggml_type::f16 || r.cache_v == ggml_type::bf16 || r.cache_v == ggml_type::f32;
  // The V type came from cache_type_v, or from kv_dtype when cache_type_v is left at f16.
  const bool from_v = r.values.cache_type_v != "f16";
  const std::string& named = from_v ? r.values.cache_type_v : r.values.kv_dtype;
  if (!float_v && r.attention != attention_kernel::flash)
    errors.push_back(
        {from_v ? "cache_type_v" : "kv_dtype",
         "a quantized V cache (\"" + named + "\") needs flash attention (attention=flash, llama.cpp -fa on)"});
}

// The repeating layers this device holds, [first, end): -ngl puts the last `gpu` of `layers` on the GPUs
// (llama-model.cpp load_tensors: i_gpu_start = n_layer - ngl) and -sm layer splits them over the devices in order,
// a contiguous share each (by -ts; equal devices: equal shares, as the stages here hold ceil(layers / pp)): the
// first stage the first share, the last the last. One device: [layers - gpu, layers).
struct layer_range {
  std::int64_t first = 0;  // [layer]
  std::int64_t end = 0;    // past the last [layer]
};
layer_range gpu_layers_here(const context& c, std::int64_t layers, std::int64_t gpu) {
  const std::int64_t share = (gpu + c.s.pp - 1) / c.s.pp;
  if (c.first_stage) return {layers - gpu, std::min(layers, layers - gpu + share)};
  return {layers - share, layers};
}

// The routed experts --n-cpu-moe N keeps in host memory: common/arg.cpp (ggml-org/llama.cpp b7400+) pushes one
// tensor override per layer i < N, llm_ffn_exps_block_regex(i) = "blk\\.i\\.ffn_(up|down|gate|gate_up)_(ch|)exps"
// to the CPU buffer, so every expert matrix (and bias) of those layers stays on the host, whichever device -ngl
// and -ts gave the layer; attention, norms, the router and shared experts stay there. So a device loses the experts
// of its own GPU layers below N (gpu_layers_here).

// A GGUF file's own tensors (--gguf): repeating layer N on the GPU when N >= n_layer - ngl (n_layer = the file's
// blocks), this device's share of them (gpu_layers_here), less the experts of those below --n-cpu-moe; the output
// layer (output.weight, or the duplicated token_embd when tied, and output_norm) on the last device when
// ngl > n_layer; token_embd, the CPU blocks and any other tensor in host memory (counted with the first device).
weight_split split_gguf_file(const context& c, const gguf_placement& g) {
  const auto blocks = static_cast<std::int64_t>(g.layers.size());
  const std::int64_t gpu = std::min(c.s.n_gpu_layers, blocks);
  const layer_range here = gpu_layers_here(c, blocks, gpu);
  const bool output_on_gpu = c.s.n_gpu_layers > blocks;
  weight_split out;
  double moved = 0;
  for (std::int64_t i = 0; i < blocks; ++i) {
    const auto at = static_cast<std::size_t>(i);
    const double experts = at < g.experts.size() && i < c.s.n_cpu_moe ? g.experts[at] : 0;
    if (i >= here.first && i < here.end) {
      out.device += g.layers[at] - experts;
      moved += experts;
    } else if (i < blocks - gpu && c.first_stage) {
      out.host += g.layers[at];
    }
  }
  out.host += moved;
  const double output_copy = g.tied ? g.token_embd : 0;  // TENSOR_DUPLICATED: a second copy only off the host
  if (c.last_stage) (output_on_gpu ? out.device : out.host) += g.output + (output_on_gpu ? output_copy : 0);
  if (c.first_stage) out.host += g.token_embd + g.other;
  out.formula = "the GGUF file's tensors at their stored types: " + n(static_cast<double>(here.end - here.first)) +
                " of " + n(static_cast<double>(blocks)) + " blocks" +
                (output_on_gpu && c.last_stage ? " + the output layer" : "") + " on the GPU" +
                (moved > 0 ? " less their routed experts below --n-cpu-moe " + n(moved) + " B" : "") + "; token_embd " +
                n(g.token_embd) + " B" + (moved > 0 ? " and those experts" : "") + " in host memory";
  return out;
}

// A non-GGUF format's bytes per value of one llama.cpp matrix. MXFP4 is the GGUF of gpt-oss's MXFP4 checkpoint
// (ggml-org/gpt-oss-*-GGUF, file type MXFP4_MOE): src/llama-quant.cpp llama_tensor_get_type stores "MoE tensors ->
// MXFP4, other tensors -> Q8_0" (3-D expert tensors at 17 B per 32 values, every other matrix, token_embd and output
// included, at Q8_0's 34 B per 32); other formats store every matrix alike.
double plain_matrix_bytes(const context& c, bool routed) {
  if (c.r.weights == dtype::mxfp4 && !routed) return info(ggml_type::q8_0).bytes_per_value();
  return bytes_per_value(c.r.weights);
}

// Layer l's routed-expert tensors at their GGUF type (llama.cpp's per-layer rule) or the weights' format.
double routed_bytes(const context& c, std::int64_t l, double& largest) {
  const bool gguf = info(c.r.weights).family == dtype_family::gguf_mix;
  const gguf_model_facts facts = gguf_facts(c);
  double sum = 0;
  for (const auto& x : c.m.params.groups[c.m.group_of(l)].params.linears) {
    if (!x.routed) continue;
    const double per_value =
        gguf ? info(gguf_matrix_type(c.r.weights, name_of(x.name), gguf_position(l, c.m.layers), facts, x.in_features))
                   .bytes_per_value()
             : plain_matrix_bytes(c, true);
    const double tensor = x.in_features * x.out_features * x.copies * per_value;
    largest = std::max(largest, tensor);
    sum += tensor + x.bias * x.copies * fp32_bytes;
  }
  return sum;
}

experts_moved walk_experts_on_cpu(const context& c) {
  experts_moved out;
  const std::int64_t L = c.m.layers;
  if (c.s.n_cpu_moe <= 0 || !c.m.params.experts) return out;
  const layer_range here = gpu_layers_here(c, L, std::min(c.s.n_gpu_layers, L));
  for (std::int64_t l = std::max<std::int64_t>(0, here.first); l < std::min({c.s.n_cpu_moe, here.end, L}); ++l) {
    if (c.m.mlp_at(l) != mlp_kind::moe) continue;
    out.bytes += routed_bytes(c, l, out.largest);
    ++out.layers;
  }
  return out;
}

// The experts --n-cpu-moe moves off this device: walked once per context (context::walks), read by every bucket.
experts_moved experts_on_cpu(const context& c) {
  std::optional<experts_moved>& kept = c.walks.experts;
  if (!kept) kept = walk_experts_on_cpu(c);
  return *kept;
}

// Everything gguf_bytes_per_matrix_weight reads (estimate/weights.cpp), as numbers: the format, gguf_facts' inputs,
// the layers, what model_spec::group_of reads (the layer pattern, the MoE placement, each group's mixer and MLP)
// and each group's matrices (name, shape, copies). Equal keys walk alike, so the walk's answer is kept by it.
std::vector<double> per_matrix_key(const context& c) {
  const model_spec& m = c.m;
  const param_breakdown& p = m.params;
  std::vector<double> key;
  key.reserve(16 + 3 * m.layer_pattern.size() + 40 * p.groups.size());
  const auto add = [&](auto x) { key.push_back(static_cast<double>(x)); };
  add(c.r.weights), add(m.heads), add(m.kv_heads), add(c.s.num_experts), add(m.layers), add(m.hidden);
  add(p.experts), add(p.first_moe), add(p.moe_step), add(m.layer_pattern.size());
  for (const layer_run& run : m.layer_pattern)
    add(run.kind), add(run.count), add(run.mlp ? 1 + static_cast<int>(*run.mlp) : 0);
  add(p.groups.size());
  for (const layer_group& g : p.groups) {
    add(g.mixer), add(g.mlp), add(g.params.linears.size());
    for (const linear_shape& l : g.params.linears) add(l.name), add(l.in_features), add(l.out_features), add(l.copies);
  }
  return key;
}

// The GGUF mix's average bytes per matrix weight (estimate/weights.cpp), walked once per context, and once per
// model and format across estimates: every -ngl, --n-cpu-moe and context probe of fits.cpp's searches estimates
// the same model in the same format again (about 17,000 instructions a walk, 9 % of a ranking with host RAM).
// Kept by per_matrix_key, which holds everything the walk reads; cleared past 4,096 models and formats.
double per_matrix_weight(const context& c) {
  std::optional<double>& kept = c.walks.per_matrix;
  if (kept) return *kept;
  thread_local std::map<std::vector<double>, double> walked;
  std::vector<double> key = per_matrix_key(c);
  if (const auto it = walked.find(key); it != walked.end()) return *(kept = it->second);
  if (walked.size() >= 4096) walked.clear();
  kept = gguf_bytes_per_matrix_weight(c);
  walked.emplace(std::move(key), *kept);
  return *kept;
}

// llama.cpp's placement (llama-model.cpp): token_embd stays in host memory; the first n_layer - ngl repeating
// layers stay on the CPU; the output layer (output_norm + output) goes to the GPU only when ngl > n_layer. Norms
// are f32 in every GGUF. With tied embeddings the output is a copy of token_embd.
weight_split place_llamacpp(const context& c, const stage_params& sp) {
  if (c.r.gguf() != nullptr) return split_gguf_file(c, *c.r.gguf());
  const dtype f = c.r.weights;
  const bool gguf = info(f).family == dtype_family::gguf_mix;
  const double w = plain_matrix_bytes(c, false);
  const double per_matrix =
      gguf ? per_matrix_weight(c)
           : (sp.matrices > 0 ? (sp.routed * plain_matrix_bytes(c, true) + (sp.matrices - sp.routed) * w) / sp.matrices
                              : w);
  const gguf_edge_types e = gguf ? gguf_edges(c) : gguf_edge_types{w, w};
  const double out_type = e.output;
  const bool tied = c.s.tie_word_embeddings;
  const double embed_type = e.embed;
  const double final_norm = c.last_stage ? c.m.params.final_norm : 0;
  const double layers = sp.matrices * per_matrix + (sp.norms - final_norm) * fp32_bytes;
  const double head = c.last_stage ? (tied ? c.m.params.embedding / c.t : sp.head) : 0;
  const double output = head * out_type + final_norm * fp32_bytes;
  const double total_layers = static_cast<double>(c.m.layers);
  const double on_gpu = std::min(static_cast<double>(c.s.n_gpu_layers), total_layers) / total_layers;
  const bool output_on_gpu = static_cast<double>(c.s.n_gpu_layers) > total_layers;
  const experts_moved moved = experts_on_cpu(c);
  weight_split out;
  out.device = on_gpu * layers - moved.bytes + (output_on_gpu ? output : 0);
  out.host = sp.embed * embed_type + (1 - on_gpu) * layers + moved.bytes + (output_on_gpu ? 0 : output);
  if (!formula_texts_on()) return out;  // estimate_totals: ten numbers written for nothing (the -ngl searches)
  out.formula = n(on_gpu * total_layers) + " of " + n(total_layers) + " layers (" + n(sp.matrices) + " x " +
                n(per_matrix) + " B + norms x 4 B)" +
                (output_on_gpu ? " + output " + n(head) + " x " + n(out_type) + " B" : "") +
                (moved.layers > 0 ? " - the routed experts of " + n(static_cast<double>(moved.layers)) +
                                        " layers (--n-cpu-moe) " + n(moved.bytes) + " B"
                                  : "") +
                "; token_embd " + n(sp.embed) + " x " + n(embed_type) + " B" +
                (moved.layers > 0 ? " and those experts" : "") + " in host memory";
  return out;
}

// The weights' split (runtime_def::place_weights, called with count_stage(c)), its bytes kept in the context's memo
// for the report, which reads the same split.
weight_split split_llamacpp(const context& c, const stage_params& sp) {
  weight_split out = place_llamacpp(c, sp);
  c.walks.split = placed_weights{out.device, out.host};
  return out;
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
double walk_first_layer_matrix(const context& c) {
  const auto& p = c.m.params;
  const layer_params& layer = p.groups[c.m.group_of(0)].params;
  const bool gguf = info(c.r.weights).family == dtype_family::gguf_mix;
  const gguf_model_facts facts = gguf_facts(c);
  double largest = 0;
  for (const auto& l : layer.linears) {
    const double per_value =
        gguf ? info(gguf_matrix_type(c.r.weights, name_of(l.name), gguf_position(0, c.m.layers), facts, l.in_features))
                   .bytes_per_value()
             : plain_matrix_bytes(c, l.routed);
    largest = std::max(largest, l.in_features * l.out_features * l.copies * per_value);
  }
  return largest;
}

// The same, once per context (context::walks): every layout reads it.
double llamacpp_first_layer_matrix(const context& c) {
  std::optional<double>& kept = c.walks.first_matrix;
  if (!kept) kept = walk_first_layer_matrix(c);
  return *kept;
}

// -ngl's split of the layers, and the bytes op offload copies to the GPU.
llamacpp_offload offload_llamacpp(const context& c, double gpu_layers, bool output_on_gpu) {
  const bool gguf = info(c.r.weights).family == dtype_family::gguf_mix;
  const double out_type = gguf ? gguf_edges(c).output : plain_matrix_bytes(c, false);
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
  if (c.r.gguf() == nullptr) l.offload.expert_matrix_bytes = experts_on_cpu(c).largest;
  return l;
}

bucket activations(const context& c) {
  builder out = workspace();
  const llamacpp_layout l = layout_llamacpp(c);
  out.b.assumes = "llama.cpp's compute buffer: the largest phase of the worst-case graph (n_ubatch tokens)";
  out.add("compute buffer", llamacpp_compute_buffer(l.graph, l.offload),
          "max(attention, MLP, logits) phases at ubatch " + n(l.graph.ubatch) + ", " + n(l.graph.kv_cells) + " cells" +
              (l.graph.flash ? ", flash attention" : "") +
              (l.offload.output_on_gpu ? "" : "; the output matrix copied in for its op (op offload)"));
  return std::move(out.b);
}

// llama.cpp's recurrent memory (src/llama-memory-recurrent.cpp, b6500+): per recurrent layer an R tensor of
// n_embd_r = (d_conv - 1) x conv channels and an S tensor of n_embd_s = the SSM / delta-rule state
// (src/llama-hparams.cpp), both GGML_TYPE_F32 and mem_size = max(1, n_seq_max) rows (llama_model::create_memory,
// the hybrid's recurrent_type_k/v): the layer files' state at 4 B a value, tp 1, times -np.
double rs_bytes_per_sequence(const context& c) {
  run_spec f32 = c.r;
  f32.state = dtype::fp32;
  context fc = make_context(f32, c.first_stage, c.last_stage, step_phase::inference);
  fc.act = fp32_bytes;
  return state_bytes_per_sequence(fc, c.layers_on_stage);
}

// llama.cpp's KV buffer: padded cells x (K + V) in the cache types, layers on the GPU only; the RS buffer beside it.
bucket kv_buffer(const context& c, double& cpu) {
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
  const double L = attention_layers(c);  // recurrent and MLP-only layers keep no cell
  // Every attention layer but the sliding-window ones keeps a cell per token of the context (the model's layers).
  const double global = L - m.cached_layers_of(layer_kind::sliding_attention, c.layers_on_stage);
  const double gpu_share = c.layers_on_stage > 0 ? l.gpu_layers / c.layers_on_stage : 0;
  // Each layer's cell is n_embd_k_gqa(il) + n_embd_v_gqa(il) wide (llama-kv-cache.cpp): Gemma 4's full-attention
  // layers in their own heads (src/models/gemma4.cpp @9af0434d: per-layer n_head_kv, head width key_length against
  // key_length_swa).
  const double full_layers = m.cached_layers_of(layer_kind::attention, c.layers_on_stage);
  const double full_cell = m.mla ? per_cell : m.full_kv_heads * m.full_head_dim * (kb + vb);
  const double cells = static_cast<double>(l.cells.total);
  const double full = global * cells * per_cell + full_layers * cells * (full_cell - per_cell);
  const double swa = (L - global) * static_cast<double>(l.swa_cells) * per_cell;
  const double seqs = static_cast<double>(std::max<std::int64_t>(1, c.s.batch));  // mem_size = max(1, -np)
  const double rs = recurrent_layers(c) > 0 ? rs_bytes_per_sequence(c) * seqs : 0;
  cpu += std::ceil((full + swa + rs) * (1 - gpu_share));
  // estimate_totals (the ranking's probes) keeps no text: none is built.
  const bool texts = formula_texts_on();
  const std::string cells_text = texts ? " layers x " + std::to_string(l.cells.total) + " cells x " : "";
  if (global > 0)
    out.add("full-attention layers", full * gpu_share,
            !texts ? ""
            : full_cell == per_cell
                ? n(global) + cells_text + n(per_cell) + " B"
                : n(full_layers) + cells_text + n(full_cell) + " B (their own heads)" +
                      (global > full_layers ? " + " + n(global - full_layers) + cells_text + n(per_cell) + " B" : ""));
  if (L > global)
    out.add("sliding-window layers", swa * gpu_share,
            texts ? n(L - global) + " layers x " + std::to_string(l.swa_cells) + " cells x " + n(per_cell) + " B" : "");
  if (rs > 0)
    out.add(
        "RS buffer (llama_memory_recurrent: R and S in f32)", rs * gpu_share,
        texts ? n(recurrent_layers(c)) + " recurrent layers x max(1, -np) " + n(seqs) + " x (n_embd_r + n_embd_s) x 4 B"
              : "");
  // The report reads these numbers (context::walks): it builds the buffer no second time.
  c.walks.kv = kv_buffer_bytes{out.b.bytes, rs > 0 ? std::optional(out.b.items.back().bytes) : std::nullopt};
  return std::move(out.b);
}

void overhead(const context& c, double /*allocated*/, double /*weights*/, builder& over) {
  over.add("beyond the logged buffers (CUDA context, cuBLAS)", c.s.cuda_context, "cuda_context setting");
}

void report(const context& c, const runtime_term& /*weights*/, runtime_report& out, std::vector<std::string>& notes) {
  const llamacpp_layout l = layout_llamacpp(c);
  // The parameters and KV buckets' own numbers (context::walks), built here only where no bucket built them.
  if (!c.walks.split) split_llamacpp(c, count_stage(c));
  if (!c.walks.kv) {
    double cpu = 0;
    (void)kv_buffer(c, cpu);
  }
  const placed_weights split = *c.walks.split;
  const kv_buffer_bytes kv = *c.walks.kv;
  out.has_buffers = true;
  out.model_buffer = std::ceil(split.device);
  out.host_buffer = std::ceil(split.host);
  out.kv_buffer = kv.bucket;
  if (kv.recurrent) {
    out.kv_buffer -= *kv.recurrent;  // llama.cpp logs its recurrent memory on a line of its own
    char line[96];
    std::snprintf(line, sizeof line, "llama_memory_recurrent: CUDA0 RS buffer size = %8.2f MiB",
                  *kv.recurrent / 1048576);
    notes.emplace_back(line);
  }
  out.compute_buffer = llamacpp_compute_buffer(l.graph, l.offload);
  out.host_compute_buffer = llamacpp_host_compute_buffer(l.graph, l.offload);
  out.kv_cells = l.cells.total;
  out.kv_capacity_tokens = static_cast<double>(l.cells.total);
  out.max_concurrency = static_cast<double>(c.s.batch);
  out.max_context = l.cells.per_stream;
}

void notes(const context& c, std::vector<std::string>& out) {
  llamacpp_notes(c, "the GGUF `llama-server -hf <repo>` downloads when no quant is named", out);
}

}  // namespace rest_rows
}  // namespace

runtime_def llamacpp_runtime() {
  runtime_def d;
  d.kind = runtime_kind::llamacpp;
  d.profile = profile;
  d.weights_free_profile = true;  // engine_common() and the windows by model_type (Ollama's adds the VRAM's context)
  d.ggml_cache_types = true;
  d.places_layers_on_host = true;  // Ollama's row too: its profile reads the VRAM, not the layers
  d.device_free = true;            // nothing it sizes reads gpu_memory: the fit compares the device total with it
  d.picked_for = picked_for;
  d.picked_because = " (GGUF weights)";
  d.check = check;
  d.architecture = architecture;
  d.converts_checkpoint = true;  // convert_hf_to_gguf.py writes the GGUF it loads (FP8 dequantised first)
  d.place_weights = split_llamacpp;
  d.activations = activations;
  d.kv = kv_buffer;
  d.overhead = overhead;
  d.report = report;
  d.notes = notes;
  // --fit (src/llama.cpp llama_params_fit_impl, ggml-org/llama.cpp 3514e9f): layers (MoE: experts first) to the
  // host until the rest fits; the solver asks for the largest n_gpu_layers that fits (solve.cpp).
  d.offloads_layers = true;
  // --fit with a MoE model (common/fit.cpp, ggml-org/llama.cpp 08033df): the routed experts go to the host first,
  // from the first layer on (--n-cpu-moe); whole layers only when the dense weights alone do not fit.
  d.offloads_experts = true;
  // Layers split over devices (-sm layer, its default).
  d.splits = device_split::layers;
  d.split_limits = "layers split over devices, up to one per layer";
  // llama.cpp pads its KV cells to 256 per slot and sizes its compute buffer by the padded context: memory is a
  // step function of seq and of batch (slots), not batch x (piecewise quadratic in seq) plus a constant.
  d.lowerable = false;
  return d;
}

}  // namespace llm_memory::detail
