#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Measures, in plain PyTorch on the CPU, the memory that llm-memory estimates; writes measured.json.

Two small decoders are built from scratch (no transformers dependency):
  gpt   -- the layer analysed by Korthikanti et al. 2022 (arXiv 2205.05198): LayerNorm, multi-head attention
           with the softmax kept in the activation dtype (as Megatron's fused kernel saves it), dropout, a GELU
           MLP of 4h, tied embeddings, learned positions.   llm-memory: attention=standard, norm_upcast=off.
  llama -- a Llama-style layer written the way Hugging Face's eager modelling code is: LlamaRMSNorm with its
           fp32 upcast, grouped-query attention with an explicit head_dim and repeat_kv, rotary positions,
           softmax in fp32 cast back, SwiGLU, no dropout.  llm-memory: attention=eager, norm_upcast=on.
Both also run with LoRA (finetune=lora): every base parameter frozen, rank-r adapters on the targeted linears as
peft's lora.Linear computes them (lora_dropout = 0), the embedding output requiring a gradient as
enable_input_require_grads() makes it; --lora-only re-measures these alone and keeps the other records.

Everything is measured, not computed:
  parameters / gradients   bytes of every parameter and its .grad after backward;
  optimizer                bytes of the AdamW state after a real step (m, v; for bf16 weights also the fp32
                           master copy the harness keeps, as mixed-precision trainers do);
  activations              tensors saved for backward, seen by torch.autograd.graph.saved_tensors_hooks and
                           deduplicated by storage; parameters and integer inputs are not activations;
                           with torch.utils.checkpoint the checkpoints and the recomputed layer are measured
                           during backward; the lm_head + cross-entropy peak is measured with the profiler's
                           allocation events (peak live bytes above the state before lm_head);
  kv_cache                 bytes of the per-layer k and v caches after generating up to seq tokens.
Run with Debian's python3-torch (1.13, CPU): scripts/measure.sh.
"""
import argparse
import itertools
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

VOCAB = 512


def storage_of(t):
    s = t.storage()
    return s.data_ptr(), s.size() * t.element_size()


class Tracker:
    """Records every tensor saved for backward, once per storage, under the region that saved it first."""

    def __init__(self, params):
        self.params = {storage_of(p)[0] for p in params}
        self.region = "other"
        self.seen = {}  # (scope, data_ptr) -> (region, bytes)
        self.scope = "forward"

    def pack(self, t):
        ptr, nbytes = storage_of(t)
        if ptr in self.params:
            return t
        key = (self.scope, ptr)
        if key not in self.seen:
            region = "inputs" if not t.is_floating_point() and t.dtype != torch.bool else self.region
            self.seen[key] = (region, nbytes)
        return t

    def claim(self, t, region):
        ptr, nbytes = storage_of(t)
        self.seen[(self.scope, ptr)] = (region, nbytes)

    def bytes(self, region, scope="forward"):
        return sum(b for (s, _), (r, b) in self.seen.items() if s == scope and r == region)

    def hooks(self):
        return torch.autograd.graph.saved_tensors_hooks(self.pack, lambda t: t)


TRACKER = None


def enter(region):
    if TRACKER is not None:
        TRACKER.region = region
        if TRACKER.scope != "forward":
            TRACKER.scope = region  # each recomputed layer is counted on its own


def dropout(x, p, training):
    # On CUDA F.dropout calls native_dropout, which saves a 1-byte bool mask; on the CPU it multiplies by a
    # noise tensor of the input's dtype instead. Call native_dropout so the CPU saves what a GPU saves.
    if not training or p == 0:
        return x
    return torch.native_dropout(x, p, True)[0]


# ---- LoRA (as peft's lora.Linear runs it, lora_dropout = 0) --------------------------------------------------

class LoraLinear(nn.Module):
    """A frozen linear plus lora_B(lora_A(x)) * alpha / r, as peft's lora.Linear.forward with lora_dropout = 0."""

    def __init__(self, base, r):
        super().__init__()
        self.base = base
        for p in base.parameters():
            p.requires_grad_(False)
        g = torch.Generator().manual_seed(2)
        # B is not zero (peft starts it at zero): what autograd saves does not depend on the values.
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features, generator=g) * 0.01)
        self.lora_B = nn.Parameter(torch.randn(base.out_features, r, generator=g) * 0.01)
        self.scaling = 2.0  # lora_alpha / r

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x, self.lora_A), self.lora_B) * self.scaling


