"""The written fraction for PyTorch candidates: fill the caching allocator's free blocks with the
all-ones byte pattern (a NaN in fp32, bf16 and fp16) before each checked call, then count the output
elements that still hold the pattern.

Why this works: a candidate's output comes from PyTorch's CUDA caching allocator (`torch.empty`
in Python or in a load_inline extension). That allocator hands out cached free blocks best-fit
(the smallest cached block on the same stream and pool that is large enough), so:
1. `torch.cuda.memory_snapshot()` lists every segment and its blocks; blocks in state "inactive"
   are free. PyTorch 2.x gives each block's address; older versions only the sizes in order, from
   which the addresses follow.
2. Allocating a uint8 tensor of exactly each free block's size, largest first, gets that block
   (or another of the same size: sizes are multiples of 512 and best-fit finds an exact fit).
   Each is `fill_(0xFF)`'ed and then freed: the blocks go back to the pool holding the pattern.
3. Until OUTPUT_BLOCKS free blocks are as large as the output is expected to be, such blocks are
   reserved first (new segments), filled and freed the same way, so the output need not come
   from new memory even when the candidate's own temporaries take one of them.
4. After the call the output's byte range is looked up in the ranges that were filled: only then is
   the written fraction measured; otherwise it is reported as not measured, with the reason.

Limits (docs/kernelbench.md): memory the allocator takes from a new cudaMalloc segment during
the call, memory allocated outside PyTorch's allocator, another stream's pool, and free pieces of at
most 1 MiB inside large-pool segments (a request that small goes to the small pool) are not
pattern-filled; step 4 says so instead of guessing. A kernel that writes the all-ones pattern
itself, or leaves exactly that NaN in place, reads as unwritten.
"""

PATTERN = 0xFF
SMALL_SIZE = 1 << 20  # PyTorch's kSmallSize: requests up to 1 MiB use the small pool
OUTPUT_BLOCKS = 1  # free pattern-filled blocks at least as large as the output, before each call


def free_blocks(segments, device_index=None, stream=None):
    """The free blocks that exact-size requests can reach: [(address, size, pool)], largest first."""
    out = []
    for seg in segments:
        if device_index is not None and seg.get("device", device_index) != device_index:
            continue
        if stream is not None and seg.get("stream", stream) != stream:
            continue
        pool = seg.get("segment_type", "large")
        addr = seg.get("address", 0)
        for b in seg.get("blocks", []):
            size = int(b.get("size", 0))
            start = int(b.get("address", addr))
            addr = start + size
            if b.get("state") != "inactive" or size <= 0:
                continue
            if pool == "large" and size <= SMALL_SIZE:
                continue  # unreachable: a request this small is served by the small pool
            out.append((start, size, pool))
    out.sort(key=lambda t: -t[1])
    return out


def merge(ranges):
    merged = []
    for a, b in sorted(ranges):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def covered(ranges, start, end):
    """Is [start, end) inside one of the (merged) filled ranges?"""
    for a, b in ranges:
        if a <= start and end <= b:
            return True
    return False


class Fill:
    def __init__(self, ranges, notes):
        self.ranges = merge(ranges)
        self.notes = notes
        self.filled_bytes = sum(b - a for a, b in self.ranges)


def fill_free_blocks(torch, device, need_bytes):
    """Pattern-fill every reachable free block (and make sure one holds `need_bytes`)."""
    torch.cuda.synchronize(device)
    stream = torch.cuda.current_stream(device).cuda_stream
    notes = []
    hold = []
    need = max(int(need_bytes), 1)
    pool = "small" if need <= SMALL_SIZE else "large"
    blocks = free_blocks(torch.cuda.memory_snapshot(), device.index, stream)
    # Several blocks that can hold the output: a candidate's own temporaries (a ones vector, a
    # Triton scratch buffer) may take the first one, and the output must still land in pattern.
    spare = sum(1 for _, size, p in blocks if size >= need and p == pool)
    for _ in range(max(0, OUTPUT_BLOCKS - spare)):
        try:
            hold.append(torch.empty(need, dtype=torch.uint8, device=device))
        except RuntimeError:
            notes.append(f"could not reserve {need} bytes for the output's block")
            break
    if hold:
        # The reservations may have made new segments: their free rests are listed only now.
        blocks = free_blocks(torch.cuda.memory_snapshot(), device.index, stream)
    for _, size, _p in blocks:
        try:
            hold.append(torch.empty(size, dtype=torch.uint8, device=device))
        except RuntimeError:
            notes.append("stopped filling: an allocation of a free block's size failed")
            break
    for t in hold:
        t.fill_(PATTERN)
    ranges = [(t.data_ptr(), t.data_ptr() + t.numel()) for t in hold]
    del hold
    torch.cuda.synchronize(device)
    return Fill(ranges, notes)


def unwritten_mask(torch, out, fill):
    """Elements still holding the pattern, or None when the output was not in filled memory."""
    from .tensors import data_span
    if fill is None or not out.is_contiguous():
        return None
    start, end = data_span(out)
    if not covered(fill.ranges, start, end):
        return None
    return pattern_mask(torch, out)


def pattern_mask(torch, t):
    """True where every byte of the element is the fill pattern (all bits set)."""
    from .tensors import bits
    b = bits(t)
    if b.dtype == torch.uint8:
        return b == PATTERN
    return b == -1  # a signed integer of all ones
