// SPDX-License-Identifier: MIT
// Framework profiles and the peak over the phases of a step (issue 17). Every expectation is derived by hand in
// the comment beside it from docs/methodology.md ("Frameworks", "The peak over the phases of a step").
// Llama 3.1 8B: h 4096, L 32, a 32, n_kv 8, d 128, i 14336, V 128256, untied; parameters
// Ψ = 32 x 218,112,000 + 2 x 525,336,576 + 4096 = 8,030,261,248.
#include <gtest/gtest.h>

#include <string>

#include "llm_memory/estimate.hpp"
#include "llm_memory/resolve.hpp"
#include "run_support.hpp"

namespace {

using namespace llm_memory;

using test::estimated;
using test::item;
using test::phase;

// One setting (insert_or_assign: GCC 12's -Wrestrict misfires on operator[] with a literal).
void s_set(settings& s, const char* key, const char* value) { s.insert_or_assign(key, value); }

std::string first_error(const settings& s) {
  auto r = estimate(s);
  return r.ok() ? "" : r.errors()[0].setting;
}

// HF-4 of the research notes: Transformers + peft LoRA, q_proj,v_proj, r 16, bf16 base, fp32 adapters,
// autocast bf16, no recompute, T = b x s = 2048.
settings hf_lora() {
  return {{"model", "llama-3.1-8b"},         {"framework", "hf"},         {"finetune", "lora"}, {"lora_rank", "16"},
          {"lora_targets", "q_proj,v_proj"}, {"lora_dropout", "0"},       {"seq", "2048"},      {"batch", "1"},
          {"optimizer_impl", "foreach"},     {"allocator_reserve", "0.5"}};
}

// Adapters A = 32 x (16 x (4096 + 4096) + 16 x (4096 + 1024)) = 6,815,744.
// Static S = 2Ψ + A x (4 B fp32 adapter + 8 B Adam) = 16,060,522,496 + 81,788,928 = 16,142,311,424.
// Saved per layer: norms 2 x 4·T·h = 67,108,864; one bf16 input copy per adapted linear 2 x 2·T·h = 33,554,432;
// q 2·T·4096 = 16,777,216; k, v at n_kv width 2 x 2·T·1024 = 8,388,608; SDPA output 16,777,216; LSE 4·32·T =
// 262,144; gate, silu, up 3 x 2·T·14336 = 176,160,768; lora_A outputs 2 x 2·T·16 = 131,072 -> 319,160,320;
// x 32 = 10,213,130,240. Final norm input (fp32, frozen lm_head keeps none) 4·T·h = 33,554,432.
// T·V = 262,668,288: loss forward 10·T·V = 2,626,682,880, backward 12·T·V = 3,152,019,456.
// Autocast caches the bf16 cast of every fp32 leaf that requires grad: the adapters, 2A = 13,631,488 in (a), (b).
// (a) = S + 10,213,130,240 + 33,554,432 + 2,626,682,880 + 13,631,488 = 29,029,310,464
// (b) = S + 10,213,130,240 + 33,554,432 + 3,152,019,456 + 13,631,488 = 29,554,647,040
// (c) backward_end = S + fp32 adapter gradients 4A (27,262,976) = 16,169,574,400
// (d) = (c) + foreach transient 4A = 16,196,837,376
TEST(frameworks, hf_lora_peak_is_the_largest_phase_not_the_sum) {
  const estimate_result r = estimated(hf_lora());
  EXPECT_EQ(r.peak.phase, "backward_start");
  EXPECT_EQ(r.peak.allocated, 29554647040.0);
  ASSERT_EQ(r.phases.size(), 4u);
  EXPECT_EQ(r.phases[0].phase, "forward_end");
  EXPECT_EQ(r.phases[0].allocated, 29029310464.0);
  EXPECT_EQ(r.phases[1].allocated, 29554647040.0);
  EXPECT_EQ(r.phases[2].phase, "backward_end");
  EXPECT_EQ(r.phases[2].allocated, 16169574400.0);
  EXPECT_EQ(r.phases[3].phase, "optimizer_step");
  EXPECT_EQ(r.phases[3].allocated, 16196837376.0);
  // At the start of backward no gradient exists yet (set_to_none, grad_accum 1).
  EXPECT_EQ(r.bytes("gradients"), 0);
}

// PK-2/PK-3: reserved = allocated + f x dynamic, dynamic = what (b) allocates within the step: activations
// 10,213,130,240 + 33,554,432 + 3,152,019,456 + autocast copies 13,631,488 = 13,412,335,616; f = 0.5 ->
// 6,706,167,808; reserved 36,260,814,848; device = reserved + the profile's CUDA context 0.5 GiB (536,870,912)
// = 36,797,685,760 = total.
TEST(frameworks, reserved_and_device) {
  const estimate_result r = estimated(hf_lora());
  EXPECT_EQ(r.peak.reserved, 36260814848.0);
  EXPECT_EQ(r.peak.device, 36797685760.0);
  EXPECT_EQ(r.total_bytes, r.peak.device);
  EXPECT_EQ(r.peak.printed, "device");
}

// PK-4: fits compares device, not allocated: 30e9 is above allocated (29.55e9) and below device (36.80e9).
TEST(frameworks, fits_compares_device_memory) {
  settings s = hf_lora();
  s["gpu_memory"] = "30e9";
  EXPECT_FALSE(estimated(s).fits);
  s["gpu_memory"] = "36797685760";
  EXPECT_TRUE(estimated(s).fits);
  s["gpu_memory"] = "36797685759";
  EXPECT_FALSE(estimated(s).fits);
}

// HF-5: lora_dropout 0.05 replaces each adapted linear's bf16 input copy (2·T·h) by a 1-byte mask and the
// dropped bf16 copy (3·T·h): + 2 x T·h = 16,777,216 per layer, x 32 = 536,870,912 on (b); the reserve grows by
// half of it: reserved + 805,306,368.
TEST(frameworks, hf_lora_dropout_keeps_a_mask_and_a_copy_per_adapter) {
  settings s = hf_lora();
  s["lora_dropout"] = "0.05";
  const estimate_result r = estimated(s);
  EXPECT_EQ(r.peak.allocated, 29554647040.0 + 536870912.0);
  EXPECT_EQ(r.peak.reserved, 36260814848.0 + 805306368.0);
}

// bitsandbytes < 0.43.2 (MatMul4Bit saved (A, B), autograd/_functions.py 0.43.1; PR #1270 keeps A only when the
// 4-bit weight needs a gradient): over an NF4 base every frozen linear keeps its input, one bf16 copy per linear
// (input_copies = per_linear). HF-4's settings on an NF4 base, per layer: k_proj's input 2·T·h = 16,777,216;
// gate and up 2 x 2·T·h = 33,554,432; down_proj's input 2·T·14336 = 58,720,256 (o_proj's input is kept by SDPA
// anyway) -> 109,051,904, x 32 = 3,489,660,928 on every phase with activations; the reserve adds 0.5 x that.
TEST(frameworks, bnb_before_0_43_2_keeps_every_4bit_linear_input) {
  settings s = hf_lora();
  s_set(s, "weights_dtype", "nf4");
  const estimate_result current = estimated(s);
  s_set(s, "bnb_version", "before_0.43.2");
  const estimate_result before = estimated(s);
  EXPECT_EQ(before.peak.phase, current.peak.phase);
  EXPECT_EQ(before.peak.allocated - current.peak.allocated, 3489660928.0);
  EXPECT_EQ(before.peak.reserved - current.peak.reserved, 1.5 * 3489660928.0);
  // A bf16 base is not bitsandbytes: the version changes nothing.
  settings bf16 = hf_lora();
  const double base = estimated(bf16).peak.allocated;
  s_set(bf16, "bnb_version", "before_0.43.2");
  EXPECT_EQ(estimated(bf16).peak.allocated, base);
}

// HF-8: with grad_accum 4 the adapter gradients (4A = 27,262,976) of earlier micro-batches are alive at (b).
TEST(frameworks, gradient_accumulation_keeps_gradients_before_backward) {
  settings s = hf_lora();
  s["grad_accum"] = "4";
  const estimate_result r = estimated(s);
  EXPECT_EQ(r.peak.allocated, 29554647040.0 + 27262976.0);
  EXPECT_EQ(r.bytes("gradients"), 27262976.0);
}

// HF-1: transformers <= 4.45 keeps 12·T·V in the forward too: (a) = 29,029,310,464 + 2·T·V (525,336,576).
TEST(frameworks, hf_legacy_loss) {
  settings s = hf_lora();
  s["loss_impl"] = "hf_legacy";
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(a.peak.allocated, 29029310464.0 + 525336576.0);
  EXPECT_EQ(item(a, "activations", "logits and loss (forward)"), 3152019456.0);
}

// HF-6: the QLoRA recipe turns recompute on (prepare_model_for_kbit_training) and upcasts embedding, lm_head and
// norms: (2 x 525,336,576 + 65 x 4096) x (4 - 2) B = 2,101,878,784 more than without; checkpoints in the fp32
// residual stream 4·T·h x 32 = 1,073,741,824.
TEST(frameworks, hf_qlora_recipe) {
  settings s = {{"model", "llama-3.1-8b"}, {"framework", "hf"}, {"finetune", "qlora"}, {"seq", "2048"}};
  auto spec = resolve(s);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec.value().recompute, recompute_policy::full);
  EXPECT_TRUE(spec.value().values.double_quant);
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(item(a, "activations", "layer inputs (checkpoints)"), 1073741824.0);
  settings off = s;
  off["qlora_upcast"] = "off";
  EXPECT_EQ(item(a, "parameters", "frozen base weights") -
                item(phase(off, "forward_end"), "parameters", "frozen base weights"),
            2101878784.0);
  // The recipe's paged 8-bit AdamW is outside allocated and inside device.
  EXPECT_EQ(a.bytes("optimizer"), 0);
  EXPECT_GT(item(a, "overhead", "paged optimizer states (managed memory, outside PyTorch)"), 0);
}

