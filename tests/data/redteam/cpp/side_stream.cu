// Red team (C++, GPU): the right sum on a private stream the caller's stream never waits for: the
// runner's events on the given stream time almost nothing. Must get: fail (clock_agreement).
#include <reach/kernels.h>

template <typename T>
__global__ void addKernel(const T* a, const T* b, T* y, int64_t n) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * blockDim.x)
        y[i] = reach_from_float<T>(reach_to_float(a[i]) + reach_to_float(b[i]));
}

static cudaStream_t privateStream() {
    static cudaStream_t s = nullptr;
    if (!s)
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t) {
    int64_t n = reach_numel(in[0]);
    int blocks = int((n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536);
    cudaStream_t s = privateStream();
    auto go = [&](auto t) {
        using T = decltype(t);
        // Slow on purpose (eight passes), so what escapes the events is far beyond jitter.
        for (int k = 0; k < 8; ++k)
            addKernel<T><<<blocks, 256, 0, s>>>((const T*)in[0].data, (const T*)in[1].data,
                                                (T*)out[0].data, n);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
