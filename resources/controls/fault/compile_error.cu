// Fault control: does not compile (a host-code error, the most common failure in the study).
#include <reach/candidate.h>

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t n = in[0].shape[0]
    return undeclared_function(out, n, s);
}
