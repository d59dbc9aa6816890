#!/usr/bin/env python3
"""Are Reach's baseline kernels well tuned?

For every problem in resources/problems/*.json except matmul (whose baseline is cuBLAS):
1. reach-verify with the baseline itself as the candidate: its median, the roofline floor, the
   verdict and the SM clock.
2. PyTorch's own implementation of the operator on tensors of the same shapes and dtype, timed
   with triton.testing.do_bench(return_mode="median") (L2 flushed between reps, as Reach does).
3. A plain device copy of the problem's minimal bytes (read + write) timed the same way: the
   "same-bytes copy", the practical floor under this timing method (the roofline uses a 512 MiB
   copy, which reaches a higher bandwidth than a small one can).
4. With --ctypes, the baseline .so the verifier compiled, called through ctypes under do_bench.

A benchmark, not a test: prints a table (and JSON with --out), exits 0 unless the script breaks.
--dry-run lists the problems, their minimal bytes and the torch expression without a GPU or torch.
"""
import argparse, ctypes, glob, json, math, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ES = {"f32": 4, "bf16": 2, "f16": 2, "i32": 4, "i64": 8}
REACH_DTYPE = {"f32": 0, "bf16": 1, "f16": 2, "i32": 3, "i64": 4}  # resources/include/reach/candidate.h
TORCH_EXPR = {
    "softmax": "torch.softmax(x, -1)", "log_softmax": "torch.log_softmax(x, -1)",
    "layernorm": "F.layer_norm(x, (C,), w, b, eps)", "rmsnorm": "F.rms_norm(x, (C,), w, eps)",
    "relu": "torch.relu(x)", "gelu": "F.gelu(x, approximate='tanh')", "silu": "F.silu(x)",
    "add": "torch.add(a, b, out=y)", "sum_rows": "torch.sum(x, -1, out=y)",
    "cumsum": "torch.cumsum(x, -1)",
    "embedding_bag_sum": "F.embedding_bag(indices, weight, offsets, mode='sum')",
    "multi_embedding_concat": "torch.cat([F.embedding_bag(idx[t].view(B, P), w[t], mode='sum') "
                              "for t in range(T)], 1)  (unfused)",
    "dot_interaction": "torch.bmm(x, x.transpose(1, 2))[:, li, lj], li, lj = tril_indices(F, F, -1)",
}


