// SPDX-License-Identifier: MIT
// Types of the llm-memory JS API (dist/llm-memory.js and dist/llm-memory.single.js), written by hand
// (Emscripten 3.1.6 has no --emit-tsd) but for `Settings`, which scripts/generate-settings.mjs writes from the
// settings table between the markers. Every object is plain data: nothing to delete().
//
// Units: byte counts are JS numbers holding whole bytes, exact below 2^53 (9 PB); parameter counts are
// whole parameters. All byte values are PER DEVICE (the most-loaded one) unless the field says otherwise.

// settings:begin (scripts/generate-settings.mjs)
/** A flag's value: read as on or off (also true/false, yes/no, 1/0). */
export type FlagValue = boolean | "on" | "off" | "true" | "false" | "yes" | "no" | "1" | "0" | 1 | 0;

/**
 * Settings as the CLI flags, URL query keys and widget attributes spell them: `{model: "llama-2-7b", seq: 4096}`.
 * Kinds, defaults, ranges and units: `settingsSchema()` (or `llm-memory --help`). Values may be strings or
 * numbers/booleans, which are read as `String(value)`; `null` and `undefined` mean "not given". Choices are
 * matched without regard to case. Unknown keys and bad values come back as errors naming the setting, and so do
 * values of any other type (BigInt, Symbol, objects, arrays, functions) and properties whose getter throws:
 * nothing throws.
 */
