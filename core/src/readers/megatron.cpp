// SPDX-License-Identifier: MIT
// Megatron-LM's pretraining arguments (`pretrain_gpt.py`, `torchrun ... pretrain_gpt.py`): the flags of
// NVIDIA/Megatron-LM megatron/training/arguments.py (core_r0.13), as its examples/gpt3 and examples/llama scripts
// pass them. The parallel degrees, batches, sequence, recomputation, distributed optimizer, precision and the
// model's shape; the model is the custom architecture the shape flags give. docs/readers.md.
#include <algorithm>
#include <cmath>
#include <string>

#include "decimal.hpp"
#include "readers/readers.hpp"
#include "readers/recipe.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

enum action : int {
  a_none,
  a_tp,
  a_pp,
  a_cp,
  a_ep,
  a_sequence_parallel,
  a_micro_batch,
  a_global_batch,
  a_seq,
  a_recompute_granularity,
  a_recompute_activations,
  a_distributed_optimizer,
  a_bf16,
  a_fp16,
  a_layers,
  a_hidden,
  a_heads,
  a_ffn,
  a_query_groups,
  a_gqa,
  a_untie,
  a_swiglu,
  a_positions,
  a_position_type,
  a_normalization,
  a_no_bias,
  a_qkv_bias,
  a_vocab,
  a_experts,
  a_topk,
};

constexpr std::string_view no_memory = "no memory setting depends on it";

constexpr option_row options[] = {
    {"--tensor-model-parallel-size", takes::value, a_tp, ""},
    {"--pipeline-model-parallel-size", takes::value, a_pp, ""},
    {"--context-parallel-size", takes::value, a_cp, ""},
    {"--expert-model-parallel-size", takes::value, a_ep, ""},
    {"--sequence-parallel", takes::flag, a_sequence_parallel, ""},
    {"--micro-batch-size", takes::value, a_micro_batch, ""},
    {"--global-batch-size", takes::value, a_global_batch, ""},
    {"--seq-length", takes::value, a_seq, ""},
    {"--recompute-granularity", takes::value, a_recompute_granularity, ""},
    {"--recompute-activations", takes::flag, a_recompute_activations, ""},
    {"--use-distributed-optimizer", takes::flag, a_distributed_optimizer, ""},
    {"--bf16", takes::flag, a_bf16, ""},
    {"--fp16", takes::flag, a_fp16, ""},
    {"--num-layers", takes::value, a_layers, ""},
    {"--hidden-size", takes::value, a_hidden, ""},
    {"--num-attention-heads", takes::value, a_heads, ""},
    {"--ffn-hidden-size", takes::value, a_ffn, ""},
    {"--num-query-groups", takes::value, a_query_groups, ""},
    {"--group-query-attention", takes::flag, a_gqa, ""},
    {"--untie-embeddings-and-output-weights", takes::flag, a_untie, ""},
    {"--swiglu", takes::flag, a_swiglu, ""},
    {"--max-position-embeddings", takes::value, a_positions, ""},
    {"--position-embedding-type", takes::value, a_position_type, ""},
    {"--normalization", takes::value, a_normalization, ""},
    {"--disable-bias-linear", takes::flag, a_no_bias, ""},
    {"--add-qkv-bias", takes::flag, a_qkv_bias, ""},
    {"--vocab-size", takes::value, a_vocab, ""},
    {"--num-experts", takes::value, a_experts, ""},
    {"--moe-router-topk", takes::value, a_topk, ""},
    {"--recompute-method|--recompute-num-layers", takes::value, 0,
     "with --recompute-granularity full: every layer is counted as recomputed"},
    {"--use-flash-attn|--use-mcore-models|--no-masked-softmax-fusion|--attention-softmax-in-fp32|"
     "--overlap-grad-reduce|--overlap-param-gather|--no-gradient-accumulation-fusion",
     takes::flag, 0, no_memory},
    {"--train-iters|--lr|--min-lr|--lr-decay-style|--lr-warmup-iters|--lr-warmup-fraction|--weight-decay|"
     "--clip-grad|--adam-beta1|--adam-beta2|--init-method-std|--attention-dropout|--hidden-dropout|--log-interval|"
     "--save-interval|--eval-interval|--eval-iters|--save|--load|--data-path|--split|--tokenizer-type|"
     "--tokenizer-model|--vocab-file|--merge-file|--tensorboard-dir|--rotary-base|--norm-epsilon|--seed|"
     "--distributed-backend|--lr-decay-iters",
     takes::value, 0, no_memory},
};

