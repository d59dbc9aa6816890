// reach-verify: one verification job per process (DESIGN.md, "Verifier contract"). Prints ONE
// JSON document on stdout. Exit status: 0 pass, 1 any other verdict (the data says no), 2 bad
// usage or unreadable input (one line on stderr). Links reach_core + reach_gpu only.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "core/base/inputerror.h"
#include "gpu/verifyjob.h"

namespace {

const char* kUsage =
    "usage: reach-verify --problem P.json --candidate C.cu [--reps N] [--warmup N] [--seed S]\n"
    "                    [--scale X] [--thresholds T.json] [--baseline-us US [--baseline-source "
    "S]]\n"
    "                    [--no-timing] [--no-baseline] [--resources DIR] [--cache-dir DIR]\n"
    "                    [--device-info] [--compile-only]\n";

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

int main(int argc, char** argv) {
    reach::VerifyOptions o;
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
        else if (a == "--compile-only")
            compileOnly = true;
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
        std::cout << r.toJson()["device"].dump(2) << "\n";
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
    try {
        reach::VerificationResult r = reach::runVerifyJob(o);
        std::cout << r.toJson().dump(2) << std::endl;
        return r.passed() ? 0 : 1;
    } catch (const reach::InputError& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
}
