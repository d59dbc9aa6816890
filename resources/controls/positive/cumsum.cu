// Positive control: inclusive cumsum along the last dim. One block per row walks the row in
// chunks of blockDim elements: a shared-memory scan per chunk plus the running carry.
#include <reach/kernels.h>

template <typename T>
__global__ void cumsumKernel(const T* x, T* y, int64_t C) {
    extern __shared__ float buf[];
    __shared__ float carry;
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    for (int64_t base = 0; base < C; base += blockDim.x) {
        int64_t c = base + threadIdx.x;
        buf[threadIdx.x] = c < C ? reach_to_float(xr[c]) : 0.f;
        __syncthreads();
        for (int off = 1; off < blockDim.x; off <<= 1) {
            float add = threadIdx.x >= off ? buf[threadIdx.x - off] : 0.f;
            __syncthreads();
            buf[threadIdx.x] += add;
            __syncthreads();
        }
        if (c < C) yr[c] = reach_from_float<T>(carry + buf[threadIdx.x]);
        __syncthreads();
        if (threadIdx.x == blockDim.x - 1) carry += buf[threadIdx.x];
        __syncthreads();
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        cumsumKernel<T><<<R, 512, 512 * sizeof(float), s>>>((const T*)in[0].data, (T*)out[0].data, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
