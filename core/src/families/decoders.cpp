// SPDX-License-Identifier: MIT
// The decoder families: what each family's modeling code hard-wires (one row each), the fields only some families
// have (one function each, named by its row), and the text defaults of the multimodal wrappers. What every decoder
// reads is decoder_fields.cpp's.
#include <array>
#include <string>
#include <utility>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

// Falcon (modeling_falcon.py): fused qkv with multi-query or grouped k/v, one LayerNorm per layer when
// attention and MLP run in parallel off the same input, two in the new decoder (ln_attn, ln_mlp),
// one "bias" switch for every linear, ALiBi instead of rotary in some checkpoints. The remote-code
// model_type RefinedWeb (Falcon 40B) is the new decoder; RefinedWebModel (Falcon 7B) the old one.
void falcon_fields(reader& r, std::string_view written) {
  const bool refined_web = written == "refinedweb";
  const bool new_arch = r.boolean("new_decoder_architecture", "num_key_value_heads").value_or(refined_web);
  const bool parallel = r.boolean("parallel_attn", "norms_per_layer").value_or(true);
  if (!new_arch && r.boolean("multi_query", "num_key_value_heads").value_or(true)) r.set("num_key_value_heads", "1");
  int norms = parallel && !new_arch ? 1 : 2;
  if (new_arch) {
    if (const json* n = r.find({"num_ln_in_parallel_attn"});
        n != nullptr && n->is_number_integer() && n->get<int>() == 1)
      norms = 1;
  }
  r.out["norms_per_layer"] = std::to_string(norms);
  const bool bias = r.boolean("bias", "attention_bias").value_or(false);
  r.out["attention_bias"] = bias ? "all" : "none";
  r.out["mlp_bias"] = bias ? "on" : "off";
  if (r.boolean("alibi", "position_embedding").value_or(false)) r.out["position_embedding"] = "none";
}

// OPT (modeling_opt.py): the learned table has 2 extra rows (OPTLearnedPositionalEmbedding's offset). The
// opt-350m layout (word_embed_proj_dim != hidden_size with project_in/out, post-norm, no final norm) is refused.
void opt_fields(reader& r, std::string_view) {
  if (const auto it = r.out.find("max_position_embeddings"); it != r.out.end())
    it->second = std::to_string(std::stoll(it->second) + 2);
  const json* proj = r.find({"word_embed_proj_dim"});
  const json* hidden = r.find({"hidden_size"});
  if (proj != nullptr && hidden != nullptr && *proj != *hidden)
    r.fail("hidden_size",
           "config.json word_embed_proj_dim differs from hidden_size (OPT-350m's projected "
           "embeddings): not modelled");
  if (!r.boolean("do_layer_norm_before", "norm").value_or(true))
    r.fail("norm", "config.json do_layer_norm_before false (post-norm OPT without a final norm): not modelled");
}

// Llama 4's chunked local attention (transformers models/llama4 @v4.56: Llama4TextAttention masks by chunk in the
// layers with use_rope = no_rope_layers[i]; Llama4TextConfig's default no_rope_layers ropes layer i unless
// (i + 1) % no_rope_layer_interval == 0, interval 4; its layer_types say "chunked_attention" / "full_attention"):
// attention_chunk_size, the layers kept as full attention in the model (their shapes), each runtime's rule saying
// what it caches (docs/runtimes.md). The runtimes that page chunks fix the period at 4 (llama.cpp set_swa_pattern(4),
// SGLang get_hybrid_layer_ids' (i + 1) % 4), so another layout is refused.
void read_chunks(reader& r) {
  if (!r.integer({"attention_chunk_size"}, "attention_chunk_size")) return;
  constexpr std::int64_t period = 4;
  const json* interval = r.find({"no_rope_layer_interval"});
  bool regular = interval == nullptr || (interval->is_number_integer() && interval->get<std::int64_t>() == period);
  const json* ropes = r.find({"no_rope_layers"});
  if (ropes != nullptr && ropes->is_array())
    for (std::size_t i = 0; i < ropes->size(); ++i) {
      const json& e = (*ropes)[i];
      const std::int64_t want = (static_cast<std::int64_t>(i) + 1) % period != 0 ? 1 : 0;
      regular = regular && e.is_number_integer() && e.get<std::int64_t>() == want;
    }
  if (!regular)
    r.fail("attention_chunk_size",
           "config.json no_rope_layers / no_rope_layer_interval put the chunked layers elsewhere than 3 of every 4 "
           "(the only layout llm-memory and the runtimes it models page by chunk)");
}

