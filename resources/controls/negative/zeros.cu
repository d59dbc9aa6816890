// Negative control: writes zeros. On a softmax whose correct elements are ~2.5e-6, KernelBench's
// allclose(atol=1e-2) passes it; the oracle fails it (rel_frobenius = 1, rows sum to 0).
#include <reach/kernels.h>

extern "C" int reach_run(const reach_tensor*, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t bytes = reach_numel(out[0]) * (out[0].dtype == REACH_BF16 ? 2 : 4);
    return cudaMemsetAsync(out[0].data, 0, size_t(bytes), s) == cudaSuccess ? 0 : 1;
}
