#pragma once

#include <string>

#include "core/verify/operators.h"
#include "core/verify/problem.h"
#include "core/verify/verification.h"
#include "gpu/verifyoptions.h"

namespace reach {

// The part of a job that needs the CUDA runtime (cudarunner.cpp), or its stand-in when
// reach_gpu is built without CUDA (nocudarunner.cpp): load the compiled candidate, make inputs,
// run with sentinels and canaries, evaluate the oracle, time candidate and baseline, roofline.
struct DeviceRunRequest {
    const Problem* problem = nullptr;
    const Operator* op = nullptr;
    const VerifyOptions* options = nullptr;
    Thresholds thresholds;
    uint64_t seed = 0;
    std::string candidateObject;  // compiled .so
    std::string baselineObject;   // compiled Reach baseline .so, "" for none / cuBLAS
};

void runOnDevice(const DeviceRunRequest& req, VerificationResult& result);

}  // namespace reach
