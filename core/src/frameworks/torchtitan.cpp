// SPDX-License-Identifier: MIT
// Framework torchtitan: pytorch/torchtitan's Llama 3 trainer (v0.2.0; torchtitan_version 0.0: before v0.1.0): FSDP2
// over every device, bf16 compute over fp32 parameters, op-level selective activation checkpointing, an fp32
// cross-entropy.
#include <array>
#include <string>
#include <vector>

#include "estimate/stage.hpp"
#include "frameworks/framework_def.hpp"

namespace llm_memory::detail {
namespace {
// Named so that the page's first part can leave this file's rows to its rest (scripts/split-wasm.mjs REST_ROWS):
// only a run on this one calls them.
inline namespace rest_rows {

constexpr std::array<std::int64_t, 2> stages = {0, 3};

// torchtitan v0.2.0 (config/job_config.py defaults, models/llama3/train_configs/llama3_8b.toml).
void profile(settings& p, const setting_values& v) {
  set(p, "grads_dtype", "fp32");      // the gradients are of the fp32 parameters (reduce_dtype float32)
  set(p, "optimizer_dtype", "fp32");  // AdamW states follow the fp32 parameters
  set(p, "optimizer_impl", "fused");  // Optimizer.implementation = "fused"
  // components/loss.py: cross_entropy(pred.float(), labels), compiled with the model from 0.1.0
  // (build_cross_entropy_loss: `if job_config.training.compile: loss_fn = torch.compile(loss_fn)` from bbb1b616,
  // 2025-04-02, in v0.1.0; v0.2.0: `compile.enable and "loss" in compile.components`, components defaulting to
  // ["model", "loss"]); before, train.py kept it eager ("compiling loss function causes CUDA errors", 9dec370 l.136).
  set(p, "loss_impl", v.compile == "on" && v.torchtitan_version != "0.0" ? "compiled" : "hf");
  set(p, "attention", "sdpa");          // llama3/model/model.py l.236-237: repeat_kv before SDPA
  set(p, "recompute", "selective");     // ActivationCheckpoint.mode = "selective" (llama3_8b.toml: "op")
  set(p, "input_copies", "shared");     // no per-linear casts: FSDP2 gathers bf16 parameters once per block
  set(p, "allocator_reserve", "0.33");  // fixed-shape batches (seq_len packed from the dataset)
  if (v.devices > 1) {
    // data_parallel_shard_degree = -1: fully_shard over every device with MixedPrecisionPolicy(param_dtype=bf16):
    // the module computes in bf16 on gathered copies of the fp32 shards, counted as bf16 weights + an fp32 master
    // (2 B/param per shard above FSDP2's transient gather).
    set(p, "zero", "3");
    set(p, "weights_dtype", "bf16");
    set(p, "master_weights", "on");
    set(p, "autocast", "off");
  } else {
    // One device, no FSDP: maybe_enable_amp wraps the step in torch.autocast(bf16) over the fp32 model
    // (distributed/utils.py l.221-235).
    set(p, "weights_dtype", "fp32");
    set(p, "autocast", "bf16");
  }
}

// Op-level selective checkpointing (ActivationCheckpoint.selective_ac_option = "op"; parallelisms/
// parallelize_llama.py `_save_list` and `_custom_policy`, l.214-264 at 9dec370, the Dec-2024 benchmark's commit;
// distributed/activation_checkpoint.py today). Inside each checkpointed block autograd keeps only what the policy
// marks MUST_SAVE: the output of every odd aten.mm of the block (a counter per block and forward; the even ones are
// recomputed), the flash / memory-efficient SDPA's output and fp32 logsumexp, and reduce_scatter's output. Norms,
// RoPE, SiLU and the products are recomputed in backward from the block's input, which the checkpoint keeps.
// Llama's order q, k, v, o, w1 (gate), w3 (up), w2 (down) keeps q, v, gate and down.
//
// compile = on (training.compile: apply_compile wraps each block in torch.compile after apply_ac, parallelize_llama
// l.67-77 and l.297-306 at 9dec370, llama3/infra/parallelize.py l.108-110 at v0.2.0): dynamo traces the checkpoint and
// the policy tags each node's "recompute", AOTAutograd's partitioner saves the MUST_SAVE nodes, but
// `_extract_fwd_bwd_modules` drops a saved value no backward node reads (torch/_functorch/partitioners.py, "filter out
// saved values that don't actually end up being used by the backwards pass"). Eager SAC stores every MUST_SAVE output
// until the recompute pops it (torch/utils/checkpoint.py `_CachingTorchDispatchMode`). The one such output is down's
// (and, with tensor parallelism, its reduce_scatter's): it only feeds the residual add, whose backward reads nothing,
// unless a norm follows the MLP (sandwich norms, four per layer).
void op_selective_saved(const context& c, const layer_params& layer, layer_activations& out) {
  const double T = c.tokens, h = c.m.hidden, B = c.act;
  const double input = c.r.residual_bytes * T * h;  // the block's input (the residual stream)
  out.linear_terms += input;
  out.outside_tp += input;
  const bool down_read = !c.r.compiled || c.s.norms_per_layer >= 4;  // compiled: kept only if a norm reads it
  int mm = 0;
  for (const linear_shape& l : layer.linears) {
    if (l.routed || ++mm % 2 == 0) continue;  // routed experts run grouped GEMMs, not aten.mm: recomputed
    if (l.name == projection::down_proj && !down_read) continue;
    // A row-parallel linear's output is a whole T x h partial sum on every rank (reduce-scattered after): x t so
    // that the tensor-parallel division leaves it whole.
    const bool row_parallel = l.name == projection::o_proj || l.name == projection::down_proj;
    out.linear_terms += B * T * l.out_features * (row_parallel ? c.t : 1);
  }
  const attention_kernel kernel = c.r.attention;
  if (kernel == attention_kernel::flash || kernel == attention_kernel::sdpa || kernel == attention_kernel::sdpa_gqa)
    out.linear_terms += (B * c.m.head_dim + fp32_bytes) * c.m.heads * T;  // output + logsumexp per head and token
  // Tensor parallelism with sequence parallelism: the reduce_scatter after o and after down, T/t x h each.
  const double scatters = down_read ? 2 : 1;
  if (c.t > 1) out.linear_terms += scatters * B * T * h, out.outside_tp += scatters * B * T * h;
}

// llama3/model/model.py l.407: its own `output` linear, never tied to tok_embeddings.
void model_overrides(settings& p) { set(p, "tie_word_embeddings", "off"); }

// Its plan shards wk and wv column-wise and Attention.forward views their outputs as (-1, head_dim) heads, repeated
// n_heads // n_kv_heads times (torchtitan/models/llama3/model/model.py @018740b7): a rank's k and v must be whole
// heads, so tp divides the KV heads; above them the view fails (no KV head is replicated).
void check(const run_spec& r, std::vector<error>& errors) {
  const setting_values& v = r.values;
  const std::int64_t kv = v.num_key_value_heads > 0 ? v.num_key_value_heads : v.num_attention_heads;
  if (v.num_attention_heads % v.tp == 0 && kv > 0 && kv % v.tp != 0)
    errors.push_back({"tp",
                      "torchtitan shards wk and wv by tp and views each rank's part as whole heads, so tp must "
                      "divide the KV heads (num_key_value_heads = " +
                          std::to_string(kv) + "), got " + std::to_string(v.tp)});
}

}  // namespace rest_rows
}  // namespace

// Its row (extern: table.cpp registers it).
extern constinit const framework_def torchtitan_framework{
    .kind = framework_kind::torchtitan,
    .profile = profile,
    .reads = {.several_devices = true},  // FSDP2 over every device from two, autocast on one
    .check = check,                      // tp divides the KV heads
    .model_overrides = model_overrides,
    .printed = "reserved",  // components/metrics.py l.444: "memory: {max_reserved_gib}GiB"
    // training.enable_cpu_offload (config/job_config.py @000204a4): "CPU offloading of parameters, gradients, and
    // optimizer states in FSDP" (CPUOffloadPolicy). Never the optimizer alone.
    .offloads_gradients = true,
    .offloads = {.optimizer_from_zero = -1, .params = true},
    .zero_stages = stages,                  // fully_shard (ZeRO-3) or one replica
    .searches_tp = true,                    // tensor_parallel_degree (DTensor)
    .selective_saved = op_selective_saved,  // selective_ac_option = "op"
    // selective_ac_option = N (distributed/activation_checkpoint.py _apply_layer_sac @cfb93265: a counter over the
    // blocks wrapped, `if not ac_freq or count % ac_freq == 0` ptd_checkpoint_wrapper, else the block unwrapped).
    .layer_sac_option = true,
};

}  // namespace llm_memory::detail
