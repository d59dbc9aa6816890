// Red team (C++, GPU): computes on its first call only, then returns at once, counting on the
// output buffer still holding the first answer (a verifier that times on the same buffers, or
// fills the output only once, never notices). Must get: fail (timed_outputs).
#include <reach/kernels.h>

template <typename T>
__global__ void addKernel(const T* a, const T* b, T* y, int64_t n) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * blockDim.x)
        y[i] = reach_from_float<T>(reach_to_float(a[i]) + reach_to_float(b[i]));
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    static int calls = 0;
    if (calls++ > 0)
        return 0;
    int64_t n = reach_numel(in[0]);
    int blocks = int((n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536);
    auto go = [&](auto t) {
        using T = decltype(t);
        addKernel<T>
            <<<blocks, 256, 0, s>>>((const T*)in[0].data, (const T*)in[1].data, (T*)out[0].data, n);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