// Llama 4 (modeling_llama4.py): intermediate_size is the expert and shared-expert width, intermediate_size_mlp the
// dense layers'; the q/k norm is an L2 norm without weights; the vision tower is read_vision_tower's.
void llama4_fields(reader& r, std::string_view) {
  read_chunks(r);
  if (const auto it = r.out.find("intermediate_size"); it != r.out.end()) {
    r.out["moe_intermediate_size"] = it->second;
    r.out["shared_expert_intermediate_size"] = it->second;
    r.out.erase(it);
  }
  r.integer({"intermediate_size_mlp"}, "intermediate_size");
  if (r.find({"moe_layers"}) != nullptr)
    r.fail("moe_layer_step",
           "config.json lists moe_layers explicitly: llm-memory reads interleave_moe_layer_step only");
}

// StarCoder / SantaCoder: one shared k/v head when multi_query (the default).
void gpt_bigcode_fields(reader& r, std::string_view) {
  if (r.boolean("multi_query", "num_key_value_heads").value_or(true)) r.set("num_key_value_heads", "1");
}

// Phi-1/2: per-head LayerNorms on q and k when qk_layernorm.
void phi_fields(reader& r, std::string_view) {
  if (r.boolean("qk_layernorm", "qk_norm").value_or(false)) r.out["qk_norm"] = "head";
}

// GLM-4.5: per-head RMSNorms when use_qk_norm.
void glm4_moe_fields(reader& r, std::string_view) {
  if (r.boolean("use_qk_norm", "qk_norm").value_or(false)) r.out["qk_norm"] = "head";
}

// Command R+: LayerNorm weights over every head ([a, d] and [k, d]) when use_qk_norm.
void cohere_fields(reader& r, std::string_view) {
  if (r.boolean("use_qk_norm", "qk_norm").value_or(false)) r.out["qk_norm"] = "full";
}

// StarCoder2 (transformers models/starcoder2/modeling_starcoder2.py @v4.56): `use_bias` (default true) on q/k/v/o
// and on the MLP's c_fc / c_proj. InternLM2 (remote modeling_internlm2.py): `bias` (InternLM2Config default true;
// the released configs say false) on the packed wqkv and wo only; w1 / w3 / w2 never have one.
void switch_biases(reader& r, const char* name, bool mlp_too) {
  const bool bias = r.boolean(name, "attention_bias").value_or(true);
  r.out["attention_bias"] = bias ? "all" : "none";
  if (mlp_too) r.out["mlp_bias"] = bias ? "on" : "off";
}

void starcoder2_fields(reader& r, std::string_view) { switch_biases(r, "use_bias", true); }
void internlm2_fields(reader& r, std::string_view) { switch_biases(r, "bias", false); }

// MiniMax-M2 (transformers models/minimax_m2/modular_minimax_m2.py @v4.57): Mixtral's experts, intermediate_size
// being each expert's width, behind a sigmoid router with e_score_correction_bias; FlexOlmo's attention, q_norm and
// k_norm over all heads (qk_norm full) whatever use_qk_norm says. The config's MTP modules (num_mtp_modules) are
// not in the checkpoint.
void minimax_m2_fields(reader& r, std::string_view) {
  if (const auto it = r.out.find("intermediate_size"); it != r.out.end()) {
    r.out["moe_intermediate_size"] = it->second;
    r.out.erase(it);
  }
}