# llm-memory's module names for the harness's linears (the gpt layer's proj/up/down are o_proj/up_proj/down_proj).
LORA_NAMES = {"proj": "o_proj", "up": "up_proj", "down": "down_proj"}


def apply_lora(model, targets, r):
    """Freezes every base parameter and wraps the targeted linears of each layer; lm_head stays frozen, as peft's
    all-linear leaves the output layer out."""
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.layers:
        for attr, module in list(layer.named_children()):
            if isinstance(module, nn.Linear) and (targets == "all-linear" or LORA_NAMES.get(attr, attr) in
                                                  targets.split(",")):
                setattr(layer, attr, LoraLinear(module, r))


# With LoRA the embedding is frozen, so its output needs no gradient and the first layer would save less before its
# first adapter. transformers' enable_input_require_grads() (called by gradient checkpointing and by peft's
# prepare_model_for_kbit_training) makes it require one; the harness does the same, so every layer is alike.
INPUT_GRADS = False


def input_embeddings(x):
    return x.requires_grad_() if INPUT_GRADS and not x.requires_grad else x


# ---- GPT (Korthikanti et al.) ------------------------------------------------------------------------------

class GptLayer(nn.Module):
    def __init__(self, h, a, p, split_qkv=False):
        super().__init__()
        self.a, self.p = a, p
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        if split_qkv:  # LoRA names q_proj, k_proj and v_proj apart (same parameters as the fused qkv)
            self.q_proj, self.k_proj, self.v_proj = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
        else:
            self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.up = nn.Linear(h, 4 * h)
        self.down = nn.Linear(4 * h, h)

    def forward(self, x, mask):
        b, s, h = x.shape
        d = h // self.a
        y = self.ln1(x)
        q, k, v = (self.q_proj(y), self.k_proj(y), self.v_proj(y)) if hasattr(self, "q_proj") else self.qkv(y).split(h, -1)
        q, k, v = (t.view(b, s, self.a, d).transpose(1, 2) for t in (q, k, v))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d) + mask
        probs = dropout(F.softmax(scores, dim=-1), self.p, self.training)  # 16-bit softmax, as Megatron saves it
        ctx = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, h)
        x = x + dropout(self.proj(ctx), self.p, self.training)
        return x + dropout(self.down(F.gelu(self.up(self.ln2(x)))), self.p, self.training)


class Gpt(nn.Module):
    def __init__(self, c):
        super().__init__()
        h = c["hidden_size"]
        self.p = 0.1
        self.wte = nn.Embedding(VOCAB, h)
        self.wpe = nn.Embedding(c["seq"], h)
        self.layers = nn.ModuleList(GptLayer(h, c["num_attention_heads"], self.p, "lora_targets" in c)
                                    for _ in range(c["layers"]))
        self.ln_f = nn.LayerNorm(h)

    def lm_head(self, x):
        return F.linear(x, self.wte.weight)  # tied

    def body(self, ids, checkpoint):
        enter("embedding")
        s = ids.shape[1]
        x = dropout(input_embeddings(self.wte(ids)) + self.wpe(torch.arange(s)), self.p, self.training)
        mask = torch.full((s, s), float("-inf"), dtype=x.dtype).triu(1)
        for i, layer in enumerate(self.layers):
            x = run_layer(layer, i, x, (mask,), checkpoint)
        enter("head")
        return self.ln_f(x)


# ---- Llama (Hugging Face eager) ----------------------------------------------------------------------------

