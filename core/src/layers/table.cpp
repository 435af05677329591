// SPDX-License-Identifier: MIT
// The tables of layer kinds, in the order of layer_kind and mlp_kind (model.hpp), and the layer list that names
// them. Adding a kind: its enum value, its file, its row here (docs/architecture.md, "Add a layer kind").
#include <charconv>
#include <optional>
#include <string>

#include "layers/layer_kinds.hpp"
#include "text.hpp"

namespace llm_memory::detail {

const std::array<const layer_kind_def*, 13>& layer_kinds() {
  static const std::array<const layer_kind_def*, 13> table = {&attention_layer,
                                                              &sliding_attention_layer,
                                                              &mla_layer,
                                                              &dsa_layer,
                                                              &linear_attention_layer,
                                                              &mamba_layer,
                                                              &short_conv_layer,
                                                              &attention_mamba_layer,
                                                              &mamba1_layer,
                                                              &lightning_attention_layer,
                                                              &kda_layer,
                                                              &shared_attention_mamba_layer,
                                                              &no_mixer};
  return table;
}

const std::array<const mlp_kind_def*, 3>& mlp_kinds() {
  static const std::array<const mlp_kind_def*, 3> table = {&dense_mlp, &moe_mlp, &no_mlp};
  return table;
}

namespace {

// The longest run one entry may repeat a kind (the num_hidden_layers row's maximum) [layers].
constexpr std::int64_t max_run = 100000;

// A mixer by its name in the layer list; the families' other spellings ("attention": Granite 4.0-H and Jamba;
// "linear_attention" is Qwen3-Next's) are the same kinds.
std::optional<layer_kind> mixer_named(std::string_view name) {
  if (name == "attention") return layer_kind::attention;
  for (const layer_kind_def* kind : layer_kinds())
    if (kind->name == name) return kind->kind;
  return std::nullopt;
}

std::optional<mlp_kind> mlp_named(std::string_view name) {
  for (const mlp_kind_def* kind : mlp_kinds())
    if (kind->name == name) return kind->kind;
  return std::nullopt;
}

error bad_entry(std::string_view entry, const std::string& why) {
  return error{"layer_types", "entry " + quoted(entry) + " " + why +
                                  "; write [N*]mixer[+mlp] with mixer full_attention, sliding_attention, "
                                  "linear_attention, mamba, mamba1, conv, attention_mamba, lightning_attention, kda, "
                                  "shared_attention_mamba or none and mlp dense, moe or "
                                  "none "
                                  "(docs/models.md)"};
}

// One entry: "[N*]mixer[+mlp]", or "mlp" / "moe" for an MLP-only block.
result<layer_run> parse_entry(std::string_view entry) {
  layer_run run;
  std::string_view rest = entry;
  if (const auto star = rest.find('*'); star != std::string_view::npos) {
    const std::string_view count = trim(rest.substr(0, star));
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), run.count);
    if (ec != std::errc{} || end != count.data() + count.size() || run.count < 1 || run.count > max_run)
      return bad_entry(entry, "repeats a count that is not a whole number from 1 to " + std::to_string(max_run));
    rest = trim(rest.substr(star + 1));
  }
  if (rest == "mlp" || rest == "moe") {
    run.kind = layer_kind::none;
    run.mlp = rest == "mlp" ? mlp_kind::dense : mlp_kind::moe;
    return run;
  }
  const auto plus = rest.find('+');
  const auto mixer = mixer_named(trim(rest.substr(0, plus)));
  if (!mixer) return bad_entry(entry, "names no layer kind");
  run.kind = *mixer;
  if (plus != std::string_view::npos) {
    run.mlp = mlp_named(trim(rest.substr(plus + 1)));
    if (!run.mlp) return bad_entry(entry, "names no MLP kind");
  }
  return run;
}

}  // namespace

result<std::vector<layer_run>> parse_layer_types(std::string_view text) {
  std::vector<layer_run> runs;
  if (trim(text).empty()) return runs;
  for (const std::string_view raw : split(text, ',')) {
    auto run = parse_entry(trim(raw));
    if (!run.ok()) return run.errors();
    // Consecutive entries of one kind and MLP are one run.
    if (!runs.empty() && runs.back().kind == run.value().kind && runs.back().mlp == run.value().mlp &&
        runs.back().count + run.value().count <= max_run)
      runs.back().count += run.value().count;
    else
      runs.push_back(run.value());
  }
  return runs;
}

double state_bytes_per_sequence(const context& c, double layers) {
  double bytes = 0;
  for (const layer_kind_def* kind : layer_kinds())
    if (kind->state_bytes != nullptr) bytes += c.m.layers_of(kind->kind, layers) * kind->state_bytes(c);
  return bytes;
}

}  // namespace llm_memory::detail

namespace llm_memory {

std::string_view name_of(layer_kind k) { return detail::layer_def(k).name; }
std::string_view name_of(mlp_kind k) { return detail::mlp_def(k).name; }

}  // namespace llm_memory
