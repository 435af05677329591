// SPDX-License-Identifier: MIT
// vary()'s weights path (resolve.cpp varies_weights_alone): on a runtime whose profile and architecture rule read
// no weights setting (runtime_def::weights_free_profile: llama.cpp, Ollama, vLLM), a run varied in weights_dtype
// alone keeps its layered settings and its model and is parsed and checked again. "What runs on my machine" varies
// each model's formats so (fits.cpp best_answer). For every catalogue model and every format the ranking tries, on
// both of its runtimes, the varied run must estimate exactly as resolving its settings does: the whole estimate's
// JSON (every setting, bucket, item and note) equal, or the same first error. Transformers' architecture rule reads
// the weights (its recurrent state in fp32 with fp32 weights), so its runs take the full path and must agree too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llm_memory/estimate.hpp"
#include "llm_memory/presets.hpp"
#include "llm_memory/report.hpp"
#include "llm_memory/resolve.hpp"

namespace {

using namespace llm_memory;

struct runtime_case {
  settings run;                      // the base run, without weights_dtype
  std::vector<std::string> formats;  // each varied from the base, and from the format before it
};

std::string first_error(const result<run_spec>& r) { return r.ok() ? "" : to_string(r.errors().front()); }

// The sanitiser build (LLM_MEMORY_SANITIZED) takes every fourth catalogue model: there the whole catalogue took two
// minutes of the CI's ASan phase; the release build checks every model.
#ifndef LLM_MEMORY_SANITIZED
constexpr std::size_t model_stride = 1;
#else
constexpr std::size_t model_stride = 4;
#endif

TEST(VaryWeights, EveryCatalogueModelAndFormatEstimatesAsResolved) {
  const std::vector<runtime_case> cases = {
      {{{"mode", "inference"}, {"runtime", "llamacpp"}, {"gpu", "rtx-4090"}, {"host_ram", "64GB"}},
       {"q8_0", "q6_k", "q5_k_m", "q4_k_m", "bf16", "fp8"}},
      {{{"mode", "inference"}, {"runtime", "llamacpp"}, {"gpu", "rtx-3090"}, {"devices", "2"}, {"pp", "2"}},
       {"q8_0", "q4_k_m"}},
      {{{"mode", "inference"}, {"runtime", "vllm"}, {"gpu", "h100-80gb"}, {"devices", "2"}, {"tp", "2"}},
       {"fp8", "awq", "bf16", "q4_k_m"}},
      {{{"mode", "inference"}, {"runtime", "transformers"}, {"gpu", "h100-80gb"}}, {"fp32", "bf16", "nf4"}},
  };
  int compared = 0;
  const auto presets = model_presets();
  for (std::size_t i = 0; i < presets.size(); i += model_stride) {
    const model_preset& m = presets[i];
    for (const runtime_case& c : cases) {
      settings run = c.run;
      run.emplace("model", m.id);
      const auto base = resolve(run);
      if (!base.ok()) continue;  // a model the runtime does not take
      result<run_spec> before = base;
      for (const std::string& format : c.formats) {
        settings stated = run;
        stated["weights_dtype"] = format;
        const auto full = resolve(stated);
        const std::vector<const result<run_spec>*> starts = {&base, &before};
        for (const result<run_spec>* from : starts) {
          const auto varied = vary(from->value(), {{"weights_dtype", format}});
          const std::string at = m.id + " " + run.at("runtime") + " " + format;
          ASSERT_EQ(varied.ok(), full.ok()) << at << ": " << first_error(varied) << first_error(full);
          if (!full.ok()) {
            EXPECT_EQ(first_error(varied), first_error(full)) << at;
            continue;
          }
          EXPECT_EQ(varied.value().inputs->explicit_values, stated) << at;
          EXPECT_EQ(to_json(estimate(varied.value())), to_json(estimate(full.value()))) << at;
          ++compared;
        }
        if (full.ok()) before = full;
      }
    }
  }
  // 241 models (a quarter under the sanitiser) x 15 formats x 2 starts, less the runs a runtime refuses (tp 2 over odd
  // heads, layer kinds).
  EXPECT_GT(compared, 4000 / static_cast<int>(model_stride));
}

}  // namespace