// Qwen2-MoE / Qwen3-MoE: a dense layer listed in mlp_only_layers breaks the every-layer MoE count.
void qwen_moe_fields(reader& r, std::string_view) { require_empty(r, "mlp_only_layers", "moe_layer_step"); }

// ---- Gated DeltaNet hybrids (issue 32): Qwen3-Next, Qwen3.5, Qwen3.6 ----------------------------------------------

// The Gated DeltaNet fields every Qwen hybrid writes, gated attention (on unless attn_output_gate says otherwise), the
// layer sequence (layer_types, else full attention every full_attention_interval-th layer, default 4:
// configuration_qwen3_next.py __post_init__) and MTP modules that share the model's embedding and head.
void read_gdn(reader& r) {
  r.require({"linear_num_value_heads"}, "linear_num_value_heads");
  r.require({"linear_num_key_heads"}, "linear_num_key_heads");
  r.require({"linear_key_head_dim"}, "linear_key_head_dim");
  r.require({"linear_value_head_dim"}, "linear_value_head_dim");
  r.integer({"linear_conv_kernel_dim"}, "linear_conv_kernel_dim");
  r.out["attention_output_gate"] = r.boolean("attn_output_gate", "attention_output_gate").value_or(true) ? "on" : "off";
  r.out["mtp_own_embedding"] = "off";
  // Qwen3.5's mamba_ssm_dtype float32: vLLM keeps the recurrent state in it (models/config.py
  // Qwen3_5ForConditionalGenerationConfig), transformers' fla kernels always do.
  if (r.text("mamba_ssm_dtype") == "float32") r.out["state_dtype"] = "fp32";
  if (r.find({"layer_types"}) != nullptr) return;  // read_windows read it
  const double interval = field(r, "full_attention_interval", 4, "layer_types");
  if (interval < 1) return r.fail("layer_types", "config.json full_attention_interval must be at least 1");
  const std::string linear = interval == 2 ? "linear_attention," : format_number(interval - 1) + "*linear_attention,";
  r.out["layer_types"] = (interval == 1 ? "" : linear) + "full_attention";
}

// Qwen3-Next (transformers models/qwen3_next/configuration_qwen3_next.py @008e5743, modeling_qwen3_next.py
// @01cdc608): Qwen3-MoE's gated shared expert and per-head q/k norms around read_gdn's layers; MoE where
// (i + 1) % decoder_sparse_step == 0 outside mlp_only_layers. Its checkpoints store MTP modules (mtp.*) the config
// does not count: vLLM's qwen3_next_mtp.py (@055e47c2) reads num_nextn_predict_layers, default 1.
void qwen3_next_fields(reader& r, std::string_view) {
  read_gdn(r);
  require_empty(r, "mlp_only_layers", "moe_layer_step");
  if (!r.integer({"num_nextn_predict_layers"}, "num_nextn_predict_layers")) r.out["num_nextn_predict_layers"] = "1";
}

// Qwen3.5 / Qwen3.6 (models/qwen3_5/modular_qwen3_5.py @009e78d6, qwen3_5_moe/modular_qwen3_5_moe.py @0960594c):
// Qwen3-Next's layers with the GDN projections split (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a: the same
// counts), every MLP dense (qwen3_5) or MoE (qwen3_5_moe: no mlp_only_layers, no decoder_sparse_step), the MTP
// modules counted by mtp_num_hidden_layers; the vision tower is read_vision_tower's.
void qwen3_5_fields(reader& r, std::string_view) {
  read_gdn(r);
  r.integer({"mtp_num_hidden_layers"}, "num_nextn_predict_layers");
  if (r.boolean("mtp_use_dedicated_embeddings", "mtp_own_embedding").value_or(false))
    r.fail("mtp_own_embedding",
           "config.json mtp_use_dedicated_embeddings true (MTP with its own embedding): not "
           "modelled");
}

