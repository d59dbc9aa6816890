"""Tensor helpers shared by both verdicts: dtype casts, bit-level comparison, storage overlap."""

import torch

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}

# Same-width integer types, to look at a tensor's bits (NaN != NaN, but bits compare).
_BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def dtype_of(precision):
    return DTYPES[precision]


def is_float(t):
    return isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex())


def kb_cast(x, device, dtype):
    """KernelBench's _process_input_tensor: EVERY tensor to the precision (integers too), then the device."""
    if not isinstance(x, torch.Tensor):
        return x
    return x.to(dtype=dtype).to(device=device)


def reach_cast(x, device, dtype):
    """Reach's cast: floating tensors to the precision; index tensors keep their dtype."""
    if not isinstance(x, torch.Tensor):
        return x
    if x.is_floating_point():
        return x.to(device=device, dtype=dtype)
    return x.to(device=device)


def upcast(x, dtype=torch.float64):
    """The reference's view of an input: the very values the candidate saw, in higher precision."""
    if isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.to(dtype)
    return x


def element_size(t):
    return t.element_size() if hasattr(t, "element_size") else t.storage().element_size()


def bits(t):
    """The tensor's elements as same-width integers (a view when possible)."""
    t = t.contiguous()
    if t.dtype == torch.bool:
        return t.view(torch.uint8)
    if t.is_floating_point():
        return t.view(_BITS[element_size(t)])
    return t


def bitwise_equal(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return bool(torch.equal(bits(a), bits(b)))


def clone_inputs(inputs):
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def storage_span(t):
    """[start, end) bytes of the whole storage behind `t` (a view shares its base's storage)."""
    try:
        s = t.untyped_storage()  # PyTorch >= 2.0
        start, n = s.data_ptr(), s.nbytes()
    except AttributeError:
        s = t.storage()  # PyTorch 1.13
        start, n = s.data_ptr(), s.nbytes()
    return start, start + n


def data_span(t):
    """[start, end) bytes that the elements of a contiguous `t` occupy."""
    start = t.data_ptr()
    return start, start + t.numel() * element_size(t)


def overlaps(out, inputs):
    """Indices of the input tensors whose storage overlaps the output's storage."""
    if not isinstance(out, torch.Tensor) or out.numel() == 0:
        return []
    o0, o1 = storage_span(out)
    hits = []
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor) and x.numel() > 0 and x.device == out.device:
            i0, i1 = storage_span(x)
            if o0 < i1 and i0 < o1:
                hits.append(i)
    return hits


def tensor_bytes(inputs):
    return sum(x.numel() * element_size(x) for x in inputs if isinstance(x, torch.Tensor))


def describe_value(v):
    if isinstance(v, torch.Tensor):
        return f"Tensor{list(v.shape)} {str(v.dtype).replace('torch.', '')}"
    return type(v).__name__
