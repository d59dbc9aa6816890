#!/usr/bin/env python3
"""Produce PyTorch profiler (Kineto) traces of real workloads on one GPU, for Reach.

One self-contained script, run on a machine with a GPU (written for one NVIDIA H200, torch 2.11,
CUDA 13, transformers 5.x). Every model is built from an explicit config with random weights,
initialised on the device; nothing is downloaded. Every trace is recorded with
torch.profiler.profile(activities=[CPU, CUDA], record_shapes=True), warm-up steps outside the
profiled region, torch.cuda.synchronize() at the end of every profiled step, exported with
export_chrome_trace and gzipped. A manifest.json in the output folder says what each trace is.

Groups of workloads (see --list and scripts/device/README.md):
  A  the six shipped H200 workloads again, now with record_shapes (<name>_shapes.json.gz)
  B  five workloads on current kernels: FP8 _scaled_mm, MoE with _grouped_mm, SDPA backends,
     torch.compile max-autotune, CUDA-graph replay
  C  operator cross-check traces for resources/problems/ (xcheck_<problem id>.json.gz)
  D  two of A recorded so that every kernel has an ATen call with its shapes, for reach-cli
     extract: Qwen2.5-1.5B training with AdamW(foreach=False), the encoder eager

Each workload runs in its own worker process (unless --no-isolate) with a time limit, so a crash,
a CUDA fault or a hang costs that workload only. --bundle packs the traces into tar files of at
most --bundle-mib MiB each (the device machine returns few, bounded files); the manifest is
rewritten after every workload, so a run cut short still leaves a valid manifest.

  python3 scripts/device/profile_workloads.py --list
  python3 scripts/device/profile_workloads.py --smoke --out /tmp/prof-smoke      # CPU is fine
  python3 scripts/device/profile_workloads.py --only A --out "$OUT" --bundle --tag a
"""
import argparse
import contextlib
import gzip
import json
import math
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import time
import traceback
from collections import Counter, OrderedDict
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROBLEMS_DIR = HERE / ".." / ".." / "resources" / "problems"
MiB = 1024 * 1024
XCHECK_OPS = ("softmax", "layernorm", "add", "embedding_bag_sum", "matmul")

# Lazily imported in the process that runs workloads (the parent of isolated workers never
# imports torch).
torch = None
nn = None
F = None


def import_torch():
    global torch, nn, F
    if torch is None:
        try:
            import torch as _t
            import torch.nn as _nn
            import torch.nn.functional as _F
        except ImportError as e:
            raise SystemExit("profile_workloads: torch is not importable (%s); run it with the "
                             "python that has torch (e.g. /usr/bin/python3 with Debian's "
                             "python3-torch for --smoke)" % e)
        torch, nn, F = _t, _nn, _F
    return torch


class Skip(Exception):
    """A workload that cannot run here (no GPU, API missing): not a failure."""


# ---------------------------------------------------------------------------------------------
# Context shared by the workloads of one worker
# ---------------------------------------------------------------------------------------------

class Ctx:
    def __init__(self, args, work_dir):
        import_torch()
        self.args = args
        self.smoke = bool(args.smoke)
        self.cuda = torch.cuda.is_available()
        self.dev = torch.device("cuda" if self.cuda else "cpu")
        # bf16 on the GPU (as the shipped traces); f32 on a CPU smoke run (old CPU builds lack
        # bf16 kernels for conv/embedding_bag).
        self.dt = torch.bfloat16 if self.cuda else torch.float32
        self.work = Path(work_dir)
        self.work.mkdir(parents=True, exist_ok=True)
        self.entries = []
        self.failures = []
        self.notes = []
        acts = [torch.profiler.ProfilerActivity.CPU]
        if self.cuda:
            acts.append(torch.profiler.ProfilerActivity.CUDA)
        self.activities = acts
        self.max_gz = float(getattr(args, "max_trace_mib", 14.0)) * MiB

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def need_cuda(self, what):
        if not self.cuda:
            raise Skip("%s needs a CUDA GPU (none here)" % what)

    def need_compile(self):
        if not hasattr(torch, "compile"):
            raise Skip("torch.compile is missing in torch %s" % torch.__version__)
        if not self.cuda and self.smoke:
            raise Skip("torch.compile skipped on a CPU smoke run (slow on 2 cores, not the point)")

    def capability(self):
        return torch.cuda.get_device_capability(0) if self.cuda else (0, 0)


