#include "core/ownbenchmark/integrationevidence.h"

#include <sys/random.h>

#include <cstdlib>
#include <filesystem>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/resourcepaths.h"
#include "core/base/textescape.h"
#include "core/base/wholefile.h"
#include "core/project/recordjob.h"
#include "core/verify/childprocess.h"
#include "core/verify/kbverify.h"
#include "core/verify/verifyprocess.h"

namespace reach {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A seed no file and no earlier run has seen: a candidate that recognises its checker's inputs
// (a cache keyed on them, a table of answers) meets new ones.
uint64_t freshSeed() {
    uint64_t seed = 0;
    size_t got = 0;
    auto* bytes = reinterpret_cast<unsigned char*>(&seed);
    while (got < sizeof seed) {
        const ssize_t n = ::getrandom(bytes + got, sizeof seed - got, 0);
        if (n <= 0)
            throw InputError("the kernel's random source", "getrandom", "random bytes for a seed");
        got += size_t(n);
    }
    return seed >> 1;  // below 2^63: every worker reads it as a plain integer
}

std::string stemOf(const std::string& file) {
    return fs::path(file).stem().string();
}

std::string firstReason(const VerificationResult& r) {
    return r.reasons.empty() ? std::string() : ": " + r.reasons.front();
}

// Why the fresh run does not let the winner in; "" when it does.
std::string refusal(const IntegrationWinner& w, const VerificationResult& r,
                    const VerifiedRun& fresh, bool allPassing) {
    if (!r.passed())
        return r.verdict + firstReason(r);
    if (r.problemSha256 != w.problemSha256 || r.candidateSha256 != w.candidateSha256)
        return "it verified other bytes than the plan's (the files changed meanwhile)";
    if (!w.precision.empty() && fresh.precision != w.precision)
        return "it verified in " +
               (fresh.precision.empty() ? "an unsaid precision" : fresh.precision) +
               ", the recorded call is " + w.precision;
    const auto sigma = fresh.sigma();
    if (!sigma)
        return "it passed without the eager baseline's timing";
    if (!(*sigma > 1) && !(allPassing && *sigma > 0))
        return "it passed, not faster than eager (sigma " + std::to_string(*sigma).substr(0, 5) +
               ")";
    return "";
}

}  // namespace

std::optional<MachineStack> probeMachineStack(const std::string& python, const std::string& device,
                                              const std::string& resourceDir, std::string* why) {
    const std::string res = resourceDir.empty() ? findResourceDir() : resourceDir;
    std::string pythonPath = "PYTHONPATH=" + res + "/python";
    if (const char* old = std::getenv("PYTHONPATH"); old && *old)
        pythonPath += std::string(":") + old;
    const ChildResult c =
        runChild({python, "-m", "reach_integrate.stack", "--device", device}, 120, {pythonPath});
    const auto doc = c.exitCode == 0 ? tryParseJson(c.out) : std::nullopt;
    if (!doc || !doc->is_object() || !doc->value("gpu", json()).is_string() ||
        !doc->value("stack", json()).is_object()) {
        if (why)
            *why = python + " did not say its GPU and stack (exit " + std::to_string(c.exitCode) +
                   (c.error.empty() ? "" : ", " + c.error) + ")";
        return std::nullopt;
    }
    MachineStack m;
    m.gpu = (*doc)["gpu"].get<std::string>();
    for (const auto& [k, v] : (*doc)["stack"].items())
        m.stack[k] = v.is_string() ? v.get<std::string>() : std::string();
    return m;
}

bool measuredOn(const VerifiedRun& run, const MachineStack& machine) {
    if (run.gpu.empty() || run.gpu != machine.gpu)
        return false;
    for (const auto& [k, v] : machine.stack) {
        const auto it = run.stack.find(k);
        if (it == run.stack.end() || it->second != v)
            return false;
    }
    return true;
}

void reverifyWinners(IntegrationPlan& plan, const ReverifyOptions& options,
                     const IntegrationProgress& progress) {
    std::vector<IntegrationWinner> kept;
    std::string firstRefusal, refusedRecords;
    const std::string outDir = options.outDir.empty() ? "." : options.outDir;
    std::error_code ec;
    fs::create_directories(outDir, ec);
    if (ec)
        throw InputError(outDir, "", "a folder for the runs (" + ec.message() + ")");
    for (IntegrationWinner& w : plan.winners) {
        if (w.evidence == kSignedPassHere || w.evidence == kReverifiedNow) {
            kept.push_back(std::move(w));
            continue;
        }
        if (progress)
            progress("verifying " + w.problem + " again before it is installed (" + w.evidenceNote +
                     ")");
        VerifyProcessRequest req;
        req.verifier = options.verifier.empty() ? findVerifierExecutable() : options.verifier;
        req.problemFile = w.problemPath;
        req.candidateFile = w.candidatePath;
        req.extraArgs = {"--seed", std::to_string(freshSeed()), "--fresh"};
        if (!options.python.empty())
            req.extraArgs.insert(req.extraArgs.end(), {"--python", options.python});
        if (options.device == "cpu")
            req.extraArgs.insert(req.extraArgs.end(), {"--worker-device", "cpu"});
        if (w.precision == "fp32" || w.precision == "bf16" || w.precision == "fp16")
            req.extraArgs.insert(req.extraArgs.end(), {"--precision", w.precision});
        if (options.sandbox)
            req.extraArgs.push_back("--sandbox");
        setJobTimeout(req, isKernelBenchFormat(req.problemFile, req.candidateFile),
                      options.timeoutSeconds);
        VerifierRun run;
        const VerificationResult r = runVerifierProcess(req, &run);
        if (r.verdict == verdict::kNoGpu)
            throw InputError(
                w.candidatePath, "device",
                "a GPU to verify it on again before it is installed (" +
                    (r.device.reason.empty() ? std::string("none found") : r.device.reason) +
                    "; --device cpu for the CPU)");
        const std::optional<json> doc = verifierDocument(run);
        const std::string keptPath =
            (fs::path(outDir) / ("reverify_" + stemOf(w.problem) + ".json")).string();
        options.inputs.checkNamed(keptPath);
        writeWholeFile(keptPath, (doc ? dumpJson(*doc) : dumpJson(r.toJson())) + "\n",
                       "a file Reach can write (the re-verification's document)");
        const VerifiedRun fresh =
            verifiedRunOf(r, doc.value_or(r.toJson()), keptPath + " (re-verified now)");
        const std::string why = refusal(w, r, fresh, options.allPassing);
        if (!why.empty()) {
            const std::string line = "refused: re-verified now: " + escapeControls(why);
            plan.left.push_back({w.problem, line});
            if (firstRefusal.empty()) {
                firstRefusal = w.problem + ": " + line;
                refusedRecords = w.run.sourceFile.empty() ? w.run.source : w.run.sourceFile;
            }
            continue;
        }
        w.run = fresh;
        w.sigma = *fresh.sigma();
        w.evidence = kReverifiedNow;
        w.reverifyDocument = keptPath;
        kept.push_back(std::move(w));
    }
    plan.winners = std::move(kept);
    if (plan.winners.empty())
        throw InputError(refusedRecords.empty() ? std::string("--records") : refusedRecords, "",
                         "a pass that holds when Reach verifies it again here; nothing was "
                         "installed (" +
                             firstRefusal + ")");
}

}  // namespace reach