// HF-3: full fine-tuning of the fp32-loaded model under bf16 autocast: weights 4Ψ = 32,121,044,992, AdamW 8Ψ =
// 64,242,089,984; the bf16 autocast copies of the trained matrices 2 x (32 x (218,112,000 - 8,192) + 525,336,576)
// = 15,009,316,864 in (a) and (b); fp32 gradients 4Ψ at the step; foreach transient 4Ψ:
// (d) = 4Ψ + 8Ψ + 4Ψ + 4Ψ = 20Ψ = 160,605,224,960.
TEST(frameworks, hf_full_fp32_weights_under_autocast) {
  settings s = {{"model", "llama-3.1-8b"}, {"framework", "hf"}, {"seq", "2048"}, {"optimizer_impl", "foreach"}};
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(a.bytes("optimizer"), 64242089984.0);
  EXPECT_EQ(item(a, "parameters", "weights"), 32121044992.0);
  EXPECT_EQ(item(a, "parameters", "16-bit autocast copies of the trained matrices"), 15009316864.0);
  EXPECT_EQ(phase(s, "optimizer_step").peak.allocated, 160605224960.0);
  // HF-2, saved per layer (T = 2048): norms 2 x (4 + 4)·T·h = 134,217,728 (fp32 input + fp32 normalised); q/k/v
  // input copies 3 x 2·T·h = 50,331,648; q 2·T·4096 = 16,777,216; k + v at n_kv width 2 x 2·T·1024 = 8,388,608;
  // SDPA output 16,777,216; LSE 4·32·T = 262,144; gate/up input copies 2 x 2·T·h = 33,554,432; gate, silu, up
  // 3 x 2·T·14336 = 176,160,768; down input 2·T·14336 = 58,720,256 -> 495,190,016; x 32 = 15,846,080,512.
  EXPECT_EQ(item(a, "activations", "transformer layers"), 15846080512.0);
}

