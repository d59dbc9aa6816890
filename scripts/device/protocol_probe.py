#!/usr/bin/env python3
"""Feasibility probe for a judge-owned GPU clock (issue 36, "Time the judge owns").

Two processes, forked before CUDA starts, as the judge and the runner are. The judge queues on
its own stream: [Epre] the input copy, the L2 flush and the spacer [E0] a write of `go` into a
shared word; then a wait for the runner's `done` word, a gather of the output at secret
positions and [E1]. The runner's stream waits for `go` (cuStreamWaitValue32), runs the call and
writes `done` (cuStreamWriteValue32). The judge reads the output where the runner's allocator
put it, through a legacy CUDA IPC mapping of its segment (no copy by the runner), at the place
the last repetition had it (a prediction, checked against the runner's reply).

Printed per case: the judge's window E1-E0, the empty protocol's window, their difference (the
judge's figure), triton.testing.do_bench on the same call in the judge's own process, the spread
of E0-Epre (time other contexts took from the judge's stretch), how often the output was where
predicted. Not part of Reach: a measurement tool for docs/verifier-measurements.md.

    python3 scripts/device/protocol_probe.py [--reps 100] [--out FILE]
"""

import argparse
import ctypes
import json
import os
import socket
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "resources", "python"))

GEQ = 0x0


class IpcHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]


def driver():
    lib = ctypes.CDLL("libcuda.so.1")
    u64, sz = ctypes.c_ulonglong, ctypes.c_size_t

    def fn(names, args):
        for n in names:
            f = getattr(lib, n, None)
            if f is not None:
                f.argtypes = args
                f.restype = ctypes.c_int
                return f
        raise RuntimeError(f"none of {names} in libcuda")

    return {
        "wait": fn(["cuStreamWaitValue32_v2", "cuStreamWaitValue32"], [ctypes.c_void_p, u64, ctypes.c_uint32, ctypes.c_uint]),
        "write": fn(["cuStreamWriteValue32_v2", "cuStreamWriteValue32"], [ctypes.c_void_p, u64, ctypes.c_uint32, ctypes.c_uint]),
        "range": fn(["cuMemGetAddressRange_v2", "cuMemGetAddressRange"], [ctypes.POINTER(u64), ctypes.POINTER(sz), u64]),
        "ipcget": fn(["cuIpcGetMemHandle"], [ctypes.POINTER(IpcHandle), u64]),
        "ipcopen": fn(["cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle"], [ctypes.POINTER(u64), IpcHandle, ctypes.c_uint]),
    }


def ck(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what}: CUresult {rc}")


def runner(sock):
    import torch
    from reach_kb import cudavmm, sharedmem
    cu = driver()
    dev = torch.device("cuda")
    torch.zeros(1, device=dev)
    msg, fds = socket.recv_fds(sock, 65536, 8)
    spec = json.loads(msg)
    flags = sharedmem.Region.attach(torch, dev, fds[0], spec["flags"])
    xin = sharedmem.Region.attach(torch, dev, fds[1], spec["input"])
    slot = sharedmem.Region.attach(torch, dev, fds[2], spec["slot"])
    go = flags.data.data_ptr()
    done = go + 4
    stream = torch.cuda.Stream()
    side = torch.cuda.Stream()
    handles = {}
    sock.send(b"ready")
    while True:
        raw = sock.recv(65536)
        if not raw:
            return
        m = json.loads(raw)
        if m["op"] == "exit":
            return
        case, rid = m["case"], m["id"]
        x = xin.view(getattr(torch, m["dtype"]), m["shape"])
        out = None
        with torch.cuda.stream(stream):
            if case == "steal":  # work on another stream as soon as the message comes
                with torch.cuda.stream(side):
                    a = torch.randn(2048, 2048, device=dev)
                    for _ in range(2):
                        a = a @ a * 1e-3
            ck(cu["wait"](ctypes.c_void_p(stream.cuda_stream), go, rid, GEQ), "wait go")
            es, ee = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            es.record()
            if case == "empty":
                out = slot.view(getattr(torch, m["dtype"]), m["shape"])
            elif case.startswith("relu"):
                out = torch.relu(x)
            elif case.startswith("softmax"):
                out = torch.softmax(x, dim=-1)
            elif case == "copy_relu":
                out = torch.relu(x)
                slot.view(out.dtype, list(out.shape)).copy_(out)
            elif case == "steal":
                out = torch.relu(x)
            elif case == "late":  # work left on a side stream, done written at once
                side.wait_stream(stream)
                with torch.cuda.stream(side):
                    out = torch.relu(x)
                    for _ in range(20):
                        out = torch.relu(out)
            ee.record()
            ck(cu["write"](ctypes.c_void_p(stream.cuda_stream), done, rid, 0), "write done")
        base, size = ctypes.c_ulonglong(), ctypes.c_size_t()
        ptr = out.data_ptr()
        rep = {"id": rid}
        if cu["range"](ctypes.byref(base), ctypes.byref(size), ptr) == 0:
            h = handles.get(base.value)
            if h is None:
                h = IpcHandle()
                rc = cu["ipcget"](ctypes.byref(h), base.value)
                h = ctypes.string_at(ctypes.addressof(h), 64) if rc == 0 else rc
                handles[base.value] = h
            if isinstance(h, bytes):
                rep.update(handle=h.hex(), offset=ptr - base.value, segment=size.value)
            else:
                rep.update(ipc_error=h)
        torch.cuda.synchronize()
        rep["e_us"] = es.elapsed_time(ee) * 1000.0
        sock.send(json.dumps(rep).encode())