class LlamaRMSNorm(nn.Module):
    """As transformers' LlamaRMSNorm: computes in fp32, casts back, then multiplies by the weight."""

    def __init__(self, h, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = MEAN(x.pow(2))
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x.to(dtype)


def _mean_saving_sizes(x):
    return x.sum(-1, keepdim=True) / x.shape[-1]


# torch 1.13's backward of mean(dim) keeps its input (MeanBackward1 has a SavedVariable self_; the releases
# before and after keep only sizes), which would add an fp32 x^2 per RMSNorm that no other PyTorch saves.
# Under 1.13 the mean is taken as sum / h, whose backward keeps only sizes, as mean's does elsewhere.
MEAN = _mean_saving_sizes if torch.__version__.startswith("1.13") else (lambda x: x.mean(-1, keepdim=True))


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    b, kv, s, d = x.shape
    if n_rep == 1:
        return x
    return x[:, :, None, :, :].expand(b, kv, n_rep, s, d).reshape(b, kv * n_rep, s, d)


class LlamaLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, i = c["hidden_size"], c["intermediate_size"]
        self.a, self.kv, self.d = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
        self.input_layernorm = LlamaRMSNorm(h)
        self.post_attention_layernorm = LlamaRMSNorm(h)
        self.q_proj = nn.Linear(h, self.a * self.d, bias=False)
        self.k_proj = nn.Linear(h, self.kv * self.d, bias=False)
        self.v_proj = nn.Linear(h, self.kv * self.d, bias=False)
        self.o_proj = nn.Linear(self.a * self.d, h, bias=False)
        self.gate_proj = nn.Linear(h, i, bias=False)
        self.up_proj = nn.Linear(h, i, bias=False)
        self.down_proj = nn.Linear(i, h, bias=False)

    def attention(self, x, cos, sin, mask, cache):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.a, self.d).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.kv, self.d).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv, self.d).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if cache is not None:  # generation: the cache holds k and v before repeat_kv (n_kv heads)
            if cache:
                k, v = torch.cat((cache[0], k), dim=2), torch.cat((cache[1], v), dim=2)
            cache[:] = [k, v]
        k, v = repeat_kv(k, self.a // self.kv), repeat_kv(v, self.a // self.kv)
        scores = torch.matmul(q, k.transpose(2, 3)) * self.d ** -0.5
        if mask is not None:
            scores = scores + mask
        probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)  # HF eager: fp32 softmax
        out = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, self.a * self.d)
        return self.o_proj(out)

    def forward(self, x, cos, sin, mask, cache=None):
        x = x + self.attention(self.input_layernorm(x), cos, sin, mask, cache)
        y = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(y)) * self.up_proj(y))


