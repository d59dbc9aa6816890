// Evaluation candidate (fused): softmax with the max and the sum fused into one online pass
// (running max, rescaled sum), then one write pass: two reads of x instead of three.
#include <reach/kernels.h>

__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    float mm = fmaxf(m, m2);
    s = s * __expf(m - mm) + s2 * __expf(m2 - mm);
    m = mm;
}

template <typename T>
__global__ void onlineSoftmax(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    __shared__ float sm[32], ss[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    float m = -FLT_MAX, s = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
        float v = reach_to_float(xr[c]);
        if (v > m) {
            s = s * __expf(m - v) + 1.f;
            m = v;
        } else {
            s += __expf(v - m);
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
        merge(m, s, m2, s2);
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    if (lane == 0) {
        sm[warp] = m;
        ss[warp] = s;
    }
    __syncthreads();
    m = lane < nw ? sm[lane] : -FLT_MAX;
    s = lane < nw ? ss[lane] : 0.f;
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
        merge(m, s, m2, s2);
    }
    float inv = 1.f / s;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x)
        yr[c] = reach_from_float<T>(__expf(reach_to_float(xr[c]) - m) * inv);
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        onlineSoftmax<T><<<unsigned(R), 512, 0, s>>>((const T*)in[0].data, (T*)out[0].data, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
