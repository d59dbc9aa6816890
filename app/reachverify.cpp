// reach-verify: one verification job per process (DESIGN.md, "Verifier contract"). Prints ONE
// JSON document on stdout. Exit status: 0 pass, 1 any other verdict (the data says no), 2 bad
// usage or unreadable input (one line on stderr). Links reach_core + reach_gpu only.
#include <unistd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <chrono>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "app/args/cliargs.h"
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
    bool sandbox = false;
    // What was given, in order (--sandbox runs the same options again inside bubblewrap).
    std::vector<reach::cli::GivenArg> given;
};

// Every option reach-verify knows, in the one argument reader of Reach's executables.
const reach::cli::ArgSpec kSpec{
    {"--no-timing", "--no-baseline", "--device-info", "--bandwidth", "--compile-only",
     "--no-compile-baseline", "--fresh", "--sandbox", "--help"},
    {"--problem", "--candidate", "--reps", "--warmup", "--seed", "--scale", "--thresholds",
     "--baseline-us", "--baseline-source", "--resources", "--cache-dir", "--arch", "--python",
     "--precision", "--kb-tolerance", "--worker-timeout", "--queue-timeout", "--seed-count",
     "--worker-device"},
    {{"-h", "--help"}},
    {"--help"}};

// A count option's value, checked before it becomes an int (NaN, 1e300 or -5 would not convert).
int wholeNumber(const std::string& option, const std::string& text, int lo, int hi,
                const char* expected) {
    const double v = reach::cli::parseNumber(option, text);
    if (!(v >= lo && v <= hi))
        usage(option + ": expected " + expected);
    return int(v);
}

// The given option when it is one of a C++ job's (or of what runs instead of one), with its
// value; false when it is not. Every value is checked as it is read.
bool readJobOption(const reach::cli::GivenArg& g, VerifyArgs& v) {
    using reach::cli::parseNumber;
    const std::string& a = g.name;
    const std::string value = g.value.value_or("");
    reach::VerifyOptions& o = v.o;
    if (a == "--problem")
        o.problemFile = value;
    else if (a == "--candidate")
        o.candidateFile = value;
    else if (a == "--reps")
        o.reps = wholeNumber(a, value, 1, 100000, "1..100000");
    else if (a == "--warmup")
        o.warmup = wholeNumber(a, value, 0, 1000000, "0..1000000");
    else if (a == "--seed")
        o.seed = uint64_t(reach::cli::parseUnsigned(a, value));
    else if (a == "--scale")
        o.scale = parseNumber(a, value);
    else if (a == "--thresholds")
        o.thresholdsFile = value;
    else if (a == "--baseline-us")
        o.recordedBaselineUs = parseNumber(a, value);
    else if (a == "--baseline-source")
        o.recordedBaselineSource = value;
    else if (a == "--no-timing")
        o.timing = false;
    else if (a == "--no-baseline")
        o.baseline = false;
    else if (a == "--resources")
        o.resourceDir = value;
    else if (a == "--cache-dir")
        o.cacheDir = value;
    else if (a == "--device-info")
        v.deviceInfo = true;
    else if (a == "--bandwidth")
        v.bandwidth = true;
    else if (a == "--compile-only")
        v.compileOnly = true;
    else if (a == "--arch") {
        o.arch = value;
        if (o.arch.rfind("sm_", 0) != 0)
            usage("--arch: expected sm_XY (e.g. sm_90)");
    } else
        return false;
    return true;
}

// The given option when it is one of a KernelBench-format job's, with its value; false when it
// is not.
bool readKernelBenchOption(const reach::cli::GivenArg& g, VerifyArgs& v) {
    using reach::cli::parseNumber;
    const std::string& a = g.name;
    const std::string value = g.value.value_or("");
    reach::KernelBenchJob& kb = v.kb;
    if (a == "--python")
        v.python = value;
    else if (a == "--precision") {
        v.precisionGiven = true;
        kb.precision = value;
        if (kb.precision != "fp32" && kb.precision != "bf16" && kb.precision != "fp16")
            usage("--precision: expected fp32, bf16 or fp16");
    } else if (a == "--kb-tolerance")
        kb.kbTolerance = parseNumber(a, value);
    else if (a == "--worker-timeout")
        kb.timeoutSeconds = parseNumber(a, value);
    else if (a == "--queue-timeout")
        kb.queueLimitSeconds = parseNumber(a, value);
    else if (a == "--seed-count") {
        kb.seedCount = wholeNumber(a, value, 1, 100, "1..100");
    } else if (a == "--no-compile-baseline")
        kb.compileBaseline = false;
    else if (a == "--fresh")
        kb.fresh = true;
    else if (a == "--worker-device") {
        kb.device = value;
        if (kb.device != "cuda" && kb.device != "cpu")
            usage("--worker-device: expected cuda or cpu");
    } else
        return false;
    return true;
}

