// reach-verify: one verification job per process (DESIGN.md, "Verifier contract"). Prints ONE
// JSON document on stdout. Exit status: 0 pass, 1 any other verdict (the data says no), 2 bad
// usage or unreadable input (one line on stderr). Links reach_core + reach_gpu only.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "core/base/inputerror.h"
#include "core/base/cachedir.h"
#include "core/base/resourcepaths.h"
#include "core/verify/kbverify.h"
#include "gpu/verifyjob.h"

namespace {

const char* kUsage =
    "usage: reach-verify --problem P.json --candidate C.cu [--reps N] [--warmup N] [--seed S]\n"
    "                    [--scale X] [--thresholds T.json] [--baseline-us US [--baseline-source "
    "S]]\n"
    "                    [--no-timing] [--no-baseline] [--resources DIR] [--cache-dir DIR]\n"
    "                    [--device-info] [--compile-only [--arch sm_XY]]\n"
    "       reach-verify --problem P.py --candidate C.py [--precision fp32|bf16|fp16]\n"
    "                    [--python PY] [--kb-tolerance T] [--worker-timeout S] [--seed-count K]\n"
    "                    [--no-compile-baseline] [--worker-device cuda|cpu] [options above]\n"
    "  A .py problem and candidate are KernelBench format (docs/kernelbench.md): the Python\n"
    "  worker gives KernelBench's verdict and Reach's; --worker-device cpu is for tests.\n";

[[noreturn]] void usage(const std::string& msg) {
    std::cerr << "reach-verify: " << msg << "\n" << kUsage;
    std::exit(2);
}

// A seed is a 64-bit integer: read as one (through a double, 2^53 + 1 became 2^53).
uint64_t unsignedInteger(const std::string& opt, const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        usage(opt + ": expected a non-negative integer, got '" + text + "'");
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (errno == ERANGE || *end)
        usage(opt + ": expected an integer below 2^64, got '" + text + "'");
    return uint64_t(v);
}

double number(const std::string& opt, const std::string& text) {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end)
        usage(opt + ": expected a number, got '" + text + "'");
    return v;
}

}  // namespace