def env_info():
    import_torch()
    info = OrderedDict()
    info["gpu"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none (CPU)"
    info["torch"] = torch.__version__
    info["cuda"] = torch.version.cuda
    try:
        info["cudnn"] = torch.backends.cudnn.version()
    except Exception:
        info["cudnn"] = None
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        info["capability"] = "%d.%d" % (p.major, p.minor)
        info["sms"] = p.multi_processor_count
        info["memory_bytes"] = p.total_memory
        info["l2_bytes"] = getattr(p, "L2_cache_size", None)
    for mod in ("torchvision", "transformers", "triton"):
        try:
            info[mod] = __import__(mod).__version__
        except Exception:
            info[mod] = None
    info["python"] = platform.python_version()
    return info


def dev_ctx(ctx):
    """`with torch.device(dev)` where supported (torch >= 2.0): modules are created on the GPU."""
    if hasattr(torch, "device") and hasattr(torch.device("cpu"), "__enter__"):
        return torch.device(ctx.dev)
    return contextlib.nullcontext()


@contextlib.contextmanager
def default_dtype(dt):
    prev = torch.get_default_dtype()
    torch.set_default_dtype(dt)
    try:
        yield
    finally:
        torch.set_default_dtype(prev)


def dtname(dt):
    return str(dt).replace("torch.", "")


def short(name, n=100):
    return name if len(name) <= n else name[: n - 3] + "..."


def params_b(model):
    return round(sum(p.numel() for p in model.parameters()) / 1e9, 6)


def randn_init_(module, std=0.02):
    """In-place random init on whatever device the parameters live (no CPU round trip)."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, std)
            elif name.endswith("bias"):
                p.zero_()
            else:
                p.fill_(1.0)


# ---------------------------------------------------------------------------------------------
# Recording, export, summary
# ---------------------------------------------------------------------------------------------

def summarize_trace(json_path):
    """What the trace recorded: counts, the top kernels, the launch APIs, graph launches."""
    with open(json_path) as f:
        d = json.load(f)
    ev = trace_events(d)
    kern, mset, mcpy, cpu_ops = [], [], [], 0
    shaped = 0
    launch = {}
    ann = Counter()
    for e in ev:
        c = e.get("cat")
        if c == "kernel":
            kern.append(e)
        elif c == "gpu_memset":
            mset.append(e)
        elif c == "gpu_memcpy":
            mcpy.append(e)
        elif c == "cpu_op":
            cpu_ops += 1
            if "Input Dims" in e.get("args", {}):
                shaped += 1
        elif c in ("cuda_runtime", "cuda_driver"):
            corr = e.get("args", {}).get("correlation")
            if corr is not None:
                launch[corr] = (e.get("name", "?"), e.get("args", {}).get("External id"))
        elif c == "user_annotation":
            ann[e.get("name", "?")] += 1
    by_name = Counter()
    for k in kern:
        by_name[k.get("name", "?")] += float(k.get("dur", 0.0))
    ktime = sum(by_name.values())
    gpu_ops = kern + mset + mcpy
    apis = Counter(launch.get(k.get("args", {}).get("correlation"), ("(none)", None))[0]
                   for k in gpu_ops)
    s = OrderedDict()
    s["format"] = "legacy list (no Kineto)" if isinstance(d, list) else "kineto"
    s["events"] = len(ev)
    s["kernels"] = len(kern)
    s["distinct_kernels"] = len(by_name)
    s["kernel_time_us"] = round(ktime, 3)
    s["memsets"] = len(mset)
    s["memcpys"] = len(mcpy)
    s["memset_time_us"] = round(sum(float(e.get("dur", 0)) for e in mset), 3)
    s["memcpy_time_us"] = round(sum(float(e.get("dur", 0)) for e in mcpy), 3)
    s["cpu_ops"] = cpu_ops
    s["cpu_ops_with_input_dims"] = shaped
    s["launch_apis"] = dict(apis.most_common())
    s["top_kernels"] = [{"name": short(n, 120), "us": round(t, 3),
                         "share": round(t / ktime, 4) if ktime else 0.0}
                        for n, t in by_name.most_common(6)]
    if ann:
        s["annotations"] = dict(ann.most_common(20))
    g = [k for k in kern if "Graph" in launch.get(k.get("args", {}).get("correlation"),
                                                  ("", None))[0]]
    if g or any("Graph" in a for a in apis):
        corrs = Counter(k["args"].get("correlation") for k in g)
        s["graph"] = OrderedDict([
            ("graph_launch_events", sum(1 for v in launch.values() if "Graph" in v[0])),
            ("kernels_from_graph_launches", len(g)),
            ("distinct_launch_correlations", len(corrs)),
            ("kernels_per_launch", round(len(g) / len(corrs), 2) if corrs else 0),
            ("graph_kernels_with_external_id",
             sum(1 for k in g if k.get("args", {}).get("External id") not in (None, 0))),
            ("graph_kernel_arg_keys", sorted(g[0].get("args", {}).keys()) if g else []),
            ("graph_kernel_time_us", round(sum(float(k.get("dur", 0)) for k in g), 3)),
        ])
    return s


def trace_events(d):
    """Kineto writes {"traceEvents": [...], ...}; a torch built without Kineto (Debian's CPU
    python3-torch 1.13) writes the legacy profiler's bare list of events."""
    return d if isinstance(d, list) else d.get("traceEvents", [])


def gzip_file(src, dst):
    with open(src, "rb") as fi, gzip.open(dst, "wb", compresslevel=6) as fo:
        shutil.copyfileobj(fi, fo, 4 * MiB)


def record(ctx, stem, step_fn, steps, meta, label=None, summarize=True, keep_json=False,
           setup=None):
    """Profile `steps` calls of step_fn(i) (each followed by a device sync), export, gzip.

    setup(), if given, runs inside the profiler session before the steps (not in wall_s).
    Returns the manifest entry (also appended to ctx.entries).

    Under reach-cli integrate (--reach-steps N) nothing is recorded here: the steps run N times,
    each marked with reach_integrate.reach_step(), and integrate profiles them itself (its run
    ends the workload after its own steps, docs/integration.md)."""
    if getattr(ctx.args, "reach_steps", 0):
        from reach_integrate import reach_step
        if setup is not None:
            setup()
        for i in range(ctx.args.reach_steps):
            step_fn(i)
            reach_step()
        return None
    rf = torch.profiler.record_function
    json_path = ctx.work / (stem + ".json")
    gz_path = ctx.work / (stem + ".json.gz")
    with torch.profiler.profile(activities=ctx.activities, record_shapes=True) as prof:
        if setup is not None:
            with rf("setup"):
                setup()
            ctx.sync()
        t0 = time.perf_counter()
        for i in range(steps):
            if label:
                with rf(label if isinstance(label, str) else label(i)):
                    step_fn(i)
            else:
                step_fn(i)
            ctx.sync()
        wall = time.perf_counter() - t0
    prof.export_chrome_trace(str(json_path))
    jb = json_path.stat().st_size
    summary = None
    if summarize and jb < 600 * MiB:
        try:
            summary = summarize_trace(json_path)
        except Exception as e:  # a summary must never lose a trace
            summary = {"error": "%s: %s" % (type(e).__name__, e)}
    gzip_file(json_path, gz_path)
    if not keep_json:
        json_path.unlink()
    entry = OrderedDict()
    entry["name"] = meta.pop("name", stem)
    entry["file"] = gz_path.name
    entry["steps"] = steps
    entry["wall_s"] = wall
    entry["json_bytes"] = jb
    entry["gz_bytes"] = gz_path.stat().st_size
    entry.update(meta)
    if summary is not None:
        entry["recorded"] = summary
    ctx.entries.append(entry)
    print("    trace %-44s %8.1f KiB gz (%7.1f MiB json), %d steps, %.3f s"
          % (gz_path.name, entry["gz_bytes"] / 1024, jb / MiB, steps, wall), flush=True)
    return entry


def replace_entry(ctx, entry):
    """A re-recorded trace (same file) replaces its earlier entry."""
    ctx.entries = [e for e in ctx.entries if e["file"] != entry["file"]] + [entry]


# ---------------------------------------------------------------------------------------------
# A Qwen2-like decoder in plain PyTorch: the fallback when transformers is missing or fails, and
# the model of cuda_graph_replay (static KV cache, capturable).
# ---------------------------------------------------------------------------------------------

def sdpa(q, k, v, causal=False, mask=None):
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
    s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if causal:
        L, S = q.shape[-2], k.shape[-2]
        tri = torch.ones(L, S, dtype=torch.bool, device=q.device).triu(S - L + 1)
        s = s.masked_fill(tri, float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(s.float(), -1).to(q.dtype), v)


def build_qwen_like(cfg, dev, dt):
    class RMSNorm(nn.Module):
        def __init__(self, d, eps):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d, device=dev, dtype=dt))
            self.eps = eps

        def forward(self, x):
            t = x.dtype
            h = x.float()
            h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
            return self.weight * h.to(t)

    def rotate_half(x):
        x1, x2 = x.chunk(2, -1)
        return torch.cat((-x2, x1), -1)

    D, H, KV = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, G = D // H, H // KV

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.q_proj = nn.Linear(D, H * hd, bias=True, device=dev, dtype=dt)
            self.k_proj = nn.Linear(D, KV * hd, bias=True, device=dev, dtype=dt)
            self.v_proj = nn.Linear(D, KV * hd, bias=True, device=dev, dtype=dt)
            self.o_proj = nn.Linear(H * hd, D, bias=False, device=dev, dtype=dt)

        def forward(self, x, cos, sin, past=None, static=None):
            B, L, _ = x.shape
            q = self.q_proj(x).view(B, L, H, hd).transpose(1, 2)
            k = self.k_proj(x).view(B, L, KV, hd).transpose(1, 2)
            v = self.v_proj(x).view(B, L, KV, hd).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            if static is not None:  # decode, L == 1, static cache written at device index pos
                kc, vc, pos, mask = static
                kc.index_copy_(2, pos, k)
                vc.index_copy_(2, pos, v)
                # GQA without repeating K/V: the G query heads of one KV head are G query rows.
                o = sdpa(q.reshape(B, KV, G * L, hd), kc, vc, False, mask)
                return self.o_proj(o.reshape(B, L, H * hd)), None
            if past is not None:
                k = torch.cat([past[0], k], 2)
                v = torch.cat([past[1], v], 2)
            new = (k, v)
            if G > 1:  # repeat_kv as transformers does
                S = k.shape[2]
                k = k[:, :, None].expand(B, KV, G, S, hd).reshape(B, H, S, hd)
                v = v[:, :, None].expand(B, KV, G, S, hd).reshape(B, H, S, hd)
            o = sdpa(q, k, v, causal=L > 1)
            return self.o_proj(o.transpose(1, 2).reshape(B, L, H * hd)), new

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            I = cfg["intermediate_size"]
            self.gate_proj = nn.Linear(D, I, bias=False, device=dev, dtype=dt)
            self.up_proj = nn.Linear(D, I, bias=False, device=dev, dtype=dt)
            self.down_proj = nn.Linear(I, D, bias=False, device=dev, dtype=dt)

        def forward(self, x):
            return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))

    eps = cfg.get("rms_norm_eps", 1e-6)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.input_layernorm = RMSNorm(D, eps)
            self.self_attn = Attn()
            self.post_attention_layernorm = RMSNorm(D, eps)
            self.mlp = MLP()

        def forward(self, x, cos, sin, past=None, static=None):
            a, new = self.self_attn(self.input_layernorm(x), cos, sin, past, static)
            x = x + a
            return x + self.mlp(self.post_attention_layernorm(x)), new

    class QwenLike(nn.Module):
        def __init__(self):
            super().__init__()
            V = cfg["vocab_size"]
            self.embed_tokens = nn.Embedding(V, D, device=dev, dtype=dt)
            self.layers = nn.ModuleList([Layer() for _ in range(cfg["num_hidden_layers"])])
            self.norm = RMSNorm(D, eps)
            self.tied = bool(cfg.get("tie_word_embeddings", False))
            if not self.tied:
                self.lm_head = nn.Linear(D, V, bias=False, device=dev, dtype=dt)
            theta = float(cfg.get("rope_theta", 1e6))
            inv = 1.0 / (theta ** (torch.arange(0, hd, 2, device=dev).float() / hd))
            self.register_buffer("inv_freq", inv, persistent=False)
            self.vocab = V

        def head(self, h):
            return F.linear(h, self.embed_tokens.weight) if self.tied else self.lm_head(h)

        def rope(self, pos):
            f = pos.float()[:, None] * self.inv_freq[None]
            e = torch.cat((f, f), -1)
            return e.cos()[None, None].to(dt), e.sin()[None, None].to(dt)

        def forward(self, ids, past=None, labels=None):
            B, L = ids.shape
            start = past[0][0].shape[2] if past else 0
            cos, sin = self.rope(torch.arange(start, start + L, device=ids.device))
            h = self.embed_tokens(ids)
            new = []
            for i, layer in enumerate(self.layers):
                h, kv = layer(h, cos, sin, past[i] if past else None)
                new.append(kv)
            logits = self.head(self.norm(h))
            loss = None
            if labels is not None:
                loss = F.cross_entropy(logits[:, :-1].float().reshape(-1, self.vocab),
                                       labels[:, 1:].reshape(-1))
            return logits, new, loss

        def decode_static(self, tok, pos, kcs, vcs, ar):
            cos, sin = self.rope(pos)
            mask = (ar <= pos).view(1, 1, 1, -1)
            h = self.embed_tokens(tok)
            for i, layer in enumerate(self.layers):
                h, _ = layer(h, cos, sin, static=(kcs[i], vcs[i], pos, mask))
            return self.head(self.norm(h))

    m = QwenLike()
    randn_init_(m)
    return m


QWEN14B = OrderedDict([
    ("vocab_size", 152064), ("hidden_size", 5120), ("intermediate_size", 13824),
    ("num_hidden_layers", 48), ("num_attention_heads", 40), ("num_key_value_heads", 8),
    ("max_position_embeddings", 32768), ("rope_theta", 1000000.0), ("tie_word_embeddings", False)])
QWEN1P5B = OrderedDict([
    ("vocab_size", 151936), ("hidden_size", 1536), ("intermediate_size", 8960),
    ("num_hidden_layers", 28), ("num_attention_heads", 12), ("num_key_value_heads", 2),
    ("max_position_embeddings", 32768), ("rope_theta", 1000000.0), ("tie_word_embeddings", True)])
QWEN_TINY = OrderedDict([
    ("vocab_size", 512), ("hidden_size", 64), ("intermediate_size", 128),
    ("num_hidden_layers", 2), ("num_attention_heads", 4), ("num_key_value_heads", 2),
    ("max_position_embeddings", 4096), ("rope_theta", 1000000.0), ("tie_word_embeddings", False)])


