"""What lets the judge's own clock bracket the runner's GPU work exactly (docs/verifier.md, "A time
the judge owns"): CUDA stream memory operations on a word both processes map, and the runner's
output read in place through a CUDA IPC mapping of its allocation. Driver API (libcuda.so.1,
ctypes), as cudavmm.py.

- `Flags`: two 32-bit words in a shared VMM region (sharedmem.Region). The judge's stream writes
  `go` (cuStreamWriteValue32) after its flush and spacer; the runner's stream waits for it
  (cuStreamWaitValue32) before the call and writes `done` after it; the judge's stream waits for
  `done`, gathers the output and records its end event. Neither side's host is between the two
  events, so the judge's window is the GPU's time for the call plus two context switches, which
  the problem's own code, timed the same way before the candidate was loaded, calibrates.
- `ipc_location(ptr)` (runner): the allocation a pointer lies in (cuMemGetAddressRange) and its
  legacy IPC handle (cuIpcGetMemHandle), so the judge can read the output where the candidate's
  allocator put it, with no copy by the runner: a copy in the runner's window would be time the
  candidate could save by writing the judge's buffer itself, and a copy outside it would be time
  the candidate could fill with work (issue 36).
- `Mappings` (judge): the runner's allocations opened through their handles (cuIpcOpenMemHandle),
  kept while a timed loop runs and closed before the runner may free them.
"""

import ctypes

from .cudavmm import DriverError, _check, _driver

WAIT_GEQ = 0x0
WRITE_DEFAULT = 0x0  # the write is ordered after the stream's earlier work, and visible to it
IPC_LAZY_PEER_ACCESS = 0x1
HANDLE_BYTES = 64


class _IpcHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * HANDLE_BYTES)]


_fns = None


def _lib():
    global _fns
    if _fns is not None:
        return _fns
    lib = _driver()
    u64, sz = ctypes.c_ulonglong, ctypes.c_size_t

    def fn(names, args):
        for n in names:
            f = getattr(lib, n, None)
            if f is not None:
                f.argtypes = args
                f.restype = ctypes.c_int
                return f
        raise DriverError(f"libcuda has none of {', '.join(names)}")

    _fns = {
        "wait": fn(["cuStreamWaitValue32_v2", "cuStreamWaitValue32"],
                   [ctypes.c_void_p, u64, ctypes.c_uint32, ctypes.c_uint]),
        "write": fn(["cuStreamWriteValue32_v2", "cuStreamWriteValue32"],
                    [ctypes.c_void_p, u64, ctypes.c_uint32, ctypes.c_uint]),
        "range": fn(["cuMemGetAddressRange_v2", "cuMemGetAddressRange"],
                    [ctypes.POINTER(u64), ctypes.POINTER(sz), u64]),
        "ipc_get": fn(["cuIpcGetMemHandle"], [ctypes.POINTER(_IpcHandle), u64]),
        "ipc_open": fn(["cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle"],
                       [ctypes.POINTER(u64), _IpcHandle, ctypes.c_uint]),
        "ipc_close": fn(["cuIpcCloseMemHandle"], [u64]),
    }
    return _fns


class Flags:
    """The two words; `base` is this process's device address of the region's data."""

    GO, DONE = 0, 4

    def __init__(self, base):
        self.base = int(base)

    def wait(self, stream, which, value):
        _check(_lib()["wait"](ctypes.c_void_p(stream.cuda_stream), self.base + which,
                              ctypes.c_uint32(value & 0xFFFFFFFF), WAIT_GEQ), "cuStreamWaitValue32")

    def write(self, stream, which, value):
        _check(_lib()["write"](ctypes.c_void_p(stream.cuda_stream), self.base + which,
                               ctypes.c_uint32(value & 0xFFFFFFFF), WRITE_DEFAULT), "cuStreamWriteValue32")


class Locator:
    """Runner side: where a tensor's bytes are, as the judge can open them. Cached per
    allocation (a handle is asked for once)."""

    def __init__(self):
        self.handles = {}

    def locate(self, ptr):
        """{"handle": hex, "offset": bytes from the allocation's start, "size": its bytes}, or
        None when the memory cannot be shared this way (VMM, cudaMallocAsync pools, host)."""
        lib = _lib()
        base, size = ctypes.c_ulonglong(), ctypes.c_size_t()
        if lib["range"](ctypes.byref(base), ctypes.byref(size), ctypes.c_ulonglong(int(ptr))) != 0:
            return None
        h = self.handles.get(base.value)
        if h is None:
            raw = _IpcHandle()
            ok = lib["ipc_get"](ctypes.byref(raw), base.value) == 0
            # string_at, not .reserved: a c_char array reads as a string and stops at a zero byte.
            h = ctypes.string_at(ctypes.addressof(raw), HANDLE_BYTES) if ok else b""
            self.handles[base.value] = h
        if not h:
            return None
        return {"handle": h.hex(), "offset": int(ptr) - base.value, "size": int(size.value)}


class Mappings:
    """Judge side: allocations of the runner opened by handle, at most `limit` at a time."""

    def __init__(self, limit=16):
        self.limit = limit
        self.open = {}  # hex handle -> (device address, size)

    def address(self, loc):
        """This process's address of `loc` (a Locator answer), opening it if needed; None when
        the handle does not open or the place is outside its allocation."""
        if not isinstance(loc, dict):
            return None
        hexh, off, size = loc.get("handle"), loc.get("offset"), loc.get("size")
        if not isinstance(hexh, str) or len(hexh) != 2 * HANDLE_BYTES or not isinstance(off, int) \
                or not isinstance(size, int) or off < 0 or size <= 0:
            return None
        got = self.open.get(hexh)
        if got is None:
            if len(self.open) >= self.limit:
                return None
            try:
                raw = _IpcHandle()
                ctypes.memmove(ctypes.addressof(raw), bytes.fromhex(hexh), HANDLE_BYTES)
            except ValueError:
                return None
            ptr = ctypes.c_ulonglong()
            if _lib()["ipc_open"](ctypes.byref(ptr), raw, IPC_LAZY_PEER_ACCESS) != 0:
                return None
            # The size is the runner's claim; the judge reads no further than it (a smaller real
            # allocation is a fault in the judge's context: a crashed job, not a forged value).
            got = (ptr.value, size)
            self.open[hexh] = got
        base, real = got
        if off >= real:
            return None
        return base + off, real - off

    def close_all(self):
        lib = _lib()
        for base, _ in self.open.values():
            lib["ipc_close"](ctypes.c_ulonglong(base))
        self.open.clear()