// TT-1: torchtune's chunked cross-entropy, 8 chunks, uncompiled; b 2, s 2048: T·V = 525,336,576;
// forward 6.5·T·V = 3,414,687,744, backward 5·T·V = 2,626,682,880.
settings torchtune_full() {
  return {{"model", "llama-3.1-8b"}, {"framework", "torchtune"}, {"batch", "2"}, {"seq", "2048"}};
}

TEST(frameworks, torchtune_chunked_loss) {
  EXPECT_EQ(item(phase(torchtune_full(), "forward_end"), "activations", "logits and loss (forward)"), 3414687744.0);
  EXPECT_EQ(item(phase(torchtune_full(), "backward_start"), "activations", "logits and loss (backward)"), 2626682880.0);
}

// TT-2/TT-3: the full single-device recipe steps in backward (one bf16 gradient alive: the embedding,
// 2 x 525,336,576 = 1,050,673,152; no optimizer phase) and pages its 8-bit AdamW (states 2Ψ x (1 + 4/256) =
// 16,311,468,160 outside allocated).
TEST(frameworks, torchtune_optimizer_in_backward_and_paged_states) {
  const estimate_result c = phase(torchtune_full(), "recompute");
  EXPECT_EQ(c.bytes("gradients"), 1050673152.0);
  EXPECT_EQ(c.bytes("optimizer"), 0);
  EXPECT_EQ(item(c, "overhead", "paged optimizer states (managed memory, outside PyTorch)"), 16311468160.0);
  EXPECT_EQ(estimated(torchtune_full()).phases.size(), 3u);
}

