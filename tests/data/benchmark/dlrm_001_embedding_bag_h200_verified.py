# A KernelBench-format problem made by reach-cli extract from a profile.
# profile: dlrm_inference.json.gz
# profile sha256: a3d1b770afa923a11f48a6f3b380b419b056da8bfee507245f2e4b8354c85f27
# operator: aten::_embedding_bag, 24 calls
# its kernels: 1609.3 us, 83.52 % of the workload's GPU time, 94.66 % of its addressable time
#   kernel (24 calls, 1609.3 us): void at::native::(anonymous namespace)::EmbeddingBag_updateOutputKernel_sum_mean<c10::BFloat16, long>(long const*, long const*, c10::BFloat16 const*, c10::BFloat16*, lo...
# assumed: embedding_bag offsets: bags of equal size
# assumed: indices drawn uniformly in range
import torch
import torch.nn as nn


def _draw(shape, stride, dtype, low=0, high=2):
    """A tensor of `shape`, dense, its dimensions ordered as `stride` orders them (a transposed
    operand stays transposed; moving it to the GPU keeps a dense layout)."""
    dims = list(range(len(shape)))
    order = sorted(dims, key=lambda d: (-stride[d], d)) if stride else dims
    base = _values([shape[d] for d in order], dtype, low, high)
    return base.permute([order.index(d) for d in dims])


def _values(shape, dtype, low=0, high=2):
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=torch.float32).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape) < 0.5
    return torch.randint(low, max(high, low + 1), shape, dtype=dtype)


def _offsets(bags, indices, dtype):
    """embedding_bag's offsets: bags of equal size over the indices, the first at 0."""
    step = indices // bags if bags else 0
    return torch.arange(bags, dtype=dtype) * step


def _overload(packet, args, drop_out=True):
    """The overload of the ATen operator that takes the recorded arguments, as a function of
    them. The profiler records every argument in the schema's order; those past its positional
    ones go by keyword (add's alpha, sum's dtype). A call recorded in its out= form (gather.out,
    arange.start_out) is made in its functional form: the out tensors, drawn as inputs, are left
    out, and no input is written."""
    last = None
    for name in packet.overloads():
        if name == "out" or name.endswith("_out"):
            continue  # writes into tensors it is given: not the call the profile recorded
        op = getattr(packet, name)
        params = op._schema.arguments
        if len(args) > len(params):
            continue

        def call(values, op=op, params=params):
            positional = [v for p, v in zip(params, values) if not p.kwarg_only]
            keywords = {p.name: v for p, v in zip(params, values) if p.kwarg_only}
            return op(*positional, **keywords)

        try:
            call(args)
        except (RuntimeError, TypeError, ValueError) as e:
            last = e
            continue
        return call
    for name in packet.overloads() if drop_out else []:
        if not (name == "out" or name.endswith("_out")):
            continue
        params = getattr(packet, name)._schema.arguments
        if len(params) != len(args):
            continue
        kept = [v for p, v in zip(params, args) if not p.name.startswith("out")]
        try:
            functional = _overload(packet, kept, False)
        except (RuntimeError, TypeError, ValueError) as e:
            last = e
            continue
        return lambda values, f=functional, params=params: f(
            [v for p, v in zip(params, values) if not p.name.startswith("out")])
    raise last or RuntimeError("no overload of this operator takes the recorded arguments")


def _first(out):
    while isinstance(out, (tuple, list)):
        out = out[0]
    return out


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._call = None

    def forward(self, x0, x1, x2):
        args = [x0, x1, x2, False, 0, False, None, False, -1]
        if self._call is None:
            self._call = _overload(torch.ops.aten._embedding_bag, args)
        return _first(self._call(args))


def get_inputs():
    return [_draw([2000000, 128], [128, 1], torch.bfloat16),
            _draw([262144], [1], torch.int64, 0, 2000000),
            _offsets(4096, 262144, torch.int64)]


def get_init_inputs():
    return []
