// SPDX-License-Identifier: MIT
// quantization_config: what a checkpoint's config.json says about how its weights are stored (transformers
// utils/quantization_config.py @v4.56: BitsAndBytesConfig, GPTQConfig, AwqConfig, FineGrainedFP8Config, Mxfp4Config,
// CompressedTensorsConfig), as weights_dtype, quant_bits, quant_group_size and double_quant. The byte layouts are in
// dtype.cpp (layout_linear_bytes) and docs/methodology.md, "Quantised checkpoints".
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "families/families.hpp"
#include "text.hpp"

namespace llm_memory::detail {
namespace {

void quant_fail(reader& r, const std::string& what) {
  r.fail("weights_dtype", "config.json quantization_config: " + what);
}

// The decoder layer a module name of a skip list names ("backbone.layers.4.mixer.in_proj", "model.layers.12.self_attn.
// q_proj", "re:model\\.layers\\.3\\..*", "backbone.layers.4*": 4, 12, 3, 4), or nullopt: no literal "layers.<n>" (a
// regex's alternatives, a wildcard index, lm_head), a vision or audio tower's or the MTP module's layer, or a module
// the layout keeps 16-bit anyway (conv1d, a MoE router, norms). Whole-layer granularity: any projection named keeps
// its whole layer 16-bit.
std::optional<std::int64_t> layer_named(std::string_view name) {
  if (name.starts_with("re:")) name.remove_prefix(3);
  std::string t;  // the name without regex escapes, anchors and trailing wildcards
  for (const char c : name)
    if (c != '\\' && c != '^') t += c;
  while (!t.empty() && (t.back() == '$' || t.back() == '*' || t.back() == '.')) t.pop_back();
  if (t.ends_with(".weight")) t.resize(t.size() - 7);
  for (const char* tower : {"vision", "visual", "audio", "mtp."})
    if (t.find(tower) != std::string::npos) return std::nullopt;
  const std::string leaf = t.substr(t.rfind('.') + 1);
  // Gated DeltaNet's in_proj_a / in_proj_b (Qwen3.5 / 3.6 FP8 list them in every linear-attention layer) are a few
  // heads wide: their layer stays quantised, they are counted in its format (a fraction of a percent of it).
  for (const char* kept : {"conv1d", "gate", "router", "shared_expert_gate", "in_proj_a", "in_proj_b", "in_proj_ba",
                           "A_log", "D", "dt_bias"})
    if (leaf == kept) return std::nullopt;
  if (leaf.find("norm") != std::string::npos) return std::nullopt;
  for (auto at = t.find("layers."); at != std::string::npos; at = t.find("layers.", at + 1)) {
    const std::size_t from = at + 7, to = t.find_first_not_of("0123456789", from);
    const std::size_t end = to == std::string::npos ? t.size() : to;
    if (end == from || end - from > 9 || (end < t.size() && t[end] != '.')) continue;
    return std::stoll(t.substr(from, end - from));
  }
  return std::nullopt;
}

// quant_skip_layers from a skip list (vLLM's Fp8Config ignored_layers / modules_to_not_convert, compressed-tensors'
// ignore, ModelOpt's exclude_modules / ignore): the layers below num_hidden_layers its names hold, sorted.
void read_skips(reader& r, const json& q, std::initializer_list<const char*> keys) {
  const json* list = reader(q).find(keys);
  if (list == nullptr) return;
  if (!list->is_array())
    return r.fail("quant_skip_layers",
                  std::string("config.json quantization_config: ") + *keys.begin() + " must be a list of module names");
  const auto layers = r.out.contains("num_hidden_layers") ? number_in(r.out["num_hidden_layers"]) : 1e18;
  std::vector<std::int64_t> found;
  for (const json& e : *list)
    if (const auto l = e.is_string() ? layer_named(e.get<std::string>()) : std::nullopt;
        l && static_cast<double>(*l) < layers)
      found.push_back(*l);
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  std::string text;
  for (const std::int64_t l : found) text += (text.empty() ? "" : ",") + std::to_string(l);
  if (!text.empty()) r.out["quant_skip_layers"] = text;
}

// bits (2..8) and group_size (-1 = one group per column) into quant_bits / quant_group_size.
void quant_bits_group(reader& r, const json& q, std::initializer_list<const char*> bits_names,
                      std::initializer_list<const char*> group_names) {
  reader qr(q);
  if (const auto bits = whole(qr.find(bits_names))) {
    if (*bits < 2 || *bits > 8) return quant_fail(r, "bits must be 2 to 8, got " + format_number(*bits));
    r.out["quant_bits"] = format_number(*bits);
  }
  if (const json* g = qr.find(group_names)) {
    const auto group = whole(g);
    if (!group || *group < -1 || *group > 1e6) return quant_fail(r, "group_size must be -1 or 0 to 1e6");
    r.out["quant_group_size"] = format_number(std::max(0.0, *group));
  }
}

void bitsandbytes(reader& r, const json& q) {
  reader qr(q);
  if (qr.boolean("load_in_4bit", "weights_dtype").value_or(false)) {
    // NF4 and FP4 store the same tensors (bitsandbytes functional.quantize_4bit): 4-bit codes, absmax per 64.
    r.out["weights_dtype"] = "nf4";
    r.out["double_quant"] = qr.boolean("bnb_4bit_use_double_quant", "double_quant").value_or(false) ? "on" : "off";
  } else if (qr.boolean("load_in_8bit", "weights_dtype").value_or(false)) {
    r.out["weights_dtype"] = "int8";  // LLM.int8: int8 weight + fp32 SCB per output row
  } else {
    quant_fail(r, "bitsandbytes without load_in_4bit or load_in_8bit");
  }
  for (auto& e : qr.errors) r.errors.push_back(std::move(e));
}

// compressed-tensors: one config group of integer weights in pack-quantized format (llm-compressor's W4A16 /
// W8A16) maps to w4a16; other schemes are refused rather than guessed.
void compressed_tensors(reader& r, const json& q) {
  const std::string format = reader(q).text("format");
  const auto groups = q.find("config_groups");
  if (format != "pack-quantized" || groups == q.end() || !groups->is_object() || groups->size() != 1)
    return quant_fail(r, "compressed-tensors format \"" + format +
                             "\" is not modelled (only one pack-quantized integer group: W4A16 / W8A16)");
  const json& group = groups->begin().value();
  const auto w = group.is_object() ? group.find("weights") : group.end();
  if (w == group.end() || !w->is_object() || reader(*w).text("type") != "int" ||
      !reader(*w).boolean("symmetric", "weights_dtype").value_or(true) || reader(*w).text("actorder") == "group")
    return quant_fail(r, "compressed-tensors weights other than symmetric integer without group actorder");
  const std::string strategy = reader(*w).text("strategy");
  if (strategy != "group" && strategy != "channel")
    return quant_fail(r, "compressed-tensors strategy \"" + strategy + "\" is not modelled (group or channel)");
  r.out["weights_dtype"] = "w4a16";
  quant_bits_group(r, *w, {"num_bits"}, {"group_size"});
  if (strategy == "channel") r.set("quant_group_size", "0");
  read_skips(r, q, {"ignore"});
}

void fp8(reader& r, const json& q) {
  r.out["weights_dtype"] = "fp8_block";
  read_skips(r, q, {"ignored_layers", "modules_to_not_convert"});
  const auto block = q.find("weight_block_size");
  if (block == q.end() || block->is_null()) {
    r.set("quant_group_size", "0");  // one fp32 scale per tensor
    return;
  }
  if (!block->is_array() || block->size() != 2 || (*block)[0] != (*block)[1] || !whole(&(*block)[0]) ||
      (*block)[0].get<double>() < 1 || (*block)[0].get<double>() > 1e6)
    return quant_fail(r, "weight_block_size must be a square block [b, b], got " + quoted(block->dump()));
  r.out["quant_group_size"] = format_number((*block)[0].get<double>());
}

// NVIDIA ModelOpt (vLLM modelopt.py ModelOptFp8Config.from_config: quant_algo flat or under "quantization"):
// quant_algo "FP8" is static per-tensor FP8, an F8_E4M3 weight with one F32 weight_scale (ModelOptFp8LinearMethod).
// The per-channel and block-wise algorithms, NVFP4 and the mixed formats are refused rather than guessed.
void modelopt(reader& r, const json& q) {
  const auto nested = q.find("quantization");
  const json& body = nested != q.end() && nested->is_object() ? *nested : q;
  const std::string algo = reader(body).text("quant_algo");
  if (algo != "fp8")  // reader::text lower-cases
    return quant_fail(r, "modelopt quant_algo " + quoted(algo) + " is not modelled (FP8, one scale per tensor, is)");
  r.out["weights_dtype"] = "fp8_block";
  r.set("quant_group_size", "0");  // one fp32 scale per tensor
  // modelopt.py ModelOptQuantConfigBase.from_config: "exclude_modules" nested, "ignore" flat (fnmatch wildcards).
  read_skips(r, body, {&body == &q ? "ignore" : "exclude_modules"});
}

}  // namespace

void read_quantization(reader& r, const json& root) {
  const auto it = root.find("quantization_config");
  if (it == root.end() || it->is_null()) return;
  if (!it->is_object()) return quant_fail(r, "must be an object");
  const json& q = *it;
  reader qr(q);
  std::string method = qr.text("quant_method");
  if (method.empty() && (q.contains("load_in_4bit") || q.contains("load_in_8bit"))) method = "bitsandbytes";
  if (method == "bitsandbytes") return bitsandbytes(r, q);
  if (method == "gptq") {
    r.out["weights_dtype"] = "gptq";
    return quant_bits_group(r, q, {"bits"}, {"group_size"});
  }
  if (method == "awq") {
    const std::string version = qr.text("version");
    if (!version.empty() && version != "gemm" && version != "exllama" && version != "ipex")
      return quant_fail(r, "AWQ version \"" + version + "\" is not modelled (gemm, exllama and ipex share its layout)");
    r.out["weights_dtype"] = "awq";
    return quant_bits_group(r, q, {"bits", "w_bit"}, {"group_size", "q_group_size"});
  }
  if (method == "fp8") return fp8(r, q);
  if (method == "mxfp4") {
    r.out["weights_dtype"] = "mxfp4";
    return;
  }
  if (method == "compressed-tensors") return compressed_tensors(r, q);
  if (method == "modelopt") return modelopt(r, q);
  quant_fail(r, "quant_method " + quoted(method) +
                    " is not modelled (bitsandbytes, gptq, awq, fp8, mxfp4, modelopt FP8 and compressed-tensors "
                    "pack-quantized are)");
}

}  // namespace llm_memory::detail
