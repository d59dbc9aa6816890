"""Checks the problems reach-cli extract wrote for serving stacks' operators against each
operator's documented semantics (docs/serving-operators.md), element by element in plain Python
floats, never through the problem's own reference expression: the problem's Model is called on
its get_inputs() (CPU PyTorch) and sampled output elements are recomputed from the inputs by the
stack's formula. One line per file ("ok <what was checked>", "skip <why>" or "FAIL <why>"); exit
status 1 if any failed.

The formulas, per vLLM's and SGLang's kernels:
- rms_norm: out[t, i] = x[t, i] / sqrt(mean_j x[t, j]^2 + eps) * w[i]
- fused_add_rms_norm: residual' = x + residual; x' = rms_norm(residual') (stacked [x', residual'])
- silu/gelu/gelu_tanh_and_mul: out[t, i] = act(x[t, i]) * x[t, d + i]
- rotary_embedding (NeoX): for head h and i < rot/2, c, s = cache[p][i], cache[p][rot/2 + i]:
  (a, b) = (q[h, i], q[h, rot/2 + i]) -> (a c - b s, b c + a s); dims past rot unchanged
- reshape_and_cache_flash: cache[slot[t] // B, slot[t] % B] = key[t] (value likewise), the rest 0
- static_scaled_fp8_quant: out = fp8(clamp(x / scale, -448, 448))"""
import math
import random
import re
import sys
import types

import torch

SAMPLES = 64


def load(path):
    module = types.ModuleType("problem")
    exec(compile(open(path, encoding="utf-8").read(), path, "exec"), module.__dict__)
    torch.manual_seed(0)
    inputs = module.get_inputs()
    out = module.Model(*module.get_init_inputs())(*[x.clone() for x in inputs])
    return module, inputs, out


def operator_of(path):
    m = re.search(r"^# operator: (\S+),", open(path, encoding="utf-8").read(), re.M)
    return m.group(1) if m else ""


def f(t, *idx):
    return float(t[idx].float())


def close(got, want, tol):
    return abs(got - want) <= tol * max(1.0, abs(want))


def check_rms(x, w, out, eps, rng, tol=2e-2):
    rows, h = x.shape[0], x.shape[-1]
    for _ in range(SAMPLES):
        t, i = rng.randrange(rows), rng.randrange(h)
        ms = sum(f(x, t, j) ** 2 for j in range(h)) / h
        want = f(x, t, i) / math.sqrt(ms + eps) * (f(w, i) if w is not None else 1.0)
        if not close(f(out, t, i), want, tol):
            return f"rms_norm[{t}, {i}] = {f(out, t, i)}, the formula {want}"
    return ""


def act(name, v):
    if name == "silu_and_mul":
        return v / (1 + math.exp(-v))
    if name == "gelu_and_mul":
        return 0.5 * v * (1 + math.erf(v / math.sqrt(2)))
    return 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))