export interface Settings {
  /** Model: Model preset id (Hugging Face repo name, lower-case, no organisation); empty = custom architecture. Default empty. */
  model?: string | null;
  /** Parameter count: Total parameter count (7e9, 7B); overrides the count computed from the architecture; 0 = compute it [parameters]. Default `0`. */
  params?: number | string | null;
  /** Hidden size: Width of the residual stream (h). Default `4096`. */
  hidden_size?: number | string | null;
  /** Layers: Number of transformer layers (L) [layers]. Default `32`. */
  num_hidden_layers?: number | string | null;
  /** Attention heads: Query heads per layer (a) [heads]. Default `32`. */
  num_attention_heads?: number | string | null;
  /** Key/value heads: Key/value heads per layer (grouped-query attention); 0 = same as num_attention_heads [heads]. Default `0`. */
  num_key_value_heads?: number | string | null;
  /** Head width: Width of one attention head; 0 = hidden_size / heads. Default `0`. */
  head_dim?: number | string | null;
  /** MLP width: MLP inner width; 0 = 4 x hidden_size. Default `0`. */
  intermediate_size?: number | string | null;
  /** Vocabulary: Vocabulary size; 0 = unknown (no embedding, lm_head or logits are counted) [tokens]. Default `0`. */
  vocab_size?: number | string | null;
  /** Tied embeddings: lm_head shares the input embedding matrix. Default `off`. */
  tie_word_embeddings?: FlagValue | null;
  /** Trained context length: Rows of the learned position embedding (counted only when position_embedding = learned) [tokens]. Default `0`. */
  max_position_embeddings?: number | string | null;
  /** Position encoding: How positions are encoded: rotary (no parameters), a learned table (GPT-2), or none. Default `rope`. */
  position_embedding?: "rope" | "learned" | "none" | null;
  /** Normalisation: Normalisation: LayerNorm (weight + bias) or RMSNorm (weight only). Default `layernorm`. */
  norm?: "layernorm" | "rmsnorm" | null;
  /** Norms per layer: Norms in each layer: 2 (pre-attention, pre-MLP), 4 (Gemma 2/3 add post-norms), 1 (Falcon parallel block) [norms]. Default `2`. */
  norms_per_layer?: number | string | null;
  /** MLP shape: MLP shape: plain (up, act, down: 2 h i) or gated (SwiGLU/GeGLU: gate, up, down: 3 h i). Default `plain`. */
  mlp?: "plain" | "gated" | null;
  /** Attention biases: Biases on attention projections: none (Llama), qkv (Qwen2), all of q/k/v/o (GPT-2). Default `none`. */
  attention_bias?: "none" | "qkv" | "all" | null;
  /** MLP biases: Biases on the MLP projections (GPT-2). Default `off`. */
  mlp_bias?: FlagValue | null;
  /** Query/key norm: Norm on queries and keys: per head (Qwen3, Gemma 3: 2 head_dim weights) or full width (OLMo 2). Default `none`. */
  qk_norm?: "none" | "head" | "full" | null;
  /** Dropout: Dropout in training (GPT as in Korthikanti et al.; modern LLMs train without): saves 1-byte masks. Default `on`. */
  dropout?: FlagValue | null;
  /** Sliding window: Sliding-window attention span; 0 = every layer attends to the whole context [tokens]. Default `0`. */
  sliding_window?: number | string | null;
  /** Global layer every: Every Nth layer is global, the others slide (Gemma 2: 2, Gemma 3: 6); 0 = all layers slide [layers]. Default `0`. */
  sliding_window_pattern?: number | string | null;
  /** Attention chunk: Chunked local attention (Llama 4): 3 layers of 4 attend within chunks of this many tokens, every 4th to the whole context; the runtime decides what it caches (docs/runtimes.md); 0 = none [tokens]. Default `0`. */
  attention_chunk_size?: number | string | null;
  /** Layer kinds: The layers' kinds in order, repeated to num_hidden_layers: [N*]mixer[+mlp], mixer full_attention, sliding_attention, linear_attention, mamba, mamba1, conv, attention_mamba (both in parallel), lightning_attention, kda or none, mlp dense, moe or none (mlp / moe alone: an MLP-only block); empty = from sliding_window_pattern. Default empty. */
  layer_types?: string | null;
  /** Attention gate: Gated attention (Qwen3-Next, Qwen3.5): q_proj also outputs a sigmoid gate per query value. Default `off`. */
  attention_output_gate?: FlagValue | null;
  /** Linear-attention value heads: Gated DeltaNet value heads (linear_attention layers) [heads]. Default `0`. */
  linear_num_value_heads?: number | string | null;
  /** Linear-attention key heads: Gated DeltaNet query/key heads (linear_attention layers) [heads]. Default `0`. */
  linear_num_key_heads?: number | string | null;
  /** Linear-attention key head width: Gated DeltaNet width of one key head. Default `0`. */
  linear_key_head_dim?: number | string | null;
  /** Linear-attention value head width: Gated DeltaNet width of one value head. Default `0`. */
  linear_value_head_dim?: number | string | null;
  /** Linear-attention conv width: Gated DeltaNet causal convolution width (its state keeps kernel - 1 columns). Default `4`. */
  linear_conv_kernel_dim?: number | string | null;
  /** Mamba heads: Mamba-2 heads (mamba layers) [heads]. Default `0`. */
  mamba_num_heads?: number | string | null;
  /** Mamba head width: Mamba-2 width of one head. Default `0`. */
  mamba_head_dim?: number | string | null;
  /** Mamba state size: Mamba-2 SSM state size per head value (ssm_state_size). Default `128`. */
  mamba_d_state?: number | string | null;
  /** Mamba groups: Mamba-2 groups of B and C (n_groups). Default `1`. */
  mamba_n_groups?: number | string | null;
  /** Mamba conv width: Mamba-2 causal convolution width (conv_kernel). Default `4`. */
  mamba_d_conv?: number | string | null;
  /** Mamba conv bias: Mamba-2 conv1d has a bias (use_conv_bias). Default `on`. */
  mamba_conv_bias?: FlagValue | null;
  /** Mamba projection biases: Mamba-2 in_proj and out_proj have biases (use_bias). Default `off`. */
  mamba_proj_bias?: FlagValue | null;
  /** Mamba gated norm: Mamba-2 gated RMSNorm before out_proj (Falcon-H1 mamba_rms_norm; off: the output gated by silu(z) alone). Default `on`. */
  mamba_norm?: FlagValue | null;
  /** Mamba-1 inner width: Mamba-1 inner width (mamba1 layers; Jamba: mamba_expand x hidden_size). Default `0`. */
  mamba_d_inner?: number | string | null;
  /** Mamba-1 dt rank: Mamba-1 rank of the time step (Jamba mamba_dt_rank; auto: ceil(hidden_size / 16)). Default `0`. */
  mamba_dt_rank?: number | string | null;
  /** Short conv width: Short-convolution width (LFM2 conv_L_cache; its state keeps L_cache - 1 columns). Default `3`. */
  conv_l_cache?: number | string | null;
  /** Short conv biases: Short-convolution projections and conv have biases (LFM2). Default `off`. */
  conv_bias?: FlagValue | null;
  /** Routed experts: Routed experts per MoE layer; 0 = dense model [experts]. Default `0`. */
  num_experts?: number | string | null;
  /** Experts per token: Experts each token is routed to (top-k) [experts]. Default `0`. */
  num_experts_per_tok?: number | string | null;
  /** Expert MLP width: Inner width of one routed expert; 0 = intermediate_size. Default `0`. */
  moe_intermediate_size?: number | string | null;
  /** Shared experts: Always-active shared experts per MoE layer [experts]. Default `0`. */
  n_shared_experts?: number | string | null;
  /** Shared expert width: Inner width of all shared experts together; 0 = n_shared_experts x moe_intermediate_size. Default `0`. */
  shared_expert_intermediate_size?: number | string | null;
  /** Expert latent width: Routed experts work in a latent of this width: fc1_latent_proj (hidden -> latent) before them, fc2_latent_proj (latent -> hidden) after (Nemotron 3 Super / Ultra LatentMoE); 0 = at hidden_size. Default `0`. */
  moe_latent_size?: number | string | null;
  /** Leading dense layers: The first k layers use a dense MLP instead of experts (DeepSeek) [layers]. Default `0`. */
  first_k_dense_replace?: number | string | null;
  /** Router bias: MoE router has one bias per expert (DeepSeek-V3 noaux_tc score correction, GLM-4.5, gpt-oss). Default `off`. */
  router_bias?: FlagValue | null;
  /** Shared expert gate: A sigmoid gate (h weights) scales the shared expert's output (Qwen2-MoE). Default `off`. */
  shared_expert_gate?: FlagValue | null;
  /** MLA query rank: MLA: rank of the query compression; 0 = no compression. Default `0`. */
  q_lora_rank?: number | string | null;
  /** MLA key/value rank: MLA: rank of the joint key/value latent; 0 = not MLA. Default `0`. */
  kv_lora_rank?: number | string | null;
  /** MLA non-rotary head width: MLA: per-head query/key width without rotary part. Default `0`. */
  qk_nope_head_dim?: number | string | null;
  /** MLA rotary head width: MLA: per-head rotary query/key width. Default `0`. */
  qk_rope_head_dim?: number | string | null;
  /** MLA value head width: MLA: per-head value width. Default `0`. */
  v_head_dim?: number | string | null;
  /** DSA indexer heads: DSA (DeepSeek-V3.2): heads of the lightning indexer that picks the top-k keys; 0 = no indexer [heads]. Default `0`. */
  index_n_heads?: number | string | null;
  /** DSA indexer head width: DSA: width of one indexer head and of the indexer key cached per token and layer. Default `128`. */
  index_head_dim?: number | string | null;
  /** Output layer bias: lm_head has a bias of vocab_size values (GPT-J, Phi-1/2, Phi-3.5-MoE). Default `off`. */
  lm_head_bias?: FlagValue | null;
  /** Embedding norm: A norm right after the token embedding (BLOOM). Default `off`. */
  embedding_norm?: FlagValue | null;
  /** Attention sinks: One learned attention-sink logit per head and layer (gpt-oss). Default `off`. */
  attention_sinks?: FlagValue | null;
  /** KV-shared layers: The last N layers reuse the keys and values of an earlier layer (Gemma 3n): they cache nothing [layers]. Default `0`. */
  num_kv_shared_layers?: number | string | null;
  /** Full-attention head width: Width of one head on the full-attention layers when it differs from the sliding layers' (Gemma 4: 512); 0 = head_dim. Default `0`. */
  global_head_dim?: number | string | null;
  /** Full-attention key/value heads: Key/value heads of the full-attention layers when they differ from the sliding layers' (Gemma 4 with attention_k_eq_v); 0 = num_key_value_heads [heads]. Default `0`. */
  num_global_key_value_heads?: number | string | null;
  /** MoE layer every: Every Nth layer after first_k_dense_replace is MoE, the others dense (Llama 4 Maverick: 2); 1 = all [layers]. Default `1`. */
  moe_layer_step?: number | string | null;
  /** Multi-token-prediction layers: Multi-token-prediction layers the checkpoint stores (DeepSeek-V3, GLM-4.5): counted, not loaded (vLLM loads them only for speculative decoding) [layers]. Default `0`. */
  num_nextn_predict_layers?: number | string | null;
  /** MTP has its own embedding: Each multi-token-prediction module stores its own embedding and output head (DeepSeek-V3); off = it shares the model's (Qwen3-Next, Qwen3.5: vLLM qwen3_next_mtp.py). Default `on`. */
  mtp_own_embedding?: FlagValue | null;
  /** Vision tower parameters: Vision tower and projector of a multimodal model (from config.json's vision_config); 0 = text only [parameters]. Default `0`. */
  vision_params?: number | string | null;
  /** Architecture: Layer stack: a causal decoder (KV cache), an encoder only (bidirectional, no KV cache: BERT, RoBERTa, DeBERTa, ModernBERT) or an encoder-decoder (T5, BART: every decoder layer cross-attends to the encoder). Default `decoder`. */
  architecture?: "decoder" | "encoder" | "encoder_decoder" | null;
  /** Encoder layers: Encoder-decoder: layers of the encoder stack (num_hidden_layers counts the decoder's); 0 = as many as the decoder [layers]. Default `0`. */
  encoder_layers?: number | string | null;
  /** Other parameters: Parameters the other settings do not describe: token-type and relative-position embeddings, T5's relative attention bias, an encoder's final norms, pooler and task head (config.json counts them per family) [parameters]. Default `0`. */
  extra_params?: number | string | null;
  /** Model assumptions: What config.json's reader assumed or left out (an unknown model_type read as a Llama-style decoder); shown as notes. Default empty. */
  model_notes?: string | null;
  /** Model type: config.json's model_type (mistral, phi3, gemma2, ...): an inference runtime runs some architectures otherwise than their config says (llama.cpp: Phi-3 and Mistral without the sliding window; docs/runtimes.md); empty = none known, the layers as the other settings say. Default empty. */
  model_type?: string | null;
  /** Classifier labels: Classification head: labels per sequence and no vocabulary logits; 0 = a language-model head (logits over the vocabulary) [labels]. Default `0`. */
  num_labels?: number | string | null;
  /** Embedding width: Width of the token and position embeddings when it differs from hidden_size: a Linear (E x h + h) projects them to h (ALBERT, ELECTRA-small); 0 = hidden_size. Default `0`. */
  embedding_size?: number | string | null;
  /** Distinct layer weights: Distinct sets of layer weights the layers share (ALBERT: 1, every layer runs the same weights: counted once, activations per layer); 0 = every layer has its own [layers]. Default `0`. */
  num_hidden_groups?: number | string | null;
  /** Task: Training step, inference with a KV cache, or evaluation (eval: one forward pass as the HF Trainer's evaluation loop runs it: weights only, use_cache=False, the loss over the logits). Default `train`. */
  mode?: "train" | "inference" | "eval" | null;
  /** Forward with gradients: Evaluation with autograd on (off: torch.no_grad, one layer's transients at a time; on: the forward saves what training saves for backward, no backward runs). Default `off`. */
  eval_grad?: FlagValue | null;
  /** Training framework: Training framework whose behaviour sets the defaults (generic: the seeds' textbook arithmetic, all buckets summed; the others: the peak over the phases of a step). Default `hf`. */
  framework?: "generic" | "hf" | "deepspeed" | "fsdp" | "torchtune" | "litgpt" | "megatron" | "unsloth" | "torchtitan" | "llamafactory" | "axolotl" | null;
  /** Unsloth version: Unsloth release (framework unsloth): 2025.8 and later fuse the lm_head into a chunked loss (no logits); 2024.4-2025.7 keep 16-bit logits for the Triton cross-entropy kernel; before 2024.4 no offloaded checkpointing (use_gradient_checkpointing=True: checkpoints stay on the GPU). Default `2025.8`. */
  unsloth_version?: "2025.8" | "2024.4" | "2024.1" | null;
  /** torchtitan version: torchtitan release (framework torchtitan): from 0.1.0 (main from 2025-04-02, bbb1b616) compile = on compiles the cross-entropy too (compile.components [model, loss] from 0.2.0); before, the model's blocks only. Default `0.1`. */
  torchtitan_version?: "0.1" | "0.0" | null;
  /** Gradients at the peak: Gradients between steps: freed (zero_grad(set_to_none=True): none alive before backward with grad_accum 1) or resident (DeepSpeed ZeRO-3 and Megatron keep a contiguous gradient buffer). Default `freed`. */
  grad_lifetime?: "freed" | "resident" | null;
  /** Optimizer step in backward: Step each parameter as soon as its gradient exists and free it (torchtune optimizer_in_bwd): one tensor's gradient alive, no optimizer-step phase; needs grad_accum 1. Default `off`. */
  optimizer_in_backward?: FlagValue | null;
  /** Optimizer implementation: How the optimizer steps: fused (one kernel, no transient), foreach (PyTorch's default before fused: one state-sized transient), paged (bitsandbytes paged states in managed memory: not in max_memory_allocated). Default `fused`. */
  optimizer_impl?: "fused" | "foreach" | "paged" | null;
  /** Loss implementation: How the logits and the loss are computed (bytes per token per vocabulary entry, forward / backward): hf (fp32 upcast, 10 / 12), hf_legacy (transformers <= 4.45, 12 / 12), trl_chunked (TRL >= 1.7 chunked lm_head), torchtune_chunked (8 chunks, 6.5 / 5), torchtune_compiled (2 / 2.25), litgpt (bf16, 4 / 4), megatron (vocab-parallel in place, 6 / 6 per tp), unsloth (in-place Triton, 2 / 2), fused (no logits), torchtune_legacy (torchtune <= 0.1: fp32 output, the shifted copy kept through backward, 8 / 16), compiled (torch.compile over the whole cross-entropy: the 16-bit logits kept / + their 16-bit gradient, 2 / 4). Default `hf`. */
  loss_impl?: "hf" | "hf_legacy" | "trl_chunked" | "torchtune_chunked" | "torchtune_compiled" | "litgpt" | "megatron" | "unsloth" | "fused" | "torchtune_legacy" | "compiled" | null;
  /** torch.compile: torch.compile of the model (torchtune compile, HF torch_compile): fused norms and activations save 16-bit inputs only; torchtune compiles its chunked loss too. auto = the framework's recipe default (off). Default `auto`. */
  compile?: "auto" | "on" | "off" | null;
  /** Transformers version: Transformers release under the HF Trainer (framework hf): SDPA with native GQA from 4.54 (PR #39412), SDPA with K/V repeated from 4.36, eager attention before; the loss upcasts the logits itself from 4.46 (hf_legacy before). Default `4.54`. */
  transformers_version?: "4.54" | "4.46" | "4.36" | "4.35" | null;
  /** Autocast: Mixed-precision compute (torch.autocast) over the stored weights: with fp32 weights, activations are 16-bit, the residual stream stays fp32 and each trained matrix keeps a 16-bit copy until backward. Default `off`. */
  autocast?: "off" | "bf16" | "fp16" | null;
  /** Copies of layer inputs: Linears reading one input keep one saved copy (shared) or one each (per_linear: autocast and peft cast the input per call, so q, k and v keep three). Default `shared`. */
  input_copies?: "shared" | "per_linear" | null;
  /** Adapter precision: Storage of the LoRA adapters; auto = the compute dtype (peft >= 0.12 keeps them fp32). Default `auto`. */
  adapter_dtype?: "auto" | "fp32" | "bf16" | "fp16" | null;
  /** LoRA dropout: LoRA dropout: above 0 each dropout site keeps a 1-byte mask and the dropped copy of its input [probability]. Default `0`. */
  lora_dropout?: number | string | null;
  /** QLoRA fp32 upcast: peft's prepare_model_for_kbit_training: embedding, lm_head and norms in fp32, so the residual stream is fp32. Default `off`. */
  qlora_upcast?: FlagValue | null;
  /** bitsandbytes version: bitsandbytes under QLoRA: before 0.43.2 (PR #1270) every 4-bit linear kept its input for backward, adapted or not; current keeps it only where an adapter reads it. Default `current`. */
  bnb_version?: "current" | "before_0.43.2" | null;
  /** Activation offload: Checkpoints moved to CPU RAM (needs recompute = full): prefetched (torchtune: about two layers' stay on the GPU) or full (Unsloth's offloaded checkpointing: none stay). Default `none`. */
  activation_offload?: "none" | "prefetched" | "full" | null;
  /** Allocator reserve: PyTorch caching allocator: reserved - allocated as a multiple of the memory allocated and freed within a step (1/3 for fixed shapes, 1 for unpacked variable lengths, 0 with expandable_segments) [x dynamic]. Default `0.33`. */
  allocator_reserve?: number | string | null;
  /** Inference runtime: Inference runtime whose behaviour sets the defaults; auto = llamacpp for GGUF weights, transformers for nf4 or int8 (bitsandbytes), else vllm. Default `auto`. */
  runtime?: "auto" | "transformers" | "vllm" | "sglang" | "tgi" | "llamacpp" | "ollama" | null;
  /** GPU memory utilisation: vLLM: share of gpu_memory the engine preallocates (weights, profiling peak, CUDA graphs, then the KV cache); 0.92 since v0.21, 0.90 before. TGI: --cuda-memory-fraction (1 in its profile) [fraction]. Default `0.92`. */
  gpu_memory_utilization?: number | string | null;
  /** TGI version: TGI release whose warmup sizes the KV cache: 3.3 and later keep 10 % of the memory free, 3.1-3.2 7 %, 3.0 5 %; 2.4 takes 90 % and 1.4.1-2.3 95 % of what the warmup leaves free; 1.0-1.4.0 all of it. From 3.0 the warmup's logits are of each request's last token (prefill logprobs off), before 3.0 of every prompt token. Default `3.3`. */
  tgi_version?: "3.3" | "3.1" | "3.0" | "2.4" | "1.4.1" | "1.0" | null;
  /** vLLM version: vLLM release whose profiling run sets its defaults: the dummy sampler's top-k/top-p path (0.21 and later FlashInfer, 0.17-0.20 a Triton kernel: 14 B per logit; 0.11-0.16 a sort: 38 B), gpu_memory_utilization 0.92 from 0.21 (0.90 before), CUDA graphs inside the budget from 0.21, non-torch memory 0.14 GiB measured on 0.11 (0.32 GiB calibrated later); 0.6 = the V0 engine (0.6 - 0.10): the whole prompt profiled without chunked prefill, every layer paged alike (sliding layers of Gemma 2/3 at full length). Default `0.21`. */
  vllm_version?: "0.21" | "0.17" | "0.11" | "0.6" | null;
  /** Static memory fraction: SGLang: share of the memory free at start for weights + KV cache; 0 = SGLang's default for the device [fraction]. Default `0`. */
  mem_fraction_static?: number | string | null;
  /** Prefill chunk: Prefill chunk: tokens in one forward pass (vLLM max_num_batched_tokens, SGLang chunked_prefill_size, TGI max_batch_prefill_tokens); 0 = the whole prompt in one pass [tokens]. Default `0`. */
  max_num_batched_tokens?: number | string | null;
  /** Max concurrent sequences: vLLM: sequences scheduled at once (the sampler rows of the profiling run); 0 = none counted [sequences]. Default `0`. */
  max_num_seqs?: number | string | null;
  /** KV block size: KV-cache page: tokens per block (vLLM 16; TGI 1 with flashinfer, 256 with flashdecoding) [tokens]. Default `16`. */
  block_size?: number | string | null;
  /** CUDA graph memory: Memory of captured CUDA graphs inside the engine's budget (vLLM >= 0.21 subtracts its estimate); 0 = eager [bytes]. Default `0`. */
  cuda_graph_memory?: number | string | null;
  /** Non-torch memory: Memory allocated outside PyTorch after start (NCCL, cuBLAS workspaces), inside the engine's budget [bytes]. Default `0`. */
  non_torch_memory?: number | string | null;
  /** Micro-batch (n_ubatch): llama.cpp physical batch (-ub): the compute buffer scales with it [tokens]. Default `512`. */
  n_ubatch?: number | string | null;
  /** Logical batch (n_batch): llama.cpp logical batch (-b); the physical batch is at most this [tokens]. Default `2048`. */
  n_batch?: number | string | null;
  /** GPU layers (-ngl): llama.cpp -ngl: repeating layers on the GPU; above num_hidden_layers the output layer goes there too [layers]. Default `999`. */
  n_gpu_layers?: number | string | null;
  /** MoE experts on the CPU (--n-cpu-moe): llama.cpp --n-cpu-moe: the routed experts of the first N layers stay in host memory (attention, shared weights on the GPU) [layers]. Default `0`. */
  n_cpu_moe?: number | string | null;
  /** K cache type: llama.cpp K-cache type (-ctk); for llamacpp and ollama, batch is the number of parallel slots (-np). Default `f16`. */
  cache_type_k?: "f16" | "bf16" | "f32" | "q8_0" | "q5_1" | "q5_0" | "q4_1" | "q4_0" | "iq4_nl" | null;
  /** V cache type: llama.cpp V-cache type (-ctv); a quantized V cache needs flash attention. Default `f16`. */
  cache_type_v?: "f16" | "bf16" | "f32" | "q8_0" | "q5_1" | "q5_0" | "q4_1" | "q4_0" | "iq4_nl" | null;
  /** Batch: Micro-batch per device [sequences]. Default `1`. */
  batch?: number | string | null;
  /** Context length: Tokens per sequence; for inference, the context held in the KV cache [tokens]. Default `2048`. */
  seq?: number | string | null;
  /** Encoder length: Encoder-decoder: tokens of the encoder input per sequence (seq is the decoder's); 0 = seq [tokens]. Default `0`. */
  encoder_seq?: number | string | null;
  /** Gradient accumulation: Gradient accumulation steps: raises the effective batch, not activation memory [micro-batches]. Default `1`. */
  grad_accum?: number | string | null;
  /** Training method: Full training, LoRA adapters on a frozen base, or QLoRA (NF4 base + LoRA). Default `full`. */
  finetune?: "full" | "lora" | "qlora" | null;
  /** LoRA rank: LoRA rank r. Default `16`. */
  lora_rank?: number | string | null;
  /** LoRA target modules: Comma-separated PEFT module names (q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj) or all-linear. Default `q_proj,v_proj`. */
  lora_targets?: string | null;
  /** Trainable parameters: For full training: trainable count (1e9) or fraction (0.1); 1 = all [parameters]. Default `1`. */
  trainable_params?: number | string | null;
  /** Weights format: Storage format of the weights. Unset, each run's own, bf16 only where nothing sets one: training the framework's (HF Trainer fp32, DeepSpeed / FSDP / axolotl / torchtitan bf16, QLoRA nf4); inference on vLLM, SGLang, TGI or transformers the checkpoint as shipped (bf16, or the preset's FP8 / MXFP4); on llama.cpp and Ollama q4_k_m, the GGUF their registries serve (gpt-oss keeps mxfp4). Default `bf16`. */
  weights_dtype?: "fp32" | "bf16" | "fp16" | "fp8" | "int8" | "int4" | "nf4" | "q8_0" | "q6_k" | "q5_k_m" | "q4_k_m" | "q4_0" | "q3_k_m" | "q2_k" | "q5_k_s" | "q4_k_s" | "q3_k_s" | "q3_k_l" | "iq4_xs" | "iq4_nl" | "iq3_s" | "iq3_xxs" | "iq2_s" | "iq2_xs" | "iq2_xxs" | "iq1_m" | "iq1_s" | "gptq" | "awq" | "w4a16" | "fp8_block" | "mxfp4" | null;
  /** Double quantisation: NF4 double quantisation of the block scales (QLoRA). Default `off`. */
  double_quant?: FlagValue | null;
  /** Quantisation bits: Bits per weight of a gptq, awq or w4a16 checkpoint (quantization_config bits) [bits]. Default `4`. */
  quant_bits?: number | string | null;
  /** Quantisation group size: Weights sharing one scale (gptq, awq, w4a16 group_size) or the edge of an fp8_block block; 0 = one per column (GPTQ group_size -1) or one per tensor (FP8) [weights]. Default `128`. */
  quant_group_size?: number | string | null;
  /** 16-bit layers: Layers a quantised checkpoint keeps 16-bit whole (0-based, comma-separated: 4,5,11; its quantization_config's ignored_layers, ignore or exclude_modules); empty = every layer quantised [layers]. Default empty. */
  quant_skip_layers?: string | null;
  /** Gradient precision: Gradient storage; auto = the trainable weights' dtype. Default `auto`. */
  grads_dtype?: "auto" | "fp32" | "bf16" | "fp16" | null;
  /** Optimizer: Optimizer, which sets the number of states kept per trainable parameter. Default `adamw`. */
  optimizer?: "adamw" | "adamw_8bit" | "sgd" | "sgd_momentum" | "lion" | "adafactor" | null;
  /** Optimizer state precision: Storage of the optimizer states (adamw_8bit ignores it). Default `fp32`. */
  optimizer_dtype?: "fp32" | "bf16" | "fp16" | null;
  /** fp32 master weights: Keep an fp32 master copy of 16-bit trainable weights (mixed precision). Default `on`. */
  master_weights?: FlagValue | null;
  /** Attention kernel: Attention kernel: standard (Korthikanti et al., 16-bit softmax saved), eager (PyTorch, fp32 softmax, K/V repeated for GQA), sdpa (K/V repeated) or flash (no seq^2 term); sdpa_gqa: SDPA with enable_gqa (transformers without a padding mask), K/V kept at their own width. Default `standard`. */
  attention?: "standard" | "eager" | "sdpa" | "flash" | "sdpa_gqa" | null;
  /** Norms in fp32: Norms save an fp32 copy of their input (Hugging Face's eager RMSNorm does; fused kernels do not). Default `off`. */
  norm_upcast?: FlagValue | null;
  /** Activation checkpointing: Activation checkpointing: none, selective (recompute attention scores), full (keep layer inputs only). Default `none`. */
  recompute?: "none" | "selective" | "full" | null;
  /** Selective AC option: torchtitan's selective checkpointing with recompute = selective: op (its op-level policy) or a whole number N (layer-level: every Nth block checkpointed whole, the others keep everything; 0 = every block). Default `op`. */
  selective_ac_option?: string | null;
  /** Fused cross-entropy: Fused / chunked cross-entropy (Liger, Cut Cross-Entropy): the full logits are never materialised. Default `off`. */
  fused_ce?: FlagValue | null;
  /** KV cache precision: KV-cache storage; auto = the activation dtype. Runtimes' names read too: f16, f32 (llama.cpp), fp8_e4m3, fp8_e5m2 (vLLM, SGLang). The llama.cpp types (q8_0 ... iq4_nl) are llama.cpp's and Ollama's only: there they set cache_type_k and cache_type_v left at f16. Default `auto`. */
  kv_dtype?: "auto" | "fp32" | "bf16" | "fp16" | "fp8" | "int8" | "int4" | "q8_0" | "q5_1" | "q5_0" | "q4_1" | "q4_0" | "iq4_nl" | null;
  /** Recurrent state precision: Recurrent state of linear-attention, Mamba and conv layers; auto = the runtime's default (docs/methodology.md). Default `auto`. */
  state_dtype?: "auto" | "fp32" | "bf16" | "fp16" | null;
  /** Devices: Total devices (data x tensor x pipeline) [devices]. Default `1`. */
  devices?: number | string | null;
  /** ZeRO stage: ZeRO stage over the data-parallel devices: 1 optimizer, 2 + gradients, 3 (FSDP) + parameters, which an evaluation keeps sharded too [stage]. Default `0`. */
  zero?: number | string | null;
  /** Tensor parallel: Tensor-parallel degree (Megatron-style) [devices]. Default `1`. */
  tp?: number | string | null;
  /** Sequence parallel: With tp > 1, shard norms, dropouts and layer inputs over the sequence too (Megatron --sequence-parallel); off keeps them whole on every tensor-parallel rank. Default `on`. */
  sequence_parallel?: FlagValue | null;
  /** Pipeline stages: Pipeline-parallel stages (1F1B schedule) [stages]. Default `1`. */
  pp?: number | string | null;
  /** Context parallel: Context-parallel degree (training): each device holds seq / cp tokens of every sequence (DeepSpeed Ulysses sequence_parallel_size, Megatron --context-parallel-size); devices = data x tensor x pipeline x context [devices]. Default `1`. */
  cp?: number | string | null;
  /** Expert parallel: Expert-parallel degree (MoE): the routed experts are split over ep of the data-parallel devices (each holds num_experts / ep); ZeRO shards the experts' state over the dp / ep expert-data-parallel devices [devices]. Default `1`. */
  ep?: number | string | null;
  /** CPU offload: Move optimizer state (and parameters, ZeRO-3) to CPU RAM. Default `none`. */
  offload?: "none" | "optimizer" | "optimizer+params" | null;
  /** ZeRO-3 prefetch bucket: DeepSpeed ZeRO-3 (framework deepspeed): parameters gathered ahead of the module being computed; 0 = auto as the HF Trainer fills it (0.9 x hidden^2; DeepSpeed's own default 5e7) [parameters]. Default `0`. */
  stage3_prefetch_bucket_size?: number | string | null;
  /** ZeRO-3 max live parameters: DeepSpeed ZeRO-3 (framework deepspeed): most parameters gathered at once; caps the prefetch (DeepSpeed's default 1e9) [parameters]. Default `1e9`. */
  stage3_max_live_parameters?: number | string | null;
  /** ZeRO-3 persistence threshold: DeepSpeed ZeRO-3 (framework deepspeed): parameters smaller than this stay gathered on every device; 0 = auto as the HF Trainer fills it (10 x hidden; DeepSpeed's own default 1e5) [parameters]. Default `0`. */
  stage3_param_persistence_threshold?: number | string | null;
  /** GPU: GPU preset id (sets gpu_memory); empty = use gpu_memory. Default empty. */
  gpu?: string | null;
  /** Memory per device: Memory of one device (80GB, 80GiB or bytes) [bytes]. Default `80GB`. */
  gpu_memory?: number | string | null;
  /** Host RAM: Host (CPU) RAM for what is offloaded (llama.cpp's CPU layers, ZeRO-Offload, FSDP CPU offload); on a unified-memory machine the share the OS leaves; 0 = not checked [bytes]. Default `0`. */
  host_ram?: number | string | null;
  /** Overhead model: Runtime overhead: none, factor (weights x overhead_factor, seed 2's rule), or detailed items. Default `detailed`. */
  overhead?: "none" | "factor" | "detailed" | null;
  /** Overhead factor: Multiplier on the weights for overhead = factor [x weights]. Default `1.2`. */
  overhead_factor?: number | string | null;
  /** CUDA context: CUDA context and framework kernels, held before the model loads (peers use 650 MB to 1 GiB) [bytes]. Default `1GiB`. */
  cuda_context?: number | string | null;
  /** Fragmentation: Allocator fragmentation reserve, as a percentage of the allocated buckets [%]. Default `5`. */
  fragmentation?: number | string | null;
  /** Units: Display units: decimal GB (1e9) or GiB (2^30). Default `GB`. */
  units?: "GB" | "GiB" | null;
}

