#include "core/verify/verification.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/inputerror.h"
#include "core/base/jsoninteger.h"

namespace reach {

using nlohmann::json;

namespace {

// JSON has no NaN/Inf: non-finite values are written as null and read back as NaN.
json num(double v) {
    return std::isfinite(v) ? json(v) : json(nullptr);
}

struct Reader {
    const std::string& file;
    double num(const json& j, const char* key, const std::string& where) const {
        if (!j.contains(key) || j.at(key).is_null())
            return std::numeric_limits<double>::quiet_NaN();
        if (!j.at(key).is_number())
            throw InputError(file, where + key, "a number or null");
        return j.at(key).get<double>();
    }
    template <typename T>
    T get(const json& j, const char* key, const std::string& where, T fallback) const {
        if (!j.contains(key) || j.at(key).is_null())
            return fallback;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            if (auto v = jsonInteger<T>(j.at(key)))
                return *v;
            throw InputError(file, where + key, "an integer within range");
        }
        try {
            return j.at(key).get<T>();
        } catch (const json::exception&) {
            throw InputError(file, where + key, "a value of the documented type");
        }
    }
};

json checkJson(const CheckResult& c) {
    return {{"name", c.name},
            {"value", num(c.value)},
            {"threshold", num(c.threshold)},
            {"passed", c.passed},
            {"detail", c.detail}};
}

CheckResult checkFrom(const Reader& r, const json& j, const std::string& where) {
    CheckResult c;
    c.name = r.get<std::string>(j, "name", where, "");
    c.value = r.num(j, "value", where);
    c.threshold = r.num(j, "threshold", where);
    c.passed = r.get<bool>(j, "passed", where, false);
    c.detail = r.get<std::string>(j, "detail", where, "");
    return c;
}

json timingJson(const TimingStats& t) {
    return {{"reps", t.reps},
            {"warmup", t.warmup},
            {"median_us", num(t.medianUs)},
            {"p10_us", num(t.p10Us)},
            {"p90_us", num(t.p90Us)},
            {"min_us", num(t.minUs)},
            {"max_us", num(t.maxUs)},
            {"mean_us", num(t.meanUs)},
            {"l2_flushed", t.l2Flushed},
            {"l2_flush_bytes", t.l2FlushBytes},
            {"sm_clock_before_mhz", t.smClockBeforeMhz},
            {"sm_clock_after_mhz", t.smClockAfterMhz},
            {"clock_source", t.clockSource}};
}

TimingStats timingFrom(const Reader& r, const json& j, const std::string& w) {
    TimingStats t;
    t.reps = r.get<int>(j, "reps", w, 0);
    t.warmup = r.get<int>(j, "warmup", w, 0);
    t.medianUs = r.num(j, "median_us", w);
    t.p10Us = r.num(j, "p10_us", w);
    t.p90Us = r.num(j, "p90_us", w);
    t.minUs = r.num(j, "min_us", w);
    t.maxUs = r.num(j, "max_us", w);
    t.meanUs = r.num(j, "mean_us", w);
    t.l2Flushed = r.get<bool>(j, "l2_flushed", w, false);
    t.l2FlushBytes = r.get<double>(j, "l2_flush_bytes", w, 0);
    t.smClockBeforeMhz = r.get<int>(j, "sm_clock_before_mhz", w, -1);
    t.smClockAfterMhz = r.get<int>(j, "sm_clock_after_mhz", w, -1);
    t.clockSource = r.get<std::string>(j, "clock_source", w, "");
    return t;
}

}  // namespace

TimingStats TimingStats::fromSamples(std::vector<double> s) {
    TimingStats t;
    if (s.empty())
        return t;
    std::sort(s.begin(), s.end());
    // Nearest-rank on the sorted samples; the median averages the middle pair.
    auto q = [&](double p) {
        size_t i = size_t(std::lround(p * double(s.size() - 1)));
        return s[std::min(i, s.size() - 1)];
    };
    size_t n = s.size();
    t.reps = int(n);
    t.medianUs = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    t.p10Us = q(0.10);
    t.p90Us = q(0.90);
    t.minUs = s.front();
    t.maxUs = s.back();
    double sum = 0;
    for (double v : s)
        sum += v;
    t.meanUs = sum / double(n);
    return t;
}