def check(path):
    op = operator_of(path)
    name = op.split("::")[-1]
    if "fp8" in name and not hasattr(torch, "float8_e4m3fn"):
        return "skip: this PyTorch has no float8_e4m3fn (its reference needs PyTorch >= 2.1)"
    module, inp, out = load(path)
    rng = random.Random(1)
    src = open(path, encoding="utf-8").read()
    if name == "rms_norm":
        eps = float(re.search(r"_rms_norm\(x0, x1, ([^,)]+)", src).group(1))
        why = check_rms(inp[0], inp[1], out, eps, rng)
        return ("FAIL " + why) if why else f"rms_norm: {SAMPLES} elements"
    if name == "fused_add_rms_norm":
        eps = float(re.search(r"_fused_add_rms_norm\(x0, x1, x2, ([^,)]+)", src).group(1))
        x, res, w = inp
        if tuple(out.shape) != (2,) + tuple(x.shape):
            return f"FAIL shape {tuple(out.shape)}"
        for _ in range(SAMPLES):
            t, i = rng.randrange(x.shape[0]), rng.randrange(x.shape[1])
            if not close(f(out, 1, t, i), f(x, t, i) + f(res, t, i), 1e-2):
                return f"FAIL residual[{t}, {i}] is not x + residual"
        summed = (x.double() + res.double()).to(x.dtype)
        why = check_rms(summed, w, out[0], eps, rng)
        return ("FAIL " + why) if why else f"fused_add_rms_norm: {2 * SAMPLES} elements"
    if name.endswith("_and_mul"):
        x = inp[0]
        d = x.shape[-1] // 2
        for _ in range(SAMPLES):
            t, i = rng.randrange(x.shape[0]), rng.randrange(d)
            want = act(name, f(x, t, i)) * f(x, t, d + i)
            if not close(f(out, t, i), want, 2e-2):
                return f"FAIL {name}[{t}, {i}] = {f(out, t, i)}, the formula {want}"
        return f"{name}: {SAMPLES} elements"
    if name == "rotary_embedding":
        m = re.search(r"_rotary_embedding\(x0, x1, x2, (\d+), x3, (True|False)", src)
        head, neox = int(m.group(1)), m.group(2) == "True"
        pos, q, k, cache = inp
        rot = cache.shape[1]
        flat_q = q.reshape(q.shape[0], -1, head)
        got = out[: q.numel()].reshape(flat_q.shape)
        for _ in range(SAMPLES):
            t, h, i = rng.randrange(q.shape[0]), rng.randrange(flat_q.shape[1]), rng.randrange(head)
            p = int(pos[t])
            if i >= rot:
                want = f(flat_q, t, h, i)
            else:
                half = rot // 2
                j = i % half if neox else i // 2
                c, s = f(cache, p, j), f(cache, p, half + j)
                first = i < half if neox else i % 2 == 0
                a_i, b_i = ((j, half + j) if neox else (2 * j, 2 * j + 1))
                a, b = f(flat_q, t, h, a_i), f(flat_q, t, h, b_i)
                want = a * c - b * s if first else b * c + a * s
            if not close(f(got, t, h, i), want, 2e-2):
                return f"FAIL query[{t}, {h}, {i}] = {f(got, t, h, i)}, the formula {want}"
        if out.numel() != q.numel() + k.numel():
            return "FAIL the key is not after the query"
        return f"rotary_embedding (neox={neox}): {SAMPLES} query elements"
    if name == "reshape_and_cache_flash":
        key, value, slots = inp
        blocks, block = out.shape[1], out.shape[2]
        flat = out.reshape(2, blocks * block, key.shape[1], key.shape[2])
        if sorted(slots.tolist()) != sorted(set(slots.tolist())):
            return "FAIL two tokens share a slot"
        written = set(slots.tolist())
        for t in range(key.shape[0]):
            if not torch.equal(flat[0, int(slots[t])], key[t]) or \
                    not torch.equal(flat[1, int(slots[t])], value[t]):
                return f"FAIL token {t} is not at its slot {int(slots[t])}"
        for s in range(blocks * block):
            if s not in written and bool(flat[:, s].any()):
                return f"FAIL slot {s} is written by no token but is not zero"
        return f"reshape_and_cache_flash: {key.shape[0]} tokens at their slots, the rest zero"
    if name == "static_scaled_fp8_quant":
        x, scale = inp
        if out.dtype != torch.float8_e4m3fn:
            return f"FAIL dtype {out.dtype}"
        for _ in range(SAMPLES):
            t, i = rng.randrange(x.shape[0]), rng.randrange(x.shape[1])
            v = max(-448.0, min(448.0, f(x, t, i) / float(scale.reshape(-1)[0])))
            if not close(f(out, t, i), v, 0.07):  # e4m3: 3 mantissa bits
                return f"FAIL quant[{t}, {i}] = {f(out, t, i)}, the formula {v}"
        return f"static_scaled_fp8_quant: {SAMPLES} elements"
    return f"FAIL no check for {op}"


def main():
    failed = 0
    for path in sys.argv[1:]:
        try:
            line = check(path)
        except Exception as e:  # the line says what broke
            line = f"FAIL {type(e).__name__}: {str(e)[:300]}"
        if not line.startswith(("FAIL", "skip")):
            line = "ok " + line
        failed += line.startswith("FAIL")
        print(f"{path}: {line}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
