#include "gpu/verifyjob.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/base/inputerror.h"
#include "core/base/resourcepaths.h"
#include "core/base/sha256.h"
#include "core/verify/operators.h"
#include "core/verify/problem.h"
#include "gpu/candidatecompiler.h"
#include "gpu/devicerunner.h"

namespace reach {

namespace {
std::string nowIso() {
    std::time_t t = std::time(nullptr);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return b;
}
}  // namespace

VerificationResult runVerifyJob(const VerifyOptions& o) {
    auto t0 = std::chrono::steady_clock::now();
    VerificationResult r;
    r.startedAt = nowIso();
    r.problemFile = o.problemFile;
    r.candidateFile = o.candidateFile;
    auto finish = [&]() -> VerificationResult& {
        r.wallSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return r;
    };

    Problem p = loadProblem(o.problemFile);
    // The bytes verified, named in the document: results are matched to problems by them. A
    // candidate that cannot be read stays a verdict (compile_error) as before, with no hash.
    r.problemSha256 = Sha256::hexOfFile(o.problemFile);
    try {
        r.candidateSha256 = Sha256::hexOfFile(o.candidateFile);
    } catch (const InputError&) {
    }
    if (o.scale)
        p.params["scale"] = *o.scale;
    const Operator& op = operatorFor(p.op, o.problemFile);
    uint64_t seed = o.seed ? *o.seed : p.seed;
    p.seed = seed;
    r.problemId = p.id;
    r.op = p.op;
    r.dtype = dtypeName(p.dtype);
    r.seed = seed;
    r.problem = p.toJson();

    Thresholds thr = Thresholds::forDtype(p.dtype);
    if (p.params.contains("thresholds"))
        thr.apply(p.params.at("thresholds"), o.problemFile);
    if (!o.thresholdsFile.empty()) {
        std::ifstream in(o.thresholdsFile);
        if (!in)
            throw InputError(o.thresholdsFile, "file", "a readable thresholds JSON file");
        nlohmann::json j;
        try {
            in >> j;
        } catch (const nlohmann::json::exception&) {
            throw InputError(o.thresholdsFile, "top level", "a JSON object of thresholds");
        }
        thr.apply(j, o.thresholdsFile);
    }
    r.thresholds = thr;

    std::string res = o.resourceDir.empty() ? findResourceDir() : o.resourceDir;
    if (res.empty() || !std::filesystem::exists(res + "/include/reach/candidate.h")) {
        r.verdict = verdict::kError;
        r.reasons = {"reach/candidate.h not found; set REACH_RESOURCES to Reach's resources dir"};
        return finish();
    }

    r.device = queryDevice();
    if (!r.device.available) {
        r.verdict = verdict::kNoGpu;
        r.reasons = {"no GPU: " + r.device.reason};
        r.compile.status = "skipped";
        return finish();
    }

    CandidateCompiler::Options co;
    co.arch = r.device.arch;
    co.includeDir = res + "/include";
    co.cacheDir = o.cacheDir;
    CandidateCompiler cc(co);
    r.device.nvccVersion = cc.nvccVersion();
    r.compile = cc.compile(o.candidateFile);
    if (r.compile.status == "error") {
        r.verdict = verdict::kCompileError;
        r.reasons = {"compile_error: nvcc failed (see compile.log)"};
        return finish();
    }

    DeviceRunRequest req;
    req.problem = &p;
    req.op = &op;
    req.options = &o;
    req.thresholds = thr;
    req.seed = seed;
    req.candidateObject = r.compile.sharedObject;
    std::string baselineSrc = res + "/baselines/" + p.op + ".cu";
    if (o.baseline && p.op != "matmul" && std::filesystem::exists(baselineSrc)) {
        CompileInfo bc = cc.compile(baselineSrc);
        if (bc.status == "error")
            r.log += "baseline " + baselineSrc + " failed to compile:\n" + bc.log + "\n";
        else
            req.baselineObject = bc.sharedObject;
    }
    runOnDevice(req, r);
    return finish();
}

CompileInfo compileCandidateOnly(const VerifyOptions& o) {
    CompileInfo none;
    none.status = "error";
    std::string res = o.resourceDir.empty() ? findResourceDir() : o.resourceDir;
    // A batch compiles on CPU workers ahead of the GPU ones: it names the arch, no GPU needed.
    std::string arch = o.arch;
    if (arch.empty()) {
        const DeviceInfo d = queryDevice();
        if (!d.available) {
            none.log = "no GPU: " + d.reason;
            return none;
        }
        arch = d.arch;
    }
    CandidateCompiler::Options co;
    co.arch = arch;
    co.includeDir = res + "/include";
    co.cacheDir = o.cacheDir;
    return CandidateCompiler(co).compile(o.candidateFile);
}

}  // namespace reach