class QwenRunner:
    """One interface over transformers' Qwen2ForCausalLM and the plain-PyTorch fallback."""

    def __init__(self, ctx, cfg):
        self.impl = None
        self.notes = []
        if not getattr(ctx.args, "no_transformers", False):
            try:
                from transformers import Qwen2Config, Qwen2ForCausalLM
                import transformers
                kw = dict(cfg)
                hf_cfg = Qwen2Config(attn_implementation="sdpa", use_cache=True, **kw)
                with default_dtype(ctx.dt), dev_ctx(ctx):
                    model = Qwen2ForCausalLM(hf_cfg)
                model.to(device=ctx.dev)
                bad = [n for n, p in model.named_parameters() if p.dtype != ctx.dt]
                if bad:
                    model.to(dtype=ctx.dt)
                    self.notes.append("cast %d parameters to %s" % (len(bad), dtname(ctx.dt)))
                self.model = model
                self.impl = "transformers %s Qwen2ForCausalLM (attn %s)" % (
                    transformers.__version__, getattr(model.config, "_attn_implementation", "?"))
            except Exception as e:
                self.notes.append("transformers unusable (%s: %s); plain-PyTorch Qwen2-like "
                                  "model used" % (type(e).__name__, str(e)[:200]))
                self.impl = None
        if self.impl is None:
            self.model = build_qwen_like(cfg, ctx.dev, ctx.dt)
            self.impl = "plain-PyTorch Qwen2-like model in this script (same shapes as Qwen2)"
        self.hf = self.impl.startswith("transformers")

    def forward(self, ids, past=None, use_cache=True):
        if self.hf:
            out = self.model(input_ids=ids, past_key_values=past, use_cache=use_cache)
            return out.logits, out.past_key_values
        logits, new, _ = self.model(ids, past)
        return logits, new

    def loss(self, ids):
        if self.hf:
            return self.model(input_ids=ids, labels=ids, use_cache=False).loss
        return self.model(ids, labels=ids)[2]


# ---------------------------------------------------------------------------------------------
# A. The six shipped H200 workloads, again, with record_shapes
# ---------------------------------------------------------------------------------------------

def resnet50_model(ctx, batch, image):
    try:
        import torchvision
    except ImportError:
        raise Skip("torchvision is not installed")
    with dev_ctx(ctx):
        m = torchvision.models.resnet50(weights=None)
    m = m.to(device=ctx.dev, dtype=ctx.dt, memory_format=torch.channels_last).eval()
    x = torch.randn(batch, 3, image, image, device=ctx.dev, dtype=ctx.dt)
    x = x.contiguous(memory_format=torch.channels_last)
    return m, x


def w_resnet50_inference(ctx):
    batch, image = (2, 64) if ctx.smoke else (64, 224)
    m, x = resnet50_model(ctx, batch, image)
    with torch.no_grad():
        for _ in range(3):
            m(x)
        ctx.sync()
        record(ctx, "resnet50_inference_shapes", lambda i: m(x), 3, OrderedDict([
            ("name", "resnet50_inference"), ("warmup_steps", 3), ("batch", batch),
            ("image", image), ("dtype", dtname(ctx.dt)), ("memory_format", "channels_last"),
            ("model", "torchvision.models.resnet50(weights=None), eval, torch.no_grad"),
            ("record_shapes", True)]))


def w_resnet50_inference_compiled(ctx):
    ctx.need_compile()
    batch, image = (2, 64) if ctx.smoke else (64, 224)
    m, x = resnet50_model(ctx, batch, image)
    cm = torch.compile(m)
    with torch.no_grad():
        t0 = time.perf_counter()
        cm(x)
        ctx.sync()
        compile_s = time.perf_counter() - t0
        for _ in range(2):
            cm(x)
        ctx.sync()
        record(ctx, "resnet50_inference_compiled_shapes", lambda i: cm(x), 3, OrderedDict([
            ("name", "resnet50_inference_compiled"), ("warmup_steps", 3), ("batch", batch),
            ("image", image), ("dtype", dtname(ctx.dt)), ("memory_format", "channels_last"),
            ("compiled", True), ("compile_mode", "default"), ("compile_s", round(compile_s, 2)),
            ("model", "torchvision.models.resnet50(weights=None), eval, torch.no_grad, "
                      "torch.compile(model)"), ("record_shapes", True)]))


def w_dlrm_inference(ctx):
    if ctx.smoke:
        tables, rows, dim, batch, pooling, bot, top = 8, 1000, 16, 64, 4, [32, 16], [64, 32, 1]
    else:
        tables, rows, dim, batch, pooling = 8, 2000000, 128, 4096, 64
        bot = [512, 256, 128]
        top = [int(v) for v in ctx.args.dlrm_top.split(",")]
    dense_in = 13
    dev, dt = ctx.dev, ctx.dt

    def mlp(sizes, last_relu):
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1], device=dev, dtype=dt))
            if i < len(sizes) - 2 or last_relu:
                layers.append(nn.ReLU())
        return nn.Sequential(*layers)

    nf = tables + 1
    inter = dim + nf * (nf - 1) // 2

    class DLRM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.ModuleList([nn.EmbeddingBag(rows, dim, mode="sum", device=dev, dtype=dt)
                                      for _ in range(tables)])
            self.bot = mlp([dense_in] + bot, True)
            self.top = mlp([inter] + top, False)

        def forward(self, dense, idx, offsets):
            x = self.bot(dense)
            embs = [e(i, offsets) for e, i in zip(self.emb, idx)]
            T = torch.stack([x] + embs, dim=1)                     # [B, 9, dim]
            Z = torch.bmm(T, T.transpose(1, 2))                    # dot interaction
            li, lj = torch.tril_indices(nf, nf, offset=-1, device=dense.device)
            R = torch.cat([x, Z[:, li, lj]], dim=1)                # [B, dim + 36]
            return self.top(R)

    m = DLRM().eval()
    dense = torch.randn(batch, dense_in, device=dev, dtype=dt)
    idx = [torch.randint(0, rows, (batch * pooling,), device=dev) for _ in range(tables)]
    offsets = torch.arange(0, batch * pooling, pooling, device=dev)
    with torch.no_grad():
        for _ in range(3):
            m(dense, idx, offsets)
        ctx.sync()
        record(ctx, "dlrm_inference_shapes", lambda i: m(dense, idx, offsets), 3, OrderedDict([
            ("name", "dlrm_inference"), ("warmup_steps", 3), ("tables", tables), ("rows", rows),
            ("dim", dim), ("batch", batch), ("pooling", pooling), ("dtype", dtname(dt)),
            ("dense_features", dense_in),
            ("bottom_mlp", "-".join(map(str, [dense_in] + bot)) + " (ReLU after every layer)"),
            ("interaction", "dot: bmm of the %d feature vectors, strict lower triangle "
                            "(tril_indices offset -1), concatenated with the bottom output" % nf),
            ("top_mlp", "-".join(map(str, [inter] + top)) + " (ReLU except after the last)"),
            ("mlp_note", "default sizes read off the shipped dlrm_inference trace: 7 GEMMs per "
                         "step, 3 bottom and 4 top, output widths 512/256/128 and 1024/512/256/1 "
                         "(from the ReLU grids), first top GEMM with K not a multiple of 8 "
                         "(164); --dlrm-top changes the top MLP"),
            ("embedding", "nn.EmbeddingBag(mode='sum') x %d, fixed pooling via offsets" % tables),
            ("record_shapes", True)]))


def w_qwen14b_inference(ctx):
    cfg = QWEN_TINY if ctx.smoke else QWEN14B
    batch, seq, decode = (2, 16, 3) if ctx.smoke else (4, 1024, 16)
    t0 = time.perf_counter()
    r = QwenRunner(ctx, cfg)
    r.model.eval()
    ctx.sync()
    build_s = time.perf_counter() - t0
    ids = torch.randint(0, cfg["vocab_size"], (batch, seq), device=ctx.dev)

    def generate(n_decode):
        logits, past = r.forward(ids, None)
        tok = logits[:, -1:].argmax(-1)
        for _ in range(n_decode):
            logits, past = r.forward(tok, past)
            tok = logits[:, -1:].argmax(-1)
        return tok

    with torch.no_grad():
        generate(decode)        # warm-up: the same decode lengths (cuDNN/cuBLAS plans built)
        ctx.sync()
        n = decode
        notes = list(r.notes)
        while True:
            e = record(ctx, "qwen2.5-14b_inference_shapes", lambda i: generate(n), 1,
                       OrderedDict([
                           ("name", "qwen2.5-14b_inference"), ("warmup_steps", 1),
                           ("config", dict(cfg)), ("batch", batch), ("seq", seq),
                           ("decode_tokens", n), ("decode_tokens_planned", decode),
                           ("dtype", dtname(ctx.dt)), ("params_b", params_b(r.model)),
                           ("impl", r.impl), ("build_s", round(build_s, 2)),
                           ("step", "prefill of batch x seq (use_cache), then greedy decode: "
                                    "argmax of the last logits fed back, one token per forward"),
                           ("attention", "SDPA (backend chosen by PyTorch)"),
                           ("notes", notes), ("record_shapes", True)]))
            replace_entry(ctx, e)
            if e["gz_bytes"] <= ctx.max_gz or n <= 1:
                break
            # Every forward (prefill or one decode token) records about the same number of ops,
            # so the trace size goes as 1 + decode steps.
            old = n
            n = max(1, min(old - 1, int((old + 1) * 0.9 * ctx.max_gz / e["gz_bytes"]) - 1))
            notes.append("%d decode steps gave %.1f MiB gzipped (> %.1f MiB): re-profiled with %d"
                         % (old, e["gz_bytes"] / MiB, ctx.max_gz / MiB, n))
            print("    %s" % notes[-1], flush=True)


