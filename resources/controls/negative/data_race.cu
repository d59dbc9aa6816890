// Negative control: sum_rows where 64 blocks per row add their partial sums into y[row] with a
// plain load + store instead of an atomic: concurrent blocks lose each other's updates.
#include <reach/kernels.h>

template <typename T>
__global__ void zeroKernel(T* y, int64_t R) {
    int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
    if (i < R) y[i] = reach_from_float<T>(0.f);
}

template <typename T>
__global__ void racySum(const T* x, T* y, int64_t C, int64_t chunk) {
    __shared__ float scratch[32];
    int64_t row = blockIdx.y, c0 = blockIdx.x * chunk;
    float s = 0;
    for (int64_t c = c0 + threadIdx.x; c < c0 + chunk && c < C; c += blockDim.x)
        s += reach_to_float(x[row * C + c]);
    s = reach_k::blockSum(s, scratch);
    if (threadIdx.x == 0) {
        volatile T* p = y + row;
        float old = reach_to_float(T(*p));  // read ...
        __nanosleep(200);                    // ... (a window other blocks write into) ...
        *p = reach_from_float<T>(old + s);   // ... write: not atomic
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    int64_t chunks = 64, chunk = (C + chunks - 1) / chunks;
    auto go = [&](auto t) {
        using T = decltype(t);
        zeroKernel<T><<<unsigned((R + 255) / 256), 256, 0, s>>>((T*)out[0].data, R);
        racySum<T><<<dim3(unsigned(chunks), unsigned(R)), 128, 0, s>>>((const T*)in[0].data,
                                                                       (T*)out[0].data, C, chunk);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