// Gemma 3's multimodal configs list only what differs from Gemma3TextConfig's defaults
// (configuration_gemma3.py): fill those in so the text model is complete.
void gemma3_defaults(settings& out) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 6> defaults = {
      {{"vocab_size", "262208"},
       {"num_attention_heads", "8"},
       {"num_key_value_heads", "4"},
       {"head_dim", "256"},
       {"sliding_window", "4096"},
       {"max_position_embeddings", "131072"}}};
  for (const auto& [key, value] : defaults) out.emplace(key, value);
}

// LLaVA keeps LlamaConfig's defaults out of text_config (only what differs is written).
void llama_defaults(settings& out) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 5> defaults = {{{"hidden_size", "4096"},
                                                                                      {"intermediate_size", "11008"},
                                                                                      {"num_hidden_layers", "32"},
                                                                                      {"num_attention_heads", "32"},
                                                                                      {"vocab_size", "32000"}}};
  for (const auto& [key, value] : defaults) out.emplace(key, value);
}

// MllamaTextConfig's defaults (configuration_mllama.py), for a text_config that lists only what differs.
void mllama_defaults(settings& out) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 6> defaults = {{{"hidden_size", "4096"},
                                                                                      {"intermediate_size", "14336"},
                                                                                      {"num_hidden_layers", "40"},
                                                                                      {"num_attention_heads", "32"},
                                                                                      {"num_key_value_heads", "8"},
                                                                                      {"vocab_size", "128256"}}};
  for (const auto& [key, value] : defaults) out.emplace(key, value);
}

