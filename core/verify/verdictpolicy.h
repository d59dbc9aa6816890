#pragma once

#include <string>

#include "core/verify/dtype.h"
#include "core/verify/oracle.h"
#include "core/verify/verification.h"

namespace reach {

// The CUDA-free policy of a verification job: which baseline time a speedup divides by, the
// roofline floor, and the verdict from the oracle's checks. gpu/cudarunner.cpp measures; these
// decide, and are tested in CI without a GPU.

// As the study did: the faster of the baseline measured here (b.timing) and a recorded time
// (b.recordedUs); sets b.usedUs (0 when neither) and says so in b.note.
void chooseBaselineTime(BaselineInfo& b);
// b.usedUs / candidate median; 0 when either is missing.
double speedupOver(const BaselineInfo& b, const TimingStats& candidate);

// Dense tensor-core peak for the dtype from vendor datasheets (TF32 for f32), TFLOP/s: the
// arithmetic ceiling of the roofline, so the floor stays a lower bound; 0 when unknown.
double peakTflops(const std::string& arch, DType d);

// max(bytes / copy bandwidth, flops / peak); below the floor by more than 10 % is physically
// implausible.
Roofline rooflineFloor(double minimalBytes, double flops, double copyBandwidthGBs,
                       double peakTflops, double candidateMedianUs);

// The checks and verdict of a finished correctness run: the candidate's return code, every
// oracle check, and roofline_plausible when a roofline was measured. `pass` only when all pass.
void applyVerdict(VerificationResult& r, int returnCode, const OracleVerdict& oracle);

}  // namespace reach