def specs(p):
    """Inputs and outputs as (name, dtype, shape), in reach_run's order (docs/verifier.md)."""
    op, dt, s = p["op"], p["dtype"], p["shapes"]
    if op in ("softmax", "log_softmax", "cumsum", "relu", "gelu", "silu"):
        return [("x", dt, s["x"])], [("y", dt, s["x"])]
    if op == "layernorm":
        return [("x", dt, s["x"]), ("weight", dt, s["x"][-1:]), ("bias", dt, s["x"][-1:])], \
               [("y", dt, s["x"])]
    if op == "rmsnorm":
        return [("x", dt, s["x"]), ("weight", dt, s["x"][-1:])], [("y", dt, s["x"])]
    if op == "add":
        return [("a", dt, s["a"]), ("b", dt, s["b"])], [("y", dt, s["a"])]
    if op == "sum_rows":
        return [("x", dt, s["x"])], [("y", dt, s["x"][:1])]
    if op == "embedding_bag_sum":
        B, D = s["offsets"][0], s["weight"][1]
        return [("weight", dt, s["weight"]), ("indices", "i64", s["indices"]),
                ("offsets", "i64", s["offsets"])], [("y", dt, [B, D])]
    if op == "multi_embedding_concat":
        T, n = s["indices"]
        B, D = n // int(p["params"].get("pooling", 1)), s["weight"][1]
        return [("weight%d" % t, dt, s["weight"]) for t in range(T)] + \
               [("indices", "i64", s["indices"])], [("y", dt, [B, T * D])]
    if op == "dot_interaction":
        B, F_, _ = s["x"]
        return [("x", dt, s["x"])], [("y", dt, [B, F_ * (F_ - 1) // 2])]
    raise KeyError("no torch equivalent known for op '%s'" % op)


def nbytes(spec):
    return ES[spec[1]] * math.prod(spec[2])


def estimate_minimal_bytes(p):
    """Operator::minimalBytes without the inputs: every input read and every output written once;
    for embeddings only the distinct rows, here their expected count V(1 - (1 - 1/V)^n)."""
    ins, outs = specs(p)
    total = sum(map(nbytes, ins + outs))
    if p["op"] in ("embedding_bag_sum", "multi_embedding_concat"):
        V, D = p["shapes"]["weight"]
        weights = [s for s in ins if s[0].startswith("weight")]
        n = math.prod(p["shapes"]["indices"]) // len(weights)  # lookups per table
        distinct = -V * math.expm1(n * math.log1p(-1.0 / V))
        total += len(weights) * (distinct * D * ES[p["dtype"]] - nbytes(weights[0]))
    return total


def run_verifier(args, p):
    res = args.resources or os.path.join(ROOT, "resources")
    # --no-baseline: the baseline would only be timed a second time against itself.
    cmd = [args.verifier, "--problem", p["_file"], "--no-baseline",
           "--candidate", os.path.join(res, "baselines", p["op"] + ".cu")]
    if args.resources:
        cmd += ["--resources", args.resources]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    try:
        return json.loads(out.stdout)
    except ValueError:
        raise RuntimeError("no JSON from reach-verify (rc %d): %s" % (out.returncode, out.stderr[-400:]))


def make_case(p, torch, F):
    """Tensors in reach_run's order and the PyTorch expression on them."""
    ins, outs = specs(p)
    dt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[p["dtype"]]
    scale = float(p["params"].get("scale", 1.0))
    uniform = p["params"].get("distribution", "normal") == "uniform"
    s, op, dev = p["shapes"], p["op"], "cuda"
    V = s["weight"][0] if "weight" in s else 0
    T = {}
    for name, d, shape in ins:
        if d != "i64":
            T[name] = (torch.rand if uniform else torch.randn)(*shape, device=dev, dtype=dt) * scale
        elif name == "indices":
            T[name] = torch.randint(0, V, tuple(shape), device=dev, dtype=torch.int64)
        else:  # offsets as Reach draws them: mean spacing L/B, jitter +-0.4, offsets[0] = 0
            L, B = s["indices"][0], shape[0]
            j = torch.empty(B, device=dev, dtype=torch.float64).uniform_(-0.4, 0.4)
            T[name] = torch.floor(L / B * (torch.arange(B, device=dev) + j)).to(torch.int64)
            T[name][0] = 0
    Y = [torch.empty(*shape, device=dev, dtype=dt) for _, _, shape in outs]
    x, y = T.get("x", T.get("a")), Y[0]
    eps = float(p["params"].get("eps", 1e-6 if op == "rmsnorm" else 1e-5))
    fns = {
        "softmax": lambda: torch.softmax(x, -1), "log_softmax": lambda: torch.log_softmax(x, -1),
        "layernorm": lambda: F.layer_norm(x, x.shape[-1:], T.get("weight"), T.get("bias"), eps),
        "rmsnorm": lambda: F.rms_norm(x, x.shape[-1:], T.get("weight"), eps),
        "relu": lambda: torch.relu(x), "gelu": lambda: F.gelu(x, approximate="tanh"),
        "silu": lambda: F.silu(x), "add": lambda: torch.add(x, T.get("b"), out=y),
        "sum_rows": lambda: torch.sum(x, -1, out=y), "cumsum": lambda: torch.cumsum(x, -1),
        "embedding_bag_sum": lambda: F.embedding_bag(T["indices"], T["weight"], T.get("offsets"),
                                                     mode="sum"),
    }
    if op == "multi_embedding_concat":
        nt, B = s["indices"][0], y.shape[0]
        bags = T["indices"].view(nt, B, -1)  # table t, bag b: indices[t, b*P:(b+1)*P]
        fns[op] = lambda: torch.cat([F.embedding_bag(bags[t], T["weight%d" % t], mode="sum")
                                     for t in range(nt)], 1)
    if op == "dot_interaction":
        li, lj = torch.tril_indices(s["x"][1], s["x"][1], -1, device=dev)  # DLRM precomputes
        fns[op] = lambda: torch.bmm(x, x.transpose(1, 2))[:, li, lj]
    return [T[n] for n, _, _ in ins], Y, fns[op]


class ReachTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 8)]


def ctypes_fn(so, ins, outs, torch):
    codes = {torch.float32: 0, torch.bfloat16: 1, torch.float16: 2, torch.int32: 3, torch.int64: 4}
    lib = ctypes.CDLL(so)
    lib.reach_run.restype = ctypes.c_int

    def arr(ts):
        a = (ReachTensor * len(ts))()
        for k, t in enumerate(ts):
            a[k].data, a[k].dtype, a[k].ndim = t.data_ptr(), codes[t.dtype], t.dim()
            for i, d in enumerate(t.shape):
                a[k].shape[i] = d
        return a
    a_in, a_out = arr(ins), arr(outs)
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    return lambda: lib.reach_run(a_in, len(ins), a_out, len(outs), stream)


def fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def ratio(a, b):
    return a / b if a and b else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--verifier", required=True, help="path to reach-verify")
    ap.add_argument("--resources", default="")
    ap.add_argument("--problems", default="", help="glob (default <resources>/problems/*.json)")
    ap.add_argument("--only", default="", help="comma-separated problem ids")
    ap.add_argument("--out", default="", help="write everything as JSON here")
    ap.add_argument("--ctypes", action="store_true", help="also time the baseline .so via ctypes")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per reach-verify run")
    ap.add_argument("--dry-run", action="store_true", help="list problems; no GPU, no torch")
    args = ap.parse_args()

    pattern = args.problems or os.path.join(args.resources or os.path.join(ROOT, "resources"),
                                            "problems", "*.json")
    only = set(filter(None, args.only.split(",")))
    problems = []
    for f in sorted(glob.glob(pattern)):
        with open(f) as fh:
            p = json.load(fh)
        p["_file"] = os.path.abspath(f)
        p.setdefault("params", {})
        if p["op"] != "matmul" and (not only or p["id"] in only):
            problems.append(p)

    if args.dry_run:
        # Exit 1 when nothing matched or a problem cannot be described (CI runs this: a problem
        # file the benchmark could not build tensors for is caught without a GPU).
        bad = 0
        for p in problems:
            try:
                mb = "%.1f MB" % (estimate_minimal_bytes(p) / 1e6)
            except KeyError as e:
                mb = str(e)
                bad += 1
            print("%-34s %-22s %-5s ~%-12s %s" % (p["id"], p["op"], p["dtype"], mb,
                                                  TORCH_EXPR.get(p["op"], "-")))
        if not problems:
            print("no problem matched %s" % pattern, file=sys.stderr)
        return 1 if bad or not problems else 0

    import torch
    import torch.nn.functional as F
    import triton

    def bench_us(fn):
        return triton.testing.do_bench(fn, return_mode="median") * 1000.0

    rows = []
    for p in problems:
        r = {"problem": p["id"], "op": p["op"], "dtype": p["dtype"], "errors": [],
             "torch_expr": TORCH_EXPR.get(p["op"])}
        rows.append(r)
        print("...", p["id"], file=sys.stderr, flush=True)
        so = ins = outs = fn = cfn = None
        try:
            doc = run_verifier(args, p)
            t, rf = doc.get("timing") or {}, doc.get("roofline") or {}
            so = (doc.get("compile") or {}).get("shared_object")
            r.update(verdict=doc.get("verdict"), reasons=doc.get("reasons"),
                     reach_us=t.get("median_us"), floor_us=rf.get("floor_us"),
                     minimal_bytes=rf.get("minimal_bytes"),
                     copy_bandwidth_gbs=rf.get("copy_bandwidth_gbs"),
                     sm_clock_mhz=[t.get("sm_clock_before_mhz"), t.get("sm_clock_after_mhz")],
                     shared_object=so)
        except Exception as e:  # keep going: one broken problem must not hide the others
            r["errors"].append("verifier: %s" % e)
        try:
            ins, outs, fn = make_case(p, torch, F)
            fn()  # first call outside the timing (cuBLAS/handle setup, allocator warm-up)
            r["torch_us"] = bench_us(fn)
        except Exception as e:
            r["errors"].append("torch: %s" % e)
        try:
            if args.ctypes and so and ins is not None:
                cfn = ctypes_fn(so, ins, outs, torch)
                rc = cfn()
                r["ctypes_us"] = bench_us(cfn) if rc == 0 else None
                if rc:
                    r["errors"].append("ctypes: reach_run returned %d" % rc)
        except Exception as e:
            r["errors"].append("ctypes: %s" % e)
        ins = outs = fn = cfn = None  # free this problem's tensors before the next one
        try:  # same-bytes copy: minimal_bytes/2 read + minimal_bytes/2 written
            n = int((r.get("minimal_bytes") or estimate_minimal_bytes(p)) // 2)
            src = torch.empty(n, dtype=torch.uint8, device="cuda")
            dst = torch.empty_like(src)
            r["copy_us"] = bench_us(lambda: dst.copy_(src))
            del src, dst
        except Exception as e:
            r["errors"].append("copy: %s" % e)
        torch.cuda.empty_cache()
        r["baseline_over_floor"] = ratio(r.get("reach_us"), r.get("floor_us"))
        r["baseline_over_copy"] = ratio(r.get("reach_us"), r.get("copy_us"))
        r["torch_over_baseline"] = ratio(r.get("torch_us"), r.get("reach_us"))
        if p["op"] == "multi_embedding_concat":
            r["note"] = "torch is unfused: T embedding_bag calls + torch.cat"

    head = ["problem", "reach us", "floor us", "base/floor", "copy us", "base/copy", "torch us",
            "torch/base"] + (["ctypes us"] if args.ctypes else []) + ["verdict", "SM MHz"]
    table = []
    for r in rows:
        clk = r.get("sm_clock_mhz") or [None, None]
        table.append([r["problem"], fmt(r.get("reach_us")), fmt(r.get("floor_us")),
                      fmt(r.get("baseline_over_floor"), ".2f"), fmt(r.get("copy_us")),
                      fmt(r.get("baseline_over_copy"), ".2f"), fmt(r.get("torch_us")),
                      fmt(r.get("torch_over_baseline"), ".2f")]
                     + ([fmt(r.get("ctypes_us"))] if args.ctypes else [])
                     + [r.get("verdict") or "-", "%s/%s" % tuple(fmt(c, ".0f") for c in clk)])
    widths = [max(len(str(c)) for c in col) for col in zip(head, *table)]
    for line in [head] + table:
        print("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths))))
    for r in rows:
        for e in r["errors"]:
            print("%s: %s" % (r["problem"], e))
    print("torch/base > 1: the Reach baseline is faster than PyTorch; base/copy near 1: at the "
          "practical floor. multi_embedding_concat's torch time is unfused.")

    if args.out:
        summary = {"torch": torch.__version__, "triton": triton.__version__,
                   "device": torch.cuda.get_device_name(0), "verifier": args.verifier, "rows": rows}
        with open(args.out, "w") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
