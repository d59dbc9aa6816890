// Stand-in for cudarunner.cpp when reach_gpu is built without the CUDA toolkit: "no GPU" is a
// normal run-time answer, never a build break.
#include "gpu/devicerunner.h"
#include "gpu/verifyjob.h"

namespace reach {

int visibleDeviceCount() {
    return 0;
}

double measureCopyBandwidthGBs() {
    return 0;
}

DeviceInfo queryDevice() {
    DeviceInfo d;
    d.available = false;
    d.reason = "this Reach was built without the CUDA toolkit (REACH_HAVE_CUDA=OFF)";
    return d;
}

int runCandidateRunner(int) {
    return 3;  // nothing to run without CUDA
}

void runOnDevice(const DeviceRunRequest&, VerificationResult& r) {
    r.verdict = verdict::kNoGpu;
    r.reasons = {"no GPU: built without CUDA"};
}

}  // namespace reach