/** Every setting as the core writes it back (`resolve`, `Estimate.settings`): choices as the table spells them, flags
 * as on or off, numbers as text. A `Partial` of it is a set of changes (`Knob.delta`). */
export interface ResolvedSettings {
  model: string;
  params: string;
  hidden_size: string;
  num_hidden_layers: string;
  num_attention_heads: string;
  num_key_value_heads: string;
  head_dim: string;
  intermediate_size: string;
  vocab_size: string;
  tie_word_embeddings: "on" | "off";
  max_position_embeddings: string;
  position_embedding: "rope" | "learned" | "none";
  norm: "layernorm" | "rmsnorm";
  norms_per_layer: string;
  mlp: "plain" | "gated";
  attention_bias: "none" | "qkv" | "all";
  mlp_bias: "on" | "off";
  qk_norm: "none" | "head" | "full";
  dropout: "on" | "off";
  sliding_window: string;
  sliding_window_pattern: string;
  attention_chunk_size: string;
  layer_types: string;
  attention_output_gate: "on" | "off";
  linear_num_value_heads: string;
  linear_num_key_heads: string;
  linear_key_head_dim: string;
  linear_value_head_dim: string;
  linear_conv_kernel_dim: string;
  mamba_num_heads: string;
  mamba_head_dim: string;
  mamba_d_state: string;
  mamba_n_groups: string;
  mamba_d_conv: string;
  mamba_conv_bias: "on" | "off";
  mamba_proj_bias: "on" | "off";
  mamba_norm: "on" | "off";
  mamba_d_inner: string;
  mamba_dt_rank: string;
  conv_l_cache: string;
  conv_bias: "on" | "off";
  num_experts: string;
  num_experts_per_tok: string;
  moe_intermediate_size: string;
  n_shared_experts: string;
  shared_expert_intermediate_size: string;
  moe_latent_size: string;
  first_k_dense_replace: string;
  router_bias: "on" | "off";
  shared_expert_gate: "on" | "off";
  q_lora_rank: string;
  kv_lora_rank: string;
  qk_nope_head_dim: string;
  qk_rope_head_dim: string;
  v_head_dim: string;
  index_n_heads: string;
  index_head_dim: string;
  lm_head_bias: "on" | "off";
  embedding_norm: "on" | "off";
  attention_sinks: "on" | "off";
  num_kv_shared_layers: string;
  global_head_dim: string;
  num_global_key_value_heads: string;
  moe_layer_step: string;
  num_nextn_predict_layers: string;
  mtp_own_embedding: "on" | "off";
  vision_params: string;
  architecture: "decoder" | "encoder" | "encoder_decoder";
  encoder_layers: string;
  extra_params: string;
  model_notes: string;
  model_type: string;
  num_labels: string;
  embedding_size: string;
  num_hidden_groups: string;
  mode: "train" | "inference" | "eval";
  eval_grad: "on" | "off";
  framework: "generic" | "hf" | "deepspeed" | "fsdp" | "torchtune" | "litgpt" | "megatron" | "unsloth" | "torchtitan" | "llamafactory" | "axolotl";
  unsloth_version: "2025.8" | "2024.4" | "2024.1";
  torchtitan_version: "0.1" | "0.0";
  grad_lifetime: "freed" | "resident";
  optimizer_in_backward: "on" | "off";
  optimizer_impl: "fused" | "foreach" | "paged";
  loss_impl: "hf" | "hf_legacy" | "trl_chunked" | "torchtune_chunked" | "torchtune_compiled" | "litgpt" | "megatron" | "unsloth" | "fused" | "torchtune_legacy" | "compiled";
  compile: "auto" | "on" | "off";
  transformers_version: "4.54" | "4.46" | "4.36" | "4.35";
  autocast: "off" | "bf16" | "fp16";
  input_copies: "shared" | "per_linear";
  adapter_dtype: "auto" | "fp32" | "bf16" | "fp16";
  lora_dropout: string;
  qlora_upcast: "on" | "off";
  bnb_version: "current" | "before_0.43.2";
  activation_offload: "none" | "prefetched" | "full";
  allocator_reserve: string;
  runtime: "auto" | "transformers" | "vllm" | "sglang" | "tgi" | "llamacpp" | "ollama";
  gpu_memory_utilization: string;
  tgi_version: "3.3" | "3.1" | "3.0" | "2.4" | "1.4.1" | "1.0";
  vllm_version: "0.21" | "0.17" | "0.11" | "0.6";
  mem_fraction_static: string;
  max_num_batched_tokens: string;
  max_num_seqs: string;
  block_size: string;
  cuda_graph_memory: string;
  non_torch_memory: string;
  n_ubatch: string;
  n_batch: string;
  n_gpu_layers: string;
  n_cpu_moe: string;
  cache_type_k: "f16" | "bf16" | "f32" | "q8_0" | "q5_1" | "q5_0" | "q4_1" | "q4_0" | "iq4_nl";
  cache_type_v: "f16" | "bf16" | "f32" | "q8_0" | "q5_1" | "q5_0" | "q4_1" | "q4_0" | "iq4_nl";
  batch: string;
  seq: string;
  encoder_seq: string;
  grad_accum: string;
  finetune: "full" | "lora" | "qlora";
  lora_rank: string;
  lora_targets: string;
  trainable_params: string;
  weights_dtype: "fp32" | "bf16" | "fp16" | "fp8" | "int8" | "int4" | "nf4" | "q8_0" | "q6_k" | "q5_k_m" | "q4_k_m" | "q4_0" | "q3_k_m" | "q2_k" | "q5_k_s" | "q4_k_s" | "q3_k_s" | "q3_k_l" | "iq4_xs" | "iq4_nl" | "iq3_s" | "iq3_xxs" | "iq2_s" | "iq2_xs" | "iq2_xxs" | "iq1_m" | "iq1_s" | "gptq" | "awq" | "w4a16" | "fp8_block" | "mxfp4";
  double_quant: "on" | "off";
  quant_bits: string;
  quant_group_size: string;
  quant_skip_layers: string;
  grads_dtype: "auto" | "fp32" | "bf16" | "fp16";
  optimizer: "adamw" | "adamw_8bit" | "sgd" | "sgd_momentum" | "lion" | "adafactor";
  optimizer_dtype: "fp32" | "bf16" | "fp16";
  master_weights: "on" | "off";
  attention: "standard" | "eager" | "sdpa" | "flash" | "sdpa_gqa";
  norm_upcast: "on" | "off";
  recompute: "none" | "selective" | "full";
  selective_ac_option: string;
  fused_ce: "on" | "off";
  kv_dtype: "auto" | "fp32" | "bf16" | "fp16" | "fp8" | "int8" | "int4" | "q8_0" | "q5_1" | "q5_0" | "q4_1" | "q4_0" | "iq4_nl";
  state_dtype: "auto" | "fp32" | "bf16" | "fp16";
  devices: string;
  zero: string;
  tp: string;
  sequence_parallel: "on" | "off";
  pp: string;
  cp: string;
  ep: string;
  offload: "none" | "optimizer" | "optimizer+params";
  stage3_prefetch_bucket_size: string;
  stage3_max_live_parameters: string;
  stage3_param_persistence_threshold: string;
  gpu: string;
  gpu_memory: string;
  host_ram: string;
  overhead: "none" | "factor" | "detailed";
  overhead_factor: string;
  cuda_context: string;
  fragmentation: string;
  units: "GB" | "GiB";
}
// settings:end

