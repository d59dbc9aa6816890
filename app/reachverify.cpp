// reach-verify: one verification job per process (DESIGN.md, "Verifier contract"). Prints ONE
// JSON document on stdout. Exit status: 0 pass, 1 any other verdict (the data says no), 2 bad
// usage or unreadable input (one line on stderr). Links reach_core + reach_gpu only.
#include <unistd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <cerrno>
#include <chrono>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "core/base/cachedir.h"
#include "core/base/evidence.h"
#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/resourcepaths.h"
#include "core/base/textescape.h"
#include "core/ownbenchmark/benchmarkfolder.h"
#include "core/verify/childprocess.h"
#include "core/verify/gpumemoryledger.h"
#include "core/verify/gputiminglock.h"
#include "core/verify/kbverify.h"
#include "core/verify/processguard.h"
#include "core/verify/sandbox.h"
#include "core/verify/workerserver.h"
#include "gpu/verifyjob.h"

namespace {

const char* kUsage =
    "usage: reach-verify --problem P.json --candidate C.cu [--reps N] [--warmup N] [--seed S]\n"
    "                    [--scale X] [--thresholds T.json] [--baseline-us US [--baseline-source "
    "S]]\n"
    "                    [--no-timing] [--no-baseline] [--resources DIR] [--cache-dir DIR]\n"
    "                    [--device-info [--bandwidth]] [--compile-only [--arch sm_XY]] "
    "[--sandbox]\n"
    "       reach-verify --problem P.py --candidate C.py [--precision fp32|bf16|fp16]\n"
    "                    [--python PY] [--kb-tolerance T] [--worker-timeout S] [--seed-count K]\n"
    "                    [--no-compile-baseline] [--worker-device cuda|cpu] [--fresh]\n"
    "                    [--queue-timeout S]\n"
    "                    [options above]\n"
    "  A .py problem and candidate are KernelBench format (docs/kernelbench.md): the Python\n"
    "  worker gives KernelBench's verdict and Reach's; --worker-device cpu is for tests.\n"
    "  --precision casts every floating input (default fp32; for a problem `reach-cli extract`\n"
    "  wrote, the precision of the call it was made from, which its benchmark.json records).\n"
    "  A re-verify reuses KernelBench's verdict, the baselines' times and the kernel census of\n"
    "  an unchanged job (Reach's checks and timing always run again); --fresh reuses nothing.\n"
    "  --device-info --bandwidth adds the measured device-to-device copy bandwidth (GB/s),\n"
    "  which `reach-cli headroom --gpu local` takes as the local GPU's memory roofline.\n"
    "  --worker-timeout S bounds each worker's own work; its waits for the GPU (another job\n"
    "  holding the timing lock) are not counted, and are bounded by --queue-timeout S\n"
    "  (default 600): past it, \"error: the GPU was busy\", never timeout.\n"
    "  --sandbox runs the job under bubblewrap: no network, the home directory hidden, only the\n"
    "  job's files visible (docs/security.md).\n";

// One line for a bad option, as every error of Reach's (the usage is --help's).
[[noreturn]] void usage(const std::string& msg) {
    std::cerr << "reach-verify: " << msg << " (reach-verify --help lists the options)\n";
    std::exit(2);
}

bool insideSandbox() {
    const char* inside = std::getenv("REACH_SANDBOXED");
    return inside && std::string(inside) == "1";
}

// The result as one document on stdout, signed with the user's key (core/base/evidence.h): what
// this process measured, Reach vouches for; an edited copy or a stranger's file reads as a
// claim. Inside the sandbox the key is out of sight (the home directory is hidden): the
// reach-verify outside, which started this one, signs what it prints.
void printResult(nlohmann::json doc) {
    if (!insideSandbox()) {
        if (const std::string why = reach::signEvidence(doc); !why.empty())
            std::cerr << "reach-verify: the result is not signed, readers will take it as a claim: "
                      << reach::escapeControls(why) << "\n";
    }
    std::cout << reach::dumpJson(doc) << std::endl;
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

bool kernelBenchArgs(const std::vector<std::string>& args) {
    std::string problem, candidate;
    for (size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i] == "--problem")
            problem = args[i + 1];
        else if (args[i] == "--candidate")
            candidate = args[i + 1];
    }
    return reach::isKernelBenchFormat(problem, candidate);
}