// TT-5 (README: 18.9 GiB peak active, Llama 3.1 8B full, one RTX 4090, b 2, s 2048): (a) = bf16 weights
// 16,060,522,496 + checkpoints 2·T·h x 32 (T = 4096) = 1,073,741,824 + final norm (fp32 input + bf16
// normalised, 6 B) and lm_head input (2 B) 8·T·h = 134,217,728 + 6.5·T·V 3,414,687,744 = 20,683,169,792.
// (b) = the same with 5·T·V = 2,626,682,880 and the lm_head's bf16 gradient, which accumulates over the eight
// chunks while they are alive: 2 x 525,336,576 = 1,050,673,152 -> 20,945,838,080, the peak. (Before the lm_head
// gradient was modelled the peak was (a); the expectation moved with it, issue 17.)
TEST(frameworks, torchtune_full_single_device_peak) {
  const estimate_result r = estimated(torchtune_full());
  EXPECT_EQ(phase(torchtune_full(), "forward_end").peak.allocated, 20683169792.0);
  EXPECT_EQ(r.peak.phase, "backward_start");
  EXPECT_EQ(r.peak.allocated, 20945838080.0);
  EXPECT_EQ(r.peak.printed, "allocated");
}

// TT-6: torchtune compile=True compiles compute_cross_entropy per chunk (training/_compile.py v0.5 compile_loss);
// inductor fuses the fp32 upcast, saves the bf16 chunk (a graph input, so never donated) and writes the chunk's
// gradient in bf16: forward 2·T·V, backward (2 + 2/8)·T·V. T = 4096, T·V = 525,336,576 -> 1,050,673,152 and
// 1,182,007,296.
TEST(frameworks, torchtune_compiled_loss) {
  settings s = torchtune_full();
  s_set(s, "loss_impl", "torchtune_compiled");
  EXPECT_EQ(item(phase(s, "forward_end"), "activations", "logits and loss (forward)"), 1050673152.0);
  EXPECT_EQ(item(phase(s, "backward_start"), "activations", "logits and loss (backward)"), 1182007296.0);
}

// TT-8: torchtune <= 0.1 (v0.1.1 transformer.py l.210 `.float()`, full_finetune_single_device.py l.402-408): the
// fp32 output is rebound to its shifted .contiguous() copy, which the recipe keeps through backward, plus the saved
// log-softmax: forward 8·T·V; backward adds the NLL and log-softmax gradients: 16·T·V. Llama 2 7B, b 4, s 2048:
// T·V = 8192 x 32000 = 262,144,000 -> 2,097,152,000 and 4,194,304,000.
TEST(frameworks, torchtune_legacy_loss) {
  settings s = {{"model", "llama-2-7b"},
                {"framework", "torchtune"},
                {"batch", "4"},
                {"seq", "2048"},
                {"loss_impl", "torchtune_legacy"}};
  EXPECT_EQ(item(phase(s, "forward_end"), "activations", "logits and loss (forward)"), 2097152000.0);
  EXPECT_EQ(item(phase(s, "backward_start"), "activations", "logits and loss (backward)"), 4194304000.0);
}

// TT-7: with a chunked loss the lm_head's gradient exists at the start of backward when the lm_head trains:
// Llama 3.2 3B ties it to the embedding, so the tied matrix's bf16 gradient 2 x 128256 x 3072 = 788,004,864;
// under LoRA the lm_head is frozen: none; an unchunked loss (hf_legacy) frees its T·V tensors first: none.
TEST(frameworks, chunked_loss_keeps_the_lm_head_gradient) {
  settings s = {{"model", "llama-3.2-3b"},
                {"framework", "torchtune"},
                {"optimizer_in_backward", "off"},
                {"optimizer", "adamw"},
                {"optimizer_impl", "fused"}};
  EXPECT_EQ(phase(s, "backward_start").bytes("gradients"), 788004864.0);
  EXPECT_EQ(phase(s, "forward_end").bytes("gradients"), 0);
  s_set(s, "loss_impl", "hf_legacy");
  EXPECT_EQ(phase(s, "backward_start").bytes("gradients"), 0);
  settings lora = {{"model", "llama-3.2-3b"}, {"framework", "torchtune"}, {"finetune", "lora"}};
  EXPECT_EQ(phase(lora, "backward_start").bytes("gradients"), 0);
}