class Llama(nn.Module):
    def __init__(self, c):
        super().__init__()
        h = c["hidden_size"]
        self.d = c["head_dim"]
        self.embed_tokens = nn.Embedding(VOCAB, h)
        self.layers = nn.ModuleList(LlamaLayer(c) for _ in range(c["layers"]))
        self.norm = LlamaRMSNorm(h)
        self.head = nn.Linear(h, VOCAB, bias=False)

    def lm_head(self, x):
        return self.head(x)

    def rope(self, start, s, dtype):
        inv = 1.0 / (10000 ** (torch.arange(0, self.d, 2, dtype=torch.float32) / self.d))
        freqs = torch.outer(torch.arange(start, start + s, dtype=torch.float32), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(dtype), emb.sin().to(dtype)

    def body(self, ids, checkpoint, caches=None, start=0):
        enter("embedding")
        s = ids.shape[1]
        x = input_embeddings(self.embed_tokens(ids))
        cos, sin = self.rope(start, s, x.dtype)
        if TRACKER is not None:
            TRACKER.claim(cos, "rope")
            TRACKER.claim(sin, "rope")
        mask = None
        if s > 1:
            mask = torch.full((s, s), float("-inf"), dtype=x.dtype).triu(1)
            if start:
                mask = torch.cat((torch.zeros(s, start, dtype=x.dtype), mask), dim=1)
        for i, layer in enumerate(self.layers):
            if caches is not None:
                x = layer(x, cos, sin, mask, caches[i])
            else:
                x = run_layer(layer, i, x, (cos, sin, mask), checkpoint)
        enter("head")
        return self.norm(x)


def run_layer(layer, i, x, extra, checkpoint):
    # The mask and rotary tables are captured, not passed, so a checkpoint keeps only the layer input.
    def fn(x):
        enter(f"layer{i}")
        return layer(x, *extra)

    if checkpoint:
        enter(f"checkpoint{i}")
        return torch.utils.checkpoint.checkpoint(fn, x, use_reentrant=True)
    return fn(x)


# ---- measurements ----------------------------------------------------------------------------------------------

def tensor_bytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def peak_above_start(step):
    """Runs step() under the profiler and returns its peak live CPU bytes above the bytes live at the start."""
    with torch.autograd.profiler.profile(profile_memory=True) as prof:
        step()
    events = [e for e in prof.kineto_results.events() if e.name() == "[memory]"]
    events.sort(key=lambda e: e.start_us())
    live = peak = 0
    for e in events:
        live += e.nbytes()
        peak = max(peak, live)
    return peak


def make_model(c):
    torch.manual_seed(0)
    model = Gpt(c) if c["model"] == "gpt" else Llama(c)
    if "lora_targets" in c:
        apply_lora(model, c["lora_targets"], c["lora_rank"])
    return model.to(c["dtype"])


def batch(c):
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, VOCAB, (c["batch"], c["seq"]), generator=g)
    labels = torch.randint(0, VOCAB, (c["batch"], c["seq"]), generator=g)
    return ids, labels


def loss_path(model, hidden, labels):
    """lm_head and cross-entropy as Hugging Face's ForCausalLMLoss runs them: logits.float(), then the loss."""
    logits = model.lm_head(hidden)
    enter("loss")
    loss = F.cross_entropy(logits.float().view(-1, VOCAB), labels.view(-1))
    return logits, loss


def measure_train(c, recompute):
    global TRACKER, INPUT_GRADS
    INPUT_GRADS = "lora_targets" in c
    model = make_model(c)
    model.train()
    params = list(model.parameters())
    ids, labels = batch(c)
    TRACKER = Tracker(params)
    with TRACKER.hooks():
        hidden = model.body(ids, recompute == "full")
        logits, loss = loss_path(model, hidden, labels)
        TRACKER.scope = "backward"
        loss.backward()
    t, TRACKER, INPUT_GRADS = TRACKER, None, False
    del logits, loss, hidden
    L = c["layers"]
    out = {
        "parameters": tensor_bytes(params),
        "gradients": tensor_bytes(p.grad for p in params if p.grad is not None),
        "activations.embedding": t.bytes("embedding"),
        "activations.head": t.bytes("head"),
    }
    if recompute == "full":
        # The checkpoint keeps the layer input (saved once run_function has returned, so under the layer's name).
        out["activations.checkpoints"] = sum(t.bytes(f"layer{i}") + t.bytes(f"checkpoint{i}") for i in range(L))
        out["activations.recomputed_layer"] = max(t.bytes(f"layer{i}", scope=f"layer{i}") for i in range(L))
    else:
        out["activations.layers"] = sum(t.bytes(f"layer{i}") for i in range(L))
    out["activations.rope_tables"] = t.bytes("rope")

    # The logits peak, measured alone: the lm_head input is the final norm's output (kept by the model).
    model.zero_grad(set_to_none=True)
    for p in params:
        p.requires_grad_(False)
    hidden = torch.randn(c["batch"], c["seq"], c["hidden_size"], dtype=c["dtype"], requires_grad=True)

    def step():
        logits, loss = loss_path(model, hidden, labels)
        loss.backward()
        del logits, loss

    out["activations.logits"] = peak_above_start(step)
    return out


