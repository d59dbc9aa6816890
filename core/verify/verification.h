#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/verify/operators.h"

namespace reach {

// What one run of reach-verify found, parsed the same way by the CLI and the GUI. The JSON form
// (snake_case, times in microseconds) is documented in docs/verifier.md.
namespace verdict {
inline constexpr const char* kPass = "pass";
inline constexpr const char* kFail = "fail";
inline constexpr const char* kCompileError = "compile_error";
inline constexpr const char* kCrashed = "crashed";
inline constexpr const char* kTimeout = "timeout";
inline constexpr const char* kNoGpu = "no_gpu";
inline constexpr const char* kError = "error";  // bad input or an internal failure of Reach
}  // namespace verdict

// One pass/fail check of the oracle ("written_fraction", "invariant:row_sum", ...).
struct CheckResult {
    std::string name;
    double value = 0;
    double threshold = 0;
    bool passed = false;
    std::string detail;
};

struct OracleMetrics {
    double relFrobenius = 0;  // ||out-ref|| / ||ref||, unwritten elements counted as 0
    double normMaxError = 0;  // max|out-ref| / max|ref|
    double maxAbsReference = 0;
    int64_t totalCount = 0;
    int64_t writtenCount = 0;
    double writtenFraction = 0;
    int64_t nonFinite = 0;  // written elements that are NaN or Inf
    int64_t canaryBytesChanged = 0;
    bool inputsUnchanged = true;
    std::vector<CheckResult> invariants;
    // Would KernelBench's allclose(out, ref, atol=rtol=1e-2) on bf16-rounded values have
    // passed (unwritten elements read as 0, as in a fresh allocation)?
    bool kernelbenchAllclose = false;
    // Degenerate reference: an all-zeros output passes that allclose (max|ref| <= 1e-2).
    bool zerosPassKernelbench = false;
};

struct TimingStats {
    int reps = 0;
    int warmup = 0;
    double medianUs = 0, p10Us = 0, p90Us = 0, minUs = 0, maxUs = 0, meanUs = 0;
    bool l2Flushed = false;
    double l2FlushBytes = 0;
    int smClockBeforeMhz = -1;  // -1 when NVML is not available
    int smClockAfterMhz = -1;
    std::string clockSource;  // "nvml" or "none"
    // Median/p10/p90/min/max/mean from per-repetition samples (microseconds).
    static TimingStats fromSamples(std::vector<double> samplesUs);
};

struct BaselineInfo {
    std::string kind;    // "cublas", "reach_kernel", "recorded"
    std::string source;  // baseline .cu path, "cublasGemmEx", or the record it came from
    std::optional<TimingStats> timing;  // measured here, when it could be
    double recordedUs = 0;              // recorded time, 0 when none was given
    double usedUs = 0;                  // the faster of measured and recorded: what speedup divides
    std::string note;
};

struct Roofline {
    double minimalBytes = 0;
    double flops = 0;
    double copyBandwidthGBs = 0;  // measured device-to-device copy, bytes read + written
    double peakTflops = 0;        // assumed peak for the dtype (documented), 0 when unknown
    double floorUs = 0;           // max(bytes / bandwidth, flops / peak)
    bool belowFloor = false;      // candidate median < 0.9 * floor: physically implausible
    // The bandwidth the floor divides by: the copy's, or the baseline's (minimal bytes over the
    // baseline's median measured in this job) where a correct kernel of this very problem moved
    // its bytes faster than the copy ran (an honest 19_ReLU: 3.0 TB/s against a 2.48 TB/s copy
    // on an H100, docs/measurements/2026-12-07-verdicts-under-load.md).
    double bandwidthGBs = 0;
    std::string bandwidthBasis;  // "copy" or "baseline"
};

struct DeviceInfo {
    bool available = false;
    std::string reason;  // why not, when not
    std::string name;
    std::string arch;  // "sm_90"
    int smCount = 0;
    int64_t l2Bytes = 0;
    int64_t memoryBytes = 0;
    std::string driverVersion;
    std::string runtimeVersion;
    std::string nvccVersion;
    // Which GPU of the host: its UUID as NVIDIA writes it ("GPU-8f3c...-..."; nvidia-smi -L)
    // and the CUDA_VISIBLE_DEVICES the verifier ran under (a batch pins each worker to one GPU
    // that way). Empty when unknown.
    std::string uuid;
    std::string visibleDevices;
};

// A CUDA device UUID (16 bytes) as NVIDIA writes it: "GPU-" + 8-4-4-4-12 lower-case hex.
std::string formatGpuUuid(const unsigned char bytes[16]);
// "GPU-" prefixed as NVIDIA writes it, whatever form PyTorch or a tool gave ("" stays "").
std::string normalizeGpuUuid(const std::string& uuid);

struct CompileInfo {
    std::string status;  // "ok", "cached", "error", "skipped"
    std::string command;
    std::string log;
    double seconds = 0;
    std::string sourceHash;
    std::string sharedObject;
};

struct VerificationResult {
    int schemaVersion = 1;
    std::string verdict = verdict::kError;
    std::vector<std::string> reasons;
    std::string problemId, op, dtype, problemFile, candidateFile;
    // The SHA-256 of the problem's and the candidate's bytes as the verifier read them (lower-case
    // hex; empty when unknown): what a result is matched to a problem by (a benchmark's exact
    // projection, docs/benchmark.md), never the file's name.
    std::string problemSha256, candidateSha256;
    uint64_t seed = 0;
    nlohmann::json problem;  // the problem as run (seed included)
    CompileInfo compile;
    bool hasMetrics = false;
    OracleMetrics metrics;
    std::vector<CheckResult> checks;
    Thresholds thresholds;
    std::optional<TimingStats> timing;
    std::optional<BaselineInfo> baseline;
    double speedup = 0;  // baseline.used_us / timing.median_us, 0 when either is missing
    std::optional<Roofline> roofline;
    DeviceInfo device;
    std::string log;  // runtime messages, and the child's stderr tail after a crash
    int exitCode = 0;
    int termSignal = 0;
    double wallSeconds = 0;
    double queueSeconds = 0;  // of wallSeconds, waiting for the GPU (queueclock.h): not the job's
    // Where a C++ job's seconds went on the GPU side (setup, runner, baseline, candidate, timing,
    // oracle, ...); the KernelBench path's are in reachOracle's own phase_seconds.
    std::map<std::string, double> phaseSeconds;
    std::string startedAt;  // ISO 8601 UTC

    // KernelBench-format candidates (docs/kernelbench.md): "kernelbench" for them, "reach" for
    // C++ candidates. The two verdicts as the Python worker printed them, whether KernelBench's
    // own check was fooled (it said correct, Reach says otherwise) and why, and the oracle's
    // flags ("timing": work outside the timed stream, the device-wide time used).
    std::string format = "reach";
    nlohmann::json kernelbench;  // null for C++ candidates
    nlohmann::json reachOracle;  // the "reach" object; null for C++ candidates
    bool fooled = false;
    std::string fooledReason;
    std::vector<std::string> flags;

    bool passed() const { return verdict == verdict::kPass; }
    bool kernelBenchFormat() const { return format == "kernelbench"; }
    nlohmann::json toJson() const;
    // Throws InputError(file, key, what) on a document that is not a verifier result.
    static VerificationResult fromJson(const nlohmann::json& j, const std::string& file);
};

}  // namespace reach