json VerificationResult::toJson() const {
    json j;
    j["schema"] = "reach.verification";
    j["schema_version"] = schemaVersion;
    j["verdict"] = verdict;
    j["reasons"] = reasons;
    j["problem_id"] = problemId;
    j["op"] = op;
    j["dtype"] = dtype;
    j["problem_file"] = problemFile;
    j["candidate_file"] = candidateFile;
    j["problem_sha256"] = problemSha256;
    j["candidate_sha256"] = candidateSha256;
    j["seed"] = seed;
    j["problem"] = problem.is_null() ? json::object() : problem;
    j["compile"] = {{"status", compile.status},
                    {"command", compile.command},
                    {"log", compile.log},
                    {"seconds", compile.seconds},
                    {"source_hash", compile.sourceHash},
                    {"shared_object", compile.sharedObject}};
    if (hasMetrics) {
        json inv = json::array();
        for (const auto& c : metrics.invariants)
            inv.push_back(checkJson(c));
        j["metrics"] = {{"rel_frobenius", num(metrics.relFrobenius)},
                        {"norm_max_error", num(metrics.normMaxError)},
                        {"max_abs_reference", num(metrics.maxAbsReference)},
                        {"total_count", metrics.totalCount},
                        {"written_count", metrics.writtenCount},
                        {"written_fraction", num(metrics.writtenFraction)},
                        {"non_finite", metrics.nonFinite},
                        {"canary_bytes_changed", metrics.canaryBytesChanged},
                        {"inputs_unchanged", metrics.inputsUnchanged},
                        {"invariants", inv},
                        {"kernelbench_allclose", metrics.kernelbenchAllclose},
                        {"zeros_pass_kernelbench", metrics.zerosPassKernelbench}};
    } else {
        j["metrics"] = nullptr;
    }
    json checksJ = json::array();
    for (const auto& c : checks)
        checksJ.push_back(checkJson(c));
    j["checks"] = checksJ;
    j["thresholds"] = thresholds.toJson();
    j["timing"] = timing ? timingJson(*timing) : json(nullptr);
    if (baseline) {
        j["baseline"] = {
            {"kind", baseline->kind},
            {"source", baseline->source},
            {"timing", baseline->timing ? timingJson(*baseline->timing) : json(nullptr)},
            {"recorded_us", baseline->recordedUs},
            {"used_us", num(baseline->usedUs)},
            {"note", baseline->note}};
    } else {
        j["baseline"] = nullptr;
    }
    j["speedup"] = num(speedup);
    if (roofline) {
        j["roofline"] = {{"minimal_bytes", roofline->minimalBytes},
                         {"flops", roofline->flops},
                         {"copy_bandwidth_gbs", num(roofline->copyBandwidthGBs)},
                         {"bandwidth_gbs", num(roofline->bandwidthGBs)},
                         {"bandwidth_basis", roofline->bandwidthBasis},
                         {"peak_tflops", roofline->peakTflops},
                         {"floor_us", num(roofline->floorUs)},
                         {"below_floor", roofline->belowFloor}};
    } else {
        j["roofline"] = nullptr;
    }
    j["device"] = {{"available", device.available},
                   {"reason", device.reason},
                   {"name", device.name},
                   {"arch", device.arch},
                   {"sm_count", device.smCount},
                   {"l2_bytes", device.l2Bytes},
                   {"memory_bytes", device.memoryBytes},
                   {"driver_version", device.driverVersion},
                   {"runtime_version", device.runtimeVersion},
                   {"nvcc_version", device.nvccVersion},
                   {"uuid", device.uuid},
                   {"cuda_visible_devices", device.visibleDevices}};
    j["log"] = log;
    j["exit_code"] = exitCode;
    j["term_signal"] = termSignal;
    j["wall_seconds"] = wallSeconds;
    j["queue_s"] = queueSeconds;
    if (!phaseSeconds.empty())
        j["phase_seconds"] = phaseSeconds;
    j["started_at"] = startedAt;
    j["format"] = format;
    j["flags"] = flags;
    if (kernelBenchFormat()) {
        j["kernelbench"] = kernelbench;
        j["reach"] = reachOracle;
        j["fooled"] = fooled;
        j["fooled_reason"] = fooledReason;
    }
    return j;
}