def measure_optimizer(c):
    """One real AdamW step; with 16-bit weights the optimizer updates an fp32 master copy (mixed precision)."""
    model = make_model(c)
    params = [p for p in model.parameters() if p.requires_grad]
    ids, labels = batch(c)
    hidden = model.body(ids, False)
    _, loss = loss_path(model, hidden, labels)
    loss.backward()
    if c["dtype"] == torch.float32:
        opt = torch.optim.AdamW(params, lr=1e-3)
        opt.step()
        master = []
    else:
        master = [p.detach().float().requires_grad_() for p in params]
        opt = torch.optim.AdamW(master, lr=1e-3)
        for m, p in zip(master, params):
            m.grad = p.grad.float()
        opt.step()
        for m, p in zip(master, params):
            m.grad = None
            p.data.copy_(m.data)
    moments = [v for st in opt.state.values() for k, v in st.items() if k in ("exp_avg", "exp_avg_sq")]
    steps = [v for st in opt.state.values() for k, v in st.items() if k == "step"]
    return {"optimizer": tensor_bytes(master) + tensor_bytes(moments),
            "optimizer_step_counters": tensor_bytes(steps)}


@torch.no_grad()
def measure_kv(c):
    model = make_model(c)
    model.eval()
    ids, _ = batch(c)
    prompt = c["seq"] // 2
    caches = [[] for _ in model.layers]
    hidden = model.body(ids[:, :prompt], False, caches)
    for pos in range(prompt, c["seq"]):
        nxt = model.lm_head(hidden[:, -1:]).argmax(-1)
        hidden = model.body(nxt, False, caches, start=pos)
    return {"kv_cache": tensor_bytes(t for cache in caches for t in cache)}


# ---- the grid and the llm-memory settings that describe it -----------------------------------------------------

def settings_for(c):
    dtype = "fp32" if c["dtype"] == torch.float32 else "bf16"
    s = {"hidden_size": c["hidden_size"], "num_hidden_layers": c["layers"],
         "num_attention_heads": c["num_attention_heads"], "vocab_size": VOCAB,
         "batch": c["batch"], "seq": c["seq"], "weights_dtype": dtype, "optimizer": "adamw",
         "overhead": "none", "framework": "generic"}  # a fixed loop: the textbook sum of every bucket
    if c["model"] == "gpt":
        s.update(norm="layernorm", mlp="plain", dropout="on", attention="standard", norm_upcast="off",
                 attention_bias="all", mlp_bias="on", tie_word_embeddings="on",
                 position_embedding="learned", max_position_embeddings=c["seq"])
    else:
        s.update(num_key_value_heads=c["num_key_value_heads"], head_dim=c["head_dim"],
                 intermediate_size=c["intermediate_size"], norm="rmsnorm", mlp="gated", dropout="off",
                 attention="eager", norm_upcast="on", attention_bias="none", mlp_bias="off",
                 tie_word_embeddings="off", position_embedding="rope")
    if "lora_targets" in c:
        s.update(finetune="lora", lora_rank=c["lora_rank"], lora_targets=c["lora_targets"])
    return {k: str(v) for k, v in s.items()}


def grid(quick):
    gpt = [dict(hidden_size=h, num_attention_heads=a, layers=L, seq=s, batch=b)
           for h, a, L, s, b in [(64, 2, 1, 32, 1), (64, 4, 2, 64, 2), (128, 4, 2, 128, 1), (128, 8, 3, 64, 2),
                                 (256, 4, 2, 128, 2)]]
    llama = [dict(hidden_size=h, num_attention_heads=a, num_key_value_heads=kv, head_dim=d, intermediate_size=i,
                  layers=L, seq=s, batch=b)
             for h, a, kv, d, i, L, s, b in [(64, 4, 4, 16, 176, 1, 32, 1), (128, 4, 2, 48, 352, 2, 64, 2),
                                             (128, 8, 2, 16, 256, 2, 128, 1), (256, 8, 1, 32, 688, 3, 64, 2),
                                             (256, 4, 4, 64, 512, 2, 128, 2)]]
    configs = [dict(model="gpt", **g) for g in gpt] + [dict(model="llama", **g) for g in llama]
    if quick:
        configs = configs[:1] + configs[len(gpt):len(gpt) + 1]
    for c, dtype in itertools.product(configs, (torch.float32, torch.bfloat16)):
        yield dict(c, dtype=dtype)


