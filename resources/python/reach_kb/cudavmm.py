"""GPU memory that two processes share without either reaching the other's: CUDA's virtual memory
management (VMM) with POSIX file-descriptor handles, through the driver (libcuda.so.1, ctypes).

Why not PyTorch's own IPC (`storage._share_cuda_`) or `cudaIpcGetMemHandle`: both share the whole
allocation a block lives in, and a block of PyTorch's caching allocator lives in a segment with
other blocks; the runner would map the judge's references too. A VMM allocation here is made for
exactly one buffer, outside PyTorch's allocator, and only its descriptor crosses (SCM_RIGHTS over
the judge's socket), so the runner can map that buffer and nothing else. Legacy CUDA IPC handles
also stop working across PID namespaces (bubblewrap's --unshare-pid); a descriptor does not.

Only the judge allocates and exports; the runner imports. The driver's primary context, which
PyTorch's runtime made current on this thread, is where everything is mapped.
"""

import ctypes

CU_MEM_ALLOCATION_TYPE_PINNED = 1
CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
CU_MEM_LOCATION_TYPE_DEVICE = 1
CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0
CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _AllocProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int),
                ("location", _Location), ("win32HandleMetaData", ctypes.c_void_p),
                ("allocFlags", _AllocFlags)]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


class DriverError(RuntimeError):
    pass


_lib = None


def _driver():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL("libcuda.so.1")
        u64 = ctypes.c_ulonglong
        sz = ctypes.c_size_t
        sig = {
            "cuCtxGetDevice": [ctypes.POINTER(ctypes.c_int)],
            "cuMemGetAllocationGranularity": [ctypes.POINTER(sz), ctypes.POINTER(_AllocProp), ctypes.c_int],
            "cuMemCreate": [ctypes.POINTER(u64), sz, ctypes.POINTER(_AllocProp), u64],
            "cuMemAddressReserve": [ctypes.POINTER(u64), sz, sz, u64, u64],
            "cuMemMap": [u64, sz, sz, u64, u64],
            "cuMemSetAccess": [u64, sz, ctypes.POINTER(_AccessDesc), sz],
            "cuMemExportToShareableHandle": [ctypes.c_void_p, u64, ctypes.c_int, u64],
            "cuMemImportFromShareableHandle": [ctypes.POINTER(u64), ctypes.c_void_p, ctypes.c_int],
            "cuMemUnmap": [u64, sz],
            "cuMemAddressFree": [u64, sz],
            "cuMemRelease": [u64],
            "cuGetErrorString": [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)],
        }
        for name, args in sig.items():
            f = getattr(lib, name)
            f.argtypes = args
            f.restype = ctypes.c_int
        _lib = lib
    return _lib


def _check(rc, what):
    if rc != 0:
        msg = ctypes.c_char_p()
        try:
            _driver().cuGetErrorString(rc, ctypes.byref(msg))
        except Exception:
            pass
        text = msg.value.decode("utf-8", "replace") if msg.value else f"error {rc}"
        raise DriverError(f"{what}: {text}")


def _device():
    dev = ctypes.c_int()
    _check(_driver().cuCtxGetDevice(ctypes.byref(dev)), "cuCtxGetDevice (no current CUDA context)")
    return dev.value


def _prop(dev):
    p = _AllocProp()
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED
    p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    p.location = _Location(CU_MEM_LOCATION_TYPE_DEVICE, dev)
    return p


def granularity():
    g = ctypes.c_size_t()
    p = _prop(_device())
    _check(_driver().cuMemGetAllocationGranularity(ctypes.byref(g), ctypes.byref(p),
                                                   CU_MEM_ALLOC_GRANULARITY_MINIMUM),
           "cuMemGetAllocationGranularity")
    return g.value


class Mapping:
    """One VMM allocation mapped into this process: `ptr`, `size`; release() unmaps it."""

    def __init__(self, handle, size):
        lib = _driver()
        dev = _device()
        self.size = size
        self.handle = handle
        ptr = ctypes.c_ulonglong()
        _check(lib.cuMemAddressReserve(ctypes.byref(ptr), size, 0, 0, 0), "cuMemAddressReserve")
        try:
            _check(lib.cuMemMap(ptr.value, size, 0, handle, 0), "cuMemMap")
            desc = _AccessDesc(_Location(CU_MEM_LOCATION_TYPE_DEVICE, dev), CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            _check(lib.cuMemSetAccess(ptr.value, size, ctypes.byref(desc), 1), "cuMemSetAccess")
        except DriverError:
            lib.cuMemUnmap(ptr.value, size)
            lib.cuMemAddressFree(ptr.value, size)
            lib.cuMemRelease(handle)
            raise
        self.ptr = ptr.value

    @staticmethod
    def allocation_size(nbytes):
        """What cuMemCreate is asked for: whole granules. The runner maps the same size: a
        reservation or a mapping of part of an allocation is refused (invalid argument), and a
        region's own size (its canaries and data) is rarely whole granules."""
        g = granularity()
        return max(g, (int(nbytes) + g - 1) // g * g)

    @classmethod
    def allocate(cls, nbytes):
        size = cls.allocation_size(nbytes)
        h = ctypes.c_ulonglong()
        p = _prop(_device())
        _check(_driver().cuMemCreate(ctypes.byref(h), size, ctypes.byref(p), 0), "cuMemCreate")
        return cls(h.value, size)

    @classmethod
    def import_fd(cls, fd, size):
        h = ctypes.c_ulonglong()
        _check(_driver().cuMemImportFromShareableHandle(ctypes.byref(h), ctypes.c_void_p(fd),
                                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
               "cuMemImportFromShareableHandle")
        return cls(h.value, cls.allocation_size(size))

    def export_fd(self):
        fd = ctypes.c_int(-1)
        _check(_driver().cuMemExportToShareableHandle(ctypes.byref(fd), self.handle,
                                                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
               "cuMemExportToShareableHandle")
        return fd.value

    def release(self):
        if self.ptr is None:
            return
        lib = _driver()
        lib.cuMemUnmap(self.ptr, self.size)
        lib.cuMemAddressFree(self.ptr, self.size)
        lib.cuMemRelease(self.handle)
        self.ptr = None


class _CudaArray:
    """What torch.as_tensor needs to see raw device memory as a uint8 tensor (no copy)."""

    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {"shape": (int(nbytes),), "typestr": "|u1",
                                         "data": (int(ptr), False), "version": 2, "strides": None}


def as_tensor(torch, device, ptr, nbytes):
    return torch.as_tensor(_CudaArray(ptr, nbytes), device=device)
