#pragma once

#include <string>

#include "core/verify/verification.h"
#include "gpu/verifyoptions.h"

namespace reach {

// Describes the GPU the job would use, or why there is none (a normal answer).
DeviceInfo queryDevice();
// How many CUDA devices this process sees (after CUDA_VISIBLE_DEVICES); 0 without any.
int visibleDeviceCount();
// The device-to-device copy bandwidth of device 0 (bytes read + written, GB/s; the median of 10
// copies of 512 MiB), the measured memory ceiling the verifier's roofline uses; 0 without a GPU.
double measureCopyBandwidthGBs();

// Runs the whole job: compile, load, fill, run, check, time, baseline, roofline. Never throws
// for a bad candidate (that is a verdict); throws InputError for a bad problem or thresholds
// file. Without a GPU (or a build without CUDA) the verdict is "no_gpu".
VerificationResult runVerifyJob(const VerifyOptions& o);

// The runner of a C++ candidate (reach-verify --runner-channel FD; gpu/candidaterunner.cpp):
// serves the controller on the channel until it says exit. Returns the process's exit status.
int runCandidateRunner(int channelFd);

// Compiles (or finds in the cache) options.candidateFile for the device's arch, nothing else.
CompileInfo compileCandidateOnly(const VerifyOptions& o);

}  // namespace reach