// LG-2: litgpt's GPT has its own lm_head (model.py @00af8b0d l.25, 28; convert_hf_checkpoint.py l.206-207 copies
// the embedding): Llama 3.2 3B's 3,212,749,824 parameters + 128256 x 3072 = 394,002,432 -> 3,606,752,256. An
// explicit tie_word_embeddings still wins.
TEST(frameworks, litgpt_unties_the_lm_head) {
  settings s = {{"model", "llama-3.2-3b"}, {"framework", "litgpt"}, {"finetune", "lora"}};
  EXPECT_EQ(estimated(s).params, 3606752256.0);
  s_set(s, "tie_word_embeddings", "on");
  EXPECT_EQ(estimated(s).params, 3212749824.0);
  s_set(s, "framework", "hf");
  s.erase("tie_word_embeddings");
  EXPECT_EQ(estimated(s).params, 3212749824.0);
}

// DS-2: DeepSpeed ZeRO-3 under the HF Trainer ("auto" buckets), Llama 3.1 8B on 8 ranks. The largest leaf module
// is the embedding (or lm_head) 128256 x 4096 = 525,336,576 (an MLP matrix is 58,720,256); the prefetch bucket
// 0.9 x 4096^2 = 15,099,494.4 (under 1e9 - 525,336,576): window (525,336,576 + 15,099,494.4) x 2 B =
// 1,080,872,140.8 -> 1,080,872,141. From backward on, the module's unsharded bf16 gradient 2 x 525,336,576 =
// 1,050,673,152. The reduce bucket is h^2 = 16,777,216 elements x 2 B = 33,554,432.
TEST(frameworks, deepspeed_zero3_window) {
  settings s = {{"model", "llama-3.1-8b"}, {"framework", "deepspeed"}, {"devices", "8"}, {"zero", "3"}};
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(item(a, "parameters", "ZeRO-3 gathered window (largest leaf module + prefetch bucket)"), 1080872141.0);
  EXPECT_EQ(item(a, "overhead", "ZeRO reduce bucket"), 33554432.0);
  const estimate_result b = phase(s, "backward_start");
  EXPECT_EQ(item(b, "parameters", "ZeRO-3 unsharded gradient of that module (before its reduce-scatter)"),
            1050673152.0);
}

// DS-3: ZeRO-Offload moves the gradient partitions with the optimizer: on 8 ranks with ZeRO-3 the bf16 gradient
// partition 2Ψ/8 = 2,007,565,312 and the fp32 master + Adam (4 + 8)Ψ/8 = 12,045,391,872 are host memory
// (14,052,957,184 B); the GPU keeps no gradient buffer.
TEST(frameworks, deepspeed_offload_moves_the_gradients) {
  settings s = {
      {"model", "llama-3.1-8b"}, {"framework", "deepspeed"}, {"devices", "8"}, {"zero", "3"}, {"offload", "optimizer"}};
  const estimate_result d = phase(s, "optimizer_step");
  EXPECT_EQ(d.bytes("gradients"), 0);
  EXPECT_EQ(d.bytes("optimizer"), 0);
  EXPECT_EQ(d.cpu_bytes, 14052957184.0);
}

// FSDP2's CPUOffloadPolicy moves parameters, gradients and optimizer states to the CPU together ("Sharded gradients
// are copied device-to-host in backward", torch/distributed/fsdp/_fully_shard/_fsdp_api.py): on 8 ranks, pure bf16
// (the fsdp profile: bf16 weights and AdamW states, no master copy), the host holds the bf16 parameter shard
// 2Ψ/8 = 2,007,565,312, the bf16 gradient shard 2Ψ/8 = 2,007,565,312 and m + v (2 + 2)Ψ/8 = 4,015,130,624:
// 8Ψ/8 = Ψ = 8,030,261,248 B; the GPU keeps no gradient buffer.
TEST(frameworks, fsdp_offload_moves_the_gradients) {
  settings s = {{"model", "llama-3.1-8b"},
                {"framework", "fsdp"},
                {"devices", "8"},
                {"zero", "3"},
                {"offload", "optimizer+params"}};
  const estimate_result d = phase(s, "optimizer_step");
  EXPECT_EQ(d.bytes("gradients"), 0);
  EXPECT_EQ(d.bytes("optimizer"), 0);
  EXPECT_EQ(d.cpu_bytes, 8030261248.0);
}