// clang-format off
constexpr std::array families = {
    family{"gpt2", "layernorm", "plain", "learned", true, "all", "none", 2, 0, false, true},
    family{"llama"}, family{"mistral"}, family{"mixtral"}, family{"phi3"},
    // Ministral 3 (modular_ministral3.py): Mistral's decoder layer and model; its llama_4 attention scaling has no
    // weights.
    family{"ministral3"},
    family{"qwen2", "rmsnorm", "gated", "rope", false, "qkv"},
    family{.model_type = "qwen2_moe", .attention_bias = "qkv", .shared_expert_gate = true, .fields = qwen_moe_fields},
    family{"qwen3", "rmsnorm", "gated", "rope", false, "", "head"},
    family{.model_type = "qwen3_moe", .qk_norm = "head", .fields = qwen_moe_fields},
    family{"gemma", "rmsnorm", "gated", "rope", true},
    family{"gemma2", "rmsnorm", "gated", "rope", true, "", "none", 4, 2},
    family{"gemma3_text", "rmsnorm", "gated", "rope", true, "", "head", 4, 6},
    // Gemma 3n (gemma3n.cpp): Gemma 3's layers, four sliding to one full, and what it adds around them.
    family{.model_type = "gemma3n_text", .tie = true, .qk_norm = "head", .norms_per_layer = 4, .sliding_pattern = 5,
           .fields = gemma3n_fields},
    // Gemma 4 (gemma4.cpp): Gemma 3's layers with wider full-attention heads, five sliding to one full by default.
    family{.model_type = "gemma4_text", .tie = true, .attention_bias = "none", .qk_norm = "head", .norms_per_layer = 4,
           .sliding_pattern = 6, .fields = gemma4_fields},
    family{"olmo2", "rmsnorm", "gated", "rope", false, "", "full"},
    // OLMo 3 (modular_olmo3.py): OLMo 2's layers, three sliding-window layers to one full (layer_types).
    family{.model_type = "olmo3", .qk_norm = "full", .sliding_pattern = 4},
    family{.model_type = "minimax_m2", .qk_norm = "full", .router_bias = true, .fields = minimax_m2_fields},
    family{.model_type = "deepseek_v2", .router_parameter = true},
    family{.model_type = "deepseek_v3", .router_parameter = true},
    // DeepSeek-V3.2: DeepSeek-V3 with the lightning indexer in every layer (index_n_heads: layers/dsa.cpp).
    family{.model_type = "deepseek_v32", .router_parameter = true},
    family{.model_type = "falcon", .norm = "layernorm", .mlp = "plain", .tie = true, .attention_bias = "none",
           .fields = falcon_fields},
    // Issue 18's families; the derivations are in docs/models.md.
    family{.model_type = "gpt_neox", .norm = "layernorm", .mlp = "plain", .attention_bias = "all", .mlp_bias = true},
    family{.model_type = "gptj", .norm = "layernorm", .mlp = "plain", .attention_bias = "none", .norms_per_layer = 1,
           .mlp_bias = true, .lm_head_bias = true},
    family{.model_type = "gpt_bigcode", .norm = "layernorm", .mlp = "plain", .position = "learned", .tie = true,
           .attention_bias = "all", .mlp_bias = true, .fields = gpt_bigcode_fields},
    family{.model_type = "bloom", .norm = "layernorm", .mlp = "plain", .position = "none", .tie = true,
           .attention_bias = "all", .mlp_bias = true, .embedding_norm = true},
    family{.model_type = "opt", .norm = "layernorm", .mlp = "plain", .position = "learned", .tie = true,
           .attention_bias = "all", .mlp_bias = true, .fields = opt_fields},
    family{.model_type = "phi", .norm = "layernorm", .mlp = "plain", .attention_bias = "all", .norms_per_layer = 1,
           .mlp_bias = true, .lm_head_bias = true, .fields = phi_fields},
    family{.model_type = "phimoe", .norm = "layernorm"},
    family{.model_type = "gpt_oss", .attention_bias = "all", .sliding_pattern = 2, .mlp_bias = true,
           .attention_sinks = true, .router_bias = true, .router_parameter = true},
    family{.model_type = "llama4_text", .fields = llama4_fields},
    family{.model_type = "glm4", .attention_bias = "qkv", .norms_per_layer = 4},
    family{.model_type = "glm4_moe", .attention_bias = "qkv", .router_bias = true, .router_parameter = true,
           .fields = glm4_moe_fields},
    family{.model_type = "cohere", .tie = true, .attention_bias = "none", .norms_per_layer = 1,
           .fields = cohere_fields},
    family{.model_type = "granite", .tie = true}, family{.model_type = "granitemoe", .tie = true},
    family{.model_type = "granitemoeshared", .tie = true},
    family{.model_type = "olmoe", .qk_norm = "full"},
    family{.model_type = "smollm3", .tie = true},
    family{.model_type = "starcoder2", .norm = "layernorm", .mlp = "plain", .tie = true, .attention_bias = "all",
           .mlp_bias = true, .fields = starcoder2_fields},
    family{.model_type = "internlm2", .attention_bias = "all", .fields = internlm2_fields},
    family{.model_type = "cohere2", .tie = true, .norms_per_layer = 1, .sliding_pattern = 4},
    // State-space and short-convolution hybrids (ssm.cpp reads their layer lists; docs/models.md).
    family{.model_type = "nemotron_h", .mlp = "plain", .attention_bias = "none", .norms_per_layer = 1,
           .router_bias = true, .router_parameter = true, .fields = nemotron_h_fields},
    family{.model_type = "granitemoehybrid", .fields = granitemoehybrid_fields},
    family{.model_type = "lfm2", .tie = true, .attention_bias = "none", .qk_norm = "head", .fields = lfm2_fields},
    family{.model_type = "lfm2_moe", .tie = true, .attention_bias = "none", .qk_norm = "head",
           .fields = lfm2_fields},
    family{.model_type = "mamba2", .position = "none", .norms_per_layer = 1, .fields = mamba2_fields},
    // Falcon-H1: attention and Mamba-2 in parallel in every layer (hybrid2.cpp; docs/models.md).
    family{.model_type = "falcon_h1", .fields = falcon_h1_fields},
    // Jamba: Mamba-1 and attention layers, experts every other layer (hybrid2.cpp; docs/models.md).
    family{.model_type = "jamba", .position = "none", .fields = jamba_fields},
    // MiniMax-Text-01 / MiniMax-M1: lightning and softmax attention, experts in every layer (linear_hybrids.cpp).
    family{.model_type = "minimax", .fields = minimax_fields},
    // Kimi Linear: KDA and MLA layers (3:1), DeepSeek-V3's experts (linear_hybrids.cpp); no rotary anywhere
    // (modeling_kimi.py KimiMLAAttention asserts mla_use_nope).
    family{.model_type = "kimi_linear", .position = "none", .router_bias = true, .router_parameter = true,
           .fields = kimi_linear_fields},
    // Zamba2: Mamba-2 layers, shared attention + MLP blocks applied at the hybrid layers (zamba2.cpp).
    family{.model_type = "zamba2", .tie = true, .norms_per_layer = 1, .fields = zamba2_fields},
    // Issue 32's Gated DeltaNet hybrids; the derivations are in docs/models.md.
    family{.model_type = "qwen3_next", .qk_norm = "head", .shared_expert_gate = true, .fields = qwen3_next_fields},
    family{.model_type = "qwen3_5", .qk_norm = "head", .fields = qwen3_5_fields},
    family{.model_type = "qwen3_5_moe", .qk_norm = "head", .shared_expert_gate = true, .fields = qwen3_5_fields},
};
// clang-format on

