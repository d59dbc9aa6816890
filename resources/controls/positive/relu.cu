// Positive control: relu, one element per thread (grid-stride), fp32 math.
#include <reach/kernels.h>

__device__ __forceinline__ float f(float v) { return v > 0.f ? v : 0.f; }

template <typename T>
__global__ void unaryKernel(const T* x, T* y, int64_t n) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * blockDim.x)
        y[i] = reach_from_float<T>(f(reach_to_float(x[i])));
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t n = reach_numel(in[0]);
    int blocks = int((n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536);
    auto go = [&](auto t) {
        using T = decltype(t);
        unaryKernel<T><<<blocks, 256, 0, s>>>((const T*)in[0].data, (T*)out[0].data, n);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
