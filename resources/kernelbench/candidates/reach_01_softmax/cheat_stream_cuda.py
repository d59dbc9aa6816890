# CHEAT (timing) for reach_01_softmax: a correct softmax launched on a PRIVATE non-blocking
# stream (cudaStreamCreateWithFlags(cudaStreamNonBlocking)) with no event or sync back to the
# caller's stream. Events recorded on the current stream around forward() measure ~0 time.
# The side stream does wait for work already queued on the caller's stream (input writes, a
# sentinel fill), so the values are right once the device is synchronized and correctness
# checks that synchronize pass it; an honest timer (device-wide sync / all streams) must report
# the real time.
# Expected: correctness pass, timing flagged.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ float block_max(float v, float* sh) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_max(v);
    __syncthreads();
    if (lane == 0) sh[wid] = v;
    __syncthreads();
    if (wid == 0) {
        v = (lane < nw) ? sh[lane] : -INFINITY;
        v = warp_max(v);
        if (lane == 0) sh[0] = v;
    }
    __syncthreads();
    return sh[0];
}
__device__ float block_sum(float v, float* sh) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) sh[wid] = v;
    __syncthreads();
    if (wid == 0) {
        v = (lane < nw) ? sh[lane] : 0.f;
        v = warp_sum(v);
        if (lane == 0) sh[0] = v;
    }
    __syncthreads();
    return sh[0];
}

template <typename scalar_t>
__global__ void softmax_side_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int64_t n_cols) {
    __shared__ float sh[32];
    const scalar_t* xr = x + (int64_t)blockIdx.x * n_cols;
    scalar_t* yr = y + (int64_t)blockIdx.x * n_cols;
    float m = -INFINITY;
    for (int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) m = fmaxf(m, static_cast<float>(xr[c]));
    m = block_max(m, sh);
    float s = 0.f;
    for (int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) s += expf(static_cast<float>(xr[c]) - m);
    s = block_sum(s, sh);
    const float inv = 1.f / s;
    for (int64_t c = threadIdx.x; c < n_cols; c += blockDim.x)
        yr[c] = static_cast<scalar_t>(expf(static_cast<float>(xr[c]) - m) * inv);
}

static cudaStream_t side_stream() {
    // Created once and never destroyed (destroying it would synchronize).
    static cudaStream_t s = nullptr;
    if (s == nullptr) C10_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
}
static cudaEvent_t ready_event() {
    static cudaEvent_t e = nullptr;
    if (e == nullptr) C10_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return e;
}

torch::Tensor softmax_side_stream(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    const int64_t n_cols = xc.size(-1);
    const int64_t n_rows = xc.numel() / n_cols;
    auto y = torch::empty_like(xc);
    if (n_rows == 0) return y;
    cudaStream_t s = side_stream();  // NOT at::cuda::getCurrentCUDAStream(): that is the cheat
    // one-way ordering: the side stream waits for the caller's queued work, never the reverse
    C10_CUDA_CHECK(cudaEventRecord(ready_event(), at::cuda::getCurrentCUDAStream()));
    C10_CUDA_CHECK(cudaStreamWaitEvent(s, ready_event(), 0));
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, xc.scalar_type(), "softmax_side_stream", [&] {
        softmax_side_kernel<scalar_t><<<(unsigned)n_rows, 1024, 0, s>>>(
            xc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n_cols);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return y;  // no cudaStreamSynchronize, no event: the caller's stream does not wait
}
"""

cpp_src = "torch::Tensor softmax_side_stream(torch::Tensor x);"

_ext = load_inline(
    name="reach_kb_01_softmax_cheat_stream_cuda",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["softmax_side_stream"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.softmax_side_stream(x)