// What a sandbox of this job shows (docs/security.md): Reach's executable folder and resources,
// the job's files, a --thresholds file and a --python environment read-only; the GPU timing
// lock of a batch writable. A C++ job runs reach-verify itself inside, with the compile cache
// writable (cached objects are checked against their SHA-256 before they load); a
// KernelBench-format job runs only its Python workers inside, with the job's two files alone
// and no cache at all (reach-verify, outside, reads and writes the results: kbcache.h).
reach::SandboxSpec sandboxSpec(const std::vector<std::string>& args, bool kernelBench) {
    reach::SandboxSpec spec;
    spec.bwrap = reach::findBubblewrap();
    if (spec.bwrap.empty()) {
        std::cerr << "reach-verify: " << reach::sandboxUnavailableMessage() << "\n";
        std::exit(2);
    }
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
    if (self.empty())
        usage("--sandbox: cannot tell where reach-verify is (/proc/self/exe)");
    auto valueOf = [&](const std::string& opt) -> std::string {
        for (size_t i = 0; i + 1 < args.size(); ++i)
            if (args[i] == opt)
                return args[i + 1];
        return {};
    };
    auto folderOf = [](const std::string& p) {
        return p.empty() ? p : fs::absolute(p).parent_path().string();
    };
    const std::string resources =
        valueOf("--resources").empty() ? reach::findResourceDir() : valueOf("--resources");
    spec.readOnlyPaths = {fs::path(self).parent_path().string(), resources,
                          valueOf("--thresholds")};
    if (kernelBench) {
        spec.readOnlyPaths.push_back(valueOf("--problem"));
        spec.readOnlyPaths.push_back(valueOf("--candidate"));
    } else {
        // A C++ candidate's `#include "helper.h"` sits beside it.
        spec.readOnlyPaths.push_back(folderOf(valueOf("--problem")));
        spec.readOnlyPaths.push_back(folderOf(valueOf("--candidate")));
    }
    // A Python environment in the hidden home directory: its root, read-only.
    if (const std::string py = valueOf("--python"); py.find('/') != std::string::npos)
        spec.readOnlyPaths.push_back(fs::absolute(py).parent_path().parent_path().string());
    if (!kernelBench) {
        try {
            std::string cache = valueOf("--cache-dir");
            if (cache.empty())
                cache = reach::cacheRoot();
            else
                reach::requirePrivateDir(cache);
            spec.writablePaths.push_back(cache);
        } catch (const reach::InputError& e) {
            std::cerr << e.what() << "\n";
            std::exit(2);
        }
    }
    // The per-GPU timing lock of a batch (docs/batch.md) must stay the one file every verifier
    // on the host locks: a private /tmp would give each sandbox its own, and timings would
    // overlap.
    // Its memory ledger likewise (core/verify/gpumemoryledger.h).
    if (const std::string lock = reach::GpuTimingLock::pathFromEnvironment(); !lock.empty()) {
        for (const std::string& path : {lock, reach::GpuMemoryBooking::pathFromEnvironment()}) {
            const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
            if (fd >= 0) {
                ::fchmod(fd, 0666);
                ::close(fd);
            }
            spec.writablePaths.push_back(path);
        }
    }
    if (const char* home = std::getenv("HOME"); home && *home)
        spec.home = home;
    // The key Reach signs its results with must stay out of the candidate's sight.
    try {
        const fs::path key = fs::weakly_canonical(reach::evidenceKeyDir(), ec);
        for (const std::string& w : spec.writablePaths) {
            const fs::path rel = key.lexically_relative(fs::weakly_canonical(w, ec));
            if (!rel.empty() && *rel.begin() != "..")
                usage("--sandbox: the folder " + w + " the job may write holds the evidence key (" +
                      key.string() + "); choose another --cache-dir or REACH_KEY_DIR");
        }
    } catch (const reach::InputError&) {
        // No key folder at all: nothing to hide.
    }
    return spec;
}

