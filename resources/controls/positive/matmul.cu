// Positive control: matmul with 32x32 shared-memory tiles, fp32 accumulation (no tensor cores).
#include <reach/kernels.h>

template <typename T>
__global__ void matmulKernel(const T* a, const T* b, T* c, int64_t M, int64_t N, int64_t K) {
    __shared__ float as[32][33], bs[32][33];
    int64_t row = blockIdx.y * 32 + threadIdx.y, col = blockIdx.x * 32 + threadIdx.x;
    float acc = 0;
    for (int64_t k0 = 0; k0 < K; k0 += 32) {
        as[threadIdx.y][threadIdx.x] =
            row < M && k0 + threadIdx.x < K ? reach_to_float(a[row * K + k0 + threadIdx.x]) : 0.f;
        bs[threadIdx.y][threadIdx.x] =
            col < N && k0 + threadIdx.y < K ? reach_to_float(b[(k0 + threadIdx.y) * N + col]) : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) c[row * N + col] = reach_from_float<T>(acc);
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t M = in[0].shape[0], K = in[0].shape[1], N = in[1].shape[1];
    dim3 grid(unsigned((N + 31) / 32), unsigned((M + 31) / 32)), block(32, 32);
    auto go = [&](auto t) {
        using T = decltype(t);
        matmulKernel<T><<<grid, block, 0, s>>>((const T*)in[0].data, (const T*)in[1].data,
                                               (T*)out[0].data, M, N, K);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
