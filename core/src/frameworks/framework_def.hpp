// SPDX-License-Identifier: MIT
// A training framework as the core sees it: one `framework_def` per framework, each in its own file
// (frameworks/<name>.cpp), registered in one table (table.cpp) indexed by `framework_kind`. Resolve, estimate and
// solve read a framework's row (its capabilities) and never test its name. Private to the core.
#pragma once

#include "profile_axes.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm_memory/resolve.hpp"
#include "llm_memory/result.hpp"
#include "llm_memory/settings.hpp"

namespace llm_memory::detail {

struct context;  // estimate/stage.hpp
struct state_layout;
struct builder;
struct tally;
struct layer_activations;

/// The CPU offloads a framework runs (the `offload` setting), each read from its own code (docs/methodology.md,
/// "Frameworks"). advise, ways_out and solve never offer one it lacks (runs_offload).
struct offload_support {
  /// The least ZeRO stage at which it moves the optimizer state alone to the CPU (offload = optimizer; DeepSpeed's
  /// offload_optimizer is valid for stages 1-3). -1: never alone (FSDP's CPU offload takes the parameters with it).
  std::int64_t optimizer_from_zero = -1;
  /// At ZeRO-3 it moves the parameter shards too (offload = optimizer+params: DeepSpeed's offload_param, FSDP's
  /// CPUOffloadPolicy).
  bool params = false;
};

/// One training framework: the defaults it sets and every way the estimate and the solver treat it differently.
/// Its behaviours and their sources (file + version) are in docs/methodology.md, "Frameworks".
struct framework_def {
  framework_kind kind = framework_kind::generic;  ///< its row in the table (the enum in resolve.hpp)
  /// Its defaults profile: behaviour settings -> values (every one overridable), written into `profile` over the
  /// settings every framework with a profile shares (table.cpp). `values` are the settings as layered without any
  /// profile. nullptr: no profile, the table's defaults stand.
  void (*profile)(settings& profile, const setting_values& values) = nullptr;
  /// The settings `profile` reads: a search that moves one re-resolves the run (vary(), profile_axes.hpp).
  profile_reads reads{};
  /// Its own checks of a resolved run (Megatron: tp divides the query groups), each error naming its setting.
  /// nullptr: none past resolve's.
  void (*check)(const run_spec& r, std::vector<error>& errors) = nullptr;
  /// What it changes in the model itself, layered over the model preset (under config.json and explicit values).
  /// nullptr: nothing.
  void (*model_overrides)(settings& overrides) = nullptr;
  /// The peak its own log prints: "allocated", "reserved" or "device" (estimate.hpp peak_memory::printed).
  std::string_view printed = "allocated";
  /// The phase model: the peak is the largest phase of a step, not the sum of every bucket.
  bool phased = true;
  /// Gradient communication buffers when data parallel (estimate/overhead.cpp): DDP's flat buckets at ZeRO 0,
  /// DeepSpeed's reduce and all-gather buckets at ZeRO >= 1. false: its buckets are views or transient.
  bool ddp_buffers = false;
  /// With the phase model, DeepSpeed's reduce bucket as the Trainer fills "auto": h^2 elements, not 5e8.
  bool auto_reduce_bucket = false;
  /// With the phase model, its own ZeRO-3 gathered window (ZeRO 3, dp > 1): the window's items in the parameters
  /// bucket, its transient bytes in `t`. nullptr: "2 x largest layer" (estimate/state.cpp).
  void (*zero3_window)(const context& c, const state_layout& l, builder& params, tally& t) = nullptr;
  /// With the phase model, ZeRO >= 1 and an offloaded optimizer, the gradient partitions go to the CPU with it.
  bool offloads_gradients = false;
  /// The CPU offloads it runs; none unless its row says so.
  offload_support offloads{};
  /// The ZeRO stages the solver's device search tries (solve.cpp; docs/solve-and-advise.md, "Fewest devices").
  std::span<const std::int64_t> zero_stages;
  /// The device search tries tensor-parallel degrees too; false: it keeps the degree it was given.
  bool searches_tp = false;
  /// With recompute = selective, what its own selective checkpointing keeps of one layer for one micro-batch, in
  /// place of Korthikanti's attention-core recompute (estimate/activations.cpp). nullptr: Korthikanti's.
  void (*selective_saved)(const context& c, const layer_params& layer, layer_activations& out) = nullptr;
  /// Reads selective_ac_option: a whole number N makes recompute = selective layer-level, every Nth block
  /// checkpointed whole (torchtitan; resolve.cpp derives run_spec::layer_sac). false: the setting is ignored.
  bool layer_sac_option = false;
  /// The notes it adds to a training estimate, after the run's own. nullptr: none.
  void (*notes)(const run_spec& r, std::vector<std::string>& out) = nullptr;
  /// What its profile changes after `profile`, from the settings the user stated (`stated`: the explicit values;
  /// a table default and the same value stated mean different recipes: HF's bf16 load, torchtune's AdamW).
  /// nullptr: nothing.
  void (*stated)(settings& profile, const setting_values& values, const settings& stated) = nullptr;
};

/// The table's row for a framework (table.cpp).
[[nodiscard]] const framework_def& framework_of(framework_kind kind);

/// Whether the framework runs `offload` at ZeRO stage `zero` (its row's `offloads`; no offload always runs).
[[nodiscard]] bool runs_offload(framework_kind kind, offload_target offload, std::int64_t zero);

/// The ZeRO stages a search may move the run to (solve's device search, ways_out's own splits): the framework's
/// `zero_stages` at which it runs the run's offload (optimizer+params is ZeRO-3's; DeepSpeed offloads the optimizer
/// from stage 1), ascending. Evaluation reads no ZeRO stage (the table's `applies`: training): its own stage only.
[[nodiscard]] std::vector<std::int64_t> searched_zero_stages(const run_spec& spec);

// One profile value (insert_or_assign: GCC 12's -Wrestrict misfires on operator[] with a literal).
inline void set(settings& p, const char* key, const char* value) { p.insert_or_assign(key, value); }

/// The Transformers Trainer's recipe for a fine-tuning method (hf.cpp); DeepSpeed and FSDP start from it.
void hf_recipe(settings& p, const std::string& method);

/// DeepSpeed's engine under the Trainer's recipe (deepspeed.cpp): bf16.enabled (16-bit weights, fp32 master and
/// Adam partitions), ZeRO-3's resident gradient partitions. Front ends that run DeepSpeed configs apply it at ZeRO
/// >= 1.
void deepspeed_engine(settings& p, const setting_values& v);

/// DeepSpeed ZeRO-3's gathered window, persistent parameters and unsharded module gradient (deepspeed.cpp).
void deepspeed_zero3_window(const context& c, const state_layout& l, builder& params, tally& t);

}  // namespace llm_memory::detail