def w_qwen15b_training(ctx, foreach=True):
    cfg = QWEN_TINY if ctx.smoke else QWEN1P5B
    batch, seq = (2, 16) if ctx.smoke else (8, 1024)
    t0 = time.perf_counter()
    r = QwenRunner(ctx, cfg)
    r.model.train()
    ctx.sync()
    build_s = time.perf_counter() - t0
    # foreach=False: AdamW's per-parameter loop, whose every call the profiler records with its
    # shapes (the _foreach_* calls of the default are recorded with empty tensor lists, so
    # reach-cli extract cannot make problems of them; docs/benchmark.md).
    opt = torch.optim.AdamW(r.model.parameters(), lr=1e-4, foreach=foreach)
    ids = torch.randint(0, cfg["vocab_size"], (batch, seq), device=ctx.dev)

    def step(i):
        opt.zero_grad(set_to_none=True)
        loss = r.loss(ids)
        loss.backward()
        opt.step()

    step(0)   # warm-up: AdamW state created, kernels and plans warm
    ctx.sync()
    name = "qwen2.5-1.5b_training" + ("" if foreach else "_per_param")
    record(ctx, name + "_shapes", step, 1, OrderedDict([
        ("name", name), ("warmup_steps", 1), ("config", dict(cfg)),
        ("batch", batch), ("seq", seq), ("decode_tokens", 0), ("dtype", dtname(ctx.dt)),
        ("params_b", params_b(r.model)), ("impl", r.impl), ("build_s", round(build_s, 2)),
        ("optimizer", "torch.optim.AdamW(lr=1e-4), defaults (foreach), bf16 parameters"
         if foreach else "torch.optim.AdamW(lr=1e-4, foreach=False), bf16 parameters"),
        ("step", "zero_grad(set_to_none) + forward with labels (causal LM loss) + backward + "
                 "optimizer step"), ("notes", r.notes), ("record_shapes", True)]))


def w_qwen15b_training_per_param(ctx):
    w_qwen15b_training(ctx, foreach=False)


def w_encoder12_training(ctx, compiled=True):
    if compiled:
        ctx.need_compile()
    if ctx.smoke:
        d, heads, ffn, layers, batch, seq = 64, 4, 128, 2, 2, 16
    else:
        d, heads, ffn, layers, batch, seq = 1024, 16, 4096, 12, 16, 512
    with dev_ctx(ctx):
        layer = nn.TransformerEncoderLayer(d_model=d, nhead=heads, dim_feedforward=ffn,
                                           dropout=0.1, activation="gelu", batch_first=True,
                                           device=ctx.dev)
        try:
            enc = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)
        except TypeError:
            enc = nn.TransformerEncoder(layer, num_layers=layers)
    enc = enc.to(ctx.dev).train()
    cm = torch.compile(enc) if compiled else enc
    if compiled:
        try:
            opt = torch.optim.AdamW(enc.parameters(), lr=1e-4, fused=True)
            optimizer = "torch.optim.AdamW(fused=True)"
        except (TypeError, RuntimeError):
            opt = torch.optim.AdamW(enc.parameters(), lr=1e-4)
            optimizer = "torch.optim.AdamW(fused=False)"
    else:
        # Eager, with AdamW's per-parameter loop: every kernel under an ATen call recorded with
        # its shapes (the fused and foreach optimizers' tensor lists are recorded empty).
        opt = torch.optim.AdamW(enc.parameters(), lr=1e-4, foreach=False)
        optimizer = "torch.optim.AdamW(foreach=False)"
    x = torch.randn(batch, seq, d, device=ctx.dev)

    def step(i):
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=ctx.dev.type, dtype=torch.bfloat16):
            y = cm(x)
        loss = y.float().mean()
        loss.backward()
        opt.step()

    t0 = time.perf_counter()
    step(0)
    ctx.sync()
    compile_s = time.perf_counter() - t0
    step(1)
    ctx.sync()
    name = "encoder12_training" + ("_compiled" if compiled else "")
    meta = OrderedDict([
        ("name", name), ("warmup_steps", 2), ("batch", batch),
        ("seq", seq), ("d_model", d), ("heads", heads), ("ffn", ffn), ("layers", layers),
        ("compiled", compiled)])
    if compiled:
        meta["compile_mode"] = "default"
        meta["compile_s"] = round(compile_s, 2)
    meta["model"] = ("nn.TransformerEncoder of nn.TransformerEncoderLayer(batch_first, gelu, "
                     "dropout 0.1), fp32 parameters, torch.autocast(bf16), loss = mean")
    meta["optimizer"] = optimizer
    meta["record_shapes"] = True
    record(ctx, name + "_shapes", step, 3, meta)


def w_encoder12_training_compiled(ctx):
    w_encoder12_training(ctx, compiled=True)


def w_encoder12_training_eager(ctx):
    w_encoder12_training(ctx, compiled=False)


# ---------------------------------------------------------------------------------------------
# B. Workloads on current kernels
# ---------------------------------------------------------------------------------------------

E4M3_MAX = 448.0


def w_fp8_scaled_mm(ctx):
    ctx.need_cuda("FP8 _scaled_mm")
    if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
        raise Skip("torch._scaled_mm / float8_e4m3fn missing")
    if ctx.capability() < (8, 9):
        raise Skip("FP8 GEMM needs sm_89 or newer")
    M, d, ffn = (256, 256, 512) if ctx.smoke else (8192, 4096, 14336)
    dt, dev = torch.bfloat16, ctx.dev
    f8 = torch.float8_e4m3fn
    x = torch.randn(M, d, device=dev, dtype=dt)
    w13 = torch.randn(2 * ffn, d, device=dev, dtype=dt) * 0.02     # gate and up, fused
    w2 = torch.randn(d, ffn, device=dev, dtype=dt) * 0.02

    def q_tensor(t):   # dynamic per-tensor scale: amax reduction, divide, clamp, cast
        s = t.abs().amax().float().clamp(min=1e-12) / E4M3_MAX
        return (t.float() / s).clamp(-E4M3_MAX, E4M3_MAX).to(f8), s

    def q_rows(t):     # dynamic per-row scale, [rows, 1]
        s = t.abs().amax(dim=1, keepdim=True).float().clamp(min=1e-12) / E4M3_MAX
        return (t.float() / s).clamp(-E4M3_MAX, E4M3_MAX).to(f8), s.contiguous()

    variants = OrderedDict()
    # Weights quantized once, outside the profiled steps (as an FP8 inference checkpoint is).
    w13_t, s13_t = q_tensor(w13)
    w2_t, s2_t = q_tensor(w2)
    w13_r, s13_r = q_rows(w13)
    w2_r, s2_r = q_rows(w2)

    def mlp_tensorwise():
        xq, sx = q_tensor(x)
        h = torch._scaled_mm(xq, w13_t.t(), scale_a=sx, scale_b=s13_t, out_dtype=dt)
        g, u = h.chunk(2, -1)
        a = F.silu(g) * u
        aq, sa = q_tensor(a)
        return x + torch._scaled_mm(aq, w2_t.t(), scale_a=sa, scale_b=s2_t, out_dtype=dt)

    def mlp_rowwise():
        xq, sx = q_rows(x)
        h = torch._scaled_mm(xq, w13_r.t(), scale_a=sx, scale_b=s13_r.reshape(1, -1),
                             out_dtype=dt)
        g, u = h.chunk(2, -1)
        a = F.silu(g) * u
        aq, sa = q_rows(a)
        return x + torch._scaled_mm(aq, w2_r.t(), scale_a=sa, scale_b=s2_r.reshape(1, -1),
                                    out_dtype=dt)

    def mlp_bf16():
        h = F.linear(x, w13)
        g, u = h.chunk(2, -1)
        return x + F.linear(F.silu(g) * u, w2)

    variants["fp8_scaled_mm_tensorwise"] = (mlp_tensorwise, "e4m3 activations and weights, "
                                            "per-tensor float32 scales (activation scale computed "
                                            "every call), bf16 output, use_fast_accum=False")
    variants["fp8_scaled_mm_rowwise"] = (mlp_rowwise, "e4m3, row-wise scales: activations "
                                         "[M,1] per token, weights [1,N] per output channel, "
                                         "bf16 output")
    variants["fp8_scaled_mm_bf16_reference"] = (mlp_bf16, "the same MLP in plain bf16 "
                                                "(F.linear), for comparison")
    ref = mlp_bf16().float()
    for stem, (fn, what) in variants.items():
        try:
            with torch.no_grad():
                for _ in range(3):
                    out = fn()
                ctx.sync()
                err = ((out.float() - ref).norm() / ref.norm()).item()
                record(ctx, stem, lambda i: fn(), 5, OrderedDict([
                    ("name", stem), ("workload", "fp8_scaled_mm"), ("warmup_steps", 3),
                    ("tokens", M), ("d_model", d), ("ffn", ffn), ("mlp", "x + W2(silu(gate) * "
                     "up), [gate; up] = W13 x, W13 [2*ffn, d], W2 [d, ffn]"),
                    ("variant", what), ("rel_error_vs_bf16", round(err, 5)),
                    ("record_shapes", True)]))
        except Exception as e:
            ctx.failures.append("%s: %s: %s" % (stem, type(e).__name__, str(e)[:300]))
            print("    [variant failed] %s: %s: %s" % (stem, type(e).__name__, str(e)[:200]),
                  flush=True)


