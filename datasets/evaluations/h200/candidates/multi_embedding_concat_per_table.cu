// Evaluation candidate (unfused): one kernel launch per table, each writing its column block of
// the concatenated output, as an eager framework would (lookup, then concatenation in place).
#include <reach/kernels.h>

template <typename T>
__global__ void oneTable(const T* __restrict__ w, const int64_t* __restrict__ ix, T* __restrict__ y,
                         int64_t NT, int64_t t, int64_t B, int64_t P, int64_t D) {
    int64_t b = blockIdx.x;
    for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
        float acc = 0;
        for (int64_t j = 0; j < P; ++j) acc += reach_to_float(w[ix[b * P + j] * D + d]);
        y[b * NT * D + t * D + d] = reach_from_float<T>(acc);
    }
}

extern "C" int reach_run(const reach_tensor* in, int n_in, reach_tensor* out, int, cudaStream_t s) {
    int64_t NT = n_in - 1;
    const reach_tensor& ix = in[n_in - 1];
    int64_t D = in[0].shape[1], B = out[0].shape[0], P = ix.shape[1] / B;
    auto go = [&](auto tt) {
        using T = decltype(tt);
        for (int64_t t = 0; t < NT; ++t)
            oneTable<T><<<unsigned(B), 64, 0, s>>>((const T*)in[t].data,
                                                   (const int64_t*)ix.data + t * B * P,
                                                   (T*)out[0].data, NT, t, B, P, D);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
