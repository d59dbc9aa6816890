// Fault control: the kernel spins forever (it waits for the output's sentinel to become zero,
// which never happens). The parent must kill the verifier and report "timeout".
#include <reach/candidate.h>

__global__ void spin(volatile unsigned* flag) {
    while (*flag != 0u) {
    }
}

extern "C" int reach_run(const reach_tensor*, int, reach_tensor* out, int, cudaStream_t s) {
    spin<<<1, 1, 0, s>>>(static_cast<volatile unsigned*>(out[0].data));
    return 0;
}