// Reads the command line (app/args/cliargs.h), then each option's value in the order given,
// checked as it comes (the first bad one is the one said; the last of a repeated option
// counts); --help stops the reading, so what follows it is not judged.
VerifyArgs parseArguments(const std::vector<std::string>& args) {
    VerifyArgs v;
    try {
        const reach::cli::CliArgs cli(args, kSpec);
        if (!cli.positionals().empty())
            usage("unknown argument '" + cli.positionals().front() + "'");
        v.given = cli.given();
        for (const reach::cli::GivenArg& g : v.given) {
            if (g.name == "--help")
                v.help = true;
            else if (g.name == "--sandbox")
                v.sandbox = true;
            else if (!readJobOption(g, v) && !readKernelBenchOption(g, v))
                usage("unknown argument '" + g.name + "'");  // in kSpec, read by no one
        }
    } catch (const reach::cli::UsageError& e) {
        usage(e.what());
    }
    return v;
}

// What a sandbox of this job shows (docs/security.md): Reach's executable folder and resources,
// the job's files, a --thresholds file and a --python environment read-only; the GPU timing
// lock of a batch writable. A C++ job runs reach-verify itself inside, with the compile cache
// writable (cached objects are checked against their SHA-256 before they load); a
// KernelBench-format job runs only its Python workers inside, with the job's two files alone
// and no cache at all (reach-verify, outside, reads and writes the results: kbcache.h).
reach::SandboxSpec sandboxSpec(const VerifyArgs& v, bool kernelBench) {
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
    auto folderOf = [](const std::string& p) {
        return p.empty() ? p : fs::absolute(p).parent_path().string();
    };
    const std::string resources =
        v.o.resourceDir.empty() ? reach::findResourceDir() : v.o.resourceDir;
    spec.readOnlyPaths = {fs::path(self).parent_path().string(), resources, v.o.thresholdsFile};
    if (kernelBench) {
        spec.readOnlyPaths.push_back(v.o.problemFile);
        spec.readOnlyPaths.push_back(v.o.candidateFile);
    } else {
        // A C++ candidate's `#include "helper.h"` sits beside it.
        spec.readOnlyPaths.push_back(folderOf(v.o.problemFile));
        spec.readOnlyPaths.push_back(folderOf(v.o.candidateFile));
    }
    // A Python environment in the hidden home directory: its root, read-only.
    if (const std::string py = v.python; py.find('/') != std::string::npos)
        spec.readOnlyPaths.push_back(fs::absolute(py).parent_path().parent_path().string());
    if (!kernelBench) {
        try {
            std::string cache = v.o.cacheDir;
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
// inside, REACH_SANDBOXED, or when --sandbox was not given). A KernelBench-format job stays here
// and sandboxes its workers (*kernelBenchSpec is set). The command inside is the options read,
// in their order, less --sandbox: what the sandbox shows and what runs in it come from one
// reading of the command line.
void sandboxed(const VerifyArgs& v, std::optional<reach::SandboxSpec>* kernelBenchSpec) {
    if (!v.sandbox || insideSandbox())
        return;
    if (reach::isKernelBenchFormat(v.o.problemFile, v.o.candidateFile)) {
        *kernelBenchSpec = sandboxSpec(v, true);
        return;
    }
    std::vector<std::string> args;
    for (const reach::cli::GivenArg& g : v.given) {
        if (g.name == "--sandbox")
            continue;
        args.push_back(g.name);
        if (g.value)
            args.push_back(*g.value);
    }
    reach::SandboxSpec spec = sandboxSpec(v, false);
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
    VerifyArgs v = parseArguments(std::vector<std::string>(argv + 1, argv + argc));
    if (v.help) {
        std::cout << kUsage;
        return 0;
    }
    std::optional<reach::SandboxSpec> kbSandbox;
    sandboxed(v, &kbSandbox);
    if (v.deviceInfo)
        return printDeviceInfo(v.bandwidth);
    if (v.bandwidth && !v.deviceInfo)
        usage("--bandwidth goes with --device-info");
    if (v.compileOnly)
        return runCompileOnly(v.o);
    return runJob(v, kbSandbox);
}
