#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Measures Hugging Face models on a CUDA GPU for the comparison with llm-memory; writes measured_cuda.json.

Runs on a machine with PyTorch >= 2.0, transformers and peft (bitsandbytes and flash_attn are optional) and
needs no network and no llm-memory build: models are instantiated from config with random weights, and the
comparison with the estimate happens in tests/core/validation_cuda_test.cpp from the committed JSON.

Per configuration (see CONFIGS):
  train      two optimizer steps of mixed-precision AdamW; the second is measured. bf16 weights and gradients,
             an fp32 master copy of the trainable weights with fp32 exp_avg / exp_avg_sq (one fused AdamW per
             master tensor, so no step temporary is larger than one tensor), gradients kept between steps
             per the configuration's framework: "hf" frees them after each step (model.zero_grad(set_to_none=True),
             as the Trainer does: none alive before backward), "generic" keeps them (p.grad.zero_(), as contiguous
             gradient buffers do, the textbook sum). LoRA via peft, QLoRA via
             bitsandbytes when importable; recompute=full is Hugging Face's gradient_checkpointing_enable().
  inference  model.generate() with a dynamic KV cache: a prompt, then greedy decode steps.

Recorded, in bytes: parameters, gradients, optimizer state (exact, from the tensors), buffers, the KV cache
(exact, every tensor reachable from the returned past_key_values), torch.cuda.max_memory_allocated() and
max_memory_reserved() during the measured step above what was allocated/reserved before the model was built,
and the CUDA context (see cuda_context()). Usage: scripts/measure-cuda.sh (docs/validation.md).
"""
import argparse
import contextlib
import gc
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback

DTYPE = "bf16"  # every configuration: bf16 weights and activations

# Llama-3.2-1B as published (GQA 32/8, head_dim 64, 128k vocabulary, tied embeddings; the rope settings are left
# out: they do not change memory), random weights.
LLAMA3_1B = dict(model_type="llama", hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                 num_attention_heads=32, num_key_value_heads=8, head_dim=64, vocab_size=128256,
                 tie_word_embeddings=True, max_position_embeddings=8192, rms_norm_eps=1e-5, attention_bias=False,
                 mlp_bias=False, attention_dropout=0.0)
# Llama-2-7B widths (multi-head attention, untied 32k vocabulary) with 4 of its 32 layers.
LLAMA2_7B_L4 = dict(model_type="llama", hidden_size=4096, intermediate_size=11008, num_hidden_layers=4,
                    num_attention_heads=32, num_key_value_heads=32, head_dim=128, vocab_size=32000,
                    tie_word_embeddings=False, max_position_embeddings=4096, rms_norm_eps=1e-5,
                    attention_bias=False, mlp_bias=False, attention_dropout=0.0)
# A small Mixtral-style MoE: 8 experts, top-2, GQA, 2 layers.
MIXTRAL_SMALL = dict(model_type="mixtral", hidden_size=1024, intermediate_size=3584, num_hidden_layers=2,
                     num_attention_heads=16, num_key_value_heads=4, head_dim=64, vocab_size=32000,
                     num_local_experts=8, num_experts_per_tok=2, tie_word_embeddings=False,
                     max_position_embeddings=4096, rms_norm_eps=1e-5, attention_dropout=0.0,
                     output_router_logits=False)
# head_dim is hidden_size / heads in all three, so transformers releases that ignore head_dim build the same model.


def train(name, model, batch, seq, attention="sdpa", recompute="none", finetune="full", targets=None,
          framework="hf"):
    return dict(name=name, kind="train", model=model, batch=batch, seq=seq, attention=attention,
                recompute=recompute, finetune=finetune, lora_targets=targets, framework=framework)


def infer(name, model, batch, prompt, new_tokens, attention="sdpa"):
    return dict(name=name, kind="inference", model=model, batch=batch, prompt=prompt, new_tokens=new_tokens,
                attention=attention)


# Ordered by value, so a time-budget cut drops the least important ones. Largest: about 35 GB.
CONFIGS = [
    train("llama3_1b_sdpa_b4_s1024_train", LLAMA3_1B, 4, 1024),
    train("llama3_1b_sdpa_b4_s1024_train_recompute_full", LLAMA3_1B, 4, 1024, recompute="full"),
    train("llama3_1b_sdpa_b4_s1024_lora_qv", LLAMA3_1B, 4, 1024, finetune="lora", targets="q_proj,v_proj"),
    train("llama3_1b_sdpa_b4_s1024_lora_all_linear", LLAMA3_1B, 4, 1024, finetune="lora", targets="all-linear"),
    infer("llama3_1b_sdpa_b8_prompt2048_gen64_inference", LLAMA3_1B, 8, 2048, 64),
    train("llama2_7b_L4_sdpa_b2_s2048_train", LLAMA2_7B_L4, 2, 2048),
    train("llama3_1b_eager_b2_s512_train", LLAMA3_1B, 2, 512, attention="eager"),
    train("mixtral_small_sdpa_b4_s1024_train", MIXTRAL_SMALL, 4, 1024),
    infer("llama2_7b_L4_sdpa_b8_prompt512_gen64_inference", LLAMA2_7B_L4, 8, 512, 64),
    train("llama3_1b_flash2_b4_s1024_train", LLAMA3_1B, 4, 1024, attention="flash"),
    train("llama3_1b_sdpa_b4_s1024_qlora_qv", LLAMA3_1B, 4, 1024, finetune="qlora", targets="q_proj,v_proj"),
]

HF_ATTENTION = {"sdpa": "sdpa", "eager": "eager", "flash": "flash_attention_2"}
LORA_RANK = 16


def has_module(name):
    return importlib.util.find_spec(name) is not None


def unavailable(c):
    """Why a configuration cannot run on this machine (None when it can)."""
    if c["attention"] == "flash" and not has_module("flash_attn"):
        return "flash_attn is not installed"
    if c.get("finetune") == "qlora" and not has_module("bitsandbytes"):
        return "bitsandbytes is not installed"
    return None


# ---- the llm-memory settings that describe a configuration ---------------------------------------------------

def settings_for(c, cached_tokens=None):
    """llm-memory settings (settings_list.hpp keys) for configuration c, every value a string.

    overhead=none: the estimate's total is then the allocated buckets only, compared with the allocated peak
    (the CUDA context and fragmentation are measured apart). For inference, seq is the number of cached tokens.
    """
    m = c["model"]
    s = {"hidden_size": m["hidden_size"], "num_hidden_layers": m["num_hidden_layers"],
         "num_attention_heads": m["num_attention_heads"], "num_key_value_heads": m["num_key_value_heads"],
         "head_dim": m["head_dim"], "intermediate_size": m["intermediate_size"], "vocab_size": m["vocab_size"],
         "tie_word_embeddings": "on" if m["tie_word_embeddings"] else "off", "position_embedding": "rope",
         "norm": "rmsnorm", "mlp": "gated", "attention_bias": "none", "mlp_bias": "off", "dropout": "off",
         "norm_upcast": "on", "attention": c["attention"], "weights_dtype": DTYPE, "batch": c["batch"],
         "overhead": "none", "framework": c.get("framework", "generic")}
    if m["model_type"] == "mixtral":
        s.update(num_experts=m["num_local_experts"], num_experts_per_tok=m["num_experts_per_tok"],
                 moe_intermediate_size=m["intermediate_size"])
    if c["kind"] == "inference":
        s.update(mode="inference", seq=cached_tokens if cached_tokens is not None else c["prompt"] + c["new_tokens"] - 1)
    else:
        s.update(mode="train", seq=c["seq"], optimizer="adamw", master_weights="on", optimizer_dtype="fp32",
                 recompute=c["recompute"], fused_ce="off", finetune=c["finetune"])
        if c["framework"] != "generic":
            # The loop below, not the framework's recipe: bf16 weights without autocast, a fused fp32-master AdamW,
            # no LoRA dropout; the framework sets the gradient lifetime, the loss path and the phase model.
            s.update(autocast="off", optimizer_impl="fused", lora_dropout="0", adapter_dtype="auto",
                     input_copies="shared", qlora_upcast="off", double_quant="off")
        if c["finetune"] != "full":
            s.update(lora_rank=LORA_RANK, lora_targets=c["lora_targets"])
        if c["finetune"] == "qlora":
            s.update(weights_dtype="nf4", double_quant="off")
    return {k: str(v) for k, v in s.items()}


# ---- measurement helpers ---------------------------------------------------------------------------------------

def nbytes(t):
    return t.numel() * t.element_size()


def unique_tensors(obj, seen=None, out=None, depth=0):
    """Every tensor reachable from obj (lists, tuples, dicts, attributes), once per storage."""
    import torch
    seen = set() if seen is None else seen
    out = [] if out is None else out
    if depth > 6 or id(obj) in seen:
        return out
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            unique_tensors(x, seen, out, depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            unique_tensors(x, seen, out, depth + 1)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        for x in vars(obj).values():
            unique_tensors(x, seen, out, depth + 1)
    return out


def storage_bytes(tensors):
    by_storage = {}
    for t in tensors:
        s = t.untyped_storage()
        by_storage[s.data_ptr()] = s.nbytes()
    return sum(by_storage.values())


def gpu_used_nvidia_smi():
    """Device memory in use (bytes) per nvidia-smi, or None; readable before CUDA is initialised."""
    try:
        text = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                              capture_output=True, text=True, timeout=30, check=True).stdout.split()
        return int(text[0]) * 1024 * 1024 if len(text) == 1 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def device_used():
    import torch
    free, total = torch.cuda.mem_get_info()
    return total - free


class Context:
    """The CUDA context: device memory in use that the caching allocator did not reserve.

    context = (total - free from cudaMemGetInfo) - torch.cuda.memory_reserved() - (memory in use before this
    process initialised CUDA, from nvidia-smi; 0 when nvidia-smi is missing, noted in the record). Sampled after
    initialisation, after the first bf16 and fp32 matmuls (cuBLAS handle and kernels) and after each
    configuration; lazy module loading makes it grow as new kernels run, so the largest sample is reported.
    """

    def __init__(self):
        self.before = gpu_used_nvidia_smi()
        self.samples = {}

    def sample(self, label):
        import torch
        torch.cuda.synchronize()
        self.samples[label] = device_used() - torch.cuda.memory_reserved() - (self.before or 0)

    def record(self):
        return {"method": "cudaMemGetInfo used - memory_reserved - used before init (nvidia-smi)",
                "used_before_init": self.before, "nvidia_smi_available": self.before is not None,
                "after_init": self.samples.get("init"), "after_first_matmuls": self.samples.get("matmuls"),
                "max": max(self.samples.values()), "samples": self.samples}


def cleanup():
    import torch
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


# ---- building models -------------------------------------------------------------------------------------------

@contextlib.contextmanager
def default_dtype(dtype):
    import torch
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def build(c):
    """The Hugging Face model for configuration c, random weights, bf16, on the GPU."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM
    m = dict(c["model"])
    model_type = m.pop("model_type")
    config = AutoConfig.for_model(model_type, **m)
    config.torch_dtype = torch.bfloat16
    config.use_cache = c["kind"] == "inference"
    impl = HF_ATTENTION[c["attention"]]
    torch.manual_seed(0)
    with torch.device("cuda"), default_dtype(torch.bfloat16):
        try:
            model = AutoModelForCausalLM.from_config(config, attn_implementation=impl)
        except TypeError:  # transformers before 4.36
            config._attn_implementation = impl
            model = AutoModelForCausalLM.from_config(config)
    if any(p.dtype != torch.bfloat16 or p.device.type != "cuda" for p in model.parameters()):
        model = model.to(device="cuda", dtype=torch.bfloat16)
    actual = attn_implementation(model, impl)
    if actual != impl:
        raise RuntimeError(f"asked for attn_implementation={impl}, transformers chose {actual}")
    if c.get("finetune") == "qlora":
        model = quantise(model, config, impl)
    return model