// A KernelBench-format job: the Python worker, each part in its own child process.
int runKernelBench(const reach::VerifyOptions& o, reach::KernelBenchJob job) {
    const std::string res = o.resourceDir.empty() ? reach::findResourceDir() : o.resourceDir;
    job.worker = res + "/python/reach_kbworker.py";
    if (res.empty() || access(job.worker.c_str(), R_OK) != 0)
        usage("Reach's Python worker (python/reach_kbworker.py) not found; set REACH_RESOURCES");
    job.problemFile = o.problemFile;
    job.candidateFile = o.candidateFile;
    job.seed = o.seed;
    job.reps = o.reps;
    job.warmup = o.warmup;
    job.timing = o.timing;
    job.recordedBaselineUs = o.recordedBaselineUs;
    job.recordedBaselineSource = o.recordedBaselineSource;
    job.thresholdsFile = o.thresholdsFile;
    try {
        job.cacheDir = o.cacheDir.empty() ? reach::defaultCacheDir("kernelbench") : o.cacheDir;
        const auto t0 = std::chrono::steady_clock::now();
        reach::VerificationResult r = reach::runKernelBenchJob(job);
        r.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cout << r.toJson().dump(2) << std::endl;
        return r.passed() ? 0 : 1;
    } catch (const reach::InputError& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
}

int main(int argc, char** argv) {
    reach::VerifyOptions o;
    reach::KernelBenchJob kb;
    std::string python;
    bool deviceInfo = false;
    bool compileOnly = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc)
                usage(a + " needs a value");
            return argv[++i];
        };
        if (a == "--problem")
            o.problemFile = next();
        else if (a == "--candidate")
            o.candidateFile = next();
        else if (a == "--reps")
            o.reps = int(number(a, next()));
        else if (a == "--warmup")
            o.warmup = int(number(a, next()));
        else if (a == "--seed")
            o.seed = unsignedInteger(a, next());
        else if (a == "--scale")
            o.scale = number(a, next());
        else if (a == "--thresholds")
            o.thresholdsFile = next();
        else if (a == "--baseline-us")
            o.recordedBaselineUs = number(a, next());
        else if (a == "--baseline-source")
            o.recordedBaselineSource = next();
        else if (a == "--no-timing")
            o.timing = false;
        else if (a == "--no-baseline")
            o.baseline = false;
        else if (a == "--resources")
            o.resourceDir = next();
        else if (a == "--cache-dir")
            o.cacheDir = next();
        else if (a == "--device-info")
            deviceInfo = true;
        else if (a == "--python")
            python = next();
        else if (a == "--precision") {
            kb.precision = next();
            if (kb.precision != "fp32" && kb.precision != "bf16" && kb.precision != "fp16")
                usage("--precision: expected fp32, bf16 or fp16");
        } else if (a == "--kb-tolerance")
            kb.kbTolerance = number(a, next());
        else if (a == "--worker-timeout")
            kb.timeoutSeconds = number(a, next());
        else if (a == "--seed-count") {
            const double n = number(a, next());
            if (n < 1 || n > 100)
                usage("--seed-count: expected 1..100");
            kb.seedCount = int(n);
        } else if (a == "--no-compile-baseline")
            kb.compileBaseline = false;
        else if (a == "--worker-device") {
            kb.device = next();
            if (kb.device != "cuda" && kb.device != "cpu")
                usage("--worker-device: expected cuda or cpu");
        }
        else if (a == "--compile-only")
            compileOnly = true;
        else if (a == "--arch") {
            o.arch = next();
            if (o.arch.rfind("sm_", 0) != 0)
                usage("--arch: expected sm_XY (e.g. sm_90)");
        }
        else if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            return 0;
        } else
            usage("unknown argument '" + a + "'");
    }
    if (deviceInfo) {
        reach::VerificationResult r;
        r.device = reach::queryDevice();
        r.verdict = r.device.available ? "device" : reach::verdict::kNoGpu;
        nlohmann::json device = r.toJson()["device"];
        // How many GPUs this process sees: a batch's `--gpus all` starts one worker per GPU.
        device["device_count"] = reach::visibleDeviceCount();
        std::cout << device.dump(2) << "\n";
        return r.device.available ? 0 : 1;
    }
    if (compileOnly) {
        // Warms the compile cache (scripts compile many candidates in parallel first).
        if (o.candidateFile.empty())
            usage("--compile-only needs --candidate");
        reach::CompileInfo c = reach::compileCandidateOnly(o);
        std::cout << nlohmann::json{{"candidate_file", o.candidateFile},
                                    {"status", c.status},
                                    {"seconds", c.seconds},
                                    {"shared_object", c.sharedObject},
                                    {"log", c.log}}
                         .dump(2)
                  << "\n";
        return c.status == "error" ? 1 : 0;
    }
    if (o.problemFile.empty() || o.candidateFile.empty())
        usage("--problem and --candidate are required");
    if (o.reps < 1 || o.reps > 100000)
        usage("--reps: expected 1..100000");
    if (o.warmup < 0)
        usage("--warmup: expected >= 0");
    if (reach::isKernelBenchFormat(o.problemFile, o.candidateFile)) {
        kb.python = reach::findPython(python);
        return runKernelBench(o, kb);
    }
    if (o.problemFile.ends_with(".py") || o.candidateFile.ends_with(".py"))
        usage("a KernelBench-format job needs a .py problem AND a .py candidate");
    try {
        reach::VerificationResult r = reach::runVerifyJob(o);
        std::cout << r.toJson().dump(2) << std::endl;
        return r.passed() ? 0 : 1;
    } catch (const reach::InputError& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
}
