"""Buffers the judge shares with the runner: the inputs it draws and the slot the output comes back in.

A region is [canary | data | canary]: the canaries (CANARY_BYTES of CANARY_BYTE on each side, as in
the C++ verifier) catch writes past either end of an input (and of the slot). Only the judge
creates a region; the runner maps it from the descriptor it is sent. Nothing else of the judge is
in it, so the runner can reach the data it was given and nothing more.

Backends: on CUDA, a VMM allocation of its own (cudavmm.py); on the CPU (the tests), a sealed
memfd: the runner can write its bytes (as it can a GPU buffer) but cannot shrink or grow it, so a
hostile runner cannot make the judge fault on a truncated mapping.
"""

import fcntl
import mmap
import os

CANARY_BYTE = 0xA5
CANARY_BYTES = 1 << 20
PATTERN = 0xFF  # the sentinel the slot is filled with before each call (a NaN in every float type)


class Region:
    """`data`: a uint8 tensor of the data bytes; `whole`: data and canaries."""

    def __init__(self, torch, device, nbytes, whole, canary, vmm=None, mm=None, fd=None):
        self.torch = torch
        self.device = device
        self.nbytes = int(nbytes)
        self.canary = canary
        self.whole = whole
        self.data = whole[canary:canary + self.nbytes]
        self.total = int(whole.numel())
        # What is behind the tensors: a VMM mapping (CUDA) or an mmap of a memfd (CPU); the
        # judge's own descriptor, from which the runner's copies are made.
        self._vmm = vmm
        self._mm = mm
        self._fd = fd

    # ---- made by the judge -------------------------------------------------------------------
    @classmethod
    def create(cls, torch, device, nbytes, canary=CANARY_BYTES):
        nbytes = max(int(nbytes), 1)
        total = canary * 2 + (nbytes + 255) // 256 * 256
        if device.type == "cuda":
            from . import cudavmm
            m = cudavmm.Mapping.allocate(total)
            whole = cudavmm.as_tensor(torch, device, m.ptr, total)
            r = cls(torch, device, nbytes, whole, canary, vmm=m)
        else:
            fd = os.memfd_create("reach-shared", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
            os.ftruncate(fd, total)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            mm = mmap.mmap(fd, total)
            whole = torch.frombuffer(mm, dtype=torch.uint8)
            r = cls(torch, device, nbytes, whole, canary, mm=mm, fd=fd)
        r.fill_canaries()
        return r

    def export_fd(self):
        """A new descriptor for the runner (the caller closes it once sent)."""
        if self._vmm is not None:
            return self._vmm.export_fd()
        return os.dup(self._fd)

    def describe(self):
        return {"total": self.total, "canary": self.canary, "nbytes": self.nbytes}

    def fill_canaries(self):
        c = self.canary
        if c:
            self.whole[:c].fill_(CANARY_BYTE)
            self.whole[c + self.nbytes:].fill_(CANARY_BYTE)

    def canary_damage(self):
        """Canary bytes that are no longer CANARY_BYTE: writes past either end of the data."""
        c = self.canary
        if not c:
            return 0
        before = self.whole[:c]
        after = self.whole[c + self.nbytes:]
        return int((before != CANARY_BYTE).sum().item()) + int((after != CANARY_BYTE).sum().item())

    def view(self, dtype, shape, stride=None):
        """The data as a tensor of `shape`; with `stride`, laid out as those strides say (a
        permutation of a dense layout, such as channels-last: the region holds exactly its
        elements)."""
        t = self.data
        if dtype != self.torch.uint8:
            t = t.view(dtype)
        if shape is None:
            return t
        return t.as_strided(shape, stride) if stride is not None else t.view(shape)

    def release(self):
        """Drops this process's view. Every tensor made from it must be gone first (a VMM
        mapping is unmapped at once; an mmap stays until its last view is collected)."""
        self.whole = self.data = None
        if self._vmm is not None:
            self._vmm.release()
            self._vmm = None
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None
        self._mm = None

    # ---- mapped by the runner ----------------------------------------------------------------
    @classmethod
    def attach(cls, torch, device, fd, desc):
        total, canary, nbytes = int(desc["total"]), int(desc["canary"]), int(desc["nbytes"])
        if device.type == "cuda":
            from . import cudavmm
            m = cudavmm.Mapping.import_fd(fd, total)
            os.close(fd)
            whole = cudavmm.as_tensor(torch, device, m.ptr, total)
            return cls(torch, device, nbytes, whole, canary, vmm=m)
        mm = mmap.mmap(fd, total)
        os.close(fd)
        whole = torch.frombuffer(mm, dtype=torch.uint8)
        return cls(torch, device, nbytes, whole, canary, mm=mm)
