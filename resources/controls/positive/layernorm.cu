// Positive control: layernorm (eps 1e-5), one block per row, two-pass variance, fp32 math.
#include <reach/kernels.h>

template <typename T>
__global__ void layerNormKernel(const T* x, const T* w, const T* b, T* y, int64_t C, float eps) {
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    float s = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) s += reach_to_float(xr[c]);
    float mean = reach_k::blockSum(s, scratch) / C;
    float v = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
        float d = reach_to_float(xr[c]) - mean;
        v += d * d;
    }
    float rstd = rsqrtf(reach_k::blockSum(v, scratch) / C + eps);
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x)
        yr[c] = reach_from_float<T>((reach_to_float(xr[c]) - mean) * rstd * reach_to_float(w[c]) +
                                    reach_to_float(b[c]));
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        layerNormKernel<T><<<R, 512, 0, s>>>((const T*)in[0].data, (const T*)in[1].data,
                                             (const T*)in[2].data, (T*)out[0].data, C, 1e-5f);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