/**
 * One problem with the input: the one error shape of the API, the page and the widget (docs/embedding.md,
 * "Errors: one shape"; the widget's notes, LlmMemoryProblem in widget.d.ts, are the same object).
 */
export interface SettingError {
  /**
   * The settings key it concerns, or what stands in for one: "config.json", "settings", "config", "axes",
   * "checkpoint", "models", "calculator" (the core could not answer).
   */
  setting: string;
  /** What is wrong and what is accepted, e.g. `must be an integer from 1 to 10000000, got "0"`. */
  message: string;
}

/** Invalid input: never an exception, always this value. */
export interface Failure {
  ok: false;
  /** Every problem found, at least one. */
  errors: SettingError[];
}

/** One line inside a bucket. */
export interface Item {
  /** e.g. "fp32 master weights". */
  name: string;
  /** Bytes per device. */
  bytes: number;
  /** How it was computed, with the numbers used. */
  formula: string;
}

export type BucketKey = "parameters" | "gradients" | "optimizer" | "activations" | "kv_cache" | "overhead";

/** One bucket of device memory. */
export interface Bucket {
  key: BucketKey;
  /** Display name. */
  label: string;
  /** Bytes per device: the sum of the items. */
  bytes: number;
  /** What the bucket covers. */
  includes: string;
  /** What it assumes, and what it leaves out. */
  assumes: string;
  items: Item[];
}

