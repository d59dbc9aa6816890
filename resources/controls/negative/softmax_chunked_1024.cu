// Negative control: softmax computed in independent chunks of 1024 columns (the study's cheat):
// every chunk sums to 1, so a row of C columns sums to C/1024 (384 at KernelBench's 393216).
#include <reach/kernels.h>

template <typename T>
__global__ void chunkSoftmax(const T* x, T* y) {
    __shared__ float scratch[32];
    const T* xc = x + blockIdx.x * 1024ll;
    T* yc = y + blockIdx.x * 1024ll;
    float v = reach_to_float(xc[threadIdx.x]);
    float m = reach_k::blockMax(v, scratch);
    float e = __expf(v - m);
    float s = reach_k::blockSum(e, scratch);
    yc[threadIdx.x] = reach_from_float<T>(e / s);
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t n = reach_numel(in[0]);
    if (n % 1024) return 1;
    auto go = [&](auto t) {
        using T = decltype(t);
        chunkSoftmax<T><<<n / 1024, 1024, 0, s>>>((const T*)in[0].data, (T*)out[0].data);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