def attn_implementation(model, default=None):
    return getattr(model.config, "_attn_implementation", default)


def implementations(model):
    """The kernels transformers chose (attention; MoE experts in releases that have a choice)."""
    return {"attn_implementation": attn_implementation(model),
            "experts_implementation": getattr(model.config, "_experts_implementation", None)}


def quantise(model, config, impl):
    """QLoRA base: the random model saved and reloaded through bitsandbytes' NF4 (no download)."""
    import torch
    from transformers import AutoModelForCausalLM, BitsAndBytesConfig
    bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=False,
                             bnb_4bit_compute_dtype=torch.bfloat16)
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        del model
        cleanup()
        return AutoModelForCausalLM.from_pretrained(tmp, quantization_config=bnb, torch_dtype=torch.bfloat16,
                                                    device_map={"": 0}, attn_implementation=impl)


def add_lora(model, c):
    import torch
    from peft import LoraConfig, get_peft_model
    targets = "all-linear" if c["lora_targets"] == "all-linear" else c["lora_targets"].split(",")
    cfg = LoraConfig(r=LORA_RANK, lora_alpha=2 * LORA_RANK, lora_dropout=0.0, target_modules=targets,
                     bias="none", task_type="CAUSAL_LM")
    model = get_peft_model(model, cfg)
    # peft may keep adapters in fp32 (autocast_adapter_dtype); the recipe measured here is bf16 adapters with an
    # fp32 master copy, as for full training, which is what llm-memory describes.
    for p in model.parameters():
        if p.requires_grad and p.dtype != torch.bfloat16:
            p.data = p.data.to(torch.bfloat16)
    return model