// --sandbox: a C++ job runs the same command again, inside bubblewrap (returns only when already
// inside, REACH_SANDBOXED). A KernelBench-format job stays here and sandboxes its workers
// (*kernelBenchSpec is set). --sandbox is removed from the arguments either way.
std::vector<std::string> sandboxed(int argc, char** argv,
                                   std::optional<reach::SandboxSpec>* kernelBenchSpec) {
    std::vector<std::string> args;
    bool wanted = false;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--sandbox")
            wanted = true;
        else
            args.emplace_back(argv[i]);
    }
    const char* inside = std::getenv("REACH_SANDBOXED");
    if (!wanted || (inside && std::string(inside) == "1"))
        return args;
    if (kernelBenchArgs(args)) {
        *kernelBenchSpec = sandboxSpec(args, true);
        return args;
    }
    reach::SandboxSpec spec = sandboxSpec(args, false);
    std::error_code ec;
    spec.command.push_back(std::filesystem::read_symlink("/proc/self/exe", ec).string());
    spec.command.insert(spec.command.end(), args.begin(), args.end());
    // This process waits for the sandboxed one and signs its document: the key stays out of
    // the sandbox, where the candidate runs. Its caller's timeout still holds: bwrap dies with
    // this process (--die-with-parent), and this one is killed with its group.
    constexpr double kWeek = 7 * 24 * 3600.0;
    const reach::ChildResult c = reach::runChild(reach::sandboxArguments(spec), kWeek);
    std::cerr << c.err;
    if (!c.started) {
        std::cerr << "reach-verify: --sandbox: cannot run " << spec.bwrap << ": " << c.error
                  << "\n";
        std::exit(2);
    }
    const std::optional<nlohmann::json> doc = reach::tryParseJson(c.out);
    if (doc && doc->is_object() && doc->value("schema", nlohmann::json()) == "reach.verification")
        printResult(*doc);
    else
        std::cout << c.out << std::flush;
    std::exit(c.termSignal ? 128 + c.termSignal : c.exitCode);
}

}  // namespace

// The precision a problem is verified in when --precision is not given: KernelBench's fp32, or
// for an extracted problem the precision of the call it was made from (the file's own
// `# reach-precision:` line, else its folder's benchmark.json: recordedCallPrecision): verified
// in another, it is another call, and its run never counts for the
// workload (docs/benchmark.md). Said on stderr, so the choice is never silent.
std::string defaultPrecision(const std::string& problem, const std::string& fallback) {
    std::optional<std::string> recorded;
    try {
        recorded = reach::recordedCallPrecision(problem);
    } catch (const reach::InputError& e) {
        std::cerr << "reach-verify: " << reach::escapeControls(e.what()) << "; verifying in "
                  << fallback << "\n";
        return fallback;
    }
    if (!recorded || recorded->empty())
        return fallback;
    if (*recorded == "fp32" || *recorded == "bf16" || *recorded == "fp16") {
        if (*recorded != fallback)
            std::cerr << "reach-verify: " << reach::escapeControls(problem) << ": verifying in "
                      << *recorded << ", the precision of the call it was extracted from "
                      << "(its '# reach-precision:' line, or its folder's benchmark.json; "
                         "--precision to choose another)\n";
        return *recorded;
    }
    std::cerr << "reach-verify: " << reach::escapeControls(problem) << ": its recorded call is "
              << *recorded << ", which no --precision reproduces; verifying in " << fallback
              << "\n";
    return fallback;
}

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
        r.wallSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        printResult(r.toJson());
        return r.passed() ? 0 : 1;
    } catch (const reach::InputError& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
}