/** Parameters of one transformer layer, by component (parameters). */
export interface LayerParams {
  /** q/k/v/o (or MLA) weights and biases, and q/k norms. */
  attention: number;
  /** Dense MLP, or routed + shared experts. */
  mlp: number;
  /** Per-layer norms. */
  norms: number;
  /** MoE gate; present only for MoE layers. */
  router?: number;
  /** Sum of the above. */
  total: number;
}

/** Exact parameter count of the architecture (parameters). */
export interface ParamBreakdown {
  /** Token (+ learned position) embeddings. */
  embedding: number;
  /** Output projection; 0 when tied to the embedding. */
  lm_head: number;
  /** Norm after the last layer. */
  final_norm: number;
  /** Number of dense layers (layers). */
  dense_layers: number;
  dense_layer: LayerParams;
  /** Number of MoE layers (layers); present only for MoE models. */
  moe_layers?: number;
  moe_layer?: LayerParams;
  /** Layers of an encoder-decoder's encoder stack (layers; dense_layer is then a decoder layer); present only then. */
  encoder_layers?: number;
  encoder_layer?: LayerParams;
  /** Parameters the other fields do not describe (the extra_params setting); present only when above 0. */
  extra?: number;
  /** All parameters. */
  total: number;
  /** Parameters used per token (MoE: shared + top-k experts). */
  active: number;
}

/** One phase of a training step (or "inference") and what is allocated in it. */
export interface PhaseBytes {
  /** "sum" (framework generic), "forward_end", "backward_start", "recompute", "backward_end", "optimizer_step", "inference". */
  phase: string;
  /** Tensors alive in the phase (bytes per device). */
  allocated: number;
}

/** The peak as the framework measures it (bytes per device). */
export interface Peak {
  /** Tensors alive at the peak: torch.cuda.max_memory_allocated(). */
  allocated: number;
  /** allocated + the caching allocator's reserve: max_memory_reserved(). */
  reserved: number;
  /** reserved + CUDA context and memory outside PyTorch: what nvidia-smi shows; equals bytes.total. */
  device: number;
  /** The phase at the peak (a PhaseBytes phase). */
  phase: string;
  /** Which of the three the framework's own log prints. */
  printed: "allocated" | "reserved" | "device";
  /** Every phase of the reported stage, in step order. */
  phases: PhaseBytes[];
}

/**
 * Inference: the runtime's own terms (docs/methodology.md, "Inference runtimes"). vLLM, SGLang and TGI: a budget
 * with its KV capacity; llama.cpp and Ollama: its buffers. Only `name` for the others (transformers), or when the
 * runtime has no budget.
 */
export interface RuntimeReport {
  /** The resolved runtime. */
  name: "transformers" | "vllm" | "sglang" | "tgi" | "llamacpp" | "ollama";
  /** What the engine may use for weights and KV cache (bytes per device; vLLM, SGLang, TGI). */
  budget?: number;
  /** What the budget holds before the KV cache. */
  items?: Item[];
  /** Left for the KV cache (bytes per device), never negative. */
  kv_available?: number;
  /** Tokens the KV cache holds for the instance, as the runtime logs them; 0 when it logs none (tokens). */
  kv_capacity_tokens?: number;
  /** SGLang, attention-only models: its KV pool's K + V buffers, (kv_capacity_tokens + page_size) tokens (bytes per device). */
  kv_pool?: number;
  /** Requests of `seq` tokens the KV cache holds at once (requests; fractional, as vLLM logs it). */
  max_concurrency?: number;
  /** Longest context one request may have (tokens; vLLM's maximum model length; llama.cpp: n_ctx per sequence). */
  max_context?: number;
  /** llama.cpp / Ollama: the buffers its log prints (bytes). */
  buffers?: {
    /** Weights on the first device ("CUDA0 model buffer"). */
    model: number;
    /** Weights in host memory (token_embd, layers not offloaded). */
    host: number;
    /** KV cache on the device. */
    kv: number;
    /** The device's compute buffer. */
    compute: number;
    /** The host's compute buffer. */
    host_compute: number;
  };
  /** llama.cpp / Ollama: KV cells allocated, n_ctx padded (tokens). */
  kv_cells?: number;
}