// LG-1: litgpt's cross-entropy on bf16 logits keeps 4·T·V; T = 512: 4 x 512 x 128256 = 262,668,288.
TEST(frameworks, litgpt_loss) {
  settings s = {{"model", "llama-3.1-8b"}, {"framework", "litgpt"}, {"finetune", "lora"}, {"seq", "512"}};
  EXPECT_EQ(item(phase(s, "forward_end"), "activations", "logits and loss (forward)"), 262668288.0);
}

// MG-1: Megatron's distributed optimizer with bf16 params and fp32 main gradients, d = 4 (Llama 2 7B,
// Ψ = 6,738,415,616): (2 + 4 + 12/4) x Ψ = 9Ψ = 60,645,740,544 in every phase (the gradient buffer is resident).
// MG-2: vocab-parallel loss, T = 4 x 2048 = 8192, V 32000, t 8: 6 x T·V / 8 = 196,608,000.
TEST(frameworks, megatron_state_and_loss) {
  settings s = {{"model", "llama-2-7b"}, {"framework", "megatron"}, {"devices", "4"}, {"seq", "2048"}};
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(a.bytes("parameters") + a.bytes("gradients") + a.bytes("optimizer"), 60645740544.0);
  settings tp = {{"model", "llama-2-7b"}, {"framework", "megatron"}, {"devices", "8"}, {"tp", "8"}, {"batch", "4"},
                 {"seq", "2048"}};
  EXPECT_EQ(item(phase(tp, "backward_start"), "activations", "logits and loss (backward)"), 196608000.0);
}

// DS-1: DeepSpeed ZeRO-2 over 8 ranks: S = 2Ψ + (4 + 8)Ψ/8 = 28,105,914,368; the bf16 gradient partition
// 2Ψ/8 = 2,007,565,312 exists from the first reduction to the step.
TEST(frameworks, deepspeed_zero2) {
  settings s = {{"model", "llama-3.1-8b"}, {"framework", "deepspeed"}, {"devices", "8"}, {"zero", "2"}};
  const estimate_result d = phase(s, "optimizer_step");
  EXPECT_EQ(d.bytes("parameters") + d.bytes("optimizer"), 28105914368.0);
  EXPECT_EQ(d.bytes("gradients"), 2007565312.0);
  EXPECT_EQ(phase(s, "backward_start").bytes("gradients"), 0);
}

// US-1: Unsloth's in-place Triton loss: the bf16 logits 2·T·V = 525,336,576 and an fp32 logsumexp 4·T = 8,192
// (T = 2048); US-3: expandable segments, reserved = allocated.
TEST(frameworks, unsloth_loss_and_allocator) {
  settings s = {{"model", "llama-3.1-8b"},
                {"framework", "unsloth"},
                {"finetune", "qlora"},
                {"seq", "2048"},
                {"loss_impl", "unsloth"}};
  const estimate_result a = phase(s, "forward_end");
  EXPECT_EQ(item(a, "activations", "logits and loss (forward)"), 525336576.0);
  EXPECT_EQ(item(a, "activations", "logsumexp (fp32)"), 8192.0);
  EXPECT_EQ(item(a, "activations", "layer inputs (checkpoints offloaded to CPU)"), 0);
  const estimate_result r = estimated(s);
  EXPECT_EQ(r.peak.reserved, r.peak.allocated);
}

// G-2: framework generic keeps the textbook sum: 14·T·V = 3,677,356,032 in three items, phase "sum", and
// device = total.
TEST(frameworks, generic_sums_every_bucket) {
  settings s = {{"model", "llama-3.1-8b"}, {"framework", "generic"}, {"seq", "2048"}, {"attention", "flash"}};
  const estimate_result r = estimated(s);
  EXPECT_EQ(r.peak.phase, "sum");
  EXPECT_EQ(item(r, "activations", "logits") + item(r, "activations", "log-softmax output (fp32, saved by the loss)") +
                item(r, "activations", "logits gradient (fp32, two buffers at the start of backward)"),
            3677356032.0);
  EXPECT_EQ(r.peak.device, r.total_bytes);
  EXPECT_EQ(r.phases.size(), 1u);
}

