"""What a correct kernel cannot avoid, for the roofline floor (verdictpolicy.h rooflineFloor): the
bytes it must read and write and the FLOPs it must do, counted on one call of the problem's own
Model (trusted: the problem defines the truth) at the precision.

Issue 36: the floor counted the output beyond L2 and the FLOPs of matrix products and
convolutions only, so a reduction to a scalar had no floor at all (an MSE loss computed on 1/64 of
its inputs passed at 122x). Now, besides FlopCounterMode's matrix products and convolutions:

- every input the Model reads WHOLE is counted once in full (its bytes come from DRAM: the judge
  flushes L2 before every call), as far as the operator that reads it needs the whole of it.
  Which operators do is a list (`WHOLE`): elementwise arithmetic and activations, reductions,
  scans, norms, softmax, losses, matrix products, copies and concatenation. An operator not on
  the list counts nothing: gathers (an embedding reads the rows its indices name), selections
  (`where` reads one of its two values per element), triangular and diagonal extracts, strided
  convolutions and pools, anything new. A view (slice, transpose, expand) passes its own extent
  on (`x[:, :8].sum()` counts the first eight columns), never more than the input holds. So the
  count is a lower bound of what any correct kernel reads: the floor stays a floor.
- a reduction counts one operation per element it reduces (`REDUCTIONS`).
"""

# Operators (ATen overload packets) whose every input element contributes to the output.
WHOLE = frozenset("""
abs neg reciprocal rsqrt sqrt exp exp2 expm1 log log1p log2 log10 sin cos tan asin acos atan sinh
cosh tanh asinh acosh atanh sigmoid logit erf erfc erfinv sign sgn floor ceil round trunc frac
relu relu_ gelu silu mish hardtanh leaky_relu elu selu celu softplus softsign hardsigmoid
hardswish hardshrink softshrink threshold clamp clamp_min clamp_max clip pow square
add sub mul div rsub true_divide floor_divide remainder fmod minimum maximum fmax fmin atan2
lerp addcmul addcdiv hypot logaddexp copysign
gt lt ge le eq ne logical_not logical_and logical_or logical_xor bitwise_and bitwise_or
bitwise_xor bitwise_not isnan isinf isfinite nan_to_num
sum mean prod amax amin max min argmax argmin var std var_mean std_mean norm
linalg_vector_norm frobenius_norm logsumexp all any count_nonzero
cumsum cumprod cummax cummin logcumsumexp sort topk argsort
_softmax softmax _log_softmax log_softmax
native_layer_norm layer_norm native_batch_norm _native_batch_norm_legit
_native_batch_norm_legit_no_training batch_norm native_group_norm group_norm rms_norm
_fused_rms_norm
mse_loss l1_loss smooth_l1_loss huber_loss kl_div binary_cross_entropy
binary_cross_entropy_with_logits soft_margin_loss hinge_embedding_loss
mm bmm addmm baddbmm addbmm matmul dot vdot mv addmv
clone _to_copy copy_ contiguous cat stack
""".split())

REDUCTIONS = frozenset("""
sum mean prod amax amin max min argmax argmin var std var_mean std_mean norm linalg_vector_norm
frobenius_norm logsumexp all any count_nonzero mse_loss l1_loss smooth_l1_loss huber_loss kl_div
binary_cross_entropy binary_cross_entropy_with_logits soft_margin_loss hinge_embedding_loss
""".split())


def _storage_key(t):
    try:
        return t.untyped_storage().data_ptr()  # PyTorch >= 2.0
    except AttributeError:
        return t.storage().data_ptr()


def _is_view(func):
    try:
        return any(r.alias_info is not None and not r.alias_info.is_write for r in func._schema.returns)
    except Exception:
        return False


def must_read(torch, model, inputs):
    """(bytes the Model reads whole from its inputs, parameters and buffers, reduction
    operations), or None when this PyTorch has no dispatch modes (the caller keeps the older
    floor)."""
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_flatten
    except ImportError:
        return None
    sizes = {}
    params = []
    try:
        params = list(model.parameters()) + list(model.buffers())
    except Exception:
        pass
    for x in list(inputs) + params:
        if isinstance(x, torch.Tensor) and x.numel():
            k = _storage_key(x)
            sizes[k] = max(sizes.get(k, 0), x.numel() * x.element_size())
    read = {}
    reductions = [0]

    class Reads(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = getattr(func.overloadpacket, "__name__", "")
            if name in WHOLE and not _is_view(func):
                flat, _ = tree_flatten((args, kwargs))
                first = True
                for a in flat:
                    # A meta tensor holds no data: Reach's problems size their outputs on such a
                    # call before the real one (problemsource.cpp), which reads nothing.
                    if not isinstance(a, torch.Tensor) or a.device.type == "meta":
                        continue
                    k = _storage_key(a)
                    if k in sizes:
                        nb = min(a.numel() * a.element_size(), sizes[k])
                        read[k] = max(read.get(k, 0), nb)
                    if first and name in REDUCTIONS:
                        reductions[0] += a.numel()
                    first = False
            return func(*args, **(kwargs or {}))

    with torch.no_grad():
        with Reads():
            model(*inputs)
    return float(sum(read.values())), float(reductions[0])