/** The estimate: exactly what `llm-memory --json` prints for the same settings. */
/** Tokens per second that memory bandwidth (and dense FLOPs for prefill) allow: an upper bound, never a measurement. */
export interface SpeedBound {
  /** Always true: every byte read once at the device's peak bandwidth. */
  upper_bound: true;
  /** Bytes read from device memory per decoded token (active weights + the KV read) [B]. */
  device_bytes_per_token: number;
  /** Bytes read over the host link per decoded token (offloaded layers) [B]. */
  host_bytes_per_token: number;
  /** Decode speed of one sequence [tokens/s]. */
  decode_tokens_per_s: number;
  /** Decode speed of the whole batch [tokens/s]. */
  batch_tokens_per_s: number;
  /** Prefill bounded by dense bf16 FLOPs; 0 when the device has no published figure [tokens/s]. */
  prefill_tokens_per_s: number;
  /** The formula with its figures, in words. */
  formula: string;
}

export interface Estimate {
  ok: true;
  /** The project's version, e.g. "0.1.0" (`llm-memory --version`). */
  version: string;
  /**
   * The shape of this object: raised when a field is removed or changes its meaning or unit, never when one is
   * added (docs/wasm.md, "Versions"). 1 since version 0.1.0.
   */
  schema_version: number;
  /** Total parameters (the `params` override when given). */
  params: number;
  /** Parameters that get gradients and optimizer state. */
  trainable_params: number;
  /** Bytes per device, by bucket, and their total. */
  bytes: Record<BucketKey | "total", number>;
  /** Host RAM for offloaded state, per device's share (bytes). */
  cpu_bytes: number;
  /** Total devices (devices). */
  devices: number;
  /** Data-parallel degree: devices / (tp x pp) (devices). */
  data_parallel: number;
  /** batch x grad_accum x data_parallel (sequences per optimizer step). */
  effective_batch: number;
  /** Which pipeline stage is reported: "only" (pp = 1), else the most loaded of "first" and "last". */
  stage: "only" | "first" | "last";
  /** bytes.total <= gpu_memory. */
  fits: boolean;
  /** Capacity of one device (bytes). */
  gpu_memory: number;
  /** Every bucket, in BucketKey order, each present (possibly 0 bytes). */
  buckets: Bucket[];
  /** The peak over the phases of a step, as the framework measures it. */
  peak: Peak;
  param_breakdown: ParamBreakdown;
  /** Assumptions applied and settings that were ignored. */
  notes: string[];
  /** Every resolved setting as text (defaults, preset and explicit values merged): a full, shareable state. */
  settings: ResolvedSettings;
  /** Inference only: the runtime's own terms. */
  runtime?: RuntimeReport;
  /** Only when host_ram is set: whether what the run offloads (llama.cpp's CPU layers, ZeRO-Offload states) fits in it. */
  fits_in_ram?: boolean;
  /** When the GPU is a catalogue preset: the speed the memory allows, an upper bound (docs/methodology.md "Speed bound"). */
  speed?: SpeedBound;
  /** The CLI's --solve (the Solve object without ok). */
  solve?: Omit<Solve, "ok">;
  /** The CLI's --advise (the Advice object without ok). */
  advice?: Omit<Advice, "ok">;
  /** The CLI's --ways-out: {fits, ways} (WaysOut without ok, solve and advice). */
  ways_out?: Pick<WaysOut, "fits" | "ways">;
  /** The CLI's --safetensors / --gguf: the checkpoint headers' totals. */
  checkpoint?: CheckpointRead["checkpoint"];
  /** The CLI's --from: what the launch command gave. */
  from?: LaunchRead;
}

/** How one bucket changes under a knob (bytes per device). */
export interface BucketChange {
  bucket: BucketKey;
  before: number;
  after: number;
  /** before - after; negative when the knob adds memory. */
  saved: number;
}

/** One knob moved one step and re-estimated. */
export interface Knob {
  /** Stable identifier, e.g. "zero", "recompute". */
  id: string;
  /** For people, e.g. "ZeRO stage 1 -> 2". */
  name: string;
  /** Settings to merge over the current ones to apply the knob. */
  delta: Partial<ResolvedSettings>;
  /** Bucket with the largest decrease ("" when none decreased). */
  drains: BucketKey | "";
  /** Buckets whose bytes changed. */
  changes: BucketChange[];
  /** Per-device total with the knob applied (bytes). */
  total: number;
  /** Total now - total with the knob (bytes; negative = costs memory). */
  saved: number;
  /** -saved: what the knob costs (bytes; positive = adds memory, shown as "costs +X"). */
  added: number;
  /** Throughput cost tier, 0 (none or faster) to 3 (large), docs/solve-and-advise.md. */
  tier: number;
  /** Host RAM for offloaded state with the knob applied (bytes). */
  cpu_bytes: number;
  /** The total with the knob applied fits one device. */
  fits: boolean;
  /** What else the step changes or assumes ("" when nothing). */
  note: string;
}

/** The knob diagnosis: the object `llm-memory --json --advise` prints under "advice", plus ok. */
export interface Advice {
  ok: true;
  /** Per-device total now (bytes). */
  total: number;
  /** Capacity of one device (bytes). */
  gpu_memory: number;
  /** The setting fits now. */
  fits: boolean;
  /** The bucket holding the most bytes now. */
  largest_bucket: BucketKey;
  /** Same hardware first, each group by bytes saved, largest first. */
  knobs: Knob[];
  /** Knobs left out: they changed nothing, or gave invalid settings. */
  skipped: { name: string; reason: string }[];
  /** The cheapest combination of knobs that fits; null when the setting fits already. */
  cheapest: KnobCombination | null;
}

/** The fewest knobs, then the lowest sum of tiers, then the smallest total; same hardware searched first. */
export interface KnobCombination {
  /** A combination of at most max_knobs fits. */
  found: boolean;
  /** Its knobs' ids, in knob-table order. */
  knobs: string[];
  /** Its knobs' names. */
  names: string[];
  /** Settings to merge over the current ones to apply every knob of it. */
  delta: Partial<ResolvedSettings>;
  /** Per-device total with the combination applied (bytes). */
  total: number;
  /** Host RAM with the combination applied (bytes). */
  cpu_bytes: number;
  /** Sum of the knobs' throughput tiers. */
  cost: number;
  /** Found without adding devices. */
  same_hardware: boolean;
  /** The largest combination searched (knobs). */
  max_knobs: number;
  /** Combinations estimated. */
  evaluated: number;
}

/** One solver answer: the varied setting(s) at the fit boundary, everything else held. */
export interface SolveAnswer {
  /** Some value within the searched range fits. */
  found: boolean;
  /** Devices (min_devices), sequences (max_batch) or tokens (max_seq) at the boundary; 0 when !found. */
  value: number;
  /** Largest value searched (same unit as value). */
  limit: number;
  /** value == limit and it fits: the true maximum may be larger. */
  at_limit: boolean;
  /** Settings keys the search changed. */
  varied: string[];
  /** Per-device total at `value` (bytes); 0 when !found. */
  total: number;
  /** Settings that apply the answer (empty when !found). */
  delta: Partial<ResolvedSettings>;
  /** One line for people, e.g. "largest micro-batch that fits: 3". */
  message: string;
}

/** The solver: the object `llm-memory --json --solve` prints under "solve", plus ok. */
export interface Solve {
  ok: true;
  /** The current setting fits one device. */
  fits: boolean;
  /** Per-device total of the current setting (bytes). */
  total: number;
  /** Capacity of one device (bytes). */
  gpu_memory: number;
  /** gpu_memory - total (bytes); negative when it does not fit. */
  headroom: number;
  /** Smallest device count that fits, for the chosen ZeRO stage. */
  min_devices: SolveAnswer;
  /** Largest micro-batch that fits (0 when batch 1 does not). */
  max_batch: SolveAnswer;
  /** Longest sequence (inference: context) that fits (0 when 1 does not). */
  max_seq: SolveAnswer;
}

/** One of the nearest ways out of a "does not fit" (`llm-memory --ways-out --json`, under "ways_out"). */
export interface WayOut {
  /** Which kind of change (docs/solve-and-advise.md, "Ways out"). */
  way: "split" | "devices" | "combination" | "knob" | "weights" | "context" | "batch" | "gpu";
  /**
   * The group, listed in this order: "own" (the user's own devices and stack: another split of them, the knobs
   * their framework or runtime reads, a weights format it runs, a shorter context or batch), "more" (more of the
   * same device), "other" (another device the stack runs on).
   */
  group: "own" | "more" | "other";
  /** For people, e.g. "4 × NVIDIA H100 80GB SXM with ZeRO-3", "sequences of 1,024 tokens (from 4,096)". */
  text: string;
  /** Per-device total with the change applied (bytes). */
  total: number;
  /** The settings fit one device with the change applied (a weights format or a knob may only come nearer). */
  fits: boolean;
  /** Settings to merge over the current ones to apply the change; null drops a setting (back to its default). */
  delta: Record<string, string | null>;
  /** What else the change assumes (a knob's note; "" when nothing). */
  note: string;
}

/**
 * The nearest ways out (docs/solve-and-advise.md, "Ways out"), with the solver's and the knob search's answers
 * they were found from (as solve() and advise() return them), plus ok.
 */
export interface WaysOut {
  ok: true;
  /** The settings fit already: no ways out are searched. */
  fits: boolean;
  /** At most one of each kind, in the order devices, gpu, weights, context, batch, knob; empty when none. */
  ways: WayOut[];
  solve: Solve;
  advice: Advice;
}

