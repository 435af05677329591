// SPDX-License-Identifier: MIT
// The resolve stage: layering, every check, the choices parsed into enums, the model built once.
#include "llm_memory/resolve.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "fast_lookups.hpp"
#include "frameworks/framework_def.hpp"
#include "layers/layer_kinds.hpp"
#include "llm_memory/presets.hpp"
#include "profile_axes.hpp"
#include "profiles.hpp"
#include "runtimes/devices.hpp"
#include "runtimes/runtime_def.hpp"
#include "settings_apply.hpp"
#include "text.hpp"

namespace llm_memory {
namespace {

using detail::format_number;
using detail::quoted;

// ---- choices -------------------------------------------------------------------------------------------------

// The `choices` column of a row, at compile time.
constexpr std::string_view choices_of(std::string_view key) {
#define LLM_MEMORY_CHOICES(k, kind, def, lo, hi, choices, ...) \
  if (key == #k) return choices;
  LLM_MEMORY_SETTINGS(LLM_MEMORY_CHOICES)
#undef LLM_MEMORY_CHOICES
  return {};
}

// Whether `names` (an enum's spelling, in enum order) is exactly the row's "a|b|c".
template <std::size_t N>
constexpr bool spells(std::string_view key, const std::array<std::string_view, N>& names) {
  std::string_view rest = choices_of(key);
  for (std::size_t i = 0; i < N; ++i) {
    if (!rest.starts_with(names[i])) return false;
    rest.remove_prefix(names[i].size());
    if (i + 1 < N) {
      if (!rest.starts_with('|')) return false;
      rest.remove_prefix(1);
    }
  }
  return rest.empty();
}

constexpr std::array<std::string_view, 3> mode_names = {"train", "inference", "eval"};
constexpr std::array<std::string_view, 3> finetune_names = {"full", "lora", "qlora"};
constexpr std::array<std::string_view, 6> optimizer_names = {"adamw",        "adamw_8bit", "sgd",
                                                             "sgd_momentum", "lion",       "adafactor"};
constexpr std::array<std::string_view, 5> attention_names = {"standard", "eager", "sdpa", "flash", "sdpa_gqa"};
constexpr std::array<std::string_view, 11> framework_names = {"generic",    "hf",           "deepspeed", "fsdp",
                                                              "torchtune",  "litgpt",       "megatron",  "unsloth",
                                                              "torchtitan", "llamafactory", "axolotl"};
constexpr std::array<std::string_view, 2> lifetime_names = {"freed", "resident"};
constexpr std::array<std::string_view, 3> optimizer_impl_names = {"fused", "foreach", "paged"};
constexpr std::array<std::string_view, 11> loss_names = {
    "hf",      "hf_legacy", "trl_chunked",      "torchtune_chunked", "torchtune_compiled", "litgpt", "megatron",
    "unsloth", "fused",     "torchtune_legacy", "compiled"};
constexpr std::array<std::string_view, 3> activation_offload_names = {"none", "prefetched", "full"};
constexpr std::array<std::string_view, 3> recompute_names = {"none", "selective", "full"};
constexpr std::array<std::string_view, 3> offload_names = {"none", "optimizer", "optimizer+params"};
constexpr std::array<std::string_view, 3> overhead_names = {"none", "factor", "detailed"};
constexpr std::array<std::string_view, 2> units_names = {"GB", "GiB"};
constexpr std::array<std::string_view, 2> norm_names = {"layernorm", "rmsnorm"};
constexpr std::array<std::string_view, 3> position_names = {"rope", "learned", "none"};
constexpr std::array<std::string_view, 2> mlp_names = {"plain", "gated"};
constexpr std::array<std::string_view, 3> bias_names = {"none", "qkv", "all"};
constexpr std::array<std::string_view, 3> qk_norm_names = {"none", "head", "full"};
constexpr std::array<std::string_view, 3> stack_names = {"decoder", "encoder", "encoder_decoder"};
constexpr std::array<std::string_view, 7> runtime_names = {"auto", "transformers", "vllm",  "sglang",
                                                           "tgi",  "llamacpp",     "ollama"};
constexpr std::array<std::string_view, 6> tgi_version_names = {"3.3", "3.1", "3.0", "2.4", "1.4.1", "1.0"};
constexpr std::array<std::string_view, 4> vllm_version_names = {"0.21", "0.17", "0.11", "0.6"};
constexpr std::array<std::string_view, 9> cache_type_names = {"f16",  "bf16", "f32",  "q8_0",  "q5_1",
                                                              "q5_0", "q4_1", "q4_0", "iq4_nl"};
constexpr std::array<ggml_type, 9> cache_types = {ggml_type::f16,  ggml_type::bf16, ggml_type::f32,
                                                  ggml_type::q8_0, ggml_type::q5_1, ggml_type::q5_0,
                                                  ggml_type::q4_1, ggml_type::q4_0, ggml_type::iq4_nl};
static_assert(spells("mode", mode_names) && spells("finetune", finetune_names) &&
                  spells("optimizer", optimizer_names) && spells("attention", attention_names) &&
                  spells("recompute", recompute_names) && spells("offload", offload_names) &&
                  spells("overhead", overhead_names) && spells("units", units_names) && spells("norm", norm_names) &&
                  spells("position_embedding", position_names) && spells("mlp", mlp_names) &&
                  spells("attention_bias", bias_names) && spells("qk_norm", qk_norm_names) &&
                  spells("architecture", stack_names) && spells("runtime", runtime_names) &&
                  spells("tgi_version", tgi_version_names) && spells("vllm_version", vllm_version_names) &&
                  spells("cache_type_k", cache_type_names) && spells("cache_type_v", cache_type_names) &&
                  spells("framework", framework_names) && spells("grad_lifetime", lifetime_names) &&
                  spells("optimizer_impl", optimizer_impl_names) && spells("loss_impl", loss_names) &&
                  spells("activation_offload", activation_offload_names),
              "each enum lists its row's choices, in order");

// The enum value of a canonical choice (the table's spelling, as parsing leaves it).
template <class E, std::size_t N>
E choice(const std::array<std::string_view, N>& names, std::string_view value) {
  const auto it = std::find(names.begin(), names.end(), value);
  return static_cast<E>(it == names.end() ? 0 : it - names.begin());
}

// A dtype setting; "auto" (and only it) gives `automatic`.
dtype dtype_choice(std::string_view value, dtype automatic) { return find_dtype(value).value_or(automatic); }

// The runtime the layered settings ask for: auto picks by the weights the run loads (runtimes/table.cpp
// auto_runtime: llama.cpp for GGUF weights, transformers for the bitsandbytes formats, vLLM otherwise). A QLoRA
// method serves its base in NF4 (parse_choices sets it): auto picks for those, as for weights_dtype nf4 typed.
runtime_kind parse_runtime(const setting_values& v) {
  const auto k = choice<runtime_kind>(runtime_names, v.runtime);
  if (k != runtime_kind::automatic) return k;
  const bool qlora = choice<run_mode>(mode_names, v.mode) == run_mode::inference &&
                     choice<finetune_method>(finetune_names, v.finetune) == finetune_method::qlora;
  return detail::auto_runtime(qlora ? std::optional<dtype>(dtype::nf4) : find_dtype(v.weights_dtype));
}

lora_target_set parse_targets(std::string_view text) {
  lora_target_set set;
  for (auto name : detail::split(text, ',')) {
    if (name == "all-linear") return lora_target_set::all_linear();
    const auto it = std::find(projection_names.begin(), projection_names.end(), name);
    if (it != projection_names.end()) set.add(static_cast<projection>(it - projection_names.begin()));
  }
  return set;
}

model_choices parse_model_choices(const setting_values& v) {
  return {choice<norm_kind>(norm_names, v.norm),
          choice<position_kind>(position_names, v.position_embedding),
          choice<bias_kind>(bias_names, v.attention_bias),
          choice<qk_norm_kind>(qk_norm_names, v.qk_norm),
          choice<int>(mlp_names, v.mlp) == 1,
          choice<stack_kind>(stack_names, v.architecture)};
}

// ---- derived facts ---------------------------------------------------------------------------------------------

// The workload axes' facts (batch, seq, devices), for checked settings (the effective batch is below 2^53 then).
void derive(run_spec& r) {
  const setting_values& v = r.values;
  r.model_parallel = v.tp * v.pp;
  r.data_parallel = v.devices / r.model_parallel;
  // Context-parallel ranks split each sequence: they add no sequences to the step (but ZeRO shards over them).
  r.effective_batch = v.batch * v.grad_accum * (r.data_parallel / v.cp);
  r.tokens = static_cast<double>(v.batch) * static_cast<double>(v.seq);
  r.encoder_seq =
      v.architecture != "encoder_decoder" ? 0 : static_cast<double>(v.encoder_seq > 0 ? v.encoder_seq : v.seq);
}

// kv_dtype as a llama.cpp cache type (fp16 and fp32 as f16 and f32), or npos when it names none.
std::size_t llama_kv_type(std::string_view kv_dtype) {
  const std::string_view name = kv_dtype == "fp16" ? "f16" : kv_dtype == "fp32" ? "f32" : kv_dtype;
  const auto it = std::find(cache_type_names.begin(), cache_type_names.end(), name);
  return it == cache_type_names.end() ? std::string_view::npos
                                      : static_cast<std::size_t>(it - cache_type_names.begin());
}

bool llama_server(runtime_kind k) { return detail::runtime_of(k).ggml_cache_types; }

// Under llama.cpp or Ollama, a kv_dtype llama.cpp has (-ctk/-ctv types, OLLAMA_KV_CACHE_TYPE) is the type of both
// caches; a cache_type_k or cache_type_v given beside it (not f16) wins for its cache.
void llama_kv_types(run_spec& r) {
  const std::size_t type = llama_kv_type(r.values.kv_dtype);
  if (!llama_server(r.runtime) || type == std::string_view::npos) return;
  if (r.values.cache_type_k == "f16") r.cache_k = cache_types[type];
  if (r.values.cache_type_v == "f16") r.cache_v = cache_types[type];
}

// Every choice as its enum; the model and the derived facts come after the checks.
run_spec parse_choices(setting_values&& values) {
  run_spec r;
  r.values = std::move(values);
  const setting_values& v = r.values;
  r.mode = choice<run_mode>(mode_names, v.mode);
  // Evaluation reads the model as loaded: adapters train nothing there (stage_notes says finetune is ignored).
  r.finetune = r.eval() ? finetune_method::full : choice<finetune_method>(finetune_names, v.finetune);
  r.optimizer = choice<optimizer_kind>(optimizer_names, v.optimizer);
  r.attention = choice<attention_kernel>(attention_names, v.attention);
  r.recompute = choice<recompute_policy>(recompute_names, v.recompute);
  r.offload = choice<offload_target>(offload_names, v.offload);
  r.overhead = choice<overhead_mode>(overhead_names, v.overhead);
  r.units = choice<display_units>(units_names, v.units);
  r.runtime = parse_runtime(v);
  r.runtime_auto = choice<runtime_kind>(runtime_names, v.runtime) == runtime_kind::automatic;
  r.tgi = choice<tgi_release>(tgi_version_names, v.tgi_version);
  r.vllm = choice<vllm_release>(vllm_version_names, v.vllm_version);
  r.cache_k = cache_types[choice<std::size_t>(cache_type_names, v.cache_type_k)];
  r.cache_v = cache_types[choice<std::size_t>(cache_type_names, v.cache_type_v)];
  llama_kv_types(r);
  r.framework = choice<framework_kind>(framework_names, v.framework);
  r.grad_lifetime = choice<gradient_lifetime>(lifetime_names, v.grad_lifetime);
  r.optimizer_impl = choice<optimizer_step_impl>(optimizer_impl_names, v.optimizer_impl);
  r.loss = choice<loss_kind>(loss_names, v.loss_impl);
  r.activation_offload = choice<offload_activations>(activation_offload_names, v.activation_offload);
  if (r.finetune == finetune_method::qlora) r.values.weights_dtype = "nf4";  // QLoRA's base is NF4
  r.weights = dtype_choice(v.weights_dtype, dtype::bf16);
  const bool autocast = v.autocast != "off";
  // LoRA adapters live in the compute dtype (bf16) over a quantised base, or in adapter_dtype.
  r.trainable = r.adapters() ? dtype_choice(v.adapter_dtype, r.quantised() ? dtype::bf16 : r.weights) : r.weights;
  r.gradients = dtype_choice(v.grads_dtype, r.trainable);
  r.optimizer_states = dtype_choice(v.optimizer_dtype, dtype::fp32);
  r.activation_bytes = r.weights == dtype::fp32 && !autocast ? 4 : 2;
  r.residual_bytes = r.weights == dtype::fp32 || (v.qlora_upcast && r.adapters()) ? 4 : r.activation_bytes;
  r.compiled = v.compile == "on";  // auto: every recipe's default is eager (docs/methodology.md, "torch.compile")
  // Compiled, the casts are graph nodes: one cast of an input serves every linear reading it, and the partitioner
  // recomputes a weight's 16-bit cast from the fp32 weight (a graph input) instead of saving it.
  r.autocast_weights = autocast && r.trainable == dtype::fp32 && !r.compiled;
  r.per_linear_inputs = v.input_copies == "per_linear" && !r.compiled;
  // bitsandbytes < 0.43.2 MatMul4Bit.forward saved (A, B) for backward (autograd/_functions.py 0.43.1); PR #1270
  // saves A only when B needs a gradient, which a frozen 4-bit base never does.
  r.frozen_linears_keep_input = v.bnb_version == "before_0.43.2" && r.adapters() && r.weights == dtype::nf4;
  r.kv = dtype_choice(v.kv_dtype, r.weights == dtype::fp32 ? dtype::fp32 : dtype::bf16);
  const dtype activations = r.weights == dtype::fp32 ? dtype::fp32 : dtype::bf16;
  r.state = dtype_choice(v.state_dtype,
                         r.train() ? activations : detail::runtime_of(r.runtime).state_dtype.value_or(activations));
  r.lora_targets = parse_targets(v.lora_targets);
  r.model_parallel = v.tp * v.pp;
  r.data_parallel = v.devices / r.model_parallel;
  return r;
}

void build_model(run_spec& r) {
  r.model = make_model(r.values, parse_model_choices(r.values));
  r.params = r.values.params > 0 ? r.values.params : r.model.params.loaded();  // the MTP module is not loaded
  derive(r);
}

// ---- checks ----------------------------------------------------------------------------------------------------

void fail(std::vector<error>& errors, std::string setting, std::string message) {
  errors.push_back({std::move(setting), std::move(message)});
}

// The layer list, and the sizes each recurrent kind it names needs.
void check_layer_kinds(const setting_values& v, std::vector<error>& errors) {
  const auto runs = detail::parse_layer_types(v.layer_types);
  if (!runs.ok()) {
    errors.push_back(runs.errors().front());
    return;
  }
  const auto has = [&](layer_kind k) {
    return std::any_of(runs.value().begin(), runs.value().end(), [&](const layer_run& r) { return r.kind == k; });
  };
  if (has(layer_kind::linear_attention) && (v.linear_num_value_heads < 1 || v.linear_num_key_heads < 1 ||
                                            v.linear_key_head_dim < 1 || v.linear_value_head_dim < 1))
    fail(errors, "linear_num_value_heads",
         "linear_attention layers need linear_num_value_heads, linear_num_key_heads, linear_key_head_dim and "
         "linear_value_head_dim >= 1");
  const bool mamba =
      has(layer_kind::mamba) || has(layer_kind::attention_mamba) || has(layer_kind::shared_attention_mamba);
  if (mamba && (v.mamba_num_heads < 1 || v.mamba_head_dim < 1))
    fail(errors, "mamba_num_heads",
         "mamba, attention_mamba and shared_attention_mamba layers need mamba_num_heads and mamba_head_dim >= 1");
  if (mamba && (v.mamba_num_heads * v.mamba_head_dim) % v.mamba_n_groups != 0)
    fail(errors, "mamba_n_groups", "must divide mamba_num_heads x mamba_head_dim");
  if (has(layer_kind::mamba1) && (v.mamba_d_inner < 1 || v.mamba_dt_rank < 1))
    fail(errors, "mamba_d_inner", "mamba1 layers need mamba_d_inner and mamba_dt_rank >= 1");
  if (has(layer_kind::kda) && (v.linear_num_value_heads < 1 || v.linear_value_head_dim < 1))
    fail(errors, "linear_num_value_heads", "kda layers need linear_num_value_heads and linear_value_head_dim >= 1");
}

// Key/value heads (the full-attention layers' too, Gemma 4) group the query heads: at most as many, dividing them.
void check_kv_heads(const setting_values& v, const char* key, std::int64_t kv, std::vector<error>& errors) {
  const std::string heads = std::to_string(v.num_attention_heads);
  if (kv > v.num_attention_heads)
    fail(errors, key, "must not exceed num_attention_heads (" + heads + "), got " + std::to_string(kv));
  else if (v.num_attention_heads % kv != 0)
    fail(errors, key, "must divide num_attention_heads (" + heads + "), got " + std::to_string(kv));
}

void check_architecture(const setting_values& v, std::vector<error>& errors) {
  const std::string heads = std::to_string(v.num_attention_heads);
  check_kv_heads(v, "num_key_value_heads", v.num_key_value_heads == 0 ? v.num_attention_heads : v.num_key_value_heads,
                 errors);
  if (v.num_global_key_value_heads > 0)
    check_kv_heads(v, "num_global_key_value_heads", v.num_global_key_value_heads, errors);
  if (v.head_dim == 0 && v.kv_lora_rank == 0 && v.hidden_size % v.num_attention_heads != 0)
    fail(errors, "head_dim",
         "hidden_size " + std::to_string(v.hidden_size) + " is not divisible by num_attention_heads " + heads +
             "; give head_dim explicitly");
  if (v.num_experts > 0 && (v.num_experts_per_tok < 1 || v.num_experts_per_tok > v.num_experts))
    fail(errors, "num_experts_per_tok",
         "must be from 1 to num_experts (" + std::to_string(v.num_experts) + "), got " +
             std::to_string(v.num_experts_per_tok));
  if (v.first_k_dense_replace > v.num_hidden_layers)
    fail(errors, "first_k_dense_replace",
         "must not exceed num_hidden_layers (" + std::to_string(v.num_hidden_layers) + ")");
  // A shared layer reads the cache of an earlier layer that computes its own (modeling_gemma3n.py).
  if (v.num_kv_shared_layers > 0 && v.num_kv_shared_layers >= v.num_hidden_layers)
    fail(errors, "num_kv_shared_layers",
         "must be below num_hidden_layers (" + std::to_string(v.num_hidden_layers) + "), got " +
             std::to_string(v.num_kv_shared_layers));
  if (v.kv_lora_rank > 0 && (v.qk_rope_head_dim < 1 || v.v_head_dim < 1 || v.qk_nope_head_dim < 1))
    fail(errors, "kv_lora_rank", "MLA needs qk_nope_head_dim, qk_rope_head_dim and v_head_dim >= 1");
  // Encoders and encoder-decoders are dense multi-head stacks (docs/models.md, "Encoders and encoder-decoders").
  if (v.architecture != "decoder" && (v.num_experts > 0 || v.kv_lora_rank > 0))
    fail(errors, "architecture", "an " + v.architecture + " stack with experts or MLA is not modelled");
  check_layer_kinds(v, errors);
  detail::check_quant_skip_layers(v, errors);
  // ALBERT's shared layers: groups of consecutive layers run one set of weights (modeling_albert.py).
  if (v.num_hidden_groups > 0 &&
      (v.num_hidden_groups > v.num_hidden_layers || v.num_hidden_layers % v.num_hidden_groups != 0))
    fail(errors, "num_hidden_groups",
         "must divide num_hidden_layers (" + std::to_string(v.num_hidden_layers) + "), got " +
             std::to_string(v.num_hidden_groups));
  if (v.num_hidden_groups > 0 && v.num_hidden_groups < v.num_hidden_layers &&
      (v.num_experts > 0 || v.architecture == "encoder_decoder"))
    fail(errors, "num_hidden_groups", "shared layers with experts or an encoder-decoder stack are not modelled");
}

void check_parallelism(const run_spec& r, std::vector<error>& errors) {
  const setting_values& v = r.values;
  if (v.devices % r.model_parallel != 0)
    fail(errors, "devices",
         "must be a multiple of tp x pp (" + std::to_string(r.model_parallel) + "), got " + std::to_string(v.devices));
  // Sequences per optimizer step are an exact integer in the output: keep them below 2^53 (doubles in JS).
  const double per_step =
      static_cast<double>(v.batch) * static_cast<double>(v.grad_accum) * static_cast<double>(r.data_parallel);
  if (per_step > max_sequences_per_step)
    fail(errors, "grad_accum",
         "batch x grad_accum x data-parallel devices must stay below 2^53 sequences per optimizer step, got " +
             format_number(per_step));
  if (v.cp > 1 && v.devices % (r.model_parallel * v.cp) != 0)
    fail(errors, "cp",
         "devices must be a multiple of tp x pp x cp (" + std::to_string(r.model_parallel * v.cp) + "), got " +
             std::to_string(v.devices));
  if (v.cp > 1 && v.seq % v.cp != 0)
    fail(errors, "cp", "must divide seq (each device holds seq / cp tokens), got " + std::to_string(v.cp));
  if (v.ep > 1 && (v.num_experts == 0 || v.num_experts % v.ep != 0 || r.data_parallel % v.ep != 0))
    fail(errors, "ep",
         "must divide num_experts (" + std::to_string(v.num_experts) + ") and the data-parallel devices (" +
             std::to_string(r.data_parallel) + "), got " + std::to_string(v.ep));
  if (v.pp > 1 && v.num_hidden_groups > 0 && v.num_hidden_groups < v.num_hidden_layers)
    fail(errors, "pp",
         "pipeline stages over shared layers (num_hidden_groups) are not modelled, got " + std::to_string(v.pp));
  if (v.pp > v.num_hidden_layers)
    fail(
        errors, "pp",
        "must not exceed num_hidden_layers (" + std::to_string(v.num_hidden_layers) + "), got " + std::to_string(v.pp));
  if (v.num_attention_heads % v.tp != 0)
    fail(
        errors, "tp",
        "must divide num_attention_heads (" + std::to_string(v.num_attention_heads) + "), got " + std::to_string(v.tp));
  if (r.offload == offload_target::optimizer_and_params && v.zero != 3)
    fail(errors, "offload", "optimizer+params needs zero = 3 (parameters are offloaded by ZeRO-3 / FSDP)");
}

// The runtime's own checks of an inference run, the framework's of a training one (their rows' `check`).
void check_runtime(const run_spec& r, std::vector<error>& errors) {
  const auto check = r.train() ? detail::framework_of(r.framework).check : detail::runtime_of(r.runtime).check;
  if (check != nullptr) check(r, errors);
  detail::check_device(r, errors);
}

// The quantized llama.cpp cache types (q8_0 ... iq4_nl) are llama.cpp's and Ollama's only.
void check_kv_dtype(const run_spec& r, std::vector<error>& errors) {
  const std::size_t type = llama_kv_type(r.values.kv_dtype);
  if (r.train() || llama_server(r.runtime) || type == std::string_view::npos || type < 3) return;
  fail(errors, "kv_dtype",
       "\"" + r.values.kv_dtype + "\" is a llama.cpp KV-cache type; runtime " + std::string(runtime_name(r.runtime)) +
           " stores auto, fp32, bf16, fp16, fp8, int8 or int4 (runtime = llamacpp or ollama reads it)");
}

// selective_ac_option: "op", or a whole number N: a framework that reads it (framework_def::layer_sac_option,
// torchtitan) checkpoints every Nth block whole with recompute = selective; 0 checkpoints every block (torchtitan's
// `not ac_freq`), as 1 does.
void derive_layer_sac(run_spec& r, std::vector<error>& errors) {
  const std::string& o = r.values.selective_ac_option;
  if (o == "op") return;
  constexpr std::size_t most_digits = 6;
  if (o.empty() || o.size() > most_digits ||
      !std::all_of(o.begin(), o.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    fail(errors, "selective_ac_option",
         "is op or a whole number N of blocks (every Nth checkpointed), got \"" + o + "\"");
    return;
  }
  if (r.train() && !r.eval() && r.recompute == recompute_policy::selective &&
      detail::framework_of(r.framework).layer_sac_option)
    r.layer_sac = std::max<std::int64_t>(1, std::stoll(o));
}

// The phase model's own settings (framework generic ignores them, stage_notes says so).
void check_phases(const run_spec& r, std::vector<error>& errors) {
  if (!r.train() || r.eval() || !r.phased()) return;
  const setting_values& v = r.values;
  if (v.optimizer_in_backward && v.grad_accum > 1)
    fail(errors, "optimizer_in_backward",
         "steps each parameter during backward, so it needs grad_accum 1 (torchtune raises the same), got " +
             std::to_string(v.grad_accum));
  if (r.activation_offload != offload_activations::none && r.recompute != recompute_policy::full)
    fail(errors, "activation_offload", "offloads the checkpoints of full recomputation: set recompute = full");
}

void check_lora_targets(const run_spec& r, std::vector<error>& errors) {
  if (!r.adapters()) return;
  for (auto name : detail::split(r.values.lora_targets, ',')) {
    const auto it = std::find(projection_names.begin(), projection_names.end(), name);
    if (name != "all-linear" &&
        (it == projection_names.end() || !nameable(static_cast<projection>(it - projection_names.begin())))) {
      fail(errors, "lora_targets",
           "unknown module " + quoted(name) +
               "; use q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj (hybrid layers: in_proj_qkvz, "
               "in_proj_ba, in_proj, out_proj; LatentMoE: fc1_latent_proj, fc2_latent_proj) or all-linear");
      return;
    }
  }
}

// Checks that need the model: the first problem only.
std::optional<error> check_model(const run_spec& r) {
  const setting_values& v = r.values;
  constexpr double exact_limit = 9007199254740992.0;  // 2^53: parameter counts stay exact integers
  if (r.model.params.total > exact_limit)
    return error{"hidden_size", "the architecture has " + format_number(r.model.params.total) +
                                    " parameters, more than 2^53; reduce hidden_size or num_hidden_layers"};
  if (!r.adapters() && v.trainable_params > 1 && v.trainable_params > r.params)
    return error{"trainable_params", "must not exceed the model's " + format_number(r.params) + " parameters, got " +
                                         format_number(v.trainable_params)};
  // Zamba2's attention and MLP projections sit in its shared blocks, counted apart (extra_params, families/zamba2.cpp):
  // no layer holds them, so an adapter on them cannot be counted; refused rather than counted as none.
  if (r.adapters() &&
      r.model.layers_of(layer_kind::shared_attention_mamba, static_cast<double>(v.num_hidden_layers)) > 0)
    for (auto name : detail::split(v.lora_targets, ','))
      if (name != "in_proj" && name != "out_proj")
        return error{"lora_targets",
                     "Zamba2's " + quoted(name) +
                         " modules are its shared blocks' (counted apart, not per layer): llm-memory "
                         "counts adapters on the Mamba-2 mixers only; use lora_targets=in_proj,out_proj"};
  if (r.mode == run_mode::train && !r.adapters() && r.quantised())
    return error{"weights_dtype", "full training needs fp32, bf16 or fp16 weights, got \"" + v.weights_dtype +
                                      "\" (a checkpoint's quantization_config sets it); use mode=inference, "
                                      "finetune=lora or qlora, or weights_dtype=bf16 to train the dequantised model"};
  return std::nullopt;
}

// ---- layering --------------------------------------------------------------------------------------------------

// Whether the run loads the preset's checkpoint as shipped, so that its format (FP8, MXFP4) is the default: inference
// on a runtime that reads the checkpoint's own files. Training starts from the dequantised weights, and llama.cpp
// and Ollama load a GGUF conversion: Q4_K_M of a 16-bit or FP8 checkpoint, but gpt-oss's MXFP4 experts stay MXFP4
// (ggml-org/gpt-oss-20b-GGUF and -120b-GGUF ship one file, gpt-oss-*-mxfp4.gguf, file type MXFP4_MOE, which
// `llama-server -hf` falls back to without a Q4_K_M; Ollama's gpt-oss:20b / :120b tags are MXFP4: docs/runtimes.md).
// `layer(shipped, values, errors, origin)` layers the preset's fields, or with `shipped` its shipped format.
template <class Layer>
bool loads_as_shipped(const settings& explicit_values, const setting_values& values, const model_preset& preset,
                      const Layer& layer) {
  if (preset.shipped.empty()) return false;
  setting_values run = values;
  std::vector<error> ignored;  // reported when the explicit values are layered
  layer(true, run, ignored, "");
  detail::apply_layer(explicit_values, run, ignored, "");
  if (choice<run_mode>(mode_names, run.mode) != run_mode::inference) return false;
  if (!detail::runtime_of(parse_runtime(run)).converts_checkpoint) return true;
  const auto shipped = preset.shipped.find("weights_dtype");
  return shipped != preset.shipped.end() && shipped->second == "mxfp4";
}

void apply_model_preset(const settings& explicit_values, setting_values& values, std::vector<error>& errors) {
  const auto it = explicit_values.find("model");
  const std::string id = detail::lower(detail::trim(it != explicit_values.end() ? it->second : std::string()));
  values.model = id;
  if (id.empty()) return;
  // Forgiving: "Qwen/Qwen3-14B" or an alias names its preset, and the run carries the preset's id. The ranking
  // resolves each preset hundreds of times: from its first call on, each is found and its layers parsed once
  // (fast_lookups.hpp), the same values and errors as from the text.
  const detail::fast_lookups* fast = detail::installed_fast_lookups;
  const detail::parsed_preset* parsed = fast != nullptr ? fast->preset(it->second) : nullptr;
  const auto found = parsed != nullptr ? result<const model_preset*>(parsed->preset) : lookup_model(it->second);
  if (!found.ok()) {
    errors.push_back(found.errors().front());
    return;
  }
  const model_preset& preset = *found.value();
  const auto layer = [&](bool shipped, setting_values& into, std::vector<error>& problems, std::string_view origin) {
    if (parsed != nullptr) return fast->layer(*parsed, shipped, into, problems, origin);
    detail::apply_layer(shipped ? preset.shipped : preset.fields, into, problems, origin);
  };
  layer(false, values, errors, " (from model preset)");
  if (loads_as_shipped(explicit_values, values, preset, layer)) layer(true, values, errors, " (from model preset)");
  values.model = preset.id;
}

void apply_gpu_preset(const settings& explicit_values, setting_values& values, std::vector<error>& errors) {
  const auto it = explicit_values.find("gpu");
  if (it == explicit_values.end() || detail::trim(it->second).empty()) return;
  values.gpu = detail::lower(detail::trim(it->second));
  if (const gpu_preset* gpu = find_gpu(values.gpu)) {
    values.gpu = gpu->id;  // an alias (an earlier id) names the preset by its id from here on
    if (!explicit_values.contains("gpu_memory")) values.gpu_memory = gpu->memory_bytes;
  } else {
    errors.push_back({"gpu", "unknown GPU " + quoted(values.gpu) + "; list them with --list-gpus"});
  }
}

// `values` (the base, layered over in place: ~50 strings moved in and out twice per resolve otherwise) <- model
// preset <- the framework's model overrides <- config.json <- explicit values, then the GPU preset's memory.
void layered(setting_values& values, const settings& explicit_values, const settings& config,
             std::vector<error>& errors, const settings& over_preset = {}) {
  apply_model_preset(explicit_values, values, errors);
  const std::string model_id = values.model;
  detail::apply_layer(over_preset, values, errors, " (from the framework)");
  detail::apply_layer(config, values, errors, " (from config.json)");
  detail::apply_layer(explicit_values, values, errors, "");
  values.model = model_id;
  apply_gpu_preset(explicit_values, values, errors);
}

// The runtime's own way with this architecture (its table by model_type, runtimes/<name>.cpp): over every layer of
// the settings, as the runtime runs the model whatever the config says, its note among the model's.
void apply_architecture_rule(setting_values& values, std::vector<error>& errors) {
  const auto rule = detail::runtime_of(parse_runtime(values)).architecture;
  if (rule == nullptr) return;
  const detail::architecture_rule found = rule(values);
  if (found.note.empty()) return;
  detail::apply_layer(found.model, values, errors, " (from the runtime)");
  values.model_notes += (values.model_notes.empty() ? "" : "; ") + found.note;
}

// ---- the inference split ---------------------------------------------------------------------------------------

// Tensor-parallel degrees are tried up to one node of 8 GPUs (solve.cpp's node_size: more nodes add pp stages).
constexpr std::int64_t split_node = 8;

// tp is a degree the runtime's QKV split takes: it divides the query heads, and the KV heads divide by it or it by
// them (vLLM replicates KV heads when fewer: ModelConfig.get_num_kv_heads, as solve.cpp's valid_tp; TGI only a
// single one: runtimes/tgi.cpp's check).
bool splits_heads(const setting_values& v, std::int64_t tp, detail::device_split kind) {
  const std::int64_t kv = v.num_key_value_heads > 0 ? v.num_key_value_heads : v.num_attention_heads;
  const bool replicated = kind == detail::device_split::tensor ? kv == 1 : tp % kv == 0;
  return v.num_attention_heads % tp == 0 && kv > 0 && (kv % tp == 0 || replicated);
}

// An inference run on several devices that states no split runs one copy of the model across them all, as the
// runtime is launched on them: `vllm serve --tensor-parallel-size N` (SGLang's --tp alike) and TGI, which shards
// over every visible GPU (docs/source/basic_tutorials/launcher.md, --num-shard), take the largest tp up to a node
// that divides N and the heads, pipeline stages for the rest (vLLM and SGLang; TGI has none: replicas); llama.cpp
// (-sm layer, its default) and transformers (device_map="auto") put whole layers on each device: pp N. Empty when
// the split is stated, on one device, in training, or when no split fits (the devices then serve replicas).
settings default_split(const setting_values& v, const settings& explicit_values) {
  if (v.devices < 2 || explicit_values.contains("tp") || explicit_values.contains("pp")) return {};
  const detail::device_split kind = detail::runtime_of(parse_runtime(v)).splits;
  std::int64_t tp = 1;
  if (kind != detail::device_split::layers)
    for (std::int64_t t = std::min(v.devices, split_node); t > 1 && tp == 1; --t)
      if (v.devices % t == 0 && splits_heads(v, t, kind)) tp = t;
  const std::int64_t pp = kind == detail::device_split::tensor ? 1 : v.devices / tp;
  if (pp > v.num_hidden_layers || tp * pp == 1) return {};
  return {{"tp", std::to_string(tp)}, {"pp", std::to_string(pp)}};
}

// Whether `base` took its split from default_split and `changes` move the devices it was made for.
bool moves_default_split(const run_spec& base, const settings& changes) {
  if (base.train() || !changes.contains("devices") || !base.inputs) return false;
  const settings& stated = base.inputs->explicit_values;
  return !stated.contains("tp") && !stated.contains("pp");
}

// ---- the resolved run -----------------------------------------------------------------------------------------

// The layered settings parsed and checked (with the layering's `errors`), the model built, or taken from `kept` (a
// run of the same architecture settings: make_model reads nothing else). `inputs` by value: the run keeps them.
result<run_spec> checked(setting_values&& values, resolve_inputs inputs, const run_spec* kept,
                         std::vector<error> errors = {}) {
  run_spec r = parse_choices(std::move(values));
  derive_layer_sac(r, errors);
  check_architecture(r.values, errors);
  check_parallelism(r, errors);
  check_lora_targets(r, errors);
  check_runtime(r, errors);
  check_kv_dtype(r, errors);
  check_phases(r, errors);
  if (!errors.empty()) return errors;
  if (kept != nullptr) {
    r.model = kept->model;
    r.params = kept->params;
    derive(r);
  } else {
    build_model(r);
  }
  if (auto problem = check_model(r)) return std::move(*problem);
  r.inputs = std::make_shared<const resolve_inputs>(std::move(inputs));
  return r;
}

// ---- varying a run ---------------------------------------------------------------------------------------------

// Whether `changes` set only the workload axes, which derive() and check_parallelism() alone read.
bool workload_only(const settings& changes) {
  return std::all_of(changes.begin(), changes.end(),
                     [](const auto& kv) { return kv.first == "batch" || kv.first == "seq" || kv.first == "devices"; });
}

// Whether the profile that resolved `base` reads one of the workload axes that `moved` changes: then resolving
// again may give other profile values (TGI 1.4.1's prefill tokens follow seq, Ollama's context the devices).
bool reads_a_moved_axis(const run_spec& base, const setting_values& moved) {
  const detail::profile_reads reads = detail::profile_axes(base);
  const setting_values& was = base.values;
  const bool several = moved.devices > 1, had_several = was.devices > 1;
  return (reads.batch && moved.batch != was.batch) || (reads.seq && moved.seq != was.seq) ||
         (reads.devices && moved.devices != was.devices) || (reads.several_devices && several != had_several);
}

// Whether `changes` move weights_dtype and otherwise restate `base`'s explicit values.
bool weights_only(const run_spec& base, const settings& changes) {
  if (!base.inputs || !changes.contains("weights_dtype")) return false;
  const settings& stated = base.inputs->explicit_values;
  return std::all_of(changes.begin(), changes.end(), [&](const auto& kv) {
    const auto it = stated.find(kv.first);
    return kv.first == "weights_dtype" || (it != stated.end() && it->second == kv.second);
  });
}

// Whether resolving `base` with other weights layers the same settings but weights_dtype: an inference run on a
// stated runtime (auto picks by the weights) whose profile and architecture rule do not read the weights
// (runtime_def::weights_free_profile); the preset's shipped layer follows the mode and the runtime only
// (loads_as_shipped), default_split the devices and heads, and make_model reads no weights setting. Then only
// parse_choices and the checks read the new format.
bool varies_weights_alone(const run_spec& base, const settings& changes) {
  return base.mode == run_mode::inference && !base.runtime_auto &&
         detail::runtime_of(base.runtime).weights_free_profile && weights_only(base, changes);
}

}  // namespace

std::string_view runtime_name(runtime_kind k) { return runtime_names[static_cast<std::size_t>(k)]; }

namespace {

result<run_spec> resolve(resolve_inputs inputs) {
  const settings& explicit_values = inputs.explicit_values;
  const settings& config = inputs.config;
  std::vector<error> errors;
  setting_values values = detail::default_values();
  layered(values, explicit_values, config, errors);
  if (!errors.empty()) return errors;
  // The profile the layered settings choose sets the defaults under the preset, config.json and explicit values.
  // Evaluation runs under the training framework (its precision, attention and loss), not an inference runtime.
  const bool train = choice<run_mode>(mode_names, values.mode) != run_mode::inference;
  const auto framework = choice<framework_kind>(framework_names, values.framework);
  // The inference split under the profile, which reads tp (vLLM's non-torch memory, SGLang's static fraction).
  const settings split = train ? settings{} : default_split(values, explicit_values);
  detail::apply_layer(split, values, errors, "");
  const settings profile = train ? detail::framework_profile(framework, values, explicit_values)
                                 : detail::runtime_profile(parse_runtime(values), values);
  if (!profile.empty() || !split.empty()) {
    setting_values base = detail::default_values();
    detail::apply_layer(split, base, errors, " (from the device split)");
    detail::apply_layer(profile, base, errors, " (from the profile)");
    layered(base, explicit_values, config, errors, train ? detail::framework_model_overrides(framework) : settings{});
    values = std::move(base);
    if (!errors.empty()) return errors;
  }
  if (!train) apply_architecture_rule(values, errors);
  return checked(std::move(values), std::move(inputs), nullptr, std::move(errors));
}

}  // namespace

result<run_spec> resolve(const settings& explicit_values, const settings& config,
                         std::shared_ptr<const gguf_placement> gguf_file) {
  return resolve(resolve_inputs{explicit_values, config, std::move(gguf_file)});
}

result<run_spec> vary(const run_spec& base, const settings& changes) {
  resolve_inputs inputs = base.inputs ? *base.inputs : resolve_inputs{};
  for (const auto& [key, value] : changes) inputs.explicit_values.insert_or_assign(key, value);
  if (varies_weights_alone(base, changes)) {
    setting_values values = base.values;
    std::vector<error> errors;
    detail::apply_layer({{"weights_dtype", changes.at("weights_dtype")}}, values, errors, "");
    if (errors.empty()) return checked(std::move(values), std::move(inputs), &base);
    return resolve(inputs);  // its errors, as resolving names them
  }
  if (!workload_only(changes) || moves_default_split(base, changes)) return resolve(std::move(inputs));
  run_spec r = base;
  std::vector<error> errors;
  detail::apply_layer(changes, r.values, errors, "");
  if (!errors.empty() || reads_a_moved_axis(base, r.values)) return resolve(std::move(inputs));
  // The profile's layer, the model and every other check are as they were: derive and check the axes again.
  derive(r);
  check_parallelism(r, errors);
  if (!errors.empty()) return errors;
  r.inputs = std::make_shared<const resolve_inputs>(std::move(inputs));
  return r;
}

run_spec with_workload(const run_spec& base, std::int64_t batch, std::int64_t seq, std::int64_t devices) {
  run_spec r = base;
  r.values.batch = batch;
  r.values.seq = seq;
  r.values.devices = devices;
  derive(r);
  return r;
}

}  // namespace llm_memory