def w_moe_grouped_gemm(ctx):
    if ctx.smoke:
        T, d, E, k, ffn = 64, 64, 4, 2, 128
    else:
        T, d, E, k, ffn = 8192, 4096, 8, 2, 14336        # Mixtral-8x7B layer shapes
    dev, dt = ctx.dev, ctx.dt
    gen = torch.Generator(device=dev)
    gen.manual_seed(0)
    x0 = torch.randn(T, d, device=dev, dtype=dt, generator=gen)
    router = nn.Linear(d, E, bias=False, device=dev, dtype=dt)
    # Expert weights stored [E, out, in] (as nn.Linear); passed to _grouped_mm transposed, i.e.
    # column-major [E, in, out], as torchtitan does.
    w13 = (torch.randn(E, 2 * ffn, d, device=dev, dtype=dt, generator=gen) * 0.02)
    w2 = (torch.randn(E, d, ffn, device=dev, dtype=dt, generator=gen) * 0.02)
    gm = getattr(torch, "_grouped_mm", None)

    def route(x):
        logits = router(x)                                        # [T, E]
        probs = torch.softmax(logits.float(), dim=-1)
        topw, topi = torch.topk(probs, k, dim=-1)                 # [T, k]
        topw = (topw / topw.sum(-1, keepdim=True)).to(x.dtype)
        flat = topi.reshape(-1)                                   # [T*k] expert of each slot
        sorted_e, order = torch.sort(flat, stable=True)           # group slots by expert
        tok = order // k                                          # token of each sorted slot
        xs = x.index_select(0, tok)                               # permute  [T*k, d]
        offs = torch.searchsorted(sorted_e, torch.arange(E, device=x.device), right=True)
        return xs, tok, topw.reshape(-1).index_select(0, order), offs.to(torch.int32)

    def finalize(x, y, tok, w):
        out = torch.zeros_like(x)
        return out.index_add_(0, tok, y * w[:, None])             # weighted sum, un-permute

    def experts_grouped(xs, offs):
        h = gm(xs, w13.transpose(-2, -1), offs=offs)              # [T*k, 2*ffn]
        g, u = h.chunk(2, -1)
        a = F.silu(g) * u
        return gm(a, w2.transpose(-2, -1), offs=offs)             # [T*k, d]

    def experts_loop(xs, offs):
        ends = offs.tolist()                                      # host sync, as loops need
        ys, start = [], 0
        for e in range(E):
            end = ends[e]
            h = xs[start:end] @ w13[e].t()
            g, u = h.chunk(2, -1)
            ys.append((F.silu(g) * u) @ w2[e].t())
            start = end
        return torch.cat(ys, 0)

    def layer(x, experts):
        xs, tok, w, offs = route(x)
        return x + finalize(x, experts(xs, offs), tok, w)

    impl, why = "loop over experts (torch.mm per expert)", []
    experts = experts_loop
    if gm is None:
        why.append("torch._grouped_mm does not exist in torch %s" % torch.__version__)
    else:
        try:
            with torch.no_grad():
                xs, tok, w, offs = route(x0)
                yg = experts_grouped(xs, offs)
                yl = experts_loop(xs, offs)
                err = ((yg.float() - yl.float()).norm() / yl.float().norm()).item()
            if not err < 2e-2:
                raise RuntimeError("grouped result differs from the loop: rel err %.3g" % err)
            experts = experts_grouped
            impl = "torch._grouped_mm (2d x 3d, int32 cumulative offsets), rel err vs loop %.2g" \
                % err
        except Exception as e:
            why.append("torch._grouped_mm failed: %s: %s" % (type(e).__name__, str(e)[:300]))
    if why:
        print("    " + "; ".join(why) + " -> loop over experts", flush=True)
    meta = OrderedDict([
        ("workload", "moe_grouped_gemm"), ("tokens", T), ("d_model", d), ("experts", E),
        ("top_k", k), ("expert_ffn", ffn), ("dtype", dtname(dt)), ("experts_impl", impl),
        ("fallback_reason", why),
        ("layer", "router Linear(d, E) -> softmax(fp32) -> topk -> renormalise -> stable sort "
                  "of expert ids -> index_select permutation -> SwiGLU experts (W13 [E,2ffn,d], "
                  "W2 [E,d,ffn]) -> weight multiply -> index_add_ finalize + residual"),
        ("record_shapes", True)])
    with torch.no_grad():
        for _ in range(3):
            layer(x0, experts)
        ctx.sync()
        m = OrderedDict(meta)
        m["name"] = "moe_grouped_gemm"
        m["warmup_steps"] = 3
        m["pass"] = "forward (inference)"
        record(ctx, "moe_grouped_gemm", lambda i: layer(x0, experts), 5, m)
    # Training step: forward + backward through the grouped GEMMs (weight gradients included).
    try:
        for t in (w13, w2, router.weight):
            t.requires_grad_(True)
        xg = x0.clone().requires_grad_(True)

        def train_step(i):
            y = layer(xg, experts)
            y.float().square().mean().backward()
            w13.grad = w2.grad = router.weight.grad = xg.grad = None

        for _ in range(2):
            train_step(0)
        ctx.sync()
        m = OrderedDict(meta)
        m["name"] = "moe_grouped_gemm_fwdbwd"
        m["warmup_steps"] = 2
        m["pass"] = "forward + backward (loss = mean(y^2)), gradients for x, router, W13, W2"
        record(ctx, "moe_grouped_gemm_fwdbwd", train_step, 3, m)
    except Exception as e:
        ctx.failures.append("moe_grouped_gemm_fwdbwd: %s: %s" % (type(e).__name__, str(e)[:300]))
        print("    [variant failed] moe_grouped_gemm_fwdbwd: %s: %s"
              % (type(e).__name__, str(e)[:200]), flush=True)


def w_sdpa_backends(ctx):
    ctx.need_cuda("SDPA backend selection")
    try:
        from torch.nn.attention import sdpa_kernel, SDPBackend
    except ImportError:
        raise Skip("torch.nn.attention.sdpa_kernel missing")
    B, S, H, hd = (2, 256, 4, 64) if ctx.smoke else (8, 2048, 16, 128)
    d = H * hd
    dev, dt = ctx.dev, torch.bfloat16
    qkv = nn.Linear(d, 3 * d, bias=False, device=dev, dtype=dt)
    proj = nn.Linear(d, d, bias=False, device=dev, dtype=dt)
    x = torch.randn(B, S, d, device=dev, dtype=dt, requires_grad=True)
    gy = torch.randn(B, S, d, device=dev, dtype=dt)

    def block(causal):
        q, k, v = qkv(x).view(B, S, 3, H, hd).permute(2, 0, 3, 1, 4).unbind(0)  # [B, H, S, hd]
        o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return x + proj(o.transpose(1, 2).reshape(B, S, d))

    def fwd_bwd(causal):
        block(causal).backward(gy)
        x.grad = qkv.weight.grad = proj.weight.grad = None

    backends = [("cudnn", "CUDNN_ATTENTION"), ("flash", "FLASH_ATTENTION"),
                ("efficient", "EFFICIENT_ATTENTION")]
    for short_name, enum_name in backends:
        stem = "sdpa_backends_" + short_name
        be = getattr(SDPBackend, enum_name, None)
        if be is None:
            ctx.failures.append("%s: SDPBackend.%s missing" % (stem, enum_name))
            continue
        try:
            with sdpa_kernel([be]):
                for causal in (False, True):
                    for _ in range(2):
                        fwd_bwd(causal)
                ctx.sync()
                steps = 3
                record(ctx, stem, lambda i: fwd_bwd(i >= steps), 2 * steps, OrderedDict([
                    ("name", stem), ("workload", "sdpa_backends"), ("backend", enum_name),
                    ("warmup_steps", 4), ("batch", B), ("seq", S), ("heads", H),
                    ("head_dim", hd), ("dtype", dtname(dt)),
                    ("block", "x + proj(SDPA(split(qkv(x)))), bias-free Linear; forward + "
                              "backward with a fixed random output gradient"),
                    ("steps_layout", "steps 0-%d non-causal, %d-%d causal (user_annotation "
                                     "sdpa/<backend>/<mask>)" % (steps - 1, steps, 2 * steps - 1)),
                    ("record_shapes", True)]),
                       label=lambda i, n=short_name: "sdpa/%s/%s" % (n, "causal" if i >= steps
                                                                      else "noncausal"))
        except Exception as e:
            ctx.failures.append("%s: %s: %s" % (stem, type(e).__name__, str(e)[:300]))
            print("    [backend failed] %s: %s: %s" % (stem, type(e).__name__, str(e)[:200]),
                  flush=True)


def w_max_autotune(ctx):
    ctx.need_compile()
    ctx.need_cuda("max-autotune (Triton GEMM templates)")
    tokens, d, hidden, head_out, nblocks = (256, 128, 512, 64, 4) if ctx.smoke else \
        (8192, 2048, 8192, 1024, 4)
    dev, dt = ctx.dev, torch.bfloat16

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(d, device=dev, dtype=dt)
            self.fc1 = nn.Linear(d, hidden, device=dev, dtype=dt)
            self.fc2 = nn.Linear(hidden, d, device=dev, dtype=dt)

        def forward(self, x):
            return x + self.fc2(F.gelu(self.fc1(self.ln(x)), approximate="tanh"))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.Sequential(*[Block() for _ in range(nblocks)])
            self.head = nn.Linear(d, head_out, device=dev, dtype=dt)

        def forward(self, x):
            return self.head(self.blocks(x))

    net = Net().eval()
    x = torch.randn(tokens, d, device=dev, dtype=dt)
    import torch._inductor.config as icfg
    knobs = OrderedDict()
    for k in ("max_autotune_gemm_backends", "max_autotune_gemm_search_space",
              "coordinate_descent_tuning", "autotune_in_subproc"):
        knobs[k] = repr(getattr(icfg, k, None))
    knobs["triton.cudagraphs (default, before mode)"] = repr(getattr(icfg.triton, "cudagraphs",
                                                                     None))
    mark = getattr(getattr(torch, "compiler", None), "cudagraph_mark_step_begin", None)
    for mode, stem in (("max-autotune", "max_autotune"),
                       ("max-autotune-no-cudagraphs", "max_autotune_no_cudagraphs")):
        try:
            torch._dynamo.reset()
            cm = torch.compile(net, mode=mode)

            def call(i):
                if mark is not None and mode == "max-autotune":
                    mark()
                return cm(x)

            with torch.no_grad():
                t0 = time.perf_counter()
                call(0)
                ctx.sync()
                compile_s = time.perf_counter() - t0
                for _ in range(3):
                    call(0)
                ctx.sync()
                print("    %s: compile + autotune %.1f s" % (mode, compile_s), flush=True)
                record(ctx, stem, call, 5, OrderedDict([
                    ("name", stem), ("workload", "max_autotune"), ("compile_mode", mode),
                    ("compile_s", round(compile_s, 2)), ("warmup_steps", 4),
                    ("tokens", tokens), ("d_model", d), ("hidden", hidden), ("blocks", nblocks),
                    ("head_out", head_out), ("dtype", dtname(dt)),
                    ("model", "%d x [x + fc2(gelu_tanh(fc1(LayerNorm(x))))] -> head Linear; "
                              "inference (no_grad)" % nblocks),
                    ("gemm_shapes", ["%dx%d @ %dx%d" % (tokens, d, d, hidden),
                                     "%dx%d @ %dx%d" % (tokens, hidden, hidden, d),
                                     "%dx%d @ %dx%d" % (tokens, d, d, head_out)]),
                    ("inductor_config", knobs),
                    ("note", "mode max-autotune also turns on Inductor's CUDA graphs (graph "
                             "replays, see recorded.graph); the -no-cudagraphs trace has the "
                             "same kernels launched one by one; its compile reuses the autotune "
                             "results of the first" if mode == "max-autotune" else
                             "same model and autotuning without CUDA graphs"),
                    ("record_shapes", True)]))
        except Exception as e:
            ctx.failures.append("%s: %s: %s" % (stem, type(e).__name__, str(e)[:300]))
            print("    [mode failed] %s: %s: %s" % (stem, type(e).__name__, str(e)[:200]),
                  flush=True)