/** One GPU preset's answer for the current settings (`llm-memory --gpus --json`, one row). */
export interface GpuFitRow {
  /** GPU preset id, e.g. "h100-80gb". */
  id: string;
  /** e.g. "NVIDIA H100 80GB SXM". */
  name: string;
  /** Usable memory of one device (bytes). */
  memory: number;
  /** The current device count (the devices setting). */
  devices: number;
  /** The current settings fit on `devices` of this GPU. */
  fits: boolean;
  /** Per-device total at the current device count (bytes). */
  total: number;
  /** Devices needed on this GPU: the solver's min_devices answer, the parallel split in its delta. */
  needed: SolveAnswer;
  /** memory - per-device total at needed.value devices (bytes); 0 when !needed.found. */
  headroom: number;
}

/** Which GPUs fit: every GPU preset, in the catalogue's order, plus ok. */
export interface GpuFit {
  ok: true;
  gpus: GpuFitRow[];
}

/**
 * What runs on my machine: the machine, the task and the filters (`llm-memory fits`'s flags, "-" as "_"). Values
 * as the settings read them: "64GB", "8B", "128K".
 */
export interface FitsRequest {
  /** GPU preset id or alias, e.g. "rtx-4090" (required). */
  gpu: string;
  /** Devices of that GPU; default "1". */
  devices?: string;
  /** Host RAM for layers left on the CPU (llama.cpp -ngl), e.g. "64GB"; default none. */
  ram?: string;
  /** What runs; default "run". */
  task?: "run" | "lora" | "qlora" | "full";
  /** The context (training: the sequence) each answer must hold (tokens); default "8192". */
  seq?: string;
  /** Keep models whose id or name contains it (any case). */
  family?: string;
  /** Keep models with at least / at most this many parameters, e.g. "7B". */
  min_params?: string;
  max_params?: string;
  /** MoE models only, dense only, or both (default). */
  moe?: "any" | "only" | "none";
  /** Order of the fitting rows; default "size". */
  sort?: "size" | "context" | "speed";
}

/** One model's answer on the machine. */
export interface FitsRow {
  /** Model preset id. */
  model: string;
  name: string;
  /** Total parameters. */
  params: number;
  /** Parameters a token uses (MoE: fewer than params). */
  active_params: number;
  moe: boolean;
  /** Some format fits at the requested seq; the fields below are empty / 0 when not. */
  fits: boolean;
  /** weights_dtype of the best format that fits (training: the base's). */
  format: string;
  /** Runtime (inference) or framework (training). */
  runtime: string;
  /** Longest context (training: sequence) at that format (tokens). */
  max_context: number;
  /** Layers on the GPU (llama.cpp -ngl). */
  gpu_layers: number;
  /** Layers left in host memory / layers (0..1). */
  offloaded_share: number;
  /** Layers whose routed experts stay in host RAM (llama.cpp --n-cpu-moe); 0: none. */
  n_cpu_moe: number;
  /** Host RAM the run uses (bytes). */
  host: number;
  /** Per-device memory at seq (bytes). */
  total: number;
  /** Decode speed bound of one sequence, an upper bound (tokens/s); 0 for training. */
  decode_tokens_per_s: number;
  /** The settings that open this answer's full estimate. */
  delta: Record<string, string>;
}

/** The ranking: fitting rows first, in the requested order. */
export interface Fits {
  ok: true;
  /** The GPU preset's display name. */
  gpu: string;
  /** Memory of one device (bytes). */
  memory: number;
  devices: number;
  /** Rows that fit. */
  fitting: number;
  rows: FitsRow[];
}

/** Axes of a sweep: "a" (one value), "a:b" (a, 2a, 4a, ... <= b) or "a:b:n" (n evenly spaced integers). */
export interface SweepAxes {
  /** Micro-batch axis (sequences); default "1:256". */
  batch?: string;
  /** Sequence axis (tokens); default "256:131072". */
  seq?: string;
  /** "simd" (default) or "scalar": the same numbers, for benchmarks. */
  kernel?: "simd" | "scalar";
}

/** Total memory over micro-batch x sequence (docs/sweep.md). Every array is a copy, safe to keep. */
export interface Sweep {
  ok: true;
  /** Micro-batch of each row (sequences). */
  batch: Float64Array;
  /** Sequence length of each column (tokens). */
  seq: Float64Array;
  /** Bytes per device, row-major: total[i * seq.length + j] at batch[i], seq[j]. */
  total: Float64Array;
  /** Largest micro-batch that fits gpu_memory at each seq (sequences; 0 when batch 1 does not). */
  max_batch: Float64Array;
  /** The kernel's input: bytes at batch 0, one per pipeline stage. */
  fixed: Float64Array;
  /** The kernel's input: bytes per sequence, [stage][seq column] row-major. */
  slope: Float64Array;
  /** Capacity of one device (bytes). */
  gpu_memory: number;
  /** estimate() exceeds total by at most this many bytes (it rounds each item up), and by no less than -1. */
  rounding_bound: number;
  /** The SIMD instruction set used: "wasm-simd128" in WebAssembly. */
  isa: string;
}

/** One row of the settings table (`llm-memory --schema`). */
export interface SettingSchema {
  /** CLI flag, URL query key, widget attribute and JSON key. */
  key: string;
  /** Human name the page and the widget show ("Context length"). */
  label: string;
  kind: "integer" | "number" | "count" | "bytes" | "flag" | "choice" | "text";
  /** As a user would type it. */
  default: string;
  /** Inclusive lower bound, in `unit` (numeric kinds only). */
  min?: number;
  /** Inclusive upper bound, in `unit` (numeric kinds only). */
  max?: number;
  /** Allowed values (choice kind only). */
  choices?: string[];
  /** Human names of `choices`, in the same order (choice kind only). */
  choice_labels?: string[];
  /** Unit of the value ("bytes", "tokens", "%", ... or ""). */
  unit: string;
  /** model | workload | finetune | precision | parallelism | device. */
  group: string;
  /** One line of help. */
  doc: string;
  /**
   * Rules that must all hold for the core to read the setting (the table's `applies` column; absent: always read):
   * `rule` its id ("lora_or_qlora"), `when` its words ("LoRA or QLoRA"). The page hides the field elsewhere.
   */
  applies?: { rule: string; when: string }[];
}

/** A model preset (`llm-memory --list-models --json`). */
export interface ModelPreset {
  /** Settings value for `model`: Hugging Face repo name, lower-case, no organisation. */
  id: string;
  /** Other values `model` takes for this preset: repo names of variants with the same count (instruct, chat, base). */
  aliases: string[];
  /** Display name, e.g. "Llama 2 7B". */
  name: string;
  /** e.g. "meta-llama/Llama-2-7b-hf". */
  hf_repo: string;
  /** Exact count computed from the architecture (parameters). */
  params: number;
  /** Published exact count (parameters); 0 when none is published. */
  official_params: number;
  /** Where official_params comes from. */
  source: string;
  /** Why the computed count may differ, when it does. */
  note: string;
}

/** A GPU preset (`llm-memory --list-gpus --json`; docs/devices.md). A figure not published is null. */
export interface GpuPreset {
  /** Settings value for `gpu`, e.g. "h100-80gb". */
  id: string;
  /** Other ids naming it (earlier ids such as "apple-16gb", common names such as "h100"). */
  aliases: string[];
  /** e.g. "NVIDIA H100 80GB SXM5". */
  name: string;
  /** "NVIDIA", "AMD", "Intel" or "Apple". */
  vendor: string;
  /** "data centre", "workstation", "consumer" or "unified". */
  segment: string;
  /** The stack it runs under: "cuda", "rocm", "metal", "xpu" or "gaudi". */
  backend: string;
  /** The memory an estimate compares with (bytes): PyTorch's total_memory where published, else the driver's
   *  total, else the marketed size; Apple silicon: Metal's default working set of the unified memory. */
  memory_bytes: number;
  /** Which of those memory_bytes is, in words. */
  memory_basis: string;
  /** The marketed size, vendor "GB" read as GiB (bytes). */
  marketed_bytes: number;
  /** What PyTorch reports as total_memory (bytes). */
  visible_bytes: number | null;
  /** The driver's total, nvidia-smi memory.total (bytes). */
  reported_bytes: number | null;
  /** Unified memory shared with the CPU (bytes); 0 for a discrete GPU. */
  unified_memory_bytes: number;
  /** Peak memory bandwidth (bytes/s). */
  bandwidth_bytes_per_s: number | null;
  /** Peak dense BF16 tensor throughput (FLOP/s). */
  bf16_flops: number | null;
  /** Peak dense FP8 tensor throughput (FLOP/s). */
  fp8_flops: number | null;
  /** How devices of a node talk: NVLink, PCIe, unified memory. */
  interconnect: string;
  /** Where each figure comes from. */
  source: string;
  /** What is not published and other remarks ("" when none). */
  note: string;
}

