// Fault control: the kernel writes through a wild pointer (illegal address): the verifier must
// report "crashed" with the CUDA error, and the caller must survive.
#include <reach/candidate.h>

__global__ void wild(float* p) { p[threadIdx.x] = 1.f; }

extern "C" int reach_run(const reach_tensor*, int, reach_tensor*, int, cudaStream_t s) {
    wild<<<1, 32, 0, s>>>(reinterpret_cast<float*>(0x10));
    return 0;
}
