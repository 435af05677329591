// SPDX-License-Identifier: MIT
// The training state on one device: trainable parameters, ZeRO sharding, and the parameters, gradients and
// optimizer buckets.
// Every formula is documented, with its source, in docs/methodology.md.
#include <algorithm>
#include <cmath>

#include "estimate/stage.hpp"
#include "frameworks/framework_def.hpp"
#include "runtimes/runtime_def.hpp"
#include "settings_apply.hpp"

namespace llm_memory::detail {

state_layout layout_state(const context& c) {
  const run_spec& r = c.r;
  const auto& p = c.m.params;
  state_layout l;
  l.sp = count_stage(c);
  l.zero_params = r.values.zero >= 3 ? c.dp : 1;
  l.zero_grads = r.values.zero >= 2 ? c.dp : 1;
  l.zero_opt = r.values.zero >= 1 ? c.dp : 1;
  l.shard = c.dp > 1 ? " / " + n(c.dp) + " data-parallel shards" : "";
  if (r.adapters()) {
    l.trainable_model = p.over_layers([&](const layer_params& layer) {
      return adapter_params(layer, r) + router_adapter_params(c, layer);
    }) + static_cast<double>(p.encoder_layers) * adapter_params(p.encoder_layer, r);
  } else {
    const double given = r.values.trainable_params;
    l.trainable_fraction = given <= 1 ? given : given / r.params;
    l.trainable_model = l.trainable_fraction * r.params;
  }
  if (!c.train || c.eval) l.trainable_model = 0;
  l.trainable_dev = r.adapters() ? l.sp.adapters : l.trainable_fraction * l.sp.total();
  l.train_w = bytes_per_value(r.trainable);
  // Expert parallelism: each rank holds num_experts / ep routed experts. A ZeRO-sharded bucket shards them over the
  // dp / ep expert-data-parallel ranks instead: routed / ep / (dp / ep) = routed / dp, as without ep.
  l.ep_other = l.sp.routed * (1 - 1 / static_cast<double>(r.values.ep));
  return l;
}

namespace {

// torch.autocast caches the 16-bit cast of every fp32 leaf that requires grad (aten/src/ATen/autocast_mode.cpp
// cached_cast) until the outermost autocast exits, which both the HF Trainer and torchtitan leave after the loss and
// before backward: at the end of forward every trained matrix's copy is alive (the embedding is not an autocast op).
// At the start of backward only the copies autograd saved are (mm keeps its 16-bit weight): all without
// checkpointing, the lm_head's where the blocks are checkpointed whole or by torchtitan's op policy (their saved
// tensors are dropped and the casts recomputed block by block); with layer-level checkpointing the blocks left
// unwrapped keep theirs (docs/methodology.md, "Autocast's weight copies").
void autocast_copies(const context& c, const state_layout& l, builder& params, tally& t) {
  const run_spec& r = c.r;
  const double layers = r.adapters() ? l.sp.adapters : l.trainable_fraction * l.sp.matrices;
  const double head = r.adapters() ? 0 : l.trainable_fraction * l.sp.head;
  double kept = 1;  // share of the blocks whose copies autograd keeps
  std::string why = "until backward";
  const bool op_policy = framework_of(r.framework).selective_saved != nullptr;
  if (c.phase == step_phase::backward_start &&
      (r.recompute == recompute_policy::full || (r.recompute == recompute_policy::selective && op_policy))) {
    const double L = c.layers_on_stage;
    kept = r.layer_sac > 0 && L > 0 ? (L - std::floor(L / static_cast<double>(r.layer_sac))) / L : 0;
    why = kept > 0 ? "the lm_head's and the unwrapped blocks' (" + n(kept) + " of the layers)" : "the lm_head's only";
    why += ": autocast's cache is cleared, checkpointed blocks recompute theirs";
  }
  const double matrices = kept * layers + head;
  const double bytes = 2 * matrices / l.zero_params;
  t.dynamic += std::ceil(bytes);
  params.add("16-bit autocast copies of the trained matrices", bytes, n(matrices) + " x 2 B (" + why + ")");
}

}  // namespace

bucket parameters_bucket(const context& c, const state_layout& l, tally& t) {
  const run_spec& r = c.r;
  builder params{{"parameters",
                  "Parameters",
                  0,
                  "The weights held on this device",
                  r.quantised() ? "Quantised formats compress the linear layers; embeddings, lm_head and norms keep "
                                  "higher precision (16-bit; GGUF: norms fp32, output Q6_K)"
                                : "Weights stored in " + r.values.weights_dtype +
                                      "; tensor parallelism splits matrices and embeddings, norms are replicated",
                  {}}};
  const runtime_def& rt = runtime_of(r.runtime);
  if (!c.train && rt.place_weights != nullptr) {
    const weight_split split = rt.place_weights(c, l.sp);
    t.cpu += std::ceil(split.host);
    params.add("weights on the GPU (model buffer)", split.device, split.formula);
    return std::move(params.b);
  }
  weight_storage stored = store_weights(c, l.sp);
  if (r.gguf() != nullptr && !c.train)  // the file's bytes, whatever the mix rule would give
    stored = {r.gguf()->total(), "the GGUF file's tensors at their stored types"};
  std::string formula = stored.formula;
  if (c.t > 1) formula += " (tp " + std::to_string(r.values.tp) + ")";
  if (l.zero_params > 1) formula += l.shard;
  double base = stored.bytes / l.zero_params;
  if (l.zero_params == 1 && l.ep_other > 0) {
    const double w = info(r.weights).family == dtype_family::floating
                         ? bytes_per_value(r.weights)
                         : bytes_per_value(r.weights, r.values.double_quant);
    base -= l.ep_other * w;
    formula += " - " + n(l.ep_other) + " routed-expert weights on the other ep " + std::to_string(r.values.ep - 1) +
               " ranks x " + n(w) + " B";
  }
  const std::string name = r.adapters() ? "frozen base weights" : "weights";
  if (r.offload == offload_target::optimizer_and_params) {
    t.cpu += std::ceil(base);
    params.add(name + " (offloaded to CPU)", 0, formula + " on CPU");
  } else {
    params.add(name, base, formula);
  }
  if (l.sp.vision > 0) {
    // The vision tower and projector load with the model in its dtype: quantised checkpoints leave them out
    // (modules_to_not_convert / ignore list them), so they stay 16-bit there.
    const double w = r.quantised() ? 2 : bytes_per_value(r.weights);
    params.add("vision tower", l.sp.vision * w / l.zero_params,
               n(l.sp.vision) + " vision parameters x " + n(w) + " B" + (l.zero_params > 1 ? l.shard : ""));
  }
  if (!c.train && rt.extra_weights != nullptr) rt.extra_weights(c, params);
  if (r.adapters() && c.train)
    params.add("LoRA adapters", l.sp.adapters * l.train_w / l.zero_params,
               n(l.sp.adapters) + " adapter parameters x " + n(l.train_w) + " B" + (l.zero_params > 1 ? l.shard : ""));
  const framework_def& framework = framework_of(r.framework);
  if (r.values.zero >= 3 && c.dp > 1 && c.phased() && framework.zero3_window != nullptr) {
    framework.zero3_window(c, l, params, t);
  } else if (r.values.zero >= 3 && c.dp > 1) {
    const double gather_w = r.quantised() ? 2 : bytes_per_value(r.weights);
    params.add("ZeRO-3 gathered layers (current + prefetched)", 2 * l.sp.largest_layer * gather_w,
               "2 x largest layer " + n(l.sp.largest_layer) + " x " + n(gather_w) + " B");
  }
  if (c.phased() && c.before_backward() && r.autocast_weights) autocast_copies(c, l, params, t);
  return std::move(params.b);
}

namespace {

// The largest single trained tensor on this device: with optimizer_in_backward, the only gradient alive at once.
double largest_tensor(const context& c, const state_layout& l) {
  if (c.r.adapters()) return l.trainable_dev;  // adapters are small: all of them, conservatively
  double largest = std::max(l.sp.embed, l.sp.head);
  for (const auto& lin : c.m.params.layer_with(mlp_kind::dense).linears)
    largest = std::max(largest, lin.in_features * lin.out_features / c.t);
  return std::min(l.trainable_dev, l.trainable_fraction * largest);
}

// ZeRO-Offload with a framework that moves the gradient partitions with the optimizer (framework_def::
// offloads_gradients: frameworks/deepspeed.cpp cites where); the GPU keeps the reduce bucket.
bool offloads_gradients(const context& c) {
  return c.phased() && framework_of(c.r.framework).offloads_gradients && c.r.values.zero >= 1 &&
         c.r.offload != offload_target::none;
}

// A chunked loss keeps every chunk's logits alive while the lm_head's weight gradient accumulates chunk by chunk,
// so at the start of backward that gradient exists beside them (torchtune's chunked output and litgpt's
// lm_head_chunk_size). The trained lm_head's parameters on this device (the embedding when tied); 0 otherwise.
double chunked_head_gradient(const context& c, const state_layout& l) {
  const loss_kind k = c.s.fused_ce ? loss_kind::fused : c.r.loss;
  const bool chunked =
      k == loss_kind::torchtune_chunked || k == loss_kind::torchtune_compiled || k == loss_kind::litgpt;
  if (!chunked || c.phase != step_phase::backward_start || !c.last_stage || c.r.adapters()) return 0;
  const double head = l.sp.head > 0 ? l.sp.head : (c.s.tie_word_embeddings && c.first_stage ? l.sp.embed : 0);
  return l.trainable_fraction * head;
}

}  // namespace

bucket no_gradients() {
  return {"gradients",
          "Gradients",
          0,
          "One gradient per trainable parameter",
          "Gradients of the frozen base are never stored; buckets for reduction are not counted",
          {}};
}

bucket gradients_bucket(const context& c, const state_layout& l, tally& t) {
  builder grads{no_gradients()};
  if (!c.train || c.eval) return std::move(grads.b);
  const double g = bytes_per_value(c.r.gradients);
  const std::string name = std::string(info(c.r.gradients).name) + " gradients";
  const std::string formula = n(l.trainable_dev) + " trainable x " + n(g) + " B" + (l.zero_grads > 1 ? l.shard : "");
  const double own = l.trainable_dev - (l.zero_grads == 1 && !c.r.adapters() ? l.trainable_fraction * l.ep_other : 0);
  const double all = own * g / l.zero_grads;
  if (!c.phased()) {
    grads.add(name, all, formula);
    return std::move(grads.b);
  }
  const bool resident = c.r.grad_lifetime == gradient_lifetime::resident;
  if (offloads_gradients(c)) {
    t.cpu += std::ceil(all);
    grads.add(name + " (partitions offloaded to CPU with the optimizer)", 0, formula + " on CPU");
    return std::move(grads.b);
  }
  if (resident) {
    grads.add(name + " (resident buffer)", all, formula);
  } else if (c.before_backward() && c.s.grad_accum > 1) {
    grads.add(name + " (accumulated over earlier micro-batches)", all, formula);
  } else if (c.before_backward()) {
    const double head = chunked_head_gradient(c, l);
    if (head > 0)
      grads.add(name + " of the lm_head (accumulated over the loss chunks)", head * g / l.zero_grads,
                n(head) + " lm_head parameters x " + n(g) + " B (the other gradients: none yet)");
    else
      grads.add(name + " (none yet: zero_grad(set_to_none=True))", 0, "0");
  } else if (c.s.optimizer_in_backward) {
    const double one = largest_tensor(c, l);
    grads.add(name + " (one tensor: stepped and freed in backward)", one * g / l.zero_grads,
              "largest tensor " + n(one) + " x " + n(g) + " B");
  } else {
    grads.add(name, all, formula);
  }
  if (!resident) t.dynamic += grads.b.bytes;
  return std::move(grads.b);
}

namespace {

// Adafactor's factored second moment: a row and a column vector per matrix (Shazeer & Stern 2018), for the
// parameters on this device [values].
double adafactor_values(const context& c, const state_layout& l) {
  const run_spec& r = c.r;
  const auto& p = c.m.params;
  auto layer_factored = [&](const layer_params& layer) {
    if (r.adapters()) {
      double f = 0;
      for (const auto& lin : layer.linears)
        if (r.lora_targets.contains(lin.name))
          f += (2 * static_cast<double>(r.values.lora_rank) + lin.in_features + lin.out_features) * lin.copies;
      for (const auto& lin : adapted_router_linears(c, layer))
        f += 2 * static_cast<double>(r.values.lora_rank) + lin.in_features + lin.out_features;
      return f;
    }
    double f = layer.norms + (layer.router > 0 ? c.m.hidden + static_cast<double>(r.values.num_experts) : 0);
    for (const auto& lin : layer.linears) f += (lin.in_features + lin.out_features + lin.bias) * lin.copies;
    return f;
  };
  const double factored = p.over_layers(layer_factored);
  const double full = r.adapters() ? 0
                                   : (p.embedding > 0 ? c.m.vocab + c.m.hidden : 0) +
                                         (p.lm_head > 0 ? c.m.vocab + c.m.hidden : 0) + p.final_norm;
  const double share = l.trainable_model > 0 ? l.trainable_dev / l.trainable_model : 0;
  return (factored + full) * share * l.trainable_fraction;
}

}  // namespace

bucket no_optimizer_state() {
  return {"optimizer",
          "Optimizer state",
          0,
          "Optimizer states and the fp32 master copy of trainable weights",
          "Per trainable parameter; states of frozen weights do not exist",
          {}};
}

bucket optimizer_bucket(const context& c, const state_layout& l, tally& t) {
  const run_spec& r = c.r;
  builder opt{no_optimizer_state()};
  if (!c.train || c.eval) return std::move(opt.b);
  const double o = bytes_per_value(r.optimizer_states);
  const bool to_cpu = r.offload != offload_target::none;
  const bool paged = c.phased() && r.optimizer_impl == optimizer_step_impl::paged;
  auto add_opt = [&](std::string name, double bytes, std::string formula) {
    bytes /= l.zero_opt;
    if (l.zero_opt > 1) formula += l.shard;
    if (to_cpu) {
      t.cpu += std::ceil(bytes);
      opt.add(name + " (offloaded to CPU)", 0, formula + " on CPU");
    } else if (paged) {
      t.paged += std::ceil(bytes);
      opt.add(name + " (paged: managed memory, counted in device only)", 0, formula);
    } else {
      opt.add(std::move(name), bytes, std::move(formula));
    }
  };
  const double dev = l.trainable_dev - (l.zero_opt == 1 && !r.adapters() ? l.trainable_fraction * l.ep_other : 0);
  if (r.values.master_weights && l.train_w < fp32_bytes)
    add_opt("fp32 master weights", dev * fp32_bytes, n(dev) + " x 4 B");
  const std::string od(info(r.optimizer_states).name);
  switch (r.optimizer) {
    case optimizer_kind::adamw:
      add_opt(od + " Adam first moment (m)", dev * o, n(dev) + " x " + n(o) + " B");
      add_opt(od + " Adam second moment (v)", dev * o, n(dev) + " x " + n(o) + " B");
      break;
    case optimizer_kind::adamw_8bit:
      add_opt("8-bit Adam moments (m, v) + block scales", 2 * dev * (1 + fp32_bytes / 256),
              "2 x " + n(dev) + " x (1 B + 4 B absmax per 256-value block)");
      break;
    case optimizer_kind::sgd_momentum: add_opt(od + " momentum", dev * o, n(dev) + " x " + n(o) + " B"); break;
    case optimizer_kind::lion: add_opt(od + " Lion momentum", dev * o, n(dev) + " x " + n(o) + " B"); break;
    case optimizer_kind::adafactor:
      add_opt(od + " Adafactor factored second moment", adafactor_values(c, l) * o,
              "(rows + columns of each matrix) x " + n(o) + " B");
      break;
    case optimizer_kind::sgd: break;
  }
  if (c.phase == step_phase::optimizer_step && r.optimizer_impl == optimizer_step_impl::foreach &&
      r.optimizer == optimizer_kind::adamw && !to_cpu) {
    // _multi_tensor_adamw: torch._foreach_sqrt(exp_avg_sqs) allocates one state-sized list.
    const double bytes = dev * o / l.zero_opt;
    t.dynamic += std::ceil(bytes);
    opt.add("foreach step transient (sqrt of the second moments)", bytes, n(dev) + " x " + n(o) + " B");
  }
  return std::move(opt.b);
}

}  // namespace llm_memory::detail