/** The API: every call is synchronous and returns fresh plain objects. */
export interface LlmMemory {
  /**
   * The estimate for `settings`. `config` (architecture settings from parseConfig) sits under the
   * explicit settings, as the CLI's --config does.
   */
  estimate(settings: Settings, config?: Settings): Estimate | Failure;
  /**
   * Every setting resolved (defaults, preset, config, `settings`) and checked as estimate() checks it, each as
   * its text (the `settings` object of an estimate), without computing the estimate; or the errors, each
   * naming its setting. One call tells whether a link is valid.
   */
  resolve(settings: Settings, config?: Settings): { ok: true; settings: ResolvedSettings } | Failure;
  /** The exact JSON text `llm-memory --json` prints (estimate() parses it). */
  estimateJson(settings: Settings, config?: Settings): string;
  /** Every applicable knob moved one step and re-estimated, by bytes saved. */
  advise(settings: Settings, config?: Settings): Advice | Failure;
  /** Devices needed, largest micro-batch and longest sequence that fit. */
  solve(settings: Settings, config?: Settings): Solve | Failure;
  /**
   * The nearest ways out of a "does not fit" (more devices with their split, another GPU, a weights format, a
   * shorter context or micro-batch, a knob), with the solve() and advise() answers they come from: one call.
   */
  waysOut(settings: Settings, config?: Settings): WaysOut | Failure;
  /** The settings on every GPU preset: fits at the current device count, devices needed (with the split), headroom. */
  gpuFit(settings: Settings, config?: Settings): GpuFit | Failure;
  /** Every model preset the core has ranked on one machine (call loadPresets() first for the whole catalogue). */
  fits(request: FitsRequest): Fits | Failure;
  /** Total memory over a micro-batch x sequence grid and the largest micro-batch per sequence. */
  sweep(settings: Settings, axes?: SweepAxes, config?: Settings): Sweep | Failure;
  /**
   * Milliseconds per run of the sweep kernel alone on an nBatch x nSeq grid, timed in wasm (benchmarks); errors
   * name nBatch, nSeq (1 to 4096 each, at most 2^20 cells), reps (1 to 1000), kernel or a setting.
   */
  sweepKernelMs(settings: Settings, nBatch: number, nSeq: number, kernel: "simd" | "scalar", reps: number): number | Failure;
  /** Why this instance stopped (an abort or a trap inside wasm; every later call throws), or null. */
  readonly retired: string | null;
  /** The settings table the forms are built from (each `doc` empty when loaded with `docs: false`). */
  settingsSchema(): SettingSchema[];
  /**
   * The settings' help texts, `{key: doc}`: at once where they are compiled in or were read at load, else read
   * beside the module now (LoadOptions.docs); empty texts where that file cannot be read (the next call reads
   * again). Rejects only when the instance has stopped (`retired`).
   */
  settingDocs(): Promise<Record<string, string>>;
  /**
   * The model presets. The module with a separate .wasm (llm-memory.js) compiles none in: it lists those
   * handed over so far, every one once the catalogue is read (load() without `presets`, or loadPresets()).
   */
  listModels(): ModelPreset[];
  /**
   * Reads model presets beside the module (dist/models/<id>.json, or without ids the whole catalogue,
   * dist/llm-memory.models.json) and hands them to the core; settings naming a preset it has not been handed
   * get "unknown model". Resolves at once for the single-file module, which carries every preset.
   */
  loadPresets(ids?: Iterable<string>): Promise<void>;
  /** Whether every model preset is in (always true for the single-file module). */
  readonly presetsComplete: boolean;
  listGpus(): GpuPreset[];
  /** A Hugging Face config.json (text, or an already parsed object) mapped onto architecture settings. */
  parseConfig(config: string | object): { ok: true; settings: Partial<ResolvedSettings> } | Failure;
  /**
   * A checkpoint header read by the CLI's readers (--safetensors, --gguf) from the file's first bytes: `kind`
   * "safetensors" (the 8-byte length, then the JSON header) or "gguf"; `fileSize` the whole file's [bytes];
   * `name` the file's name, for errors. `{ok: false, need}` asks to call again with the first `need` bytes.
   */
  readCheckpoint(kind: "safetensors" | "gguf", bytes: Uint8Array | ArrayBuffer, fileSize: number, name: string):
    CheckpointRead | { ok: false; need: number } | Failure;
  /**
   * A pasted launch command (vllm serve, llama-server, SGLang, TGI, docker run, Ollama) or Modelfile read into
   * settings (docs/readers.md); every option listed as read or ignored, errors naming the option or line.
   */
  readLaunch(text: string): LaunchRead | Failure;
  /**
   * A pasted startup log (vLLM, SGLang, llama.cpp / Ollama) read into the settings it states, laid over
   * `settings` (a log naming a model drops their architecture settings), estimated and set beside the log's
   * figures item by item, as `llm-memory --log FILE --json` and `--as-record` (docs/readers.md, "Logs").
   */
  reconcileLog(text: string, settings?: Settings, config?: Settings): LogReconciliation | Failure;
  /**
   * The page's one box: a startup log, reconciled as reconcileLog does (kind "log"), or else a launch command,
   * Modelfile or recipe, read as readLaunch does (kind "launch"); text no reader takes (binary, over 1 MiB
   * without a log's lines, over 16 MiB) is refused naming the line (docs/readers.md, "The page's box").
   */
  readPaste(text: string, settings?: Settings, config?: Settings):
    (LogReconciliation & { kind: "log" }) | (LaunchRead & { kind: "launch" }) | (Failure & { kind?: "log" | "launch" });
  /** The launch command for the resolved settings, as `llm-memory --emit FORMAT` (docs/readers.md, "Emit"). */
  emitLaunch(format: "vllm" | "sglang" | "llamacpp" | "ollama" | "deepspeed" | "accelerate" | "torchtune" | "trl", settings: Settings, config?: Settings):
    EmittedLaunch | Failure;
  /**
   * The formats that apply to the resolved run (core emit.hpp's emit_table): an inference run's runtime's command,
   * a training run's framework's config; none for evaluation or a stack no format is written for.
   */
  emitFormats(settings: Settings, config?: Settings): EmitFormats | Failure;
}

/** One item of a startup log beside the estimate (a row of `llm-memory --log FILE --json`). */
export interface LogRow {
  /** weights, host_weights, kv_memory, kv_tokens, max_concurrency, cuda_graphs, compute_buffer, ... */
  item: string;
  /** As the log names it ("Available KV cache memory"). */
  label: string;
  /** The log's line it was read from, from 1. */
  line: number;
  /** GiB, MiB, tokens or x (requests). */
  unit: string;
  /** The log's figure [unit]. */
  log: number;
  /** The estimate's figure [unit]; null where the estimate models no such term. */
  ours: number | null;
  /** ours - log [unit]; null with ours. */
  difference: number | null;
  /** Where ours comes from, as tests/validation/published.json names it. */
  quantity: string;
}

/** What reconcileLog answers. */
export interface LogReconciliation {
  ok: true;
  /** The settings estimated: the caller's, with the log's over them. */
  settings: Record<string, string>;
  log: {
    format: "vllm" | "sglang" | "llamacpp" | "tgi" | "nvidia_smi" | "torch_memory" | "torch_stats" | "torchtune" | "litgpt" | "unsloth";
    /** The settings the log states, as readLaunch reports a command's (options named "line N --option"). */
    from: LaunchRead;
    rows: LogRow[];
    /** The item whose relative difference is largest; null when none was compared. */
    largest: string | null;
  };
  /** The compared rows in the shape of tests/validation/published.json's (no tolerance yet). */
  record: object[];
}

/** What emitFormats answers. */
export interface EmitFormats {
  ok: true;
  /** What the formats were chosen by: "runtime vllm", "framework deepspeed" or "mode eval". */
  run: string;
  /** In the table's order; emitLaunch writes each. */
  formats: { format: "vllm" | "sglang" | "llamacpp" | "ollama" | "deepspeed" | "accelerate" | "torchtune" | "trl"; label: string }[];
}

/** What emitLaunch answers. */
export interface EmittedLaunch {
  ok: true;
  format: string;
  /** The command, one option per line (an Ollama Modelfile: its lines). */
  text: string;
  /** Settings the format has no option for (or not for this value). */
  not_carried: string[];
}

/** What readLaunch read (the `from` object of `llm-memory --json --from FILE`). */
export interface LaunchRead {
  ok: boolean;
  /** The command as the readers' table names it ("vllm serve", "Modelfile"). */
  command: string;
  /** Settings keys -> text, to apply under the user's own. */
  settings: Record<string, string>;
  read: { option: string; setting: string; value: string }[];
  ignored: { option: string; why: string }[];
  notes: string[];
  errors: { setting: string; message: string }[];
}

/** Tensors of one dtype in a checkpoint's headers. */
export interface CheckpointDtype {
  tensors: number;
  /** Elements of these tensors [values]. */
  params: number;
  /** Their data [bytes]. */
  bytes: number;
}

/** What readCheckpoint read (the `checkpoint` object of `llm-memory --json --safetensors/--gguf`). */
export interface CheckpointRead {
  ok: true;
  checkpoint: {
    tensors: number;
    /** Elements of every tensor [values]. */
    params: number;
    /** Tensor data, headers excluded [bytes]. */
    bytes: number;
    /** False when integer containers pack several values (then `params` is not the parameter count). */
    params_are_parameters: boolean;
    /** Per dtype as the header spells it (BF16, F32, Q4_K, ...). */
    by_dtype: Record<string, CheckpointDtype>;
  };
  /** GGUF general.architecture; "" for safetensors. */
  architecture: string;
  /** Settings the checkpoint gives, as the CLI layers them under explicit values: params, GGUF architecture fields. */
  settings: Partial<ResolvedSettings>;
}

/** Emscripten module options, e.g. `wasmBinary` (the .wasm bytes) or `locateFile`. */
export interface LoadOptions {
  /**
   * Model presets to read while the core compiles (ids); the rest on loadPresets(). Without it the whole
   * catalogue is read before load() resolves. Ignored by the single-file module (every preset inside).
   */
  presets?: Iterable<string>;
  /**
   * false: the settings' help texts (llm-memory.docs.json beside the module) are not read at load but on the
   * first settingDocs(). Ignored where they are compiled in (the single-file module).
   */
  docs?: boolean;
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, scriptDirectory: string) => string;
  [option: string]: unknown;
}

/**
 * Instantiates the WebAssembly core. Without options every caller shares one instance; with options a new one
 * is made. In node the .wasm beside the module is read from disk; in browsers it is fetched from the URL of
 * the module (the single-file variant carries it inline).
 */
export function load(options?: LoadOptions): Promise<LlmMemory>;

/** The raw Emscripten factory (bindings return JSON text); prefer load(). */
export default function llm_memory_core(options?: LoadOptions): Promise<unknown>;