// The shape flags: the model is the custom architecture they give, with Megatron's defaults for the rest.
struct shape_flags {
  bool given = false;       ///< --num-layers, --hidden-size or --num-attention-heads was read
  bool gqa = false;         ///< --group-query-attention
  std::string groups{};     ///< --num-query-groups (read only with --group-query-attention)
  bool untied = false;      ///< --untie-embeddings-and-output-weights
  bool swiglu = false;      ///< --swiglu
  bool no_bias = false;     ///< --disable-bias-linear
  bool qkv_bias = false;    ///< --add-qkv-bias (Qwen's q/k/v biases)
  std::string position{};   ///< --position-embedding-type
  std::string norm{};       ///< --normalization
  std::string positions{};  ///< --max-position-embeddings
};

struct run_flags {
  bool bf16 = false, fp16 = false;  ///< --bf16, --fp16
  std::string global{};             ///< --global-batch-size
};

void set_shape(launch_read& out, const option_hit& h, const char* key, shape_flags& shape) {
  shape.given = true;
  set_setting(out, h.option, key, std::string(h.value));
}

void act(const walk_hit& w, launch_read& out, shape_flags& shape, run_flags& run) {
  const option_hit h = w.hit();
  const std::string v(h.value);
  switch (w.action) {
    case a_tp: return set_setting(out, h.option, "tp", v);
    case a_pp: return set_setting(out, h.option, "pp", v);
    case a_cp: return set_setting(out, h.option, "cp", v);
    case a_ep: return set_setting(out, h.option, "ep", v);
    case a_sequence_parallel: return set_setting(out, h.option, "sequence_parallel", "on");
    case a_micro_batch: return set_setting(out, h.option, "batch", v);
    case a_global_batch: run.global = v; return;
    case a_seq: return set_setting(out, h.option, "seq", v);
    case a_recompute_granularity:
      if (v == "full" || v == "selective") return set_setting(out, h.option, "recompute", v);
      return ignore(out, h.option, "must be full or selective");
    case a_recompute_activations: return set_setting(out, h.option, "recompute", "selective");
    case a_distributed_optimizer: return set_setting(out, h.option, "zero", "1");
    case a_bf16: run.bf16 = true; return set_setting(out, h.option, "weights_dtype", "bf16");
    case a_fp16: run.fp16 = true; return set_setting(out, h.option, "weights_dtype", "fp16");
    case a_layers: return set_shape(out, h, "num_hidden_layers", shape);
    case a_hidden: return set_shape(out, h, "hidden_size", shape);
    case a_heads: return set_shape(out, h, "num_attention_heads", shape);
    case a_ffn: return set_shape(out, h, "intermediate_size", shape);
    case a_vocab: return set_shape(out, h, "vocab_size", shape);
    case a_experts: return set_shape(out, h, "num_experts", shape);
    case a_topk: return set_shape(out, h, "num_experts_per_tok", shape);
    case a_query_groups: shape.groups = v; return;
    case a_gqa: shape.gqa = true; return;
    case a_untie: shape.untied = true; return;
    case a_swiglu: shape.swiglu = true; return;
    case a_no_bias: shape.no_bias = true; return;
    case a_qkv_bias: shape.qkv_bias = true; return;
    case a_positions: shape.positions = v; return;
    case a_position_type: shape.position = v; return;
    case a_normalization: shape.norm = v; return;
    default: return;
  }
}