def param_bytes(model):
    """Parameter bytes, including bitsandbytes' quantisation state (absmax, code) of 4-bit weights."""
    params = list(model.parameters())
    total = storage_bytes(params)
    quant = [t for p in params if getattr(p, "quant_state", None) is not None
             for t in unique_tensors(p.quant_state)]
    return total + storage_bytes(quant), storage_bytes(quant)


# ---- one training step, one generation ---------------------------------------------------------------------------

class MixedAdamW:
    """fp32 master copies and AdamW states of the trainable bf16 weights; one fused AdamW per tensor."""

    def __init__(self, params):
        import torch
        self.pairs = []
        for p in params:
            master = p.detach().float().requires_grad_()
            try:
                opt = torch.optim.AdamW([master], lr=1e-5, fused=True)
                self.kind = "fused"
            except (TypeError, RuntimeError):
                opt = torch.optim.AdamW([master], lr=1e-5, foreach=False)
                self.kind = "for-loop"
            self.pairs.append((p, master, opt))

    def step(self):
        for p, master, opt in self.pairs:
            if p.grad is None:
                continue
            master.grad = p.grad.float()
            opt.step()
            master.grad = None
            p.data.copy_(master.data)

    def state_bytes(self):
        moments = counters = 0
        for _, master, opt in self.pairs:
            for k, v in opt.state[master].items():
                if k in ("exp_avg", "exp_avg_sq"):
                    moments += nbytes(v)
                elif k == "step":
                    counters += nbytes(v)
        return sum(nbytes(m) for _, m, _ in self.pairs) + moments, counters