namespace {

// The command line, read: the job's options, the KernelBench worker's, and what to do instead
// of a job (--help, --device-info, --compile-only).
struct VerifyArgs {
    reach::VerifyOptions o;
    reach::KernelBenchJob kb;
    bool precisionGiven = false;
    std::string python;
    bool deviceInfo = false;
    bool bandwidth = false;
    bool compileOnly = false;
    bool help = false;
};

// The value of the option at args[i], which moves i past it.
std::string optionValue(const std::vector<std::string>& args, size_t& i) {
    if (i + 1 >= args.size())
        usage(args[i] + " needs a value");
    return args[++i];
}

// The option at args[i] when it is one of a C++ job's (or of what runs instead of one), with its
// value; false when it is not. Every value is checked as it is read.
bool readJobOption(const std::vector<std::string>& args, size_t& i, VerifyArgs& v) {
    const std::string& a = args[i];
    reach::VerifyOptions& o = v.o;
    if (a == "--problem")
        o.problemFile = optionValue(args, i);
    else if (a == "--candidate")
        o.candidateFile = optionValue(args, i);
    else if (a == "--reps")
        o.reps = int(number(a, optionValue(args, i)));
    else if (a == "--warmup")
        o.warmup = int(number(a, optionValue(args, i)));
    else if (a == "--seed")
        o.seed = unsignedInteger(a, optionValue(args, i));
    else if (a == "--scale")
        o.scale = number(a, optionValue(args, i));
    else if (a == "--thresholds")
        o.thresholdsFile = optionValue(args, i);
    else if (a == "--baseline-us")
        o.recordedBaselineUs = number(a, optionValue(args, i));
    else if (a == "--baseline-source")
        o.recordedBaselineSource = optionValue(args, i);
    else if (a == "--no-timing")
        o.timing = false;
    else if (a == "--no-baseline")
        o.baseline = false;
    else if (a == "--resources")
        o.resourceDir = optionValue(args, i);
    else if (a == "--cache-dir")
        o.cacheDir = optionValue(args, i);
    else if (a == "--device-info")
        v.deviceInfo = true;
    else if (a == "--bandwidth")
        v.bandwidth = true;
    else if (a == "--compile-only")
        v.compileOnly = true;
    else if (a == "--arch") {
        o.arch = optionValue(args, i);
        if (o.arch.rfind("sm_", 0) != 0)
            usage("--arch: expected sm_XY (e.g. sm_90)");
    } else
        return false;
    return true;
}

// The option at args[i] when it is one of a KernelBench-format job's, with its value; false
// when it is not.
bool readKernelBenchOption(const std::vector<std::string>& args, size_t& i, VerifyArgs& v) {
    const std::string& a = args[i];
    reach::KernelBenchJob& kb = v.kb;
    if (a == "--python")
        v.python = optionValue(args, i);
    else if (a == "--precision") {
        v.precisionGiven = true;
        kb.precision = optionValue(args, i);
        if (kb.precision != "fp32" && kb.precision != "bf16" && kb.precision != "fp16")
            usage("--precision: expected fp32, bf16 or fp16");
    } else if (a == "--kb-tolerance")
        kb.kbTolerance = number(a, optionValue(args, i));
    else if (a == "--worker-timeout")
        kb.timeoutSeconds = number(a, optionValue(args, i));
    else if (a == "--queue-timeout")
        kb.queueLimitSeconds = number(a, optionValue(args, i));
    else if (a == "--seed-count") {
        const double n = number(a, optionValue(args, i));
        if (n < 1 || n > 100)
            usage("--seed-count: expected 1..100");
        kb.seedCount = int(n);
    } else if (a == "--no-compile-baseline")
        kb.compileBaseline = false;
    else if (a == "--fresh")
        kb.fresh = true;
    else if (a == "--worker-device") {
        kb.device = optionValue(args, i);
        if (kb.device != "cuda" && kb.device != "cpu")
            usage("--worker-device: expected cuda or cpu");
    } else
        return false;
    return true;
}

// Reads the options in order, each checked as it comes (the first bad one is the one said);
// --help stops the reading, so what follows it is not judged.
VerifyArgs parseArguments(const std::vector<std::string>& args) {
    VerifyArgs v;
    for (size_t i = 0; i < args.size(); ++i) {
        if (readJobOption(args, i, v) || readKernelBenchOption(args, i, v))
            continue;
        if (args[i] == "--help" || args[i] == "-h") {
            v.help = true;
            return v;
        }
        usage("unknown argument '" + args[i] + "'");
    }
    return v;
}

// --device-info: the device as one JSON document (and, with --bandwidth, its measured copy
// bandwidth). Exit status 1 when there is no GPU.
int printDeviceInfo(bool bandwidth) {
    reach::VerificationResult r;
    r.device = reach::queryDevice();
    r.verdict = r.device.available ? "device" : reach::verdict::kNoGpu;
    nlohmann::json device = r.toJson()["device"];
    // How many GPUs this process sees: a batch's `--gpus all` starts one worker per GPU.
    device["device_count"] = reach::visibleDeviceCount();
    if (bandwidth && r.device.available) {
        try {
            device["copy_bandwidth_gbs"] = reach::measureCopyBandwidthGBs();
        } catch (const std::exception& e) {  // a CUDA error: said, not a crash
            device["copy_bandwidth_error"] = e.what();
        }
    }
    std::cout << reach::dumpJson(device) << "\n";
    return r.device.available ? 0 : 1;
}

// --compile-only: warms the compile cache (scripts compile many candidates in parallel first).
int runCompileOnly(const reach::VerifyOptions& o) {
    if (o.candidateFile.empty())
        usage("--compile-only needs --candidate");
    reach::CompileInfo c = reach::compileCandidateOnly(o);
    std::cout << reach::dumpJson(nlohmann::json{{"candidate_file", o.candidateFile},
                                                {"status", c.status},
                                                {"seconds", c.seconds},
                                                {"shared_object", c.sharedObject},
                                                {"log", c.log}})
              << "\n";
    return c.status == "error" ? 1 : 0;
}

// One verification job: KernelBench format (a .py problem and candidate) or C++.
int runJob(VerifyArgs& v, const std::optional<reach::SandboxSpec>& kbSandbox) {
    const reach::VerifyOptions& o = v.o;
    if (o.problemFile.empty() || o.candidateFile.empty())
        usage("--problem and --candidate are required");
    if (o.reps < 1 || o.reps > 100000)
        usage("--reps: expected 1..100000");
    if (o.warmup < 0)
        usage("--warmup: expected >= 0");
    if (reach::isKernelBenchFormat(o.problemFile, o.candidateFile)) {
        if (!v.precisionGiven)
            v.kb.precision = defaultPrecision(o.problemFile, v.kb.precision);
        v.kb.python = reach::findPython(v.python);
        v.kb.sandbox = kbSandbox;
        v.kb.killLeftovers = true;
        return runKernelBench(o, v.kb);
    }
    if (o.problemFile.ends_with(".py") || o.candidateFile.ends_with(".py"))
        usage("a KernelBench-format job needs a .py problem AND a .py candidate");
    try {
        reach::VerificationResult r = reach::runVerifyJob(o);
        printResult(r.toJson());
        return r.passed() ? 0 : 1;
    } catch (const reach::InputError& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
}

}  // namespace

int main(int argc, char** argv) {
    // Before anything can start a process: the worker server's connection the owner passed (if
    // any) is taken, made close-on-exec and its variable removed, so no child sees either.
    reach::adoptWorkerServerConnection();
    // The runner of a C++ candidate (internal: started by this program's own controller half,
    // gpu/cudarunner.cpp). It holds no verdict; it only runs what it is asked to.
    if (argc == 3 && std::string(argv[1]) == "--runner-channel")
        return reach::runCandidateRunner(std::atoi(argv[2]));
    // A candidate runs as the same user: this process, which writes the verdict, must not be
    // reachable through ptrace or /proc/<pid>/fd (where a forged verdict could be written into
    // its pipes). Orphans of the candidate's processes come back here to be killed.
    reach::guardProcessFromCandidates();
    reach::becomeSubreaper();
    std::optional<reach::SandboxSpec> kbSandbox;
    VerifyArgs v = parseArguments(sandboxed(argc, argv, &kbSandbox));
    if (v.help) {
        std::cout << kUsage;
        return 0;
    }
    if (v.deviceInfo)
        return printDeviceInfo(v.bandwidth);
    if (v.bandwidth && !v.deviceInfo)
        usage("--bandwidth goes with --device-info");
    if (v.compileOnly)
        return runCompileOnly(v.o);
    return runJob(v, kbSandbox);
}
