#include "core/verify/judgedocument.h"

#include <cmath>
#include <optional>

#include "core/base/jsoninteger.h"
#include "core/verify/dtype.h"
#include "core/verify/verdictpolicy.h"

namespace reach {

using nlohmann::json;

namespace {

double number(const json& j, const char* key, double fallback = std::nan("")) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string text(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The worker writes timing objects with the C++ keys (docs/verifier.md).
std::optional<TimingStats> timingOf(const json& t) {
    if (!t.is_object() || !t.contains("median_us") || !t["median_us"].is_number())
        return std::nullopt;
    TimingStats s;
    s.reps = int(number(t, "reps", 0));
    s.warmup = int(number(t, "warmup", 0));
    s.medianUs = number(t, "median_us");
    s.p10Us = number(t, "p10_us");
    s.p90Us = number(t, "p90_us");
    s.minUs = number(t, "min_us");
    s.maxUs = number(t, "max_us");
    s.meanUs = number(t, "mean_us");
    s.l2Flushed = t.value("l2_flushed", false);
    s.l2FlushBytes = number(t, "l2_flush_bytes", 0);
    s.smClockBeforeMhz = int(number(t, "sm_clock_before_mhz", -1));
    s.smClockAfterMhz = int(number(t, "sm_clock_after_mhz", -1));
    s.clockSource = text(t, "clock_source");
    return s;
}

std::vector<double> numbers(const json& j, const char* key) {
    std::vector<double> v;
    const json a = j.is_object() ? j.value(key, json()) : json();
    if (!a.is_array() || a.size() > 100000)
        return {};
    for (const json& x : a) {
        if (!x.is_number())
            return {};
        v.push_back(x.get<double>());
    }
    return v;
}

ClockSamples clockOf(const json& holder) {
    const json c = holder.is_object() ? holder.value("clock", json()) : json();
    return {numbers(c, "judge_us"), numbers(c, "runner_us")};
}

}  // namespace

void readJudgeVerdict(VerificationResult& r, const json& re) {
    r.verdict = text(re, "verdict");
    if (r.verdict.empty())
        r.verdict = verdict::kError;
    if (re.contains("reasons") && re["reasons"].is_array()) {
        for (const auto& s : re["reasons"])
            if (s.is_string())
                r.reasons.push_back(s.get<std::string>());
    }
    if (r.reasons.empty() && re.contains("error") && re["error"].is_string())
        r.reasons.push_back(re["error"].get<std::string>());
    r.op = text(re, "category");
    if (r.verdict == verdict::kCompileError) {
        r.compile.status = "error";
        r.compile.log = text(re, "compile_log");
    } else if (r.verdict != verdict::kNoGpu && r.verdict != verdict::kError) {
        r.compile.status = "ok";
    }
}

void readJudgeChecks(VerificationResult& r, const json& re, const std::string& problemFile) {
    if (re.contains("checks") && re["checks"].is_array()) {
        for (const auto& c : re["checks"]) {
            CheckResult cr;
            cr.name = text(c, "name");
            cr.value = number(c, "value");
            cr.threshold = number(c, "threshold");
            cr.passed = c.is_object() && c.value("passed", false);
            cr.detail = text(c, "detail");
            r.checks.push_back(std::move(cr));
        }
    }
    if (re.contains("metrics") && re["metrics"].is_object()) {
        const json& m = re["metrics"];
        r.hasMetrics = true;
        r.metrics.relFrobenius = number(m, "rel_frobenius");
        r.metrics.normMaxError = number(m, "norm_max_error");
        r.metrics.maxAbsReference = number(m, "max_abs_reference");
        r.metrics.totalCount = int64_t(number(m, "total_count", 0));
        r.metrics.writtenCount = int64_t(number(m, "written_count", 0));
        r.metrics.writtenFraction = number(m, "written_fraction");
        r.metrics.nonFinite = int64_t(number(m, "non_finite", 0));
        r.metrics.inputsUnchanged = m.value("inputs_unchanged", true);
        r.metrics.kernelbenchAllclose = m.value("kernelbench_allclose", false);
        r.metrics.zerosPassKernelbench = m.value("zeros_pass_kernelbench", false);
    }
    if (re.contains("thresholds") && re["thresholds"].is_object())
        r.thresholds.apply(re["thresholds"], problemFile);
}

void readJudgeTiming(VerificationResult& r, const json& re, double recordedBaselineUs,
                     const std::string& recordedBaselineSource) {
    if (re.contains("timing"))
        r.timing = timingOf(re["timing"]);
    if (re.contains("baseline_used") && re["baseline_used"].is_object()) {
        BaselineInfo b;
        b.kind = text(re["baseline_used"], "kind");
        b.usedUs = number(re["baseline_used"], "us", 0);
        std::string others;
        for (const auto& each : re.value("baselines", json::array())) {
            if (!each.is_object())
                continue;
            const std::string kind = text(each, "kind");
            if (kind == b.kind)
                b.timing = timingOf(each.value("timing", json()));
            const double us = number(each, "us");
            others += (others.empty() ? "" : ", ") + kind +
                      (std::isfinite(us) ? " " + std::to_string(us) + " us" : " not timed");
        }
        b.source = b.kind == "eager"           ? "Model (eager PyTorch)"
                   : b.kind == "torch_compile" ? "torch.compile(Model)"
                                               : recordedBaselineSource;
        b.recordedUs = recordedBaselineUs;
        b.note = "fastest of: " + others;
        r.baseline = b;
    }
    r.speedup = number(re, "speedup", 0);
    if (!std::isfinite(r.speedup))
        r.speedup = 0;
    for (const auto& f : re.value("flags", json::array()))
        if (f.is_string())
            r.flags.push_back(f.get<std::string>());
}

void addControllerChecks(VerificationResult& r, const json& re, const std::string& precision) {
    // A job that was not judged (error, crashed, timeout) keeps its one reason.
    if (r.verdict != verdict::kPass && r.verdict != verdict::kFail)
        return;
    if (!r.timing || !re.contains("timing") || !re["timing"].is_object())
        return;
    const json& t = re["timing"];
    const bool host = text(t, "clock_source") == "host";
    const json calibration = re.value("calibration", json());
    const ClockAgreement agreement = clockAgreement(clockOf(t), clockOf(calibration), host);
    applyClockAgreement(r, agreement);
    const json ri = re.value("roofline_inputs", json());
    if (ri.is_object()) {
        DType dt = DType::F32;
        if (precision == "bf16")
            dt = DType::BF16;
        else if (precision == "fp16")
            dt = DType::F16;
        // The eager Model's time, measured in this job before the candidate was loaded: never
        // a recorded time (a file's word) nor a reused torch.compile one (a cache's).
        double baselineUs = 0;
        for (const json& b : re.value("baselines", json::array()))
            if (b.is_object() && text(b, "kind") == "eager" && b.contains("timing"))
                baselineUs = number(b["timing"], "median_us", 0);
        r.roofline =
            rooflineFloor(number(ri, "minimal_bytes", 0), number(ri, "flops", 0),
                          number(ri, "copy_bandwidth_gbs", 0), peakTflops(text(ri, "arch"), dt),
                          r.timing->medianUs, baselineUs);
        applyRooflineCheck(r, agreement.resolutionUs);
    }
}

void readJudgeDevice(VerificationResult& r, const json& re, const json& probe) {
    const json& dev = re.contains("device") && re["device"].is_object()
                          ? re["device"]
                          : probe.value("device", json());
    if (dev.is_object() && text(dev, "type") != "cpu") {
        r.device.available = true;
        r.device.name = text(dev, "name");
        if (dev.contains("capability") && dev["capability"].is_array() &&
            dev["capability"].size() == 2) {
            const auto major = jsonInteger<int>(dev["capability"][0]);
            const auto minor = jsonInteger<int>(dev["capability"][1]);
            if (major && minor)
                r.device.arch = "sm_" + std::to_string(*major) + std::to_string(*minor);
        }
        r.device.smCount = int(number(dev, "sm_count", 0));
        r.device.l2Bytes = int64_t(number(dev, "l2_bytes", 0));
        r.device.memoryBytes = int64_t(number(dev, "memory_bytes", 0));
        r.device.uuid = normalizeGpuUuid(text(dev, "uuid"));
    } else {
        r.device.available = false;
        r.device.reason = text(probe, "reason");
    }
    const json versions = re.value("versions", json::object());
    if (versions.is_object())
        r.device.runtimeVersion = text(versions, "cuda");
}

}  // namespace reach