def measure_train(c):
    import torch
    base_alloc, base_reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    model = build(c)
    if c["finetune"] != "full":
        model = add_lora(model, c)
    if c["recompute"] == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.train()
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = MixedAdamW(trainable)
    g = torch.Generator(device="cuda").manual_seed(1)
    ids = torch.randint(0, c["model"]["vocab_size"], (c["batch"], c["seq"]), device="cuda", generator=g)

    def step():
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        del loss
        opt.step()
        for p in trainable:
            if p.grad is None:
                continue
            if c["framework"] == "generic":
                p.grad.zero_()  # gradients stay allocated between steps (contiguous buffers)
            else:
                p.grad = None  # zero_grad(set_to_none=True): none alive until the next backward

    torch.cuda.reset_peak_memory_stats()
    step()  # warm-up: creates the gradients and the optimizer states
    torch.cuda.synchronize()
    first_peak = torch.cuda.max_memory_allocated() - base_alloc
    before_step = torch.cuda.memory_allocated() - base_alloc
    torch.cuda.reset_peak_memory_stats()
    t0 = time.time()
    step()
    torch.cuda.synchronize()
    step_s = time.time() - t0
    params, quant_state = param_bytes(model)
    optimizer, counters = opt.state_bytes()
    out = {
        "parameters": params,
        "gradients": storage_bytes(p.grad for p in trainable if p.grad is not None),
        "optimizer": optimizer,
        "optimizer_step_counters": counters,
        "buffers": storage_bytes(model.buffers()),
        "quant_state": quant_state,
        "trainable_params": sum(p.numel() for p in trainable),
        "allocated_before_step": before_step,
        "peak_allocated": torch.cuda.max_memory_allocated() - base_alloc,
        "peak_reserved": torch.cuda.max_memory_reserved() - base_reserved,
        "peak_allocated_first_step": first_peak,
        "step_seconds": round(step_s, 3),
    }
    info = dict(implementations(model), optimizer_impl=opt.kind)
    return out, info, None