// Megatron's defaults for what the flags leave unsaid (arguments.py): learned absolute positions, LayerNorm, a
// plain GeLU MLP, biases on every linear layer, tied embeddings, no grouped-query attention.
void apply_shape(launch_read& out, const shape_flags& s) {
  if (s.gqa && !s.groups.empty()) set_setting(out, "--num-query-groups", "num_key_value_heads", s.groups);
  if (!s.gqa && !s.groups.empty()) ignore(out, "--num-query-groups", "read only with --group-query-attention");
  if (!s.positions.empty()) set_setting(out, "--max-position-embeddings", "max_position_embeddings", s.positions);
  if (!s.given) return;
  set_setting(out, "--position-embedding-type", "position_embedding", s.position == "rope" ? "rope" : "learned");
  set_setting(out, "--normalization", "norm", lower(s.norm) == "rmsnorm" ? "rmsnorm" : "layernorm");
  set_setting(out, "--swiglu", "mlp", s.swiglu ? "gated" : "plain");
  set_setting(out, "--disable-bias-linear", "attention_bias", !s.no_bias ? "all" : s.qkv_bias ? "qkv" : "none");
  set_setting(out, "--disable-bias-linear", "mlp_bias", s.no_bias ? "off" : "on");
  set_setting(out, "--untie-embeddings-and-output-weights", "tie_word_embeddings", s.untied ? "off" : "on");
  if (!out.values.contains("vocab_size"))
    out.notes.push_back("the vocabulary comes from the tokenizer: give --vocab_size for the embedding and logits");
}

// A setting read so far, as a number; `fallback` when unread.
double read_value(const launch_read& out, const char* key, double fallback) {
  const auto it = out.values.find(key);
  double v = fallback;
  if (it != out.values.end() && read_double(it->second, v) == 0) v = fallback;
  return v;
}

// Without --bf16 or --fp16 Megatron trains in fp32; without --use-distributed-optimizer every rank keeps the whole
// optimizer state (arguments.py: use_distributed_optimizer defaults to False), whatever the profile's default;
// --global-batch-size is micro x data-parallel x accumulation (megatron/core/num_microbatches_calculator.py),
// data-parallel = devices / (tp x pp x cp).
void apply_run(launch_read& out, const run_flags& r) {
  if (!out.values.contains("zero")) set_setting(out, "(no --use-distributed-optimizer)", "zero", "0");
  if (!r.bf16 && !r.fp16) {
    set_setting(out, "(no --bf16 or --fp16)", "weights_dtype", "fp32");
    set_setting(out, "(no --bf16 or --fp16)", "master_weights", "off");
  }
  if (r.global.empty()) return;
  double g = 0;
  if (read_double(r.global, g) != r.global.size() || g < 1 || g > 1e12 || std::floor(g) != g)
    return out.errors.push_back({"--global-batch-size", "must be a whole number from 1, got " + quoted(r.global)});
  const double model_parallel = read_value(out, "tp", 1) * read_value(out, "pp", 1) * read_value(out, "cp", 1);
  const double dp = std::max(1.0, std::floor(read_value(out, "devices", 1) / model_parallel));
  const double per_step = read_value(out, "batch", 1) * dp;
  if (std::fmod(g, per_step) != 0)
    out.notes.push_back("--global-batch-size " + r.global + " is not a multiple of micro-batch x data-parallel (" +
                        format_number(per_step) + "): Megatron refuses it; read as the multiple below");
  set_setting(out, "--global-batch-size", "grad_accum", format_number(std::max(1.0, std::floor(g / per_step))));
}

}  // namespace

bool is_megatron_script(std::string_view script) {
  const auto slash = script.rfind('/');
  const auto name = slash == std::string_view::npos ? script : script.substr(slash + 1);
  return name.starts_with("pretrain_") && name.ends_with(".py");
}

void read_megatron(std::span<const std::string> args, launch_read& out) {
  set_setting(out, out.command, "mode", "train");
  set_setting(out, out.command, "framework", "megatron");
  shape_flags shape;
  run_flags run;
  for (const auto& w : walk(args, walk_rules{options, false, false}, out)) act(w, out, shape, run);
  apply_shape(out, shape);
  apply_run(out, run);
}

}  // namespace llm_memory::detail
