# A candidate for DLRM inference's extracted aten::clamp_min problem ([4096, 128] bf16, min 0)
# compiled with load_inline (C++, so it runs on the CPU of CI): its forward is a pass-through to
# the extension's one function, so integrate's native host path can call that function from its
# C++ override without entering Python (docs/integration.md, "The host path"). It keeps NaN, as
# clamp_min does, and counts its calls from Python (CALLS): a test sees which path ran it.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP = r"""
#include <torch/extension.h>

torch::Tensor clamp_min_zero(torch::Tensor x, double low) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const auto* src = reinterpret_cast<const uint16_t*>(in.data_ptr());
    auto* dst = reinterpret_cast<uint16_t*>(out.data_ptr());
    const c10::BFloat16 floor(static_cast<float>(low));
    for (int64_t i = 0; i < in.numel(); ++i) {
        c10::BFloat16 v;
        v.x = src[i];
        const float f = static_cast<float>(v);
        dst[i] = (f < static_cast<float>(floor)) ? floor.x : src[i];  // NaN < floor is false
    }
    return out;
}
"""

ext = load_inline(name="reach_test_clamp_min_native", cpp_sources=[CPP],
                  functions=["clamp_min_zero"], extra_cflags=["-O2"], verbose=False)

CALLS = [0]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        CALLS[0] += 1
        return ext.clamp_min_zero(x, 0.0)