def w_cuda_graph_replay(ctx):
    if ctx.smoke:
        cfg = OrderedDict(QWEN_TINY)
        batch, ctx_len, steps = 2, 16, 3
    else:
        cfg = OrderedDict([("vocab_size", 152064), ("hidden_size", 3584),
                           ("intermediate_size", 18944), ("num_hidden_layers", 6),
                           ("num_attention_heads", 28), ("num_key_value_heads", 4),
                           ("rope_theta", 1000000.0), ("tie_word_embeddings", False)])
        batch, ctx_len, steps = 32, 1024, 20
    dev, dt = ctx.dev, ctx.dt
    model = build_qwen_like(cfg, dev, dt).eval()
    H, KV = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = cfg["hidden_size"] // H
    L = ctx_len + 64
    nl = cfg["num_hidden_layers"]
    kcs = [torch.randn(batch, KV, L, hd, device=dev, dtype=dt) for _ in range(nl)]
    vcs = [torch.randn(batch, KV, L, hd, device=dev, dtype=dt) for _ in range(nl)]
    ar = torch.arange(L, device=dev)
    tok = torch.randint(0, cfg["vocab_size"], (batch, 1), device=dev)
    pos = torch.full((1,), ctx_len, dtype=torch.long, device=dev)

    def decode_step():
        logits = model.decode_static(tok, pos, kcs, vcs, ar)
        tok.copy_(logits[:, -1].argmax(-1, keepdim=True))   # greedy token fed back in-graph
        pos.add_(1)                                         # next cache slot, in-graph
        return logits

    base = OrderedDict([
        ("workload", "cuda_graph_replay"), ("config", dict(cfg)), ("layers", nl),
        ("batch", batch), ("context", ctx_len), ("cache_len", L), ("dtype", dtname(dt)),
        ("params_b", params_b(model)),
        ("model", "plain-PyTorch Qwen2-like decoder (Qwen2.5-7B widths, %d layers): RMSNorm, "
                  "GQA attention on a static KV cache (index_copy_ at a device-side position, "
                  "boolean mask, SDPA with the %d query heads of a KV head as query rows), SwiGLU "
                  "MLP, lm_head, argmax fed back" % (nl, H // KV)),
        ("record_shapes", True)])
    with torch.no_grad():
        for _ in range(3):
            decode_step()
        ctx.sync()
        pos.fill_(ctx_len)
        m = OrderedDict(base)
        m.update(name="cuda_graph_eager", warmup_steps=3,
                 mode="the same decode step launched eagerly, kernel by kernel (baseline)")
        record(ctx, "cuda_graph_eager", lambda i: decode_step(), steps, m)
        if not ctx.cuda:
            raise Skip("graph capture/replay needs CUDA (the eager decode trace was written)")

        def capture(warm=True):
            g = torch.cuda.CUDAGraph()
            if warm:   # side-stream warm-up before a first capture, as the CUDA-graph docs do
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        decode_step()
                torch.cuda.current_stream().wait_stream(s)
            t0 = time.perf_counter()
            with torch.cuda.graph(g):
                decode_step()
            torch.cuda.synchronize()
            return g, time.perf_counter() - t0

        g, cap_s = capture()
        pos.fill_(ctx_len)
        for _ in range(3):
            g.replay()
        ctx.sync()
        pos.fill_(ctx_len)
        m = OrderedDict(base)
        m.update(name="cuda_graph_replay", warmup_steps=3, capture_s=round(cap_s, 3),
                 mode="torch.cuda.CUDAGraph of one decode step, captured before profiling, "
                      "replayed once per profiled step (user_annotation graph_replay)",
                 graph_capture="outside the profiler")
        e = record(ctx, "cuda_graph_replay", lambda i: g.replay(), steps, m,
                   label="graph_replay")
        gi = (e.get("recorded") or {}).get("graph") or {}
        if not gi.get("kernels_from_graph_launches"):
            # Some CUPTI versions only attribute kernels of graphs created while tracing: capture
            # a second graph inside the profiler session that records its replays.
            msg = ("no kernel correlated to a graph launch in the trace of a graph captured "
                   "before profiling; recorded cuda_graph_replay_captured_in_profiler too")
            print("    " + msg, flush=True)
            ctx.notes.append(msg)
            box = {}

            def setup():
                box["g"], box["cap"] = capture(warm=False)
                pos.fill_(ctx_len)

            m = OrderedDict(base)
            m.update(name="cuda_graph_replay_captured_in_profiler", warmup_steps=0,
                     graph_capture="inside the same profiler session, in the user_annotation "
                                   "'setup' before the replays (its launches run no kernel)",
                     mode="as cuda_graph_replay, graph captured while the profiler was active")
            e2 = record(ctx, "cuda_graph_replay_captured_in_profiler",
                        lambda i: box["g"].replay(), steps, m, label="graph_replay", setup=setup)
            e2["capture_s"] = round(box.get("cap", 0.0), 3)


# ---------------------------------------------------------------------------------------------
# C. Operator cross-check traces
# ---------------------------------------------------------------------------------------------

def load_problems(include_large=True, filt=""):
    files = sorted(PROBLEMS_DIR.glob("*.json"))
    if include_large:
        files += sorted((PROBLEMS_DIR / "large").glob("*.json"))
    out = []
    for f in files:
        with open(f) as fh:
            p = json.load(fh)
        p.setdefault("params", {})
        if p.get("op") in XCHECK_OPS and (not filt or filt in p["id"]):
            p["_file"] = str(f.resolve().relative_to((HERE / ".." / "..").resolve()))
            out.append(p)
    return out


def smoke_shapes(p):
    """Tiny shapes of the same rank for a CPU smoke run."""
    s = json.loads(json.dumps(p["shapes"]))
    op = p["op"]
    if op in ("softmax", "layernorm"):
        s["x"] = [min(s["x"][0], 8), min(s["x"][1], 256)]
    elif op == "add":
        s["a"] = s["b"] = [min(s["a"][0], 4096)]
    elif op == "matmul":
        s["a"], s["b"] = [64, 64], [64, 64]
    elif op == "embedding_bag_sum":
        s["weight"] = [1000, s["weight"][1]]
        s["indices"], s["offsets"] = [512], [16]
    return s


class L2Flush:
    """Before every call, a memset of max(2 x L2, 120 MiB) on the current stream (the verifier's
    cold-L2 method). cuMemsetD8Async through the driver API, so it appears as a `Memset (Device)`
    (gpu_memset), not as a fill kernel; Tensor.zero_() (a fill kernel) if the driver call fails."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.method = "none (CPU)"
        self.nbytes = 0
        self.fn = None
        if not ctx.cuda:
            return
        l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0) or 60 * MiB
        self.nbytes = int(max(2 * l2, 120 * MiB))
        self.buf = torch.empty(self.nbytes, dtype=torch.uint8, device=ctx.dev)
        try:
            import ctypes
            lib = ctypes.CDLL("libcuda.so.1")
            f = lib.cuMemsetD8Async
            f.restype = ctypes.c_int
            f.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t, ctypes.c_void_p]
            ptr = self.buf.data_ptr()

            def run():
                rc = f(ptr, 0, self.nbytes, torch.cuda.current_stream().cuda_stream)
                if rc != 0:
                    raise RuntimeError("cuMemsetD8Async returned %d" % rc)

            run()
            torch.cuda.synchronize()
            self.fn = run
            self.method = "cuMemsetD8Async (driver API memset, gpu_memset in the trace)"
        except Exception as e:
            self.fn = self.buf.zero_
            self.method = "Tensor.zero_() fill kernel (driver memset failed: %s)" % e

    def __call__(self):
        if self.fn is not None:
            self.fn()


def xcheck_case(p, shapes, dev):
    dt = {"f32": torch.float32, "bf16": torch.bfloat16}[p["dtype"]]
    scale = float(p["params"].get("scale", 1.0))
    uniform = p["params"].get("distribution", "normal") == "uniform"
    g = torch.Generator(device=dev)
    g.manual_seed(int(p.get("seed", 42)))

    def rnd(shape):
        f = torch.rand if uniform else torch.randn
        return f(*shape, device=dev, dtype=dt, generator=g) * scale

    op = p["op"]
    if op == "softmax":
        x = rnd(shapes["x"])
        return (lambda: torch.softmax(x, dim=-1)), "torch.softmax(x, dim=-1)"
    if op == "layernorm":
        x = rnd(shapes["x"])
        C = shapes["x"][-1]
        w, b = rnd([C]), rnd([C])
        eps = float(p["params"].get("eps", 1e-5))
        return (lambda: F.layer_norm(x, (C,), w, b, eps)), \
            "F.layer_norm(x, (C,), weight, bias, eps=%g)" % eps
    if op == "add":
        a, b = rnd(shapes["a"]), rnd(shapes["b"])
        return (lambda: torch.add(a, b)), "torch.add(a, b)"
    if op == "matmul":
        a, b = rnd(shapes["a"]), rnd(shapes["b"])
        return (lambda: torch.matmul(a, b)), "torch.matmul(a, b)"
    if op == "embedding_bag_sum":
        V, D = shapes["weight"]
        Lk, B = shapes["indices"][0], shapes["offsets"][0]
        w = rnd([V, D])
        idx = torch.randint(0, V, (Lk,), device=dev, generator=g)
        j = torch.empty(B, device=dev, dtype=torch.float64).uniform_(-0.4, 0.4, generator=g)
        offs = torch.floor(Lk / B * (torch.arange(B, device=dev) + j)).to(torch.int64)
        offs[0] = 0
        return (lambda: F.embedding_bag(idx, w, offs, mode="sum")), \
            "F.embedding_bag(indices, weight, offsets, mode='sum') (offsets: mean spacing L/B, " \
            "jitter +-0.4 as scripts/baseline_check.py; offsets[0] = 0)"
    raise KeyError(op)


def kernel_stats(json_gz_path):
    with gzip.open(json_gz_path, "rt") as f:
        d = json.load(f)
    by = OrderedDict()
    for e in trace_events(d):
        if e.get("cat") in ("kernel", "gpu_memset"):
            name = e.get("name", "?")
            if e.get("cat") == "gpu_memset":
                name = "[memset] " + name
            by.setdefault(name, []).append(float(e.get("dur", 0.0)))
    out = []
    for n, ds in sorted(by.items(), key=lambda kv: -sum(kv[1])):
        out.append(OrderedDict([("name", short(n, 160)), ("count", len(ds)),
                                ("median_us", round(statistics.median(ds), 3)),
                                ("min_us", round(min(ds), 3)), ("max_us", round(max(ds), 3))]))
    return out


def w_xcheck(ctx):
    probs = load_problems(include_large=not ctx.args.xcheck_no_large,
                          filt=ctx.args.xcheck_filter)
    if not probs:
        raise Skip("no problem file matched in %s" % PROBLEMS_DIR)
    flush = L2Flush(ctx)
    try:
        tf32 = bool(torch.backends.cuda.matmul.allow_tf32) if ctx.cuda else None
    except Exception:
        tf32 = None
    for p in probs:
        stem = "xcheck_" + p["id"]
        try:
            shapes = smoke_shapes(p) if ctx.smoke else p["shapes"]
            fn, expr = xcheck_case(p, shapes, ctx.dev)

            def call(i):
                flush()
                fn()

            with torch.no_grad():
                for _ in range(10):
                    call(0)
                ctx.sync()
                meta = OrderedDict([
                    ("name", stem), ("workload", "xcheck"), ("problem_id", p["id"]),
                    ("problem_file", p["_file"]), ("op", p["op"]), ("dtype", p["dtype"]),
                    ("shapes", shapes), ("params", p["params"]), ("expr", expr),
                    ("warmup_calls", 10), ("l2_flush", flush.method),
                    ("l2_flush_bytes", flush.nbytes),
                    ("inputs", "seeded torch generator (values differ from the verifier's "
                               "counter-based generator; distribution and scale as the file)")])
                if ctx.smoke:
                    meta["smoke_shapes"] = True
                if p["op"] == "matmul":
                    meta["allow_tf32"] = tf32
                    meta["float32_matmul_precision"] = torch.get_float32_matmul_precision() \
                        if hasattr(torch, "get_float32_matmul_precision") else None
                e = record(ctx, stem, call, 20, meta, summarize=False)
                e["kernels"] = kernel_stats(ctx.work / e["file"])
        except Exception as e:
            ctx.failures.append("%s: %s: %s" % (stem, type(e).__name__, str(e)[:300]))
            print("    [problem failed] %s: %s: %s" % (stem, type(e).__name__, str(e)[:200]),
                  flush=True)


# ---------------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------------

class W:
    def __init__(self, fn, group, est_s, timeout_s, slow, what):
        self.fn, self.group, self.est_s, self.timeout_s, self.slow, self.what = \
            fn, group, est_s, timeout_s, slow, what


WORKLOADS = OrderedDict([
    ("resnet50_inference", W(w_resnet50_inference, "A", 20, 150, False,
                             "torchvision ResNet-50, batch 64, bf16, channels_last, 3 steps")),
    ("resnet50_inference_compiled", W(w_resnet50_inference_compiled, "A", 90, 330, True,
                                      "the same under torch.compile (default mode), 3 steps")),
    ("dlrm_inference", W(w_dlrm_inference, "A", 15, 150, False,
                         "8 EmbeddingBag(2M x 128, sum, pooling 64), batch 4096, MLPs, bf16")),
    ("qwen2.5-14b_inference", W(w_qwen14b_inference, "A", 75, 330, False,
                                "Qwen2.5-14B shapes, 4 x 1024 prefill + 16 decode, bf16, SDPA")),
    ("qwen2.5-1.5b_training", W(w_qwen15b_training, "A", 30, 200, False,
                                "Qwen2.5-1.5B shapes, 8 x 1024, AdamW, one step, bf16")),
    ("encoder12_training_compiled", W(w_encoder12_training_compiled, "A", 110, 330, True,
                                      "12-layer encoder d=1024, compile, fused AdamW, 3 steps")),
    ("qwen2.5-1.5b_training_per_param", W(w_qwen15b_training_per_param, "D", 40, 240, False,
                                          "Qwen2.5-1.5B training, AdamW(foreach=False)")),
    ("encoder12_training", W(w_encoder12_training_eager, "D", 30, 200, False,
                             "the 12-layer encoder eager, AdamW(foreach=False), 3 steps")),
    ("fp8_scaled_mm", W(w_fp8_scaled_mm, "B", 20, 150, False,
                        "SwiGLU MLP with FP8 _scaled_mm (per-tensor, row-wise) + bf16 reference")),
    ("moe_grouped_gemm", W(w_moe_grouped_gemm, "B", 25, 150, False,
                           "Mixtral-shaped MoE layer, _grouped_mm, top-2; fwd and fwd+bwd")),
    ("sdpa_backends", W(w_sdpa_backends, "B", 30, 180, False,
                        "attention block with cuDNN / flash / efficient SDPA, fwd+bwd")),
    ("max_autotune", W(w_max_autotune, "B", 150, 360, True,
                       "4-block MLP under torch.compile max-autotune (+ no-cudagraphs)")),
    ("cuda_graph_replay", W(w_cuda_graph_replay, "B", 30, 180, False,
                            "6-layer Qwen-like decode (batch 32) as CUDAGraph replay + eager")),
    ("xcheck", W(w_xcheck, "C", 45, 300, False,
                 "one cold-L2 trace per softmax/layernorm/add/embedding_bag_sum/matmul problem")),
])


def select(only, skip):
    names = list(WORKLOADS)
    if only:
        chosen = []
        for tok in [t.strip() for t in only.split(",") if t.strip()]:
            if tok in ("A", "B", "C", "D"):
                chosen += [n for n in names if WORKLOADS[n].group == tok]
            elif tok in WORKLOADS:
                chosen.append(tok)
            else:
                raise SystemExit("unknown workload or group '%s' (see --list)" % tok)
        names = [n for n in names if n in chosen]
    if skip:
        drop = set(t.strip() for t in skip.split(","))
        names = [n for n in names if n not in drop and WORKLOADS[n].group not in drop]
    # Compile-heavy workloads last: a long autotune cannot starve the others of the time budget.
    return [n for n in names if not WORKLOADS[n].slow] + [n for n in names if WORKLOADS[n].slow]


# ---------------------------------------------------------------------------------------------
# Worker and parent
# ---------------------------------------------------------------------------------------------

def run_workload(name, args, work_dir):
    """Run one workload in this process; returns the result dict (never raises)."""
    import_torch()
    import warnings
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    res = {"name": name, "status": "ok", "entries": [], "failures": [], "notes": [],
           "error": None, "env": None}
    t0 = time.perf_counter()
    ctx = None
    try:
        ctx = Ctx(args, work_dir)
        res["env"] = env_info()
        WORKLOADS[name].fn(ctx)
    except Skip as e:
        res["status"] = "skipped"
        res["error"] = str(e)
    except Exception as e:
        res["status"] = "failed"
        res["error"] = "%s: %s" % (type(e).__name__, str(e)[:500])
        res["traceback"] = traceback.format_exc()[-3000:]
    finally:
        if ctx is not None:
            res["entries"], res["failures"], res["notes"] = ctx.entries, ctx.failures, ctx.notes
        res["seconds"] = round(time.perf_counter() - t0, 2)
        import gc
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()   # --no-isolate: the next workload gets the memory back
    if res["status"] == "ok" and not res["entries"] and res["failures"]:
        res["status"] = "failed"
        res["error"] = res["failures"][0]
    return res


class Bundler:
    def __init__(self, out_dir, tag, max_bytes):
        self.out, self.tag, self.max = Path(out_dir), tag, max_bytes
        self.cur, self.n = None, 0

    def add(self, path):
        size = path.stat().st_size + 10240
        if self.cur is None or self.cur.stat().st_size + size > self.max:
            self.n += 1
            self.cur = self.out / ("%s_traces_%02d.tar" % (self.tag, self.n))
            with tarfile.open(self.cur, "w"):
                pass
        with tarfile.open(self.cur, "a") as tf:
            tf.add(str(path), arcname=path.name)
        path.unlink()
        if self.cur.stat().st_size > self.max:
            print("    warning: %s is %.1f MiB (over --bundle-mib)" %
                  (self.cur.name, self.cur.stat().st_size / MiB), flush=True)
        return self.cur.name


def gzip_ok(path):
    """A trace left by a worker that died: adopt it only if it decompresses to the end."""
    try:
        with gzip.open(path, "rb") as f:
            while f.read(16 * MiB):
                pass
        return True
    except (OSError, EOFError):
        return False


def write_manifest(out_dir, manifest):
    tmp = Path(out_dir) / "manifest.json.tmp"
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    os.replace(tmp, Path(out_dir) / "manifest.json")


def worker_cmd(args, name, work_dir, result_path):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name,
           "--work-dir", str(work_dir), "--result", str(result_path),
           "--max-trace-mib", str(args.max_trace_mib)]
    if args.smoke:
        cmd.append("--smoke")
    if args.no_transformers:
        cmd.append("--no-transformers")
    if args.xcheck_filter:
        cmd += ["--xcheck-filter", args.xcheck_filter]
    cmd += ["--dlrm-top", args.dlrm_top]
    if args.xcheck_no_large:
        cmd.append("--xcheck-no-large")
    return cmd


def run_isolated(args, name, work_dir, log_dir, timeout):
    result_path = Path(work_dir) / (".result_%s.json" % name)
    if result_path.exists():
        result_path.unlink()
    log_path = Path(log_dir) / ("%s.log" % name)
    env = dict(os.environ)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_VERBOSITY", "error")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    t0 = time.perf_counter()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(worker_cmd(args, name, work_dir, result_path), stdout=None,
                                stderr=log, start_new_session=True, env=env)
        timed_out = False
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
                try:
                    os.killpg(proc.pid, sig)   # the worker's own session: it and its helpers
                except ProcessLookupError:
                    break
                try:
                    proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
            rc = proc.returncode
    res = None
    if result_path.exists():
        try:
            with open(result_path) as f:
                res = json.load(f)
        except ValueError:
            res = None
        result_path.unlink()
    if res is None:
        tail = ""
        try:
            tail = " | ".join(open(log_path).read().strip().splitlines()[-4:])[-600:]
        except OSError:
            pass
        res = {"name": name, "status": "failed", "entries": [], "failures": [], "notes": [],
               "env": None, "seconds": round(time.perf_counter() - t0, 2),
               "error": ("timed out after %d s" % timeout) if timed_out else
                        ("worker exited with status %s without a result; stderr tail: %s"
                         % (rc, tail))}
        # Traces the worker finished before it died are still in the work dir: keep them.
        res["orphans"] = True
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="groups: A (re-profile the shipped six), B (current "
                                        "kernels), C (xcheck). See scripts/device/README.md.")
    ap.add_argument("--list", action="store_true", help="list the workloads and exit")
    ap.add_argument("--only", default="", help="comma-separated workload names or groups A,B,C")
    ap.add_argument("--skip", default="", help="comma-separated workload names or groups to skip")
    ap.add_argument("--out", default="profiles_out", help="output folder (created)")
    ap.add_argument("--smoke", action="store_true",
                    help="tiny shapes; CPU allowed (GPU-only workloads are skipped)")
    ap.add_argument("--bundle", action="store_true",
                    help="pack traces into <tag>_traces_NN.tar files in --out (loose traces go to "
                         "--work-dir and are removed once packed)")
    ap.add_argument("--bundle-mib", type=float, default=15.0, help="max size of one tar (MiB)")
    ap.add_argument("--tag", default="run", help="prefix of the tar files (e.g. a, b)")
    ap.add_argument("--work-dir", default="", help="where workers write traces (default: --out, "
                    "or <tmp>/reach_profile_work with --bundle)")
    ap.add_argument("--budget-s", type=float, default=450.0,
                    help="total seconds: workloads not started by then are skipped, and each "
                         "worker's limit is cut to what is left (default 450)")
    ap.add_argument("--no-isolate", action="store_true",
                    help="run every workload in this process (no per-workload time limit)")
    ap.add_argument("--reach-steps", type=int, default=0,
                    help="under reach-cli integrate: run each profiled step N times, marking "
                         "each with reach_step() (implies --no-isolate; nothing is recorded)")
    ap.add_argument("--max-trace-mib", type=float, default=14.0,
                    help="Qwen-14B: fewer decode steps until its gzipped trace is below this")
    ap.add_argument("--no-transformers", action="store_true",
                    help="use the plain-PyTorch Qwen2-like model even if transformers works")
    ap.add_argument("--dlrm-top", default="1024,512,256,1",
                    help="DLRM top-MLP output widths (its input is dim + 36 = 164)")
    ap.add_argument("--xcheck-filter", default="", help="only problems whose id contains this")
    ap.add_argument("--xcheck-no-large", action="store_true",
                    help="leave out resources/problems/large/")
    ap.add_argument("--worker", default="", help=argparse.SUPPRESS)
    ap.add_argument("--result", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.reach_steps:
        args.no_isolate = True  # integrate's overrides live in this process

    if args.worker:
        res = run_workload(args.worker, args, args.work_dir)
        with open(args.result + ".tmp", "w") as f:
            json.dump(res, f)
        os.replace(args.result + ".tmp", args.result)
        return 0

    if args.list:
        print("%-30s %-5s %-8s %-7s %s" % ("workload", "group", "est_s", "limit", "what"))
        for n, w in WORKLOADS.items():
            print("%-30s %-5s %-8d %-7d %s" % (n, w.group, w.est_s, w.timeout_s, w.what))
        probs = load_problems()
        print("\nxcheck problems (%d): %s" % (len(probs), ", ".join(p["id"] for p in probs)))
        return 0

    names = select(args.only, args.skip)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.work_dir:
        work = Path(args.work_dir)
    elif args.bundle:
        import tempfile
        work = Path(tempfile.gettempdir()) / ("reach_profile_work_%s" % args.tag)
    else:
        work = out
    work.mkdir(parents=True, exist_ok=True)
    log_dir = work / "logs"
    log_dir.mkdir(exist_ok=True)
    bundler = Bundler(out, args.tag, args.bundle_mib * MiB) if args.bundle else None

    manifest = OrderedDict([
        ("gpu", None), ("torch", None), ("cuda", None), ("record_shapes", True),
        ("created", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())),
        ("script", "scripts/device/profile_workloads.py"),
        ("command", " ".join([Path(sys.argv[0]).name] + sys.argv[1:])),
        ("smoke", bool(args.smoke)), ("env", None),
        ("profiler", "torch.profiler.profile(activities=[CPU, CUDA], record_shapes=True); "
                     "warm-up outside; torch.cuda.synchronize() after every step; "
                     "export_chrome_trace; gzip -6"),
        ("workloads", []), ("failures", []), ("skipped", []), ("run", [])])
    print("profile_workloads: %d workload(s): %s" % (len(names), ", ".join(names)), flush=True)
    print("  out %s, work %s, isolate %s, budget %.0f s%s" % (
        out, work, not args.no_isolate, args.budget_s,
        ", bundle %s_traces_NN.tar <= %.0f MiB" % (args.tag, args.bundle_mib) if bundler else ""),
        flush=True)
    t_start = time.perf_counter()
    for name in names:
        w = WORKLOADS[name]
        left = args.budget_s - (time.perf_counter() - t_start)
        if left < 20:
            msg = "%s: not started, time budget spent (%.0f s)" % (name, args.budget_s)
            print("[skip] " + msg, flush=True)
            manifest["skipped"].append(msg)
            write_manifest(out, manifest)
            continue
        print("[run ] %s (group %s, ~%d s)" % (name, w.group, w.est_s), flush=True)
        if args.no_isolate:
            res = run_workload(name, args, work)
        else:
            res = run_isolated(args, name, work, log_dir, int(min(w.timeout_s, left)))
        if res.get("env") and manifest["env"] is None:
            manifest["env"] = res["env"]
            manifest["gpu"], manifest["torch"], manifest["cuda"] = (
                res["env"]["gpu"], res["env"]["torch"], res["env"]["cuda"])
        entries = res.get("entries", [])
        if res.get("orphans"):   # worker died: pick up the traces it had finished
            done = set(e["file"] for e in manifest["workloads"])
            for f in sorted(work.glob("*.json.gz")):
                if f.name not in done and gzip_ok(f):
                    entries.append(OrderedDict([("name", f.name[:-8]), ("file", f.name),
                                                ("gz_bytes", f.stat().st_size),
                                                ("note", "written by a worker that then failed "
                                                         "(%s)" % res["error"])]))
        for e in entries:
            e["workload_group"] = w.group
            if bundler:
                e["bundle"] = bundler.add(work / e["file"])
            manifest["workloads"].append(e)
        for f in res.get("failures", []):
            manifest["failures"].append("%s: %s" % (name, f))
        manifest["run"].append(OrderedDict([("workload", name), ("status", res["status"]),
                                            ("seconds", res.get("seconds")),
                                            ("traces", [e["file"] for e in entries]),
                                            ("error", res.get("error")),
                                            ("notes", res.get("notes", []))]))
        gz = sum(e.get("gz_bytes", 0) for e in entries)
        if res["status"] == "ok":
            print("[ ok ] %s: %.1f s, %d trace(s), %.1f KiB gz%s" % (
                name, res.get("seconds", 0), len(entries), gz / 1024,
                (", %d part(s) failed" % len(res["failures"])) if res.get("failures") else ""),
                flush=True)
        elif res["status"] == "skipped":
            print("[skip] %s: %s" % (name, res["error"]), flush=True)
            manifest["skipped"].append("%s: %s" % (name, res["error"]))
        else:
            print("[FAIL] %s after %.1f s: %s%s" % (name, res.get("seconds", 0), res["error"],
                  (" (log %s)" % (log_dir / (name + ".log"))) if not args.no_isolate else ""),
                  flush=True)
            if res.get("traceback") and args.no_isolate:
                print(res["traceback"], flush=True)
            if res["error"] not in res.get("failures", []):
                manifest["failures"].append("%s: %s" % (name, res["error"]))
        write_manifest(out, manifest)

    total = sum(e.get("gz_bytes", 0) for e in manifest["workloads"])
    print("done in %.1f s: %d trace(s), %.2f MiB gzipped; %d failure(s), %d skipped"
          % (time.perf_counter() - t_start, len(manifest["workloads"]), total / MiB,
             len(manifest["failures"]), len(manifest["skipped"])), flush=True)
    files = sorted(p for p in out.iterdir() if p.is_file())
    for p in files:
        print("  %-48s %10d bytes" % (p.name, p.stat().st_size))
    if bundler is None and len(files) > 8:
        print("  note: %d files in %s; the device machine returns at most 8: use --bundle"
              % (len(files), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