def measure_inference(c):
    import torch
    base_alloc, base_reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    model = build(c)
    model.eval()
    params, _ = param_bytes(model)
    g = torch.Generator(device="cuda").manual_seed(1)
    ids = torch.randint(0, c["model"]["vocab_size"], (c["batch"], c["prompt"]), device="cuda", generator=g)
    torch.cuda.reset_peak_memory_stats()
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=c["new_tokens"],
                             min_new_tokens=c["new_tokens"], do_sample=False, use_cache=True,
                             return_dict_in_generate=True, pad_token_id=0)
    torch.cuda.synchronize()
    cache = [t for t in unique_tensors(out.past_key_values) if t.dim() == 4]  # [batch, kv heads, tokens, head_dim]
    cached_tokens = max(t.shape[-2] for t in cache)
    measured = {
        "parameters": params,
        "buffers": storage_bytes(model.buffers()),
        "kv_cache": storage_bytes(cache),
        "kv_cache_tensors": len(cache),
        "cached_tokens": cached_tokens,
        "generated_tokens": out.sequences.shape[1] - c["prompt"],
        "peak_allocated": torch.cuda.max_memory_allocated() - base_alloc,
        "peak_reserved": torch.cuda.max_memory_reserved() - base_reserved,
    }
    info = dict(implementations(model), cache_class=type(out.past_key_values).__name__)
    return measured, info, cached_tokens


# ---- main ----------------------------------------------------------------------------------------------------

def versions():
    import torch
    v = {"python": platform.python_version(), "torch": torch.__version__, "cuda": torch.version.cuda}
    for mod in ("transformers", "peft", "accelerate", "bitsandbytes", "flash_attn"):
        if has_module(mod):
            try:
                v[mod] = getattr(__import__(mod), "__version__", "?")
            except Exception as e:  # a broken optional install is worth recording, not fatal
                v[mod] = f"import failed: {type(e).__name__}: {e}"
    return v


def default_out():
    if os.environ.get("OUT"):
        return os.path.join(os.environ["OUT"], "measured_cuda.json")
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "measured_cuda.json")


