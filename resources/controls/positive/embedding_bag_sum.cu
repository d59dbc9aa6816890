// Positive control: embedding_bag_sum, one block per bag, threads over D, fp32 accumulation.
#include <reach/kernels.h>

template <typename T>
__global__ void bagKernel(const T* w, const int64_t* idx, const int64_t* off, T* y, int64_t L,
                          int64_t B, int64_t D) {
    int64_t b = blockIdx.x;
    int64_t s = off[b], e = b + 1 < B ? off[b + 1] : L;
    for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
        float acc = 0;
        for (int64_t i = s; i < e; ++i) acc += reach_to_float(w[idx[i] * D + d]);
        y[b * D + d] = reach_from_float<T>(acc);
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t D = in[0].shape[1], L = in[1].shape[0], B = in[2].shape[0];
    auto go = [&](auto t) {
        using T = decltype(t);
        bagKernel<T><<<B, 128, 0, s>>>((const T*)in[0].data, (const int64_t*)in[1].data,
                                       (const int64_t*)in[2].data, (T*)out[0].data, L, B, D);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
