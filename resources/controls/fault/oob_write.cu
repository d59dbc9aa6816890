// Fault control: a correct relu that also writes 64 elements past the end of its output (a
// missing bounds check): the canary region after the output catches it.
#include <reach/kernels.h>

template <typename T>
__global__ void reluOob(const T* x, T* y, int64_t n) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n + 64;
         i += int64_t(gridDim.x) * blockDim.x) {
        float v = i < n ? reach_to_float(x[i]) : 1.f;
        y[i] = reach_from_float<T>(v > 0.f ? v : 0.f);
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t n = reach_numel(in[0]);
    auto go = [&](auto t) {
        using T = decltype(t);
        reluOob<T><<<4096, 256, 0, s>>>((const T*)in[0].data, (T*)out[0].data, n);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
