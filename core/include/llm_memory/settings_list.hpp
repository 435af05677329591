// SPDX-License-Identifier: MIT
// THE settings table. Every input of llm-memory is one row here; CLI flags (--key), URL query keys
// (?key=), widget attributes, form controls, JSON input/output and validation errors all come from it.
// Keys follow Hugging Face config.json names where one exists.
//
// X(key, kind, default, min, max, choices, unit, group, doc, label, choice_labels[, applies])
//   kind: integer | number | count (7e9, 7B, 0.5) | bytes (80GB, 80GiB, 8e10) | flag (on/off) | choice | text
//   min/max bound numeric kinds (inclusive); choices is "a|b|c" for kind choice.
//   applies (optional): "rule,rule", the rules (settings.cpp's `rules`: training, inference, lora_or_qlora, ...)
//   that must all hold for the setting to be read; the page hides it elsewhere. Absent: always read.
//   A choice row whose key ends in _dtype names formats of the dtype table (dtype.cpp checks it) or auto.
// Adding a knob = one row here + its use in the estimate.
#pragma once

// One row per line, as a table (clang-format aligns only the line continuations).
#define LLM_MEMORY_SETTINGS(X)                                                                                         \
  /* ---- model ---- */                                                                                                \
  X(model, text, "", 0, 0, "", "", "model",                                                                            \
    "Model preset id (Hugging Face repo name, lower-case, no organisation); empty = custom architecture", "Model", "") \
  X(params, count, "0", 0, 1e15, "", "parameters", "model",                                                            \
    "Total parameter count (7e9, 7B); overrides the count computed from the architecture; 0 = compute it",             \
    "Parameter count", "")                                                                                             \
  X(hidden_size, integer, "4096", 1, 1e6, "", "", "model", "Width of the residual stream (h)", "Hidden size", "")      \
  X(num_hidden_layers, integer, "32", 1, 1e5, "", "layers", "model", "Number of transformer layers (L)", "Layers", "") \
  X(num_attention_heads, integer, "32", 1, 1e5, "", "heads", "model", "Query heads per layer (a)", "Attention heads",  \
    "")                                                                                                                \
  X(num_key_value_heads, integer, "0", 0, 1e5, "", "heads", "model",                                                   \
    "Key/value heads per layer (grouped-query attention); 0 = same as num_attention_heads", "Key/value heads", "")     \
  X(head_dim, integer, "0", 0, 1e5, "", "", "model", "Width of one attention head; 0 = hidden_size / heads",           \
    "Head width", "")                                                                                                  \
  X(intermediate_size, integer, "0", 0, 1e7, "", "", "model", "MLP inner width; 0 = 4 x hidden_size", "MLP width", "") \
  X(vocab_size, integer, "0", 0, 1e8, "", "tokens", "model",                                                           \
    "Vocabulary size; 0 = unknown (no embedding, lm_head or logits are counted)", "Vocabulary", "")                    \
  X(tie_word_embeddings, flag, "off", 0, 0, "", "", "model", "lm_head shares the input embedding matrix",              \
    "Tied embeddings", "")                                                                                             \
  X(max_position_embeddings, integer, "0", 0, 1e8, "", "tokens", "model",                                              \
    "Rows of the learned position embedding (counted only when position_embedding = learned)",                         \
    "Trained context length", "")                                                                                      \
  X(position_embedding, choice, "rope", 0, 0, "rope|learned|none", "", "model",                                        \
    "How positions are encoded: rotary (no parameters), a learned table (GPT-2), or none", "Position encoding",        \
    "Rotary (RoPE)|Learned table|None")                                                                                \
  X(norm, choice, "layernorm", 0, 0, "layernorm|rmsnorm", "", "model",                                                 \
    "Normalisation: LayerNorm (weight + bias) or RMSNorm (weight only)", "Normalisation", "LayerNorm|RMSNorm")         \
  X(norms_per_layer, integer, "2", 1, 4, "", "norms", "model",                                                         \
    "Norms in each layer: 2 (pre-attention, pre-MLP), 4 (Gemma 2/3 add post-norms), 1 (Falcon parallel block)",        \
    "Norms per layer", "")                                                                                             \
  X(mlp, choice, "plain", 0, 0, "plain|gated", "", "model",                                                            \
    "MLP shape: plain (up, act, down: 2 h i) or gated (SwiGLU/GeGLU: gate, up, down: 3 h i)", "MLP shape",             \
    "Plain|Gated (SwiGLU/GeGLU)")                                                                                      \
  X(attention_bias, choice, "none", 0, 0, "none|qkv|all", "", "model",                                                 \
    "Biases on attention projections: none (Llama), qkv (Qwen2), all of q/k/v/o (GPT-2)", "Attention biases",          \
    "None|Q, K, V|Q, K, V and O")                                                                                      \
  X(mlp_bias, flag, "off", 0, 0, "", "", "model", "Biases on the MLP projections (GPT-2)", "MLP biases", "")           \
  X(qk_norm, choice, "none", 0, 0, "none|head|full", "", "model",                                                      \
    "Norm on queries and keys: per head (Qwen3, Gemma 3: 2 head_dim weights) or full width (OLMo 2)",                  \
    "Query/key norm", "None|Per head|Full width")                                                                      \
  X(dropout, flag, "on", 0, 0, "", "", "model",                                                                        \
    "Dropout in training (GPT as in Korthikanti et al.; modern LLMs train without): saves 1-byte masks", "Dropout",    \
    "")                                                                                                                \
  X(sliding_window, integer, "0", 0, 1e8, "", "tokens", "model",                                                       \
    "Sliding-window attention span; 0 = every layer attends to the whole context", "Sliding window", "")               \
  X(sliding_window_pattern, integer, "0", 0, 1e5, "", "layers", "model",                                               \
    "Every Nth layer is global, the others slide (Gemma 2: 2, Gemma 3: 6); 0 = all layers slide",                      \
    "Global layer every", "")                                                                                          \
  X(attention_chunk_size, integer, "0", 0, 1e8, "", "tokens", "model",                                                 \
    "Chunked local attention (Llama 4): 3 layers of 4 attend within chunks of this many tokens, every 4th to the "     \
    "whole context; the runtime decides what it caches (docs/runtimes.md); 0 = none",                                  \
    "Attention chunk", "")                                                                                             \
  X(layer_types, text, "", 0, 0, "", "", "model",                                                                      \
    "The layers' kinds in order, repeated to num_hidden_layers: [N*]mixer[+mlp], mixer full_attention, "               \
    "sliding_attention, linear_attention, mamba, mamba1, conv, attention_mamba (both in parallel), "                   \
    "lightning_attention, kda or none, mlp dense, moe or none (mlp / moe alone: an MLP-only block); empty = from "     \
    "sliding_window_pattern",                                                                                          \
    "Layer kinds", "")                                                                                                 \
  X(attention_output_gate, flag, "off", 0, 0, "", "", "model",                                                         \
    "Gated attention (Qwen3-Next, Qwen3.5): q_proj also outputs a sigmoid gate per query value", "Attention gate", "") \
  X(linear_num_value_heads, integer, "0", 0, 1e5, "", "heads", "model",                                                \
    "Gated DeltaNet value heads (linear_attention layers)", "Linear-attention value heads", "")                        \
  X(linear_num_key_heads, integer, "0", 0, 1e5, "", "heads", "model",                                                  \
    "Gated DeltaNet query/key heads (linear_attention layers)", "Linear-attention key heads", "")                      \
  X(linear_key_head_dim, integer, "0", 0, 1e5, "", "", "model", "Gated DeltaNet width of one key head",                \
    "Linear-attention key head width", "")                                                                             \
  X(linear_value_head_dim, integer, "0", 0, 1e5, "", "", "model", "Gated DeltaNet width of one value head",            \
    "Linear-attention value head width", "")                                                                           \
  X(linear_conv_kernel_dim, integer, "4", 1, 1024, "", "", "model",                                                    \
    "Gated DeltaNet causal convolution width (its state keeps kernel - 1 columns)", "Linear-attention conv width", "") \
  X(mamba_num_heads, integer, "0", 0, 1e5, "", "heads", "model", "Mamba-2 heads (mamba layers)", "Mamba heads", "")    \
  X(mamba_head_dim, integer, "0", 0, 1e5, "", "", "model", "Mamba-2 width of one head", "Mamba head width", "")        \
  X(mamba_d_state, integer, "128", 1, 1e5, "", "", "model", "Mamba-2 SSM state size per head value (ssm_state_size)",  \
    "Mamba state size", "")                                                                                            \
  X(mamba_n_groups, integer, "1", 1, 1e5, "", "", "model", "Mamba-2 groups of B and C (n_groups)", "Mamba groups", "") \
  X(mamba_d_conv, integer, "4", 1, 1024, "", "", "model", "Mamba-2 causal convolution width (conv_kernel)",            \
    "Mamba conv width", "")                                                                                            \
  X(mamba_conv_bias, flag, "on", 0, 0, "", "", "model", "Mamba-2 conv1d has a bias (use_conv_bias)",                   \
    "Mamba conv bias", "")                                                                                             \
  X(mamba_proj_bias, flag, "off", 0, 0, "", "", "model", "Mamba-2 in_proj and out_proj have biases (use_bias)",        \
    "Mamba projection biases", "")                                                                                     \
  X(mamba_norm, flag, "on", 0, 0, "", "", "model",                                                                     \
    "Mamba-2 gated RMSNorm before out_proj (Falcon-H1 mamba_rms_norm; off: the output gated by silu(z) alone)",        \
    "Mamba gated norm", "")                                                                                            \
  X(mamba_d_inner, integer, "0", 0, 1e6, "", "", "model",                                                              \
    "Mamba-1 inner width (mamba1 layers; Jamba: mamba_expand x hidden_size)", "Mamba-1 inner width", "")               \
  X(mamba_dt_rank, integer, "0", 0, 1e5, "", "", "model",                                                              \
    "Mamba-1 rank of the time step (Jamba mamba_dt_rank; auto: ceil(hidden_size / 16))", "Mamba-1 dt rank", "")        \
  X(conv_l_cache, integer, "3", 1, 1024, "", "", "model",                                                              \
    "Short-convolution width (LFM2 conv_L_cache; its state keeps L_cache - 1 columns)", "Short conv width", "")        \
  X(conv_bias, flag, "off", 0, 0, "", "", "model", "Short-convolution projections and conv have biases (LFM2)",        \
    "Short conv biases", "")                                                                                           \
  X(num_experts, integer, "0", 0, 1e5, "", "experts", "model", "Routed experts per MoE layer; 0 = dense model",        \
    "Routed experts", "")                                                                                              \
  X(num_experts_per_tok, integer, "0", 0, 1e5, "", "experts", "model", "Experts each token is routed to (top-k)",      \
    "Experts per token", "")                                                                                           \
  X(moe_intermediate_size, integer, "0", 0, 1e7, "", "", "model",                                                      \
    "Inner width of one routed expert; 0 = intermediate_size", "Expert MLP width", "")                                 \
  X(n_shared_experts, integer, "0", 0, 1e4, "", "experts", "model", "Always-active shared experts per MoE layer",      \
    "Shared experts", "")                                                                                              \
  X(shared_expert_intermediate_size, integer, "0", 0, 1e7, "", "", "model",                                            \
    "Inner width of all shared experts together; 0 = n_shared_experts x moe_intermediate_size", "Shared expert width", \
    "")                                                                                                                \
  X(moe_latent_size, integer, "0", 0, 1e6, "", "", "model",                                                            \
    "Routed experts work in a latent of this width: fc1_latent_proj (hidden -> latent) before them, fc2_latent_proj "  \
    "(latent -> hidden) after (Nemotron 3 Super / Ultra LatentMoE); 0 = at hidden_size",                               \
    "Expert latent width", "")                                                                                         \
  X(first_k_dense_replace, integer, "0", 0, 1e5, "", "layers", "model",                                                \
    "The first k layers use a dense MLP instead of experts (DeepSeek)", "Leading dense layers", "")                    \
  X(router_bias, flag, "off", 0, 0, "", "", "model",                                                                   \
    "MoE router has one bias per expert (DeepSeek-V3 noaux_tc score correction, GLM-4.5, gpt-oss)", "Router bias", "") \
  X(shared_expert_gate, flag, "off", 0, 0, "", "", "model",                                                            \
    "A sigmoid gate (h weights) scales the shared expert's output (Qwen2-MoE)", "Shared expert gate", "")              \
  X(q_lora_rank, integer, "0", 0, 1e6, "", "", "model", "MLA: rank of the query compression; 0 = no compression",      \
    "MLA query rank", "")                                                                                              \
  X(kv_lora_rank, integer, "0", 0, 1e6, "", "", "model", "MLA: rank of the joint key/value latent; 0 = not MLA",       \
    "MLA key/value rank", "")                                                                                          \
  X(qk_nope_head_dim, integer, "0", 0, 1e5, "", "", "model", "MLA: per-head query/key width without rotary part",      \
    "MLA non-rotary head width", "")                                                                                   \
  X(qk_rope_head_dim, integer, "0", 0, 1e5, "", "", "model", "MLA: per-head rotary query/key width",                   \
    "MLA rotary head width", "")                                                                                       \
  X(v_head_dim, integer, "0", 0, 1e5, "", "", "model", "MLA: per-head value width", "MLA value head width", "")        \
  X(index_n_heads, integer, "0", 0, 1e5, "", "heads", "model",                                                         \
    "DSA (DeepSeek-V3.2): heads of the lightning indexer that picks the top-k keys; 0 = no indexer",                   \
    "DSA indexer heads", "")                                                                                           \
  X(index_head_dim, integer, "128", 1, 1e5, "", "", "model",                                                           \
    "DSA: width of one indexer head and of the indexer key cached per token and layer", "DSA indexer head width", "")  \
  X(lm_head_bias, flag, "off", 0, 0, "", "", "model",                                                                  \
    "lm_head has a bias of vocab_size values (GPT-J, Phi-1/2, Phi-3.5-MoE)", "Output layer bias", "")                  \
  X(embedding_norm, flag, "off", 0, 0, "", "", "model", "A norm right after the token embedding (BLOOM)",              \
    "Embedding norm", "")                                                                                              \
  X(attention_sinks, flag, "off", 0, 0, "", "", "model",                                                               \
    "One learned attention-sink logit per head and layer (gpt-oss)", "Attention sinks", "")                            \
  X(num_kv_shared_layers, integer, "0", 0, 1e5, "", "layers", "model",                                                 \
    "The last N layers reuse the keys and values of an earlier layer (Gemma 3n): they cache nothing",                  \
    "KV-shared layers", "")                                                                                            \
  X(global_head_dim, integer, "0", 0, 1e5, "", "", "model",                                                            \
    "Width of one head on the full-attention layers when it differs from the sliding layers' (Gemma 4: 512); 0 = "     \
    "head_dim",                                                                                                        \
    "Full-attention head width", "")                                                                                   \
  X(num_global_key_value_heads, integer, "0", 0, 1e5, "", "heads", "model",                                            \
    "Key/value heads of the full-attention layers when they differ from the sliding layers' (Gemma 4 with "            \
    "attention_k_eq_v); 0 = num_key_value_heads",                                                                      \
    "Full-attention key/value heads", "")                                                                              \
  X(moe_layer_step, integer, "1", 1, 1e5, "", "layers", "model",                                                       \
    "Every Nth layer after first_k_dense_replace is MoE, the others dense (Llama 4 Maverick: 2); 1 = all",             \
    "MoE layer every", "")                                                                                             \
  X(num_nextn_predict_layers, integer, "0", 0, 1000, "", "layers", "model",                                            \
    "Multi-token-prediction layers the checkpoint stores (DeepSeek-V3, GLM-4.5): counted, not loaded (vLLM loads "     \
    "them only for speculative decoding)",                                                                             \
    "Multi-token-prediction layers", "")                                                                               \
  X(mtp_own_embedding, flag, "on", 0, 0, "", "", "model",                                                              \
    "Each multi-token-prediction module stores its own embedding and output head (DeepSeek-V3); off = it shares the "  \
    "model's (Qwen3-Next, Qwen3.5: vLLM qwen3_next_mtp.py)",                                                           \
    "MTP has its own embedding", "")                                                                                   \
  X(vision_params, count, "0", 0, 1e13, "", "parameters", "model",                                                     \
    "Vision tower and projector of a multimodal model (from config.json's vision_config); 0 = text only",              \
    "Vision tower parameters", "")                                                                                     \
  X(architecture, choice, "decoder", 0, 0, "decoder|encoder|encoder_decoder", "", "model",                             \
    "Layer stack: a causal decoder (KV cache), an encoder only (bidirectional, no KV cache: BERT, RoBERTa, "           \
    "DeBERTa, ModernBERT) or an encoder-decoder (T5, BART: every decoder layer cross-attends to the encoder)",         \
    "Architecture", "Causal decoder|Encoder only|Encoder-decoder")                                                     \
  X(encoder_layers, integer, "0", 0, 1e5, "", "layers", "model",                                                       \
    "Encoder-decoder: layers of the encoder stack (num_hidden_layers counts the decoder's); 0 = as many as the "       \
    "decoder",                                                                                                         \
    "Encoder layers", "", "encoder_decoder")                                                                           \
  X(extra_params, count, "0", 0, 1e13, "", "parameters", "model",                                                      \
    "Parameters the other settings do not describe: token-type and relative-position embeddings, T5's relative "       \
    "attention bias, an encoder's final norms, pooler and task head (config.json counts them per family)",             \
    "Other parameters", "")                                                                                            \
  X(model_notes, text, "", 0, 0, "", "", "model",                                                                      \
    "What config.json's reader assumed or left out (an unknown model_type read as a Llama-style decoder); shown "      \
    "as notes",                                                                                                        \
    "Model assumptions", "")                                                                                           \
  X(model_type, text, "", 0, 0, "", "", "model",                                                                       \
    "config.json's model_type (mistral, phi3, gemma2, ...): an inference runtime runs some architectures otherwise "   \
    "than their config says (llama.cpp: Phi-3 and Mistral without the sliding window; docs/runtimes.md); empty = "     \
    "none known, the layers as the other settings say",                                                                \
    "Model type", "")                                                                                                  \
  X(num_labels, integer, "0", 0, 1e6, "", "labels", "model",                                                           \
    "Classification head: labels per sequence and no vocabulary logits; 0 = a language-model head (logits over "       \
    "the vocabulary)",                                                                                                 \
    "Classifier labels", "")                                                                                           \
  X(embedding_size, integer, "0", 0, 1e7, "", "", "model",                                                             \
    "Width of the token and position embeddings when it differs from hidden_size: a Linear (E x h + h) projects "      \
    "them to h (ALBERT, ELECTRA-small); 0 = hidden_size",                                                              \
    "Embedding width", "")                                                                                             \
  X(num_hidden_groups, integer, "0", 0, 1e5, "", "layers", "model",                                                    \
    "Distinct sets of layer weights the layers share (ALBERT: 1, every layer runs the same weights: counted once, "    \
    "activations per layer); 0 = every layer has its own",                                                             \
    "Distinct layer weights", "")                                                                                      \
  /* ---- workload ---- */                                                                                             \
  X(mode, choice, "train", 0, 0, "train|inference|eval", "", "workload",                                               \
    "Training step, inference with a KV cache, or evaluation (eval: one forward pass as the HF Trainer's evaluation "  \
    "loop runs it: weights only, use_cache=False, the loss over the logits)",                                          \
    "Task", "Training|Inference|Evaluation (forward only)")                                                            \
  X(eval_grad, flag, "off", 0, 0, "", "", "workload",                                                                  \
    "Evaluation with autograd on (off: torch.no_grad, one layer's transients at a time; on: the forward saves what "   \
    "training saves for backward, no backward runs)",                                                                  \
    "Forward with gradients", "", "eval")                                                                              \
  X(framework, choice, "hf", 0, 0,                                                                                     \
    "generic|hf|deepspeed|fsdp|torchtune|litgpt|megatron|unsloth|torchtitan|llamafactory|axolotl", "", "workload",     \
    "Training framework whose behaviour sets the defaults (generic: the seeds' textbook arithmetic, "                  \
    "all buckets summed; the others: the peak over the phases of a step)",                                             \
    "Training framework",                                                                                              \
    "Generic (textbook)|HF Trainer / TRL + peft|DeepSpeed|PyTorch FSDP2|torchtune|LitGPT|Megatron-LM|Unsloth|"         \
    "torchtitan|LLaMA-Factory|axolotl",                                                                                \
    "training_or_eval")                                                                                                \
  X(unsloth_version, choice, "2025.8", 0, 0, "2025.8|2024.4|2024.1", "", "workload",                                   \
    "Unsloth release (framework unsloth): 2025.8 and later fuse the lm_head into a chunked loss (no logits); "         \
    "2024.4-2025.7 keep 16-bit logits for the Triton cross-entropy kernel; before 2024.4 no offloaded "                \
    "checkpointing (use_gradient_checkpointing=True: checkpoints stay on the GPU)",                                    \
    "Unsloth version", ">= 2025.8|2024.4 - 2025.7|Before 2024.4", "training")                                          \
  X(torchtitan_version, choice, "0.1", 0, 0, "0.1|0.0", "", "workload",                                                \
    "torchtitan release (framework torchtitan): from 0.1.0 (main from 2025-04-02, bbb1b616) compile = on compiles "    \
    "the cross-entropy too (compile.components [model, loss] from 0.2.0); before, the model's blocks only",            \
    "torchtitan version", ">= 0.1.0|Before 0.1.0 (2024 - March 2025)", "training,torchtitan")                          \
  X(grad_lifetime, choice, "freed", 0, 0, "freed|resident", "", "workload",                                            \
    "Gradients between steps: freed (zero_grad(set_to_none=True): none alive before backward with grad_accum 1) "      \
    "or resident (DeepSpeed ZeRO-3 and Megatron keep a contiguous gradient buffer)",                                   \
    "Gradients at the peak", "Freed (set_to_none)|Resident (contiguous buffer)", "training,phased_framework")          \
  X(optimizer_in_backward, flag, "off", 0, 0, "", "", "workload",                                                      \
    "Step each parameter as soon as its gradient exists and free it (torchtune optimizer_in_bwd): one tensor's "       \
    "gradient alive, no optimizer-step phase; needs grad_accum 1",                                                     \
    "Optimizer step in backward", "", "training,phased_framework")                                                     \
  X(optimizer_impl, choice, "fused", 0, 0, "fused|foreach|paged", "", "workload",                                      \
    "How the optimizer steps: fused (one kernel, no transient), foreach (PyTorch's default before fused: one "         \
    "state-sized transient), paged (bitsandbytes paged states in managed memory: not in max_memory_allocated)",        \
    "Optimizer implementation", "Fused|For-each|Paged", "training,phased_framework")                                   \
  X(loss_impl, choice, "hf", 0, 0,                                                                                     \
    "hf|hf_legacy|trl_chunked|torchtune_chunked|torchtune_compiled|litgpt|megatron|unsloth|fused|torchtune_legacy|"    \
    "compiled",                                                                                                        \
    "", "workload",                                                                                                    \
    "How the logits and the loss are computed (bytes per token per vocabulary entry, forward / backward): hf "         \
    "(fp32 upcast, 10 / 12), hf_legacy (transformers <= 4.45, 12 / 12), trl_chunked (TRL >= 1.7 chunked lm_head), "    \
    "torchtune_chunked (8 chunks, 6.5 / 5), torchtune_compiled (2 / 2.25), litgpt (bf16, 4 / 4), megatron "            \
    "(vocab-parallel in place, 6 / 6 per tp), unsloth (in-place Triton, 2 / 2), fused (no logits), "                   \
    "torchtune_legacy (torchtune <= 0.1: fp32 output, the shifted copy kept through backward, 8 / 16), compiled "      \
    "(torch.compile over the whole cross-entropy: the 16-bit logits kept / + their 16-bit gradient, 2 / 4)",           \
    "Loss implementation",                                                                                             \
    "HF (upcast logits)|HF before 4.46|TRL chunked|torchtune chunked|torchtune chunked, compiled|LitGPT "              \
    "(bf16)|Megatron vocab-parallel|Unsloth fused|Fused (no logits kept)|torchtune 0.1 (fp32 output kept)|"            \
    "Compiled cross-entropy",                                                                                          \
    "training,phased_framework")                                                                                       \
  X(compile, choice, "auto", 0, 0, "auto|on|off", "", "workload",                                                      \
    "torch.compile of the model (torchtune compile, HF torch_compile): fused norms and activations save 16-bit "       \
    "inputs only; torchtune compiles its chunked loss too. auto = the framework's recipe default (off)",               \
    "torch.compile", "Framework default|On|Off", "training_or_eval")                                                   \
  X(transformers_version, choice, "4.54", 0, 0, "4.54|4.46|4.36|4.35", "", "workload",                                 \
    "Transformers release under the HF Trainer (framework hf): SDPA with native GQA from 4.54 (PR #39412), SDPA "      \
    "with K/V repeated from 4.36, eager attention before; the loss upcasts the logits itself from 4.46 (hf_legacy "    \
    "before)",                                                                                                         \
    "Transformers version", ">= 4.54|4.46 - 4.53|4.36 - 4.45|Before 4.36", "training_or_eval")                         \
  X(autocast, choice, "off", 0, 0, "off|bf16|fp16", "", "workload",                                                    \
    "Mixed-precision compute (torch.autocast) over the stored weights: with fp32 weights, activations are 16-bit, "    \
    "the residual stream stays fp32 and each trained matrix keeps a 16-bit copy until backward",                       \
    "Autocast", "Off|bf16|fp16", "training_or_eval")                                                                   \
  X(input_copies, choice, "shared", 0, 0, "shared|per_linear", "", "workload",                                         \
    "Linears reading one input keep one saved copy (shared) or one each (per_linear: autocast and peft cast the "      \
    "input per call, so q, k and v keep three)",                                                                       \
    "Copies of layer inputs", "Shared|One per linear", "training")                                                     \
  X(adapter_dtype, choice, "auto", 0, 0, "auto|fp32|bf16|fp16", "", "workload",                                        \
    "Storage of the LoRA adapters; auto = the compute dtype (peft >= 0.12 keeps them fp32)", "Adapter precision",      \
    "Automatic|fp32|bf16|fp16", "training,lora_or_qlora")                                                              \
  X(lora_dropout, number, "0", 0, 1, "", "probability", "workload",                                                    \
    "LoRA dropout: above 0 each dropout site keeps a 1-byte mask and the dropped copy of its input", "LoRA dropout",   \
    "", "training,lora_or_qlora")                                                                                      \
  X(qlora_upcast, flag, "off", 0, 0, "", "", "workload",                                                               \
    "peft's prepare_model_for_kbit_training: embedding, lm_head and norms in fp32, so the residual stream is fp32",    \
    "QLoRA fp32 upcast", "", "training,qlora")                                                                         \
  X(bnb_version, choice, "current", 0, 0, "current|before_0.43.2", "", "workload",                                     \
    "bitsandbytes under QLoRA: before 0.43.2 (PR #1270) every 4-bit linear kept its input for backward, adapted or "   \
    "not; current keeps it only where an adapter reads it",                                                            \
    "bitsandbytes version", "0.43.2 or later|Before 0.43.2 (4-bit linears keep their input)", "training,nf4")          \
  X(activation_offload, choice, "none", 0, 0, "none|prefetched|full", "", "workload",                                  \
    "Checkpoints moved to CPU RAM (needs recompute = full): prefetched (torchtune: about two layers' stay on the "     \
    "GPU) or full (Unsloth's offloaded checkpointing: none stay)",                                                     \
    "Activation offload", "None|Prefetched|Full", "training,phased_framework")                                         \
  X(allocator_reserve, number, "0.33", 0, 10, "", "x dynamic", "workload",                                             \
    "PyTorch caching allocator: reserved - allocated as a multiple of the memory allocated and freed within a "        \
    "step (1/3 for fixed shapes, 1 for unpacked variable lengths, 0 with expandable_segments)",                        \
    "Allocator reserve", "", "training,phased_framework")                                                              \
  X(runtime, choice, "auto", 0, 0, "auto|transformers|vllm|sglang|tgi|llamacpp|ollama", "", "workload",                \
    "Inference runtime whose behaviour sets the defaults; auto = llamacpp for GGUF weights, transformers for nf4 or "  \
    "int8 (bitsandbytes), else vllm",                                                                                  \
    "Inference runtime", "Automatic|Transformers|vLLM|SGLang|TGI|llama.cpp|Ollama", "inference")                       \
  X(gpu_memory_utilization, number, "0.92", 0.01, 1, "", "fraction", "workload",                                       \
    "vLLM: share of gpu_memory the engine preallocates (weights, profiling peak, CUDA graphs, then the KV cache); "    \
    "0.92 since v0.21, 0.90 before. TGI: --cuda-memory-fraction (1 in its profile)",                                   \
    "GPU memory utilisation", "", "inference,vllm_or_tgi")                                                             \
  X(tgi_version, choice, "3.3", 0, 0, "3.3|3.1|3.0|2.4|1.4.1|1.0", "", "workload",                                     \
    "TGI release whose warmup sizes the KV cache: 3.3 and later keep 10 % of the memory free, 3.1-3.2 7 %, 3.0 "       \
    "5 %; 2.4 takes 90 % and 1.4.1-2.3 95 % of what the warmup leaves free; 1.0-1.4.0 all of it. From 3.0 the "        \
    "warmup's logits are of each request's last token (prefill logprobs off), before 3.0 of every prompt token",       \
    "TGI version", ">= 3.3|3.1 - 3.2|3.0|2.4|1.4.1 - 2.3|1.0 - 1.4.0", "inference,tgi")                                \
  X(vllm_version, choice, "0.21", 0, 0, "0.21|0.17|0.11|0.6", "", "workload",                                          \
    "vLLM release whose profiling run sets its defaults: the dummy sampler's top-k/top-p path (0.21 and later "        \
    "FlashInfer, 0.17-0.20 a Triton kernel: 14 B per logit; 0.11-0.16 a sort: 38 B), gpu_memory_utilization 0.92 "     \
    "from 0.21 (0.90 before), CUDA graphs inside the budget from 0.21, non-torch memory 0.14 GiB measured on 0.11 "    \
    "(0.32 GiB calibrated later); 0.6 = the V0 engine (0.6 - 0.10): the whole prompt profiled without chunked "        \
    "prefill, every layer paged alike (sliding layers of Gemma 2/3 at full length)",                                   \
    "vLLM version", ">= 0.21|0.17 - 0.20|0.11 - 0.16|0.6 - 0.10 (V0 engine)", "inference,vllm")                        \
  X(mem_fraction_static, number, "0", 0, 1, "", "fraction", "workload",                                                \
    "SGLang: share of the memory free at start for weights + KV cache; 0 = SGLang's default for the device",           \
    "Static memory fraction", "", "inference,sglang")                                                                  \
  X(max_num_batched_tokens, integer, "0", 0, 1e8, "", "tokens", "workload",                                            \
    "Prefill chunk: tokens in one forward pass (vLLM max_num_batched_tokens, SGLang chunked_prefill_size, TGI "        \
    "max_batch_prefill_tokens); 0 = the whole prompt in one pass",                                                     \
    "Prefill chunk", "", "inference")                                                                                  \
  X(max_num_seqs, integer, "0", 0, 1e7, "", "sequences", "workload",                                                   \
    "vLLM: sequences scheduled at once (the sampler rows of the profiling run); 0 = none counted",                     \
    "Max concurrent sequences", "", "inference,vllm")                                                                  \
  X(block_size, integer, "16", 1, 1e5, "", "tokens", "workload",                                                       \
    "KV-cache page: tokens per block (vLLM 16; TGI 1 with flashinfer, 256 with flashdecoding)", "KV block size", "",   \
    "inference,engines")                                                                                               \
  X(cuda_graph_memory, bytes, "0", 0, 1e12, "", "bytes", "workload",                                                   \
    "Memory of captured CUDA graphs inside the engine's budget (vLLM >= 0.21 subtracts its estimate); 0 = eager",      \
    "CUDA graph memory", "", "inference,vllm")                                                                         \
  X(non_torch_memory, bytes, "0", 0, 1e12, "", "bytes", "workload",                                                    \
    "Memory allocated outside PyTorch after start (NCCL, cuBLAS workspaces), inside the engine's budget",              \
    "Non-torch memory", "", "inference,vllm")                                                                          \
  X(n_ubatch, integer, "512", 1, 1e7, "", "tokens", "workload",                                                        \
    "llama.cpp physical batch (-ub): the compute buffer scales with it", "Micro-batch (n_ubatch)", "",                 \
    "inference,llamacpp")                                                                                              \
  X(n_batch, integer, "2048", 1, 1e7, "", "tokens", "workload",                                                        \
    "llama.cpp logical batch (-b); the physical batch is at most this", "Logical batch (n_batch)", "",                 \
    "inference,llamacpp")                                                                                              \
  X(n_gpu_layers, integer, "999", 0, 1e6, "", "layers", "workload",                                                    \
    "llama.cpp -ngl: repeating layers on the GPU; above num_hidden_layers the output layer goes there too",            \
    "GPU layers (-ngl)", "", "inference,llamacpp")                                                                     \
  X(n_cpu_moe, integer, "0", 0, 1e6, "", "layers", "workload",                                                         \
    "llama.cpp --n-cpu-moe: the routed experts of the first N layers stay in host memory (attention, shared weights "  \
    "on the GPU)",                                                                                                     \
    "MoE experts on the CPU (--n-cpu-moe)", "", "inference,llamacpp")                                                  \
  X(cache_type_k, choice, "f16", 0, 0, "f16|bf16|f32|q8_0|q5_1|q5_0|q4_1|q4_0|iq4_nl", "", "workload",                 \
    "llama.cpp K-cache type (-ctk); for llamacpp and ollama, batch is the number of parallel slots (-np)",             \
    "K cache type", "f16|bf16|f32|q8_0|q5_1|q5_0|q4_1|q4_0|iq4_nl", "inference,llamacpp")                              \
  X(cache_type_v, choice, "f16", 0, 0, "f16|bf16|f32|q8_0|q5_1|q5_0|q4_1|q4_0|iq4_nl", "", "workload",                 \
    "llama.cpp V-cache type (-ctv); a quantized V cache needs flash attention", "V cache type",                        \
    "f16|bf16|f32|q8_0|q5_1|q5_0|q4_1|q4_0|iq4_nl", "inference,llamacpp")                                              \
  X(batch, integer, "1", 1, 1e7, "", "sequences", "workload", "Micro-batch per device", "Batch", "")                   \
  X(seq, integer, "2048", 1, 1e8, "", "tokens", "workload",                                                            \
    "Tokens per sequence; for inference, the context held in the KV cache", "Context length", "")                      \
  X(encoder_seq, integer, "0", 0, 1e8, "", "tokens", "workload",                                                       \
    "Encoder-decoder: tokens of the encoder input per sequence (seq is the decoder's); 0 = seq", "Encoder length", "", \
    "encoder_decoder")                                                                                                 \
  X(grad_accum, integer, "1", 1, 1e6, "", "micro-batches", "workload",                                                 \
    "Gradient accumulation steps: raises the effective batch, not activation memory", "Gradient accumulation", "",     \
    "training")                                                                                                        \
  /* ---- fine-tuning ---- */                                                                                          \
  X(finetune, choice, "full", 0, 0, "full|lora|qlora", "", "finetune",                                                 \
    "Full training, LoRA adapters on a frozen base, or QLoRA (NF4 base + LoRA)", "Training method",                    \
    "Full fine-tune|LoRA|QLoRA", "training")                                                                           \
  X(lora_rank, integer, "16", 1, 1e5, "", "", "finetune", "LoRA rank r", "LoRA rank", "", "training,lora_or_qlora")    \
  X(lora_targets, text, "q_proj,v_proj", 0, 0, "", "", "finetune",                                                     \
    "Comma-separated PEFT module names (q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj) or all-linear",       \
    "LoRA target modules", "", "training,lora_or_qlora")                                                               \
  X(trainable_params, count, "1", 0, 1e15, "", "parameters", "finetune",                                               \
    "For full training: trainable count (1e9) or fraction (0.1); 1 = all", "Trainable parameters", "",                 \
    "training,full")                                                                                                   \
  /* ---- precision & optimizer ---- */                                                                                \
  X(weights_dtype, choice, "bf16", 0, 0,                                                                               \
    "fp32|bf16|fp16|fp8|int8|int4|nf4|q8_0|q6_k|q5_k_m|q4_k_m|q4_0|q3_k_m|q2_k|q5_k_s|q4_k_s|q3_k_s|q3_k_l|"           \
    "iq4_xs|iq4_nl|iq3_s|iq3_xxs|iq2_s|iq2_xs|iq2_xxs|iq1_m|iq1_s|gptq|awq|w4a16|fp8_block|mxfp4",                     \
    "", "precision",                                                                                                   \
    "Storage format of the weights. Unset, each run's own, bf16 only where nothing sets one: training the "            \
    "framework's (HF Trainer fp32, DeepSpeed / FSDP / axolotl / torchtitan bf16, QLoRA nf4); inference on vLLM, "      \
    "SGLang, TGI or transformers the checkpoint as shipped (bf16, or the preset's FP8 / MXFP4); on llama.cpp and "     \
    "Ollama q4_k_m, the GGUF their registries serve (gpt-oss keeps mxfp4)",                                            \
    "Weights format",                                                                                                  \
    "fp32|bf16|fp16|fp8|int8|int4|NF4 "                                                                                \
    "(bitsandbytes)|Q8_0|Q6_K|Q5_K_M|Q4_K_M|Q4_0|Q3_K_M|Q2_K|Q5_K_S|Q4_K_S|Q3_K_S|Q3_K_L|IQ4_XS|IQ4_NL|IQ3_S|IQ3_XXS|" \
    "IQ2_S|IQ2_XS|IQ2_XXS|IQ1_M|IQ1_S|GPTQ|AWQ|W4A16 (compressed-tensors)|FP8 block-scaled|MXFP4")                     \
  X(double_quant, flag, "off", 0, 0, "", "", "precision", "NF4 double quantisation of the block scales (QLoRA)",       \
    "Double quantisation", "", "nf4")                                                                                  \
  X(quant_bits, integer, "4", 2, 8, "", "bits", "precision",                                                           \
    "Bits per weight of a gptq, awq or w4a16 checkpoint (quantization_config bits)", "Quantisation bits", "",          \
    "int_packed")                                                                                                      \
  X(quant_group_size, integer, "128", 0, 1e6, "", "weights", "precision",                                              \
    "Weights sharing one scale (gptq, awq, w4a16 group_size) or the edge of an fp8_block block; 0 = one per column "   \
    "(GPTQ group_size -1) or one per tensor (FP8)",                                                                    \
    "Quantisation group size", "", "grouped_quant")                                                                    \
  X(quant_skip_layers, text, "", 0, 0, "", "layers", "precision",                                                      \
    "Layers a quantised checkpoint keeps 16-bit whole (0-based, comma-separated: 4,5,11; its quantization_config's "   \
    "ignored_layers, ignore or exclude_modules); empty = every layer quantised",                                       \
    "16-bit layers", "", "grouped_quant")                                                                              \
  X(grads_dtype, choice, "auto", 0, 0, "auto|fp32|bf16|fp16", "", "precision",                                         \
    "Gradient storage; auto = the trainable weights' dtype", "Gradient precision", "Automatic|fp32|bf16|fp16",         \
    "training")                                                                                                        \
  X(optimizer, choice, "adamw", 0, 0, "adamw|adamw_8bit|sgd|sgd_momentum|lion|adafactor", "", "precision",             \
    "Optimizer, which sets the number of states kept per trainable parameter", "Optimizer",                            \
    "AdamW|AdamW 8-bit|SGD|SGD with momentum|Lion|Adafactor", "training")                                              \
  X(optimizer_dtype, choice, "fp32", 0, 0, "fp32|bf16|fp16", "", "precision",                                          \
    "Storage of the optimizer states (adamw_8bit ignores it)", "Optimizer state precision", "fp32|bf16|fp16",          \
    "training")                                                                                                        \
  X(master_weights, flag, "on", 0, 0, "", "", "precision",                                                             \
    "Keep an fp32 master copy of 16-bit trainable weights (mixed precision)", "fp32 master weights", "", "training")   \
  X(attention, choice, "standard", 0, 0, "standard|eager|sdpa|flash|sdpa_gqa", "", "precision",                        \
    "Attention kernel: standard (Korthikanti et al., 16-bit softmax saved), eager (PyTorch, fp32 softmax, "            \
    "K/V repeated for GQA), sdpa (K/V repeated) or flash (no seq^2 term); sdpa_gqa: SDPA with enable_gqa "             \
    "(transformers without a padding mask), K/V kept at their own width",                                              \
    "Attention kernel", "Textbook (16-bit scores kept)|Eager|SDPA|FlashAttention|SDPA with native GQA")                \
  X(norm_upcast, flag, "off", 0, 0, "", "", "precision",                                                               \
    "Norms save an fp32 copy of their input (Hugging Face's eager RMSNorm does; fused kernels do not)",                \
    "Norms in fp32", "", "training")                                                                                   \
  X(recompute, choice, "none", 0, 0, "none|selective|full", "", "precision",                                           \
    "Activation checkpointing: none, selective (recompute attention scores), full (keep layer inputs only)",           \
    "Activation checkpointing", "None|Selective|Full", "training_or_eval")                                             \
  X(selective_ac_option, text, "op", 0, 0, "", "", "precision",                                                        \
    "torchtitan's selective checkpointing with recompute = selective: op (its op-level policy) or a whole number N "   \
    "(layer-level: every Nth block checkpointed whole, the others keep everything; 0 = every block)",                  \
    "Selective AC option", "", "training,torchtitan")                                                                  \
  X(fused_ce, flag, "off", 0, 0, "", "", "precision",                                                                  \
    "Fused / chunked cross-entropy (Liger, Cut Cross-Entropy): the full logits are never materialised",                \
    "Fused cross-entropy", "", "training")                                                                             \
  X(kv_dtype, choice, "auto", 0, 0, "auto|fp32|bf16|fp16|fp8|int8|int4|q8_0|q5_1|q5_0|q4_1|q4_0|iq4_nl", "",           \
    "precision",                                                                                                       \
    "KV-cache storage; auto = the activation dtype. Runtimes' names read too: f16, f32 (llama.cpp), fp8_e4m3, "        \
    "fp8_e5m2 (vLLM, SGLang). The llama.cpp types (q8_0 ... iq4_nl) are llama.cpp's and Ollama's only: there they "    \
    "set cache_type_k and cache_type_v left at f16",                                                                   \
    "KV cache precision",                                                                                              \
    "Automatic|fp32|bf16|fp16|fp8|int8|int4|q8_0 (llama.cpp)|q5_1 (llama.cpp)|q5_0 (llama.cpp)|q4_1 (llama.cpp)|"      \
    "q4_0 (llama.cpp)|iq4_nl (llama.cpp)",                                                                             \
    "inference")                                                                                                       \
  X(state_dtype, choice, "auto", 0, 0, "auto|fp32|bf16|fp16", "", "precision",                                         \
    "Recurrent state of linear-attention, Mamba and conv layers; auto = the runtime's default (docs/methodology.md)",  \
    "Recurrent state precision", "Automatic|fp32|bf16|fp16", "inference")                                              \
  /* ---- parallelism ---- */                                                                                          \
  X(devices, integer, "1", 1, 1e6, "", "devices", "parallelism", "Total devices (data x tensor x pipeline)",           \
    "Devices", "")                                                                                                     \
  X(zero, integer, "0", 0, 3, "", "stage", "parallelism",                                                              \
    "ZeRO stage over the data-parallel devices: 1 optimizer, 2 + gradients, 3 (FSDP) + parameters, which an "          \
    "evaluation keeps sharded too",                                                                                    \
    "ZeRO stage", "", "training_or_eval")                                                                              \
  X(tp, integer, "1", 1, 1024, "", "devices", "parallelism", "Tensor-parallel degree (Megatron-style)",                \
    "Tensor parallel", "")                                                                                             \
  X(sequence_parallel, flag, "on", 0, 0, "", "", "parallelism",                                                        \
    "With tp > 1, shard norms, dropouts and layer inputs over the sequence too (Megatron --sequence-parallel); "       \
    "off keeps them whole on every tensor-parallel rank",                                                              \
    "Sequence parallel", "", "tp_gt_1")                                                                                \
  X(pp, integer, "1", 1, 1024, "", "stages", "parallelism", "Pipeline-parallel stages (1F1B schedule)",                \
    "Pipeline stages", "")                                                                                             \
  X(cp, integer, "1", 1, 1024, "", "devices", "parallelism",                                                           \
    "Context-parallel degree (training): each device holds seq / cp tokens of every sequence (DeepSpeed Ulysses "      \
    "sequence_parallel_size, Megatron --context-parallel-size); devices = data x tensor x pipeline x context",         \
    "Context parallel", "", "training")                                                                                \
  X(ep, integer, "1", 1, 1e5, "", "devices", "parallelism",                                                            \
    "Expert-parallel degree (MoE): the routed experts are split over ep of the data-parallel devices (each holds "     \
    "num_experts / ep); ZeRO shards the experts' state over the dp / ep expert-data-parallel devices",                 \
    "Expert parallel", "")                                                                                             \
  X(offload, choice, "none", 0, 0, "none|optimizer|optimizer+params", "", "parallelism",                               \
    "Move optimizer state (and parameters, ZeRO-3) to CPU RAM", "CPU offload",                                         \
    "None|Optimizer state|Optimizer state and parameters", "training")                                                 \
  X(stage3_prefetch_bucket_size, count, "0", 0, 1e13, "", "parameters", "parallelism",                                 \
    "DeepSpeed ZeRO-3 (framework deepspeed): parameters gathered ahead of the module being computed; 0 = auto "        \
    "as the HF Trainer fills it (0.9 x hidden^2; DeepSpeed's own default 5e7)",                                        \
    "ZeRO-3 prefetch bucket", "", "training")                                                                          \
  X(stage3_max_live_parameters, count, "1e9", 0, 1e13, "", "parameters", "parallelism",                                \
    "DeepSpeed ZeRO-3 (framework deepspeed): most parameters gathered at once; caps the prefetch (DeepSpeed's "        \
    "default 1e9)",                                                                                                    \
    "ZeRO-3 max live parameters", "", "training")                                                                      \
  X(stage3_param_persistence_threshold, count, "0", 0, 1e13, "", "parameters", "parallelism",                          \
    "DeepSpeed ZeRO-3 (framework deepspeed): parameters smaller than this stay gathered on every device; 0 = "         \
    "auto as the HF Trainer fills it (10 x hidden; DeepSpeed's own default 1e5)",                                      \
    "ZeRO-3 persistence threshold", "", "training")                                                                    \
  /* ---- device & overheads ---- */                                                                                   \
  X(gpu, text, "", 0, 0, "", "", "device", "GPU preset id (sets gpu_memory); empty = use gpu_memory", "GPU", "")       \
  X(gpu_memory, bytes, "80GB", 1, 1e15, "", "bytes", "device", "Memory of one device (80GB, 80GiB or bytes)",          \
    "Memory per device", "")                                                                                           \
  X(host_ram, bytes, "0", 0, 1e15, "", "bytes", "device",                                                              \
    "Host (CPU) RAM for what is offloaded (llama.cpp's CPU layers, ZeRO-Offload, FSDP CPU offload); on a "             \
    "unified-memory machine the share the OS leaves; 0 = not checked",                                                 \
    "Host RAM", "")                                                                                                    \
  X(overhead, choice, "detailed", 0, 0, "none|factor|detailed", "", "device",                                          \
    "Runtime overhead: none, factor (weights x overhead_factor, seed 2's rule), or detailed items", "Overhead model",  \
    "None|Factor|Detailed")                                                                                            \
  X(overhead_factor, number, "1.2", 1, 10, "", "x weights", "device",                                                  \
    "Multiplier on the weights for overhead = factor", "Overhead factor", "", "overhead_factor")                       \
  X(cuda_context, bytes, "1GiB", 0, 1e12, "", "bytes", "device",                                                       \
    "CUDA context and framework kernels, held before the model loads (peers use 650 MB to 1 GiB)", "CUDA context", "") \
  X(fragmentation, number, "5", 0, 100, "", "%", "device",                                                             \
    "Allocator fragmentation reserve, as a percentage of the allocated buckets", "Fragmentation", "")                  \
  X(units, choice, "GB", 0, 0, "GB|GiB", "", "device", "Display units: decimal GB (1e9) or GiB (2^30)", "Units",       \
    "GB (10^9 B)|GiB (2^30 B)")