def write(path, doc):
    if path == "-":
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def dry_run(configs, out):
    """Lists the configurations and their llm-memory settings; needs neither CUDA nor transformers."""
    records = []
    for c in configs:
        why = unavailable(c) if has_module("transformers") else None
        records.append({"name": c["name"], "kind": c["kind"], "config": c["model"], "settings": settings_for(c),
                        "dry_run": True, **({"skipped": why} if why else {})})
        print(f"{c['name']}: {' '.join(f'{k}={v}' for k, v in settings_for(c).items())}", file=sys.stderr)
    write(out, {"description": "dry run of tests/validation/measure_cuda.py: settings only, nothing measured",
                "dry_run": True, "records": records})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=None, help="output JSON, - for stdout (default: "
                        "$OUT/measured_cuda.json when $OUT is set, else tests/validation/measured_cuda.json; "
                        "stdout for --dry-run)")
    parser.add_argument("--budget", type=float, default=360, help="seconds; later configurations are skipped")
    parser.add_argument("--only", action="append", default=[], help="run only this configuration (repeatable)")
    parser.add_argument("--dry-run", action="store_true", help="write the settings of every configuration "
                        "without measuring (no CUDA, no transformers needed)")
    args = parser.parse_args()
    configs = [c for c in CONFIGS if not args.only or c["name"] in args.only]
    if args.only and len(configs) != len(args.only):
        sys.exit(f"measure_cuda: unknown configuration in --only; known: {', '.join(c['name'] for c in CONFIGS)}")
    if args.dry_run:
        dry_run(configs, args.out or "-")  # never the default path, where the test would take it for data
        return
    out = args.out or default_out()

    import torch
    if not torch.cuda.is_available():
        sys.exit("measure_cuda: CUDA is not available (torch.cuda.is_available() is False): this script measures "
                 "GPU memory and must run on a CUDA machine; use --dry-run to check the settings elsewhere")
    for mod in ("transformers", "peft"):
        if not has_module(mod):
            sys.exit(f"measure_cuda: python module {mod} is missing; it is required on the GPU machine")
    start = time.time()
    ctx = Context()  # before CUDA is initialised
    torch.cuda.init()
    torch.empty(1, device="cuda")
    ctx.sample("init")
    for dtype in (torch.bfloat16, torch.float32):  # cuBLAS handle and workspace before any baseline is taken
        a = torch.ones(256, 256, device="cuda", dtype=dtype)
        (a @ a).sum().item()
    del a
    cleanup()
    ctx.sample("matmuls")
    cublas_workspace = torch.cuda.memory_allocated()
    import transformers
    transformers.logging.set_verbosity_error()
    print(f"measure_cuda: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, transformers "
          f"{transformers.__version__}; {len(configs)} configurations, budget {args.budget:.0f} s", file=sys.stderr)

    records, failures = [], []
    doc = {
        "description": "Memory measured by tests/validation/measure_cuda.py (scripts/measure-cuda.sh) on "
                       f"{torch.cuda.get_device_name(0)}; compared with llm-memory by "
                       "tests/core/validation_cuda_test.cpp. Bytes; peaks are above what was allocated or "
                       "reserved before each model was built. See docs/validation.md.",
        "device": torch.cuda.get_device_name(0),
        "device_total_bytes": torch.cuda.mem_get_info()[1],
        "versions": versions(),
        "cuda_module_loading": os.environ.get("CUDA_MODULE_LOADING", "(unset: LAZY by default in CUDA >= 12.2)"),
        "cublas_workspace_allocated": cublas_workspace,
        "complete": False,
        "records": records,
    }

    def save():  # after every configuration, so a run killed at its time limit keeps what it measured
        doc.update(cuda_context=ctx.record(), elapsed_seconds=round(time.time() - start, 1))
        write(out, doc)

    for c in configs:
        base = {"name": c["name"], "kind": c["kind"], "config": c["model"]}
        elapsed = time.time() - start
        why = unavailable(c)
        if why is None and elapsed > args.budget:
            why = f"time budget of {args.budget:.0f} s spent"
        if why:
            records.append(dict(base, settings=settings_for(c), skipped=why))
            print(f"[{elapsed:6.1f} s] {c['name']}: skipped ({why})", file=sys.stderr)
            continue
        t0 = time.time()
        try:
            fn = measure_train if c["kind"] == "train" else measure_inference
            measured, info, cached = fn(c)
            records.append(dict(base, settings=settings_for(c, cached), measured=measured, info=info))
            status = (f"peak allocated {measured['peak_allocated'] / 2**30:.3f} GiB, "
                      f"reserved {measured['peak_reserved'] / 2**30:.3f} GiB")
        except Exception as e:  # one failing configuration must not lose the others' measurements
            records.append(dict(base, settings=settings_for(c), error=f"{type(e).__name__}: {e}"))
            failures.append(c["name"])
            status = f"FAILED: {type(e).__name__}: {e}"
            traceback.print_exc()
            del e
        cleanup()  # outside the handler, whose traceback would keep the failed step's tensors alive
        ctx.sample(c["name"])
        save()
        print(f"[{time.time() - start:6.1f} s] {c['name']}: {status} ({time.time() - t0:.1f} s)", file=sys.stderr)

    doc["complete"] = True
    save()
    print(f"measure_cuda: wrote {out} ({len(records)} records, {len(failures)} failed) in "
          f"{time.time() - start:.0f} s", file=sys.stderr)
    if failures:
        sys.exit(f"measure_cuda: FAILED configurations: {', '.join(failures)} (errors are in the JSON)")


if __name__ == "__main__":
    main()