def stats(v):
    v = sorted(v)
    n = len(v)
    return {"median": statistics.median(v), "p10": v[int(0.1 * (n - 1))], "p90": v[int(0.9 * (n - 1))],
            "min": v[0]} if v else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--out")
    args = ap.parse_args()
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    import torch  # noqa: E402  (no CUDA yet)
    pid = os.fork()
    if pid == 0:
        a.close()
        try:
            runner(b)
        finally:
            os._exit(0)
    b.close()
    from reach_kb import sharedmem
    cu = driver()
    dev = torch.device("cuda")
    torch.zeros(1, device=dev)
    props = torch.cuda.get_device_properties(dev)
    max_bytes = 256 << 20
    flags = sharedmem.Region.create(torch, dev, 64, canary=0)
    flags.data.zero_()
    xin = sharedmem.Region.create(torch, dev, max_bytes, canary=0)
    slot = sharedmem.Region.create(torch, dev, max_bytes, canary=0)
    spec = {"flags": flags.describe(), "input": xin.describe(), "slot": slot.describe()}
    socket.send_fds(a, [json.dumps(spec).encode()], [flags.export_fd(), xin.export_fd(), slot.export_fd()])
    assert a.recv(16) == b"ready"
    go = flags.data.data_ptr()
    done = go + 4
    stream = torch.cuda.Stream()
    l2 = int(getattr(props, "L2_cache_size", 50 << 20))
    flush = torch.empty(max(2 * l2, 64 << 20), dtype=torch.uint8, device=dev)
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(stream):
        e0.record()
        flush.zero_()
        e1.record()
    e1.synchronize()
    spacer = max(1, int(250.0 / (e0.elapsed_time(e1) * 1000.0) + 0.999))
    mapped = {}
    rid = [0]
    results = {"device": props.name, "spacer_flushes": spacer}

    def open_mapping(hexh):
        m = mapped.get(hexh)
        if m is None:
            h = IpcHandle()
            ctypes.memmove(ctypes.addressof(h), bytes.fromhex(hexh), 64)
            p = ctypes.c_ulonglong()
            ck(cu["ipcopen"](ctypes.byref(p), h, 1), "ipc open")
            mapped[hexh] = m = p.value
        return m

    def loop(case, dtype, shape, reps, warmup):
        numel = 1
        for s in shape:
            numel *= s
        tdt = getattr(torch, dtype)
        esize = torch.empty((), dtype=tdt).element_size()
        idx = torch.randint(0, numel, (1 << 16,), device=dev)
        priv = torch.empty(shape, dtype=tdt, device=dev)
        win, stretch, hits, misses, ipc_err, claim = [], [], 0, 0, None, []
        where = None  # (handle, offset) predicted
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
        for r in range(warmup + reps):
            rid[0] += 1
            priv.normal_()
            view_in = xin.view(tdt, shape)
            with torch.cuda.stream(stream):
                stream.wait_stream(torch.cuda.current_stream())
                ev[0].record()
                view_in.copy_(priv)
                for _ in range(spacer):
                    flush.zero_()
                ev[1].record()
                ck(cu["write"](ctypes.c_void_p(stream.cuda_stream), go, rid[0], 0), "write go")
                ck(cu["wait"](ctypes.c_void_p(stream.cuda_stream), done, rid[0], GEQ), "wait done")
                sample = None
                if where is not None:
                    base = slot.data.data_ptr() if where[0] == "slot" else open_mapping(where[0])
                    t = torch.as_tensor(_Arr(base + where[1], numel * esize), device=dev)
                    sample = t.view(tdt)[idx]
                ev[2].record()
            a.send(json.dumps({"op": "run", "case": case, "id": rid[0], "dtype": dtype, "shape": shape}).encode())
            rep = json.loads(a.recv(65536))
            ev[2].synchronize()
            now = (rep.get("handle") or "slot", rep.get("offset") or 0)
            if rep.get("ipc_error"):
                ipc_err = rep["ipc_error"]
            if r >= warmup:
                if where is not None and now == where:
                    hits += 1
                else:
                    misses += 1
                win.append(ev[1].elapsed_time(ev[2]) * 1000.0)
                stretch.append(ev[0].elapsed_time(ev[1]) * 1000.0)
                claim.append(rep["e_us"])
            where = now
        return {"window": stats(win), "stretch": stats(stretch), "hits": hits, "misses": misses,
                "claim": stats(claim),
                "ipc_error": ipc_err}

    def bench(case, dtype, shape):
        try:
            import triton.testing
        except Exception:
            return None
        x = torch.randn(shape, device=dev).to(getattr(torch, dtype))
        fn = (lambda: torch.relu(x)) if case.startswith("relu") or case in ("copy_relu", "steal") else \
            (lambda: torch.softmax(x, dim=-1))
        return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1000.0

    cases = [("empty", "float32", [1 << 20]), ("relu_small", "float32", [1 << 20]),
             ("relu", "float32", [64 << 20]), ("softmax", "bfloat16", [32768, 2048]),
             ("copy_relu", "float32", [64 << 20]), ("steal", "float32", [1 << 20]),
             ("late", "float32", [16 << 20])]
    out = {}
    for case, dtype, shape in cases:
        try:
            out[case] = loop(case, dtype, shape, args.reps, args.warmup)
            out[case]["do_bench"] = None if case in ("empty", "late") else bench(case, dtype, shape)
        except Exception as e:  # noqa: BLE001
            out[case] = {"error": repr(e)}
    # the empty protocol again at the end: is the overhead stable?
    try:
        out["empty_again"] = loop("empty", "float32", [1 << 20], args.reps, args.warmup)
    except Exception as e:  # noqa: BLE001
        out["empty_again"] = {"error": repr(e)}
    a.send(json.dumps({"op": "exit"}).encode())
    os.waitpid(pid, 0)
    results["cases"] = out
    o = out.get("empty", {}).get("window") or {}
    print(f"{'case':12} {'window med':>10} {'p10':>8} {'p90':>8} {'-empty':>9} {'do_bench':>9} {'claim':>9} {'stretch':>8} {'str p90':>8} hits/miss")
    for k, v in out.items():
        if "error" in v:
            print(f"{k:12} ERROR {v['error']}")
            continue
        w = v["window"]
        fig = w["median"] - o.get("median", 0)
        db = v.get("do_bench")
        print(f"{k:12} {w['median']:10.2f} {w['p10']:8.2f} {w['p90']:8.2f} {fig:9.2f} "
              f"{(db if db is not None else float('nan')):9.2f} {v['claim']['median']:9.2f} {v['stretch']['median']:8.2f} {v['stretch']['p90']:8.2f} "
              f"{v['hits']}/{v['misses']} {v.get('ipc_error') or ''}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


class _Arr:
    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {"shape": (int(nbytes),), "typestr": "|u1",
                                         "data": (int(ptr), False), "version": 2, "strides": None}


if __name__ == "__main__":
    main()