def lora_grid(quick):
    """LoRA r 8 on two shapes of each layer (the llama ones with grouped-query attention), two target sets."""
    shapes = [dict(model="gpt", hidden_size=128, num_attention_heads=4, layers=2, seq=128, batch=1),
              dict(model="gpt", hidden_size=256, num_attention_heads=4, layers=2, seq=128, batch=2),
              dict(model="llama", hidden_size=128, num_attention_heads=4, num_key_value_heads=2, head_dim=48,
                   intermediate_size=352, layers=2, seq=64, batch=2),
              dict(model="llama", hidden_size=256, num_attention_heads=8, num_key_value_heads=1, head_dim=32,
                   intermediate_size=688, layers=3, seq=64, batch=2)]
    if quick:
        shapes = [shapes[0], shapes[2]]
    for c, targets, dtype in itertools.product(shapes, ("q_proj,v_proj", "all-linear"),
                                               (torch.float32, torch.bfloat16)):
        if not quick or (targets, dtype) == ("q_proj,v_proj", torch.bfloat16):
            yield dict(c, dtype=dtype, lora_rank=8, lora_targets=targets)


def name_of(c, suffix):
    dtype = "fp32" if c["dtype"] == torch.float32 else "bf16"
    kv = f"_kv{c['num_key_value_heads']}_d{c['head_dim']}" if c["model"] == "llama" else ""
    lora = ""
    if "lora_targets" in c:
        lora = f"_lora_r{c['lora_rank']}_" + ("all_linear" if c["lora_targets"] == "all-linear" else "qv")
    return (f"{c['model']}_{dtype}_h{c['hidden_size']}_a{c['num_attention_heads']}{kv}_L{c['layers']}"
            f"_s{c['seq']}_b{c['batch']}{lora}_{suffix}")


def train_records(c):
    """One training record per recompute level; the optimizer state is measured once, with the first."""
    base = settings_for(c)
    opt = measure_optimizer(c)
    records = []
    for recompute in ("none", "full"):
        m = measure_train(c, recompute)
        if recompute == "none":
            m.update(opt)
        records.append({"name": name_of(c, f"train_recompute_{recompute}"),
                        "settings": dict(base, mode="train", recompute=recompute), "measured": m})
        print(records[-1]["name"], file=sys.stderr)
    return records


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "measured.json"))
    parser.add_argument("--quick", action="store_true", help="two configurations (and two LoRA ones) only")
    parser.add_argument("--lora-only", action="store_true",
                        help="re-measure the LoRA configurations only, keeping the other records of --out")
    args = parser.parse_args()
    torch.set_num_threads(2)
    records = []
    if args.lora_only:
        with open(args.out) as f:
            records = [r for r in json.load(f)["records"] if "lora_targets" not in r["settings"]]
    for c in [] if args.lora_only else grid(args.quick):
        records += train_records(c)
        if c["model"] == "llama":
            records.append({"name": name_of(c, "inference"),
                            "settings": dict(settings_for(c), mode="inference"), "measured": measure_kv(c)})
            print(records[-1]["name"], file=sys.stderr)
    for c in lora_grid(args.quick):
        records += train_records(c)
    doc = {
        "description": "Memory measured by tests/validation/measure.py (scripts/measure.sh) in PyTorch "
                       f"{torch.__version__} on the CPU; compared with llm-memory by tests/core/validation_test.cpp. "
                       "Bytes per key; see docs/validation.md for what each key measures.",
        "torch": torch.__version__,
        "records": records,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