VerificationResult VerificationResult::fromJson(const json& j, const std::string& file) {
    if (!j.is_object())
        throw InputError(file, "top level", "a reach-verify JSON object");
    if (!j.contains("verdict") || !j.at("verdict").is_string())
        throw InputError(file, "key 'verdict'", "a string (pass, fail, compile_error, ...)");
    Reader r{file};
    VerificationResult v;
    v.schemaVersion = r.get<int>(j, "schema_version", "", 1);
    v.verdict = j.at("verdict").get<std::string>();
    v.reasons = r.get<std::vector<std::string>>(j, "reasons", "", {});
    v.problemId = r.get<std::string>(j, "problem_id", "", "");
    v.op = r.get<std::string>(j, "op", "", "");
    v.dtype = r.get<std::string>(j, "dtype", "", "");
    v.problemFile = r.get<std::string>(j, "problem_file", "", "");
    v.candidateFile = r.get<std::string>(j, "candidate_file", "", "");
    v.problemSha256 = r.get<std::string>(j, "problem_sha256", "", "");
    v.candidateSha256 = r.get<std::string>(j, "candidate_sha256", "", "");
    v.seed = r.get<uint64_t>(j, "seed", "", 0);
    v.problem = j.value("problem", json::object());
    if (j.contains("compile") && j.at("compile").is_object()) {
        const json& c = j.at("compile");
        v.compile.status = r.get<std::string>(c, "status", "compile.", "");
        v.compile.command = r.get<std::string>(c, "command", "compile.", "");
        v.compile.log = r.get<std::string>(c, "log", "compile.", "");
        v.compile.seconds = r.get<double>(c, "seconds", "compile.", 0);
        v.compile.sourceHash = r.get<std::string>(c, "source_hash", "compile.", "");
        v.compile.sharedObject = r.get<std::string>(c, "shared_object", "compile.", "");
    }
    if (j.contains("metrics") && j.at("metrics").is_object()) {
        const json& m = j.at("metrics");
        const std::string w = "metrics.";
        v.hasMetrics = true;
        v.metrics.relFrobenius = r.num(m, "rel_frobenius", w);
        v.metrics.normMaxError = r.num(m, "norm_max_error", w);
        v.metrics.maxAbsReference = r.num(m, "max_abs_reference", w);
        v.metrics.totalCount = r.get<int64_t>(m, "total_count", w, 0);
        v.metrics.writtenCount = r.get<int64_t>(m, "written_count", w, 0);
        v.metrics.writtenFraction = r.num(m, "written_fraction", w);
        v.metrics.nonFinite = r.get<int64_t>(m, "non_finite", w, 0);
        v.metrics.canaryBytesChanged = r.get<int64_t>(m, "canary_bytes_changed", w, 0);
        v.metrics.inputsUnchanged = r.get<bool>(m, "inputs_unchanged", w, true);
        if (m.contains("invariants") && m.at("invariants").is_array())
            for (const auto& c : m.at("invariants"))
                v.metrics.invariants.push_back(checkFrom(r, c, "metrics.invariants."));
        v.metrics.kernelbenchAllclose = r.get<bool>(m, "kernelbench_allclose", w, false);
        v.metrics.zerosPassKernelbench = r.get<bool>(m, "zeros_pass_kernelbench", w, false);
    }
    if (j.contains("checks") && j.at("checks").is_array())
        for (const auto& c : j.at("checks"))
            v.checks.push_back(checkFrom(r, c, "checks."));
    if (j.contains("thresholds") && j.at("thresholds").is_object())
        v.thresholds.apply(j.at("thresholds"), file);
    if (j.contains("timing") && j.at("timing").is_object())
        v.timing = timingFrom(r, j.at("timing"), "timing.");
    if (j.contains("baseline") && j.at("baseline").is_object()) {
        const json& b = j.at("baseline");
        BaselineInfo bi;
        bi.kind = r.get<std::string>(b, "kind", "baseline.", "");
        bi.source = r.get<std::string>(b, "source", "baseline.", "");
        if (b.contains("timing") && b.at("timing").is_object())
            bi.timing = timingFrom(r, b.at("timing"), "baseline.timing.");
        bi.recordedUs = r.get<double>(b, "recorded_us", "baseline.", 0);
        bi.usedUs = r.num(b, "used_us", "baseline.");
        bi.note = r.get<std::string>(b, "note", "baseline.", "");
        v.baseline = bi;
    }
    v.speedup = r.num(j, "speedup", "");
    if (std::isnan(v.speedup))
        v.speedup = 0;
    if (j.contains("roofline") && j.at("roofline").is_object()) {
        const json& f = j.at("roofline");
        Roofline rf;
        rf.minimalBytes = r.get<double>(f, "minimal_bytes", "roofline.", 0);
        rf.flops = r.get<double>(f, "flops", "roofline.", 0);
        rf.copyBandwidthGBs = r.num(f, "copy_bandwidth_gbs", "roofline.");
        // Documents before 2026-12-07 divided by the copy's bandwidth alone.
        rf.bandwidthGBs = r.get<double>(f, "bandwidth_gbs", "roofline.", rf.copyBandwidthGBs);
        rf.bandwidthBasis = r.get<std::string>(f, "bandwidth_basis", "roofline.", "copy");
        rf.peakTflops = r.get<double>(f, "peak_tflops", "roofline.", 0);
        rf.floorUs = r.num(f, "floor_us", "roofline.");
        rf.belowFloor = r.get<bool>(f, "below_floor", "roofline.", false);
        v.roofline = rf;
    }
    if (j.contains("device") && j.at("device").is_object()) {
        const json& d = j.at("device");
        const std::string w = "device.";
        v.device.available = r.get<bool>(d, "available", w, false);
        v.device.reason = r.get<std::string>(d, "reason", w, "");
        v.device.name = r.get<std::string>(d, "name", w, "");
        v.device.arch = r.get<std::string>(d, "arch", w, "");
        v.device.smCount = r.get<int>(d, "sm_count", w, 0);
        v.device.l2Bytes = r.get<int64_t>(d, "l2_bytes", w, 0);
        v.device.memoryBytes = r.get<int64_t>(d, "memory_bytes", w, 0);
        v.device.driverVersion = r.get<std::string>(d, "driver_version", w, "");
        v.device.runtimeVersion = r.get<std::string>(d, "runtime_version", w, "");
        v.device.nvccVersion = r.get<std::string>(d, "nvcc_version", w, "");
        v.device.uuid = r.get<std::string>(d, "uuid", w, "");
        v.device.visibleDevices = r.get<std::string>(d, "cuda_visible_devices", w, "");
    }
    v.log = r.get<std::string>(j, "log", "", "");
    v.exitCode = r.get<int>(j, "exit_code", "", 0);
    v.termSignal = r.get<int>(j, "term_signal", "", 0);
    v.wallSeconds = r.get<double>(j, "wall_seconds", "", 0);
    v.queueSeconds = r.get<double>(j, "queue_s", "", 0);
    v.phaseSeconds = r.get<std::map<std::string, double>>(j, "phase_seconds", "", {});
    v.startedAt = r.get<std::string>(j, "started_at", "", "");
    v.format = r.get<std::string>(j, "format", "", "reach");
    v.flags = r.get<std::vector<std::string>>(j, "flags", "", {});
    if (j.contains("kernelbench"))
        v.kernelbench = j.at("kernelbench");
    if (j.contains("reach"))
        v.reachOracle = j.at("reach");
    v.fooled = r.get<bool>(j, "fooled", "", false);
    v.fooledReason = r.get<std::string>(j, "fooled_reason", "", "");
    return v;
}

std::string formatGpuUuid(const unsigned char bytes[16]) {
    static const char* hex = "0123456789abcdef";
    std::string out = "GPU-";
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out += '-';
        out += hex[bytes[i] >> 4];
        out += hex[bytes[i] & 15];
    }
    return out;
}

std::string normalizeGpuUuid(const std::string& uuid) {
    if (uuid.empty() || uuid.rfind("GPU-", 0) == 0 || uuid.rfind("MIG-", 0) == 0)
        return uuid;
    return "GPU-" + uuid;
}

}  // namespace reach
