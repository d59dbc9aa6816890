// A stand-in reach-verify for the batch tests (no GPU needed): the same arguments and one JSON
// document on stdout built with the real VerificationResult type, its GPU taken from
// CUDA_VISIBLE_DEVICES as CUDA would (unset: GPU 0 of all; empty: none). What it does comes from
// the candidate file's text:
//   verdict=fail | verdict=crash | verdict=hang     the verdict (default pass)
//   sleep_ms=N                                      the run takes N ms (default
//   $FAKE_VERIFY_SLEEP_MS) slow_once_ms=N                                  the first run ever takes
//   N ms ($FAKE_VERIFY_STATE) median_us=X                                     the timed median
//   (default 10)
// Environment: FAKE_VERIFY_LOG (append one line per run, compile and timed window:
// "EVENT CANDIDATE gpu=G t0=NS t1=NS"), FAKE_TIMING_MS (the timed window, under the real
// GpuTimingLock), FAKE_GPU_COUNT (device_count of --device-info), FAKE_GPU_SKEW ("1:1.05,...":
// the median on GPU 1 times 1.05).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include "core/verify/gputiminglock.h"
#include "core/verify/verification.h"

namespace {

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string env(const char* name, const std::string& fallback = "") {
    const char* v = std::getenv(name);
    return v ? v : fallback;
}

void logEvent(const std::string& event, const std::string& candidate, const std::string& gpu,
              int64_t t0, int64_t t1) {
    const std::string path = env("FAKE_VERIFY_LOG");
    if (path.empty())
        return;
    const std::string line = event + " " + std::filesystem::path(candidate).filename().string() +
                             " gpu=" + gpu + " t0=" + std::to_string(t0) +
                             " t1=" + std::to_string(t1) + " pid=" + std::to_string(getpid()) +
                             "\n";
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        (void)!write(fd, line.data(), line.size());
        close(fd);
    }
}

// "key=value" in the candidate's text.
std::string setting(const std::string& text, const std::string& key) {
    const size_t at = text.find(key + "=");
    if (at == std::string::npos)
        return {};
    std::string v;
    for (size_t i = at + key.size() + 1; i < text.size() && !std::isspace(uint8_t(text[i])); ++i)
        v += text[i];
    return v;
}

void sleepMs(double ms) {
    if (ms > 0)
        std::this_thread::sleep_for(std::chrono::microseconds(int64_t(ms * 1000)));
}

}  // namespace

int main(int argc, char** argv) {
    std::string problem, candidate;
    bool deviceInfo = false, compileOnly = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--problem" && i + 1 < argc)
            problem = argv[++i];
        else if (a == "--candidate" && i + 1 < argc)
            candidate = argv[++i];
        else if (a == "--device-info")
            deviceInfo = true;
        else if (a == "--compile-only")
            compileOnly = true;
    }
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    const bool available = !visible || *visible;
    std::string gpu = visible ? std::string(visible) : "0";
    gpu = gpu.substr(0, gpu.find(','));
    reach::DeviceInfo device;
    device.available = available;
    device.reason = available ? "" : "no CUDA device visible (fake verifier)";
    if (available) {
        device.name = "Fake GPU";
        device.arch = "sm_90";
        device.smCount = 132;
        char uuid[64];
        std::snprintf(uuid, sizeof uuid, "GPU-fa4e0000-0000-0000-0000-%012d",
                      std::atoi(gpu.c_str()));
        device.uuid = uuid;
        device.visibleDevices = visible ? visible : "";
    }
    if (deviceInfo) {
        reach::VerificationResult r;
        r.device = device;
        nlohmann::json d = r.toJson()["device"];
        d["device_count"] = available ? std::atoi(env("FAKE_GPU_COUNT", "1").c_str()) : 0;
        std::cout << d.dump() << "\n";
        return available ? 0 : 1;
    }
    if (candidate.empty()) {
        std::cerr << "fakebatchverifier: --candidate is required\n";
        return 2;
    }
    std::ifstream in(candidate);
    if (!in) {
        std::cerr << candidate << ": cannot read the candidate\n";
        return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    const int64_t t0 = nowNs();
    if (compileOnly) {
        logEvent("compile", candidate, gpu, t0, nowNs());
        std::cout << nlohmann::json{{"candidate_file", candidate}, {"status", "ok"}}.dump() << "\n";
        return 0;
    }
    if (problem.empty()) {
        std::cerr << "fakebatchverifier: --problem is required\n";
        return 2;
    }
    logEvent("start", candidate, gpu, t0, t0);
    reach::VerificationResult r;
    r.problemFile = problem;
    r.candidateFile = candidate;
    r.problemId = std::filesystem::path(problem).stem().string();
    r.op = "softmax";
    r.dtype = "bf16";
    r.device = device;
    if (!available) {
        r.verdict = reach::verdict::kNoGpu;
        r.reasons = {"no GPU: " + device.reason};
        std::cout << r.toJson().dump() << "\n";
        return 1;
    }
    double ms = std::atof(env("FAKE_VERIFY_SLEEP_MS", "0").c_str());
    if (const std::string s = setting(source, "sleep_ms"); !s.empty())
        ms = std::atof(s.c_str());
    if (const std::string s = setting(source, "slow_once_ms"); !s.empty()) {
        const std::string marker = env("FAKE_VERIFY_STATE", "/tmp") + "/slow-once-" +
                                   std::filesystem::path(candidate).filename().string();
        if (!std::filesystem::exists(marker)) {
            std::ofstream(marker) << "ran\n";
            ms = std::atof(s.c_str());
        }
    }
    const std::string verdict = setting(source, "verdict");
    if (verdict == "crash") {
        std::cerr << "fakebatchverifier: simulated illegal memory access\n";
        std::abort();
    }
    if (verdict == "hang")
        ms = 3600e3;
    sleepMs(ms);
    {
        // The timed window: only one fake per GPU at a time, as the real verifier.
        const reach::GpuTimingLock lock(reach::GpuTimingLock::pathFromEnvironment());
        const int64_t a = nowNs();
        sleepMs(std::atof(env("FAKE_TIMING_MS", "0").c_str()));
        logEvent("timing", candidate, gpu, a, nowNs());
    }
    double median = 10;
    if (const std::string s = setting(source, "median_us"); !s.empty())
        median = std::atof(s.c_str());
    std::stringstream skew(env("FAKE_GPU_SKEW"));
    for (std::string item; std::getline(skew, item, ',');) {
        const size_t colon = item.find(':');
        if (colon != std::string::npos && item.substr(0, colon) == gpu)
            median *= std::atof(item.substr(colon + 1).c_str());
    }
    reach::TimingStats t;
    t.reps = 100;
    t.medianUs = t.p10Us = t.p90Us = t.minUs = t.maxUs = t.meanUs = median;
    t.smClockBeforeMhz = t.smClockAfterMhz = 1980;
    t.clockSource = "fake";
    r.timing = t;
    r.compile.status = "cached";
    if (verdict == "fail") {
        r.verdict = reach::verdict::kFail;
        r.reasons = {"written_fraction: 0.003 < 1 (fake)"};
    } else {
        r.verdict = reach::verdict::kPass;
        r.speedup = 1.25;
    }
    std::cout << r.toJson().dump() << "\n";
    logEvent("run", candidate, gpu, t0, nowNs());
    return r.passed() ? 0 : 1;
}
