// SPDX-License-Identifier: MIT
// mode = eval (issue 35 item 4): one forward pass as the HF Trainer's prediction_step runs it, under torch.no_grad
// (one layer's transients, or the final norm, logits and loss) or with autograd (what training saves, no backward).
// Every expectation is derived by hand from docs/methodology.md, "Evaluation".
#include <gtest/gtest.h>

#include "llm_memory/estimate.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;
using llm_memory::test::estimated;

// Llama 3.1 8B (h 4096, a 32, n_kv 8, d 128, i 14336, V 128256, 8,030,261,248 parameters), pure bf16, batch 1 x
// seq 2048 (T = 2048), transformers 4.54: SDPA with enable_gqa (no repeat_kv), the hf loss.
settings llama_8b_eval() {
  return {{"model", "llama-3.1-8b"}, {"mode", "eval"}, {"weights_dtype", "bf16"}, {"batch", "1"}, {"seq", "2048"}};
}

TEST(eval, no_grad_llama_8b) {
  const estimate_result r = estimated(llama_8b_eval());
  // Weights: 8,030,261,248 x 2 B.
  EXPECT_EQ(r.bytes("parameters"), 16060522496.0);
  // Attention block: 2 B x 2048 x (2h + a.d + 2 n_kv.d + max(2 a.d, a.d + h)) = 2 x 2048 x 22,528 = 92,274,688,
  //   + fp32 logsumexp 4 x 1 x 32 x 2048 = 262,144: 92,536,832.
  // MLP block: 2 B x 2048 x (2h + 3i) = 2 x 2048 x 51,200 = 209,715,200.
  // Final norm, logits and loss: 2 x 2 B x 2048 x 4096 = 33,554,432 + (2 + 8) B x 2048 x 128,256 = 2,626,682,880:
  //   2,660,237,312, the largest.
  EXPECT_EQ(r.bytes("activations"), 2660237312.0);
  EXPECT_EQ(llm_memory::test::item(r, "final norm, logits and loss (largest live set)"), 2660237312.0);
}

// The layers dominate once the vocabulary is a task head: num_labels 2 leaves 2 x 2 B x T x h + (2 + 12) x T x 2 =
// 33,554,432 + 57,344, below the MLP block's 209,715,200 (above).
TEST(eval, no_grad_llama_8b_classifier_is_the_mlp) {
  settings s = llama_8b_eval();
  s["num_labels"] = "2";
  EXPECT_EQ(estimated(s).bytes("activations"), 209715200.0);
}

// Eager attention: the attention block adds the scores at 2 B + 4 B + 2 B per element (scaled scores, fp32 softmax
// and its cast) and the 4-D mask (2 B x b x s^2), K/V repeated to 32 heads (+2 a.d per token), no logsumexp:
// 2 x 2048 x (22,528 + 8,192) = 125,829,120 + 8 x 32 x 2048^2 = 1,073,741,824 + 2 x 2048^2 = 8,388,608:
// 1,207,959,552, below the logits' 2,660,237,312; with a 2-label head it is the largest.
TEST(eval, no_grad_eager_attention_scores) {
  settings s = llama_8b_eval();
  s["attention"] = "eager";
  s["num_labels"] = "2";
  EXPECT_EQ(estimated(s).bytes("activations"), 1207959552.0);
}

// With autograd on, the forward saves what training saves (the HF profile's forward-end activations at grad_accum 1):
// eval's activation bucket equals mode=train's at its forward_end phase, and no training bucket appears.
TEST(eval, with_grad_is_training_forward_end) {
  settings s = llama_8b_eval();
  s["eval_grad"] = "on";
  const estimate_result eval = estimated(s);
  ASSERT_EQ(eval.phases.size(), 1U);
  EXPECT_EQ(eval.phases[0].phase, "forward_end");
  settings train = s;
  train["mode"] = "train";
  const estimate_result trained = estimated(train);
  // Per layer (methodology.md section 4; the profile resolves sdpa_gqa, dropout off, norm_upcast on: 4 + 2 B per
  // norm input, and input_copies per_linear: one copy of the normalised input per q, k, v and per gate, up), per
  // token: norms 2 x 6h = 49,152; q/k/v inputs 3 x 2h = 24,576; q, k, v 2 x (a.d + 2 n_kv.d) = 12,288; o input
  // 2 a.d = 8,192; MLP 2 x (2h + 4i) = 131,072: 225,280 B x 2048 = 461,373,440 + logsumexp 4 x 32 x 2048 = 262,144:
  // 461,635,584 per layer, x 32 = 14,772,338,688. Final norm (6 B) and lm_head input (2 B): 8 x 2048 x 4096 =
  // 67,108,864. Logits at the end of forward: 10 B x 2048 x 128,256 = 2,626,682,880. Total 17,466,130,432.
  EXPECT_EQ(eval.bytes("activations"), 17466130432.0);
  // mode=train's forward_end holds the optimizer states besides the same activations.
  for (const auto& phase : trained.phases) {
    if (phase.phase == "forward_end") {
      EXPECT_GT(phase.allocated, eval.peak.allocated);
    }
  }
  EXPECT_EQ(eval.bytes("gradients"), 0);
  EXPECT_EQ(eval.bytes("optimizer"), 0);
  EXPECT_EQ(eval.bytes("kv_cache"), 0);
}

