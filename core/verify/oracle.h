#pragma once

#include <cstdint>
#include <vector>

#include "core/verify/hosttensor.h"
#include "core/verify/operators.h"
#include "core/verify/verification.h"

namespace reach {

// Outputs are filled with all-ones bytes before every run: a NaN bit pattern in f32, bf16 and
// f16 (0xFFFFFFFF, 0xFFFF) that cudaMemset can write, so "written" means "no longer all ones".
inline constexpr uint8_t kSentinelByte = 0xFF;
// Canary regions before and after every tensor hold this byte; any change is an
// out-of-bounds write.
inline constexpr uint8_t kCanaryByte = 0xA5;
inline constexpr size_t kCanaryBytes = 1 << 20;

// True when output element i still holds the sentinel.
bool isSentinel(const HostTensor& t, int64_t i);
void fillSentinel(HostTensor& t);

struct OracleInput {
    const Problem* problem = nullptr;
    const Operator* op = nullptr;
    const std::vector<HostTensor>* inputs = nullptr;       // as generated
    const std::vector<HostTensor>* inputsAfter = nullptr;  // read back after the run (optional)
    const std::vector<HostTensor>* outputs = nullptr;      // read back after the run
    const std::vector<std::vector<double>>* reference = nullptr;
    int64_t canaryBytesChanged = 0;
    Thresholds thresholds;
};

struct OracleVerdict {
    OracleMetrics metrics;
    std::vector<CheckResult> checks;
    bool passed = false;
    std::vector<std::string> reasons;  // one line per failed check
};

// Every metric and check of docs/verifier.md on host arrays. Pure: no GPU.
OracleVerdict evaluateOutputs(const OracleInput& in);

}  // namespace reach
