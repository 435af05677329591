// SPDX-License-Identifier: MIT
// Which settings a run's profile reads (profile_axes.cpp): vary() (resolve.hpp) re-resolves a run whose search
// moves one of them, and takes the cheap path (the model kept, the facts derived again) otherwise.
#pragma once

#include "llm_memory/resolve.hpp"

namespace llm_memory::detail {

/// The settings a profile's values depend on (each true where the profile reads it).
struct profile_reads {
  bool batch = false;                    ///< the micro-batch [sequences]
  bool seq = false;                      ///< the sequence length [tokens]
  bool devices = false;                  ///< the device count itself [devices]
  bool several_devices = false;          ///< only whether there is more than one device (devices > 1)
  bool tp = false;                       ///< the tensor-parallel degree [devices]
  bool pp = false;                       ///< the pipeline-parallel degree [stages]
  bool zero = false;                     ///< the ZeRO stage
  bool grad_accum = false;               ///< the gradient-accumulation steps [micro-batches]
  bool finetune = false;                 ///< the method (full, lora, qlora)
  bool gpu = false;                      ///< the GPU preset's id (its name, not only its memory)
  bool gpu_memory = false;               ///< one device's memory [bytes]
  bool max_position_embeddings = false;  ///< the model's trained context [tokens]
};

/// What the profile that resolved `spec` reads: its runtime's (inference) or its framework's (training).
[[nodiscard]] profile_reads profile_axes(const run_spec& spec);

}  // namespace llm_memory::detail