// CP-1: context parallelism gives each device seq / cp tokens of every sequence, so every saved tensor, the
// logits and (Ulysses: a/cp heads over s; ring: s/cp queries) the s^2 scores are divided by cp. The seed's 7B
// with Korthikanti's standard attention, s 2048: the activations bucket at cp 2 is half of cp 1 (each item is
// rounded up to a whole byte, so within one byte per item); the parameters are not divided, and the effective
// batch counts the 4 / (1 x 1 x 2) = 2 data-parallel replicas only.
TEST(frameworks, context_parallel_divides_the_activations) {
  settings s = {{"framework", "generic"},
                {"params", "7e9"},
                {"hidden_size", "4096"},
                {"num_hidden_layers", "32"},
                {"num_attention_heads", "32"},
                {"mode", "train"},
                {"seq", "2048"},
                {"devices", "4"},
                {"zero", "1"}};
  const estimate_result one = estimated(s);
  s_set(s, "cp", "2");
  const estimate_result two = estimated(s);
  EXPECT_NEAR(two.bytes("activations"), one.bytes("activations") / 2, 10);
  EXPECT_EQ(two.bytes("parameters"), one.bytes("parameters"));
  EXPECT_EQ(one.effective_batch, 4);
  EXPECT_EQ(two.effective_batch, 2);
  s_set(s, "devices", "6");  // a multiple of tp x pp = 1, not of tp x pp x cp = 4
  s_set(s, "cp", "4");
  EXPECT_EQ(first_error(s), "cp");
  s_set(s, "devices", "8");
  s_set(s, "seq", "2047");
  EXPECT_EQ(first_error(s), "cp");
}

// EP-1: expert parallelism. One MoE layer of 8 routed experts, each gated (3 matrices of 64 x 128): routed =
// 8 x 3 x 64 x 128 = 196,608 weights; with ep 4 each of the 4 data-parallel devices holds 2 experts, so the other
// ranks' 147,456 leave the unsharded buckets: bf16 weights 147,456 x 2 B = 294,912, bf16 gradients 294,912,
// fp32 master + Adam 147,456 x 12 B = 1,769,472. With ZeRO-1 the optimizer state is sharded over dp / ep expert
// replicas instead: routed / ep / (dp / ep) = routed / dp, as without ep: unchanged.
TEST(frameworks, expert_parallel_divides_the_experts) {
  settings s = {{"framework", "generic"},
                {"hidden_size", "64"},
                {"num_hidden_layers", "1"},
                {"num_attention_heads", "4"},
                {"num_experts", "8"},
                {"num_experts_per_tok", "2"},
                {"moe_intermediate_size", "128"},
                {"intermediate_size", "128"},
                {"mlp", "gated"},
                {"mode", "train"},
                {"seq", "16"},
                {"devices", "4"},
                {"overhead", "none"}};
  const estimate_result one = estimated(s);
  s_set(s, "ep", "4");
  const estimate_result four = estimated(s);
  EXPECT_EQ(one.bytes("parameters") - four.bytes("parameters"), 294912.0);
  EXPECT_EQ(one.bytes("gradients") - four.bytes("gradients"), 294912.0);
  EXPECT_EQ(one.bytes("optimizer") - four.bytes("optimizer"), 1769472.0);
  s_set(s, "zero", "1");
  const estimate_result zero1 = estimated(s);
  s_set(s, "ep", "1");
  EXPECT_EQ(estimated(s).bytes("optimizer"), zero1.bytes("optimizer"));
  s_set(s, "ep", "3");
  EXPECT_EQ(first_error(s), "ep");  // divides neither 8 experts nor 4 devices
}

// NG-1, NG-3: the checks name the setting.
TEST(frameworks, checks_name_the_setting) {
  settings s = hf_lora();
  s["optimizer_in_backward"] = "on";
  s["grad_accum"] = "2";
  EXPECT_EQ(first_error(s), "optimizer_in_backward");
  settings off = hf_lora();
  off["activation_offload"] = "prefetched";
  EXPECT_EQ(first_error(off), "activation_offload");
  off["recompute"] = "full";
  EXPECT_EQ(first_error(off), "");
}

}  // namespace