TEST(eval, training_buckets_are_zero_and_no_runtime) {
  const estimate_result r = estimated(llama_8b_eval());
  EXPECT_EQ(r.bytes("gradients"), 0);
  EXPECT_EQ(r.bytes("optimizer"), 0);
  EXPECT_EQ(r.bytes("kv_cache"), 0);
  EXPECT_FALSE(r.inference);
  ASSERT_EQ(r.phases.size(), 1U);
  // LoRA trains nothing in eval: the model is estimated as loaded, with no adapters.
  settings lora = llama_8b_eval();
  lora["finetune"] = "lora";
  const estimate_result l = estimated(lora);
  EXPECT_EQ(l.bytes("parameters"), 16060522496.0);
  EXPECT_EQ(l.bytes("gradients"), 0);
  EXPECT_EQ(l.bytes("optimizer"), 0);
}

// ZeRO-3 under evaluation (the settings table reads zero in training and evaluation: training_or_eval). The HF
// Trainer's evaluation_loop without a training run calls deepspeed_init(inference=True), which accepts ZeRO stage 3
// only ("ZeRO inference only makes sense with ZeRO Stage 3"), and prepares a DeepSpeed engine without an optimizer,
// whose _configure_zero_optimizer(optimizer=None) builds DeepSpeedZeRoOffload at stage 3: the parameters stay
// partitioned over the data-parallel ranks and each module's are gathered for its forward (docs/methodology.md,
// "Evaluation"). On 4 devices: 16,060,522,496 B / 4 = 4,015,130,624 B of weights + the gathered window, 2 x the
// largest layer (q 16,777,216 + k 4,194,304 + v 4,194,304 + o 16,777,216 + gate, up, down 3 x 58,720,256 + norms
// 8,192 = 218,112,000 parameters) x 2 B = 872,448,000 B: 4,887,578,624 B. Stages 1 and 2 shard the gradients and the
// optimizer state, which evaluation does not hold: the weights stay whole on each device.
TEST(eval, zero3_shards_the_weights) {
  settings s = llama_8b_eval();
  s["devices"] = "4";
  s["zero"] = "3";
  EXPECT_EQ(estimated(s).bytes("parameters"), 4887578624.0);
  s["zero"] = "2";
  EXPECT_EQ(estimated(s).bytes("parameters"), 16060522496.0);
}

// BERT-large (h 1024, 24 layers, 16 heads, i 4096, LayerNorm, plain GELU MLP) as a 2-label classifier, bf16, batch 8
// x seq 512 (T = 4096), under no_grad: attention 2 B x T x (2h + a.d + 2 n_kv.d + max(2 a.d, a.d + h)) = 2 x 4096 x
// (2,048 + 1,024 + 2,048 + 2,048) = 58,720,256 + logsumexp 4 x 8 x 16 x 512 = 262,144: 58,982,400; MLP 2 B x T x (2h +
// 2i) = 2 x 4096 x 10,240 = 83,886,080, the largest; the head 2 x 2 B x T x h + 14 x T x 2 = 16,891,904 is below.
TEST(eval, no_grad_encoder) {
  const settings bert = {{"architecture", "encoder"},
                         {"hidden_size", "1024"},
                         {"num_hidden_layers", "24"},
                         {"num_attention_heads", "16"},
                         {"intermediate_size", "4096"},
                         {"vocab_size", "30522"},
                         {"position_embedding", "learned"},
                         {"max_position_embeddings", "512"},
                         {"num_labels", "2"},
                         {"mode", "eval"},
                         {"weights_dtype", "bf16"},
                         {"batch", "8"},
                         {"seq", "512"}};
  const estimate_result r = estimated(bert);
  EXPECT_EQ(r.bytes("activations"), 83886080.0);
  EXPECT_EQ(r.bytes("gradients"), 0);
}

TEST(eval, bad_mode_names_the_setting) {
  const auto r = estimate({{"mode", "evaluate"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().front().setting, "mode");
}

}  // namespace
