// SPDX-License-Identifier: MIT
// TGI's refusal of recurrent layers is a property of the layer kind (layer_kind_def::state_bytes, the state the
// other runtimes size), read from layer_types: a kind with a state is refused, heads settings alone are not.
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/estimate.hpp"

namespace {

using namespace llm_memory;

settings tgi(settings more) {
  more.emplace("mode", "inference");
  more.emplace("runtime", "tgi");
  return more;
}

// Falcon-H1's attention_mamba layers keep a Mamba-2 state beside their KV cache: refused, naming the runtime.
TEST(tgi_recurrent, a_kind_with_a_state_is_refused) {
  const auto r =
      estimate(tgi({{"layer_types", "attention_mamba"}, {"mamba_num_heads", "8"}, {"mamba_head_dim", "64"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].setting, "runtime");
  EXPECT_NE(r.errors()[0].message.find("TGI does not serve"), std::string::npos);
}

// Mamba heads on a model whose layers are all attention: no layer keeps a state, so TGI serves it.
TEST(tgi_recurrent, heads_without_a_recurrent_layer_are_served) {
  EXPECT_TRUE(estimate(tgi({{"mamba_num_heads", "4"}})).ok());
  EXPECT_TRUE(estimate(tgi({{"linear_num_value_heads", "4"}})).ok());
}

}  // namespace