// A config without model_type describes a custom architecture: transformers' PretrainedConfig ties embeddings.
constexpr family custom_family{"", "rmsnorm", "gated", "rope", true};

}  // namespace

// nullptr when model_type names no family above (the caller refuses it rather than guess).
const family* find_family(std::string_view type) {
  if (type.empty()) return &custom_family;
  if (type == "gemma3") type = "gemma3_text";  // the multimodal wrapper's language model
  if (type == "gemma3n") type = "gemma3n_text";
  if (type == "gemma4") type = "gemma4_text";
  if (type == "llama4") type = "llama4_text";
  // Qwen2-VL and Qwen2.5-VL: the language model is Qwen2's (its multimodal rope adds no parameters).
  if (type == "qwen2_vl" || type == "qwen2_5_vl" || type == "qwen2_vl_text" || type == "qwen2_5_vl_text")
    type = "qwen2";
  if (type == "refinedweb" || type == "refinedwebmodel") type = "falcon";
  // Kimi K2 runs DeepSeek-V3's modeling code (its remote modeling_deepseek.py; architectures DeepseekV3ForCausalLM).
  if (type == "kimi_k2") type = "deepseek_v3";
  // GLM-4.7-Flash (modular_glm4_moe_lite.py): DeepseekV3Config and DeepseekV3Attention (MLA) in GLM-4.5's decoder
  // layer, MLP and router (e_score_correction_bias: topk_method noaux_tc), which DeepSeek-V3's shapes equal.
  if (type == "glm4_moe_lite") type = "deepseek_v3";
  // MiniMax-Text-01 and MiniMax-M1's remote-code configs; transformers' port names them minimax.
  if (type == "minimax_text_01" || type == "minimax_m1") type = "minimax";
  // Qwen3-VL (-MoE): the language model is Qwen3's (Qwen3-MoE's); DeepStack adds no parameters to it.
  if (type == "qwen3_vl" || type == "qwen3_vl_text") type = "qwen3";
  if (type == "qwen3_vl_moe" || type == "qwen3_vl_moe_text") type = "qwen3_moe";
  // Qwen3.5 / Qwen3.6: the language model in text_config.
  if (type == "qwen3_5_text") type = "qwen3_5";
  if (type == "qwen3_5_moe_text") type = "qwen3_5_moe";
  // Llama 3.2 Vision: Llama layers, some of them cross-attention layers (mllama_text).
  if (type == "mllama" || type == "mllama_text_model") type = "llama";
  for (const auto& f : families)
    if (f.model_type == type) return &f;
  return nullptr;
}

void text_defaults(settings& out, std::string_view family_type, std::string_view root_type) {
  if (family_type == "gemma3_text") gemma3_defaults(out);
  if (root_type == "llava" && family_type == "llama") llama_defaults(out);
  if (root_type == "mllama") mllama_defaults(out);
  ssm_defaults(out, family_type);
}

}  // namespace llm_memory::detail
