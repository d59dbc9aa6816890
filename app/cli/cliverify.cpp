// reach-cli verify --problem P.json --candidate C.cu [--reps N] [--seed S] [--timeout S] [--json]
// reach-cli verify --controls [--seeds K] [--reps N] [--only NAME] [--json]
// Runs reach-verify in a child process per job (core/verify/verifyprocess.h): a crash, a hang or a
// compile error comes back as a verdict, never as the death of reach-cli.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "clitext.h"
#include "cliverifybatch.h"
#include "core/base/inputerror.h"
#include "core/base/resourcepaths.h"
#include "core/base/textescape.h"
#include "core/project/recordjob.h"
#include "core/records/recordimportverify.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/verificationstore.h"
#include "core/verify/controlset.h"
#include "core/verify/kbverify.h"
#include "core/verify/operators.h"
#include "core/verify/sandbox.h"
#include "core/verify/verifyprocess.h"

namespace reach::cli {

namespace {

std::vector<std::string> passThrough(const CliArgs& args) {
    std::vector<std::string> extra;
    for (const char* o :
         {"--reps", "--warmup", "--seed", "--scale", "--thresholds", "--baseline-us", "--cache-dir",
          "--resources", "--python", "--precision", "--kb-tolerance", "--worker-device"})
        if (auto v = args.value(o))
            extra.insert(extra.end(), {o, *v});
    for (const char* f :
         {"--no-timing", "--no-baseline", "--no-compile-baseline", "--sandbox", "--fresh"})
        if (args.flag(f))
            extra.push_back(f);
    return extra;
}

// The job's limits: --timeout, else the one rule of core/project/recordjob.h.
// --timeout bounds the job's own work; --queue-timeout its waits for the GPU (queueclock.h):
// reach-verify's workers get the limit, this process a minute more, so that reach-verify says
// "the GPU was busy" itself.
void setTimeout(const CliArgs& args, VerifyProcessRequest& req) {
    const bool kernelBench = isKernelBenchFormat(req.problemFile, req.candidateFile);
    setJobTimeout(req, kernelBench, args.number("--timeout", 1, 86400));
    if (const auto q = args.number("--queue-timeout", 1, 86400)) {
        req.queueLimitSeconds = *q + 60;
        if (kernelBench)
            req.extraArgs.insert(req.extraArgs.end(), {"--queue-timeout", std::to_string(*q)});
    }
}

// reach-verify said the input is bad (exit 2): its one line already names the file and the place;
// pass it on as it is.
void throwIfBadInput(const VerificationResult& r, const std::string& fallbackFile) {
    if (r.verdict != verdict::kError || r.exitCode != 2)
        return;
    std::string line = r.reasons.empty() ? std::string("valid input") : r.reasons[0];
    if (line.rfind("bad input: ", 0) == 0)
        line = line.substr(11);
    const size_t colon = line.find(": ");
    if (colon == std::string::npos || colon == 0)
        throw InputError(fallbackFile, "reach-verify", line);
    throw InputError(line.substr(0, colon), "", line.substr(colon + 2));
}

// No GPU (or no PyTorch) is an ordinary answer: one line, exit 2, nothing else to read.
void throwIfNoGpu(const VerificationResult& r, const std::string& where) {
    if (r.verdict == verdict::kNoGpu)
        throw InputError(
            where, "device",
            "a GPU to verify on (" +
                (r.device.reason.empty() ? std::string("none found") : r.device.reason) + ")");
}

void printResult(const VerificationResult& r, CliIo& io) {
    io.out << "verdict: " << r.verdict << "\n";
    for (const auto& s : r.reasons)
        io.out << "  - " << s << "\n";
    io.out << "problem: " << r.problemId << " (" << r.op << ", " << r.dtype << ", seed " << r.seed
           << ")\ncandidate: " << r.candidateFile << "\ncompile: " << r.compile.status;
    if (r.compile.status == "ok")
        io.out << " (" << formatted(r.compile.seconds, "%.3g") << " s)";
    io.out << "\n";
    if (!r.phaseSeconds.empty()) {  // where the job's seconds went on the GPU side
        io.out << "seconds:";
        for (const auto& [name, seconds] : r.phaseSeconds)
            io.out << " " << name << " " << formatted(seconds, "%.2f");
        io.out << "\n";
    }
    if (r.verdict == "compile_error" || r.verdict == "crashed" || r.verdict == "timeout") {
        if (!r.compile.log.empty())
            io.out << "compile log:\n" << r.compile.log << "\n";
        if (!r.log.empty())
            io.out << "log:\n" << r.log << "\n";
    }
    if (r.hasMetrics || !r.checks.empty()) {
        TextTable t({"check", "value", "limit", "ok"});
        for (const auto& c : r.checks)
            t.addRow({c.name, formatted(c.value, "%.3g"), formatted(c.threshold, "%.3g"),
                      c.passed ? "yes" : "NO"});
        io.out << t.render();
        // KernelBench's tolerance for the result's precision (C++ problems name it f32/f16,
        // KernelBench-format ones fp32/fp16): 1e-4 in fp32, not the 1e-2 of bf16.
        DType d = DType::F32;
        if (!dtypeFromName(r.dtype, &d))
            d = r.dtype == "bf16" ? DType::BF16 : r.dtype == "fp16" ? DType::F16 : DType::F32;
        io.out << "KernelBench allclose(atol=rtol=" << formatted(kernelBenchTolerance(d), "%g")
               << ") would have passed: " << (r.metrics.kernelbenchAllclose ? "yes" : "no")
               << (r.metrics.zerosPassKernelbench ? "  (degenerate: all zeros passes it too)" : "")
               << "\n";
    }
    if (r.timing) {
        io.out << "time: median " << formatted(r.timing->medianUs, "%.2f") << " us (p10 "
               << formatted(r.timing->p10Us, "%.2f") << ", p90 "
               << formatted(r.timing->p90Us, "%.2f") << ", " << r.timing->reps << " reps"
               << (r.timing->l2Flushed ? ", cold L2" : "") << "), SM clock "
               << r.timing->smClockBeforeMhz << " -> " << r.timing->smClockAfterMhz << " MHz\n";
    }
    if (r.baseline)
        io.out << "baseline: " << r.baseline->kind << " " << formatted(r.baseline->usedUs, "%.2f")
               << " us; speedup " << formatted(r.speedup, "%.3f") << "x\n";
    if (r.roofline)
        io.out << "roofline floor: " << formatted(r.roofline->floorUs, "%.2f") << " us ("
               << formatted(r.roofline->copyBandwidthGBs, "%.0f") << " GB/s copy)"
               << (r.roofline->belowFloor ? "  PHYSICALLY IMPLAUSIBLE" : "") << "\n";
    io.out << "device: "
           << (r.device.available ? r.device.name + " " + r.device.arch
                                  : "none (" + r.device.reason + ")")
           << "\n";
    if (r.kernelBenchFormat()) {
        const nlohmann::json& kb = r.kernelbench;
        io.out << "KernelBench's own verdict (" << kb.value("reproduces", std::string("?"))
               << "): " << (kb.value("correctness", false) ? "correct" : "incorrect") << " "
               << (kb.contains("correctness_trials") && kb["correctness_trials"].is_string()
                       ? kb["correctness_trials"].get<std::string>()
                       : std::string())
               << (kb.value("runtime_ms", -1.0) > 0
                       ? ", " + formatted(kb.value("runtime_ms", -1.0) * 1000.0, "%.2f") +
                             " us (mean)"
                       : std::string())
               << "\n";
        if (kb.contains("reused") && kb["reused"].is_object())
            io.out << "  (reused: measured " << kb["reused"].value("measured_at", std::string("?"))
                   << " on the same files, options and stack; --fresh measures it again)\n";
        for (const std::string& f : r.flags)
            io.out << "flag: " << f << "\n";
        if (r.fooled)
            io.out << "FOOLED: " << r.fooledReason << "\n";
    }
}

// The document --json prints: the verifier's own, its signature intact (docs/security.md,
// "Evidence Reach signs"); the result made of the run when the verifier printed none.
nlohmann::json printedDocument(const VerificationResult& r, const VerifierRun& run) {
    if (auto doc = verifierDocument(run))
        return *doc;
    return r.toJson();
}

// reach-verify's own notes on stderr ("reach-verify: ..." lines: the precision it chose for an
// extracted problem, a benchmark.json it could not read), passed on: a choice is never silent.
void forwardNotes(const VerifierRun& run, CliIo& io) {
    size_t at = 0;
    while (at < run.err.size()) {
        const size_t end = std::min(run.err.find('\n', at), run.err.size());
        const std::string line = run.err.substr(at, end - at);
        if (line.rfind("reach-verify: ", 0) == 0)
            io.err << reach::escapeControls(line) << "\n";
        at = end + 1;
    }
}

int runOne(const CliArgs& args, CliIo& io) {
    auto problem = args.value("--problem"), candidate = args.value("--candidate");
    if (!problem || !candidate)
        throw UsageError("verify: --problem and --candidate are required");
    VerifyProcessRequest req;
    req.verifier = findVerifierExecutable();
    req.problemFile = *problem;
    req.candidateFile = *candidate;
    req.extraArgs = passThrough(args);
    setTimeout(args, req);
    VerifierRun run;
    VerificationResult r = runVerifierProcess(req, &run);
    throwIfBadInput(r, *problem);
    throwIfNoGpu(r, *candidate);
    forwardNotes(run, io);
    if (args.flag("--json"))
        io.out << reach::dumpJson(printedDocument(r, run)) << "\n";
    else
        printResult(r, io);
    return r.passed() ? kExitOk : kExitDataSaysNo;
}

// Re-verifies one record stored in a project and stores the result, exactly as the GUI's
// Re-verify does: the same job resolution (core/project/recordjob.h), the same translation of
// the run (core resultFromRun), the same record update and store (core/store/verificationstore.h).
int runRecord(const CliArgs& args, const std::vector<std::string>& trusted, CliIo& io) {
    const auto key = args.value("--record");
    const auto project = args.value("--project");
    if (!project)
        throw UsageError("verify --record KEY needs --project P.reach (the record's project)");
    ProjectStore store = ProjectStore::open(*project, ProjectStore::Mode::MustExist);
    std::vector<EvalRecord> matches = findStoredRecords(store, *key);
    if (matches.empty())
        throw InputError(*project, "record " + *key,
                         "a stored record (#ID, or problem[/model[/backend[/sample]]])");
    if (matches.size() > 1) {
        std::string ids;
        for (size_t i = 0; i < matches.size() && i < 8; ++i)
            ids += (i ? ", #" : "#") + std::to_string(matches[i].storeId);
        throw InputError(*project, "record " + *key,
                         "one record, found " + std::to_string(matches.size()) + " (ids " + ids +
                             (matches.size() > 8 ? ", ..." : "") + "): give its id");
    }
    EvalRecord record = matches.front();
    RecordJobOptions options;
    // The project's folder, which the user named: never the folder the record's stored source
    // names (issue 37).
    options.recordDir = std::filesystem::absolute(*project).parent_path().string();
    options.trustedDirs = trusted;
    options.kernelBenchDir = args.value("--kernelbench-dir").value_or("");
    std::string why;
    const std::optional<RecordJob> job = jobForRecord(record, options, &why);
    if (!job)
        throw InputError(*project, "record " + std::to_string(record.storeId), why);
    VerifyProcessRequest req = job->request;
    req.verifier = findVerifierExecutable();
    for (const std::string& a : passThrough(args))
        req.extraArgs.push_back(a);
    setTimeout(args, req);
    VerifierRun run;
    const VerificationResult r = runVerifierProcess(req, &run);
    throwIfBadInput(r, req.problemFile);
    throwIfNoGpu(r, req.candidateFile);
    if (applyVerification(record, r))
        storeVerification(store, record, r, run.out, run.seconds * 1000.0);
    if (args.flag("--json"))
        io.out << reach::dumpJson(printedDocument(r, run)) << "\n";
    else {
        printResult(r, io);
        io.out << "stored in " << *project << " for record " << record.storeId << " ("
               << record.problemName << ", " << record.model << ")\n";
    }
    return r.passed() ? kExitOk : kExitDataSaysNo;
}

int runControls(const CliArgs& args, CliIo& io) {
    std::string res = args.value("--resources").value_or(findResourceDir());
    if (res.empty())
        throw UsageError("verify --controls: Reach's resources not found (set REACH_RESOURCES)");
    auto controls = loadControls(res + "/controls/controls.json", res);
    long seeds = args.integer("--seeds", 1, 100).value_or(1);
    std::string only = args.value("--only").value_or("");
    nlohmann::json doc = nlohmann::json::array();
    TextTable t(
        {"control", "kind", "seed", "expected", "verdict", "as designed", "why", "median us"});
    int bad = 0, ran = 0;
    for (const auto& c : controls) {
        if (!only.empty() && c.name.find(only) == std::string::npos)
            continue;
        for (long s = 1; s <= seeds; ++s) {
            VerifyProcessRequest req;
            req.verifier = findVerifierExecutable();
            req.problemFile = c.problem;
            req.candidateFile = c.candidate;
            req.extraArgs = passThrough(args);
            req.extraArgs.insert(req.extraArgs.end(), {"--seed", std::to_string(s)});
            req.timeoutSeconds = args.number("--timeout", 1, 86400).value_or(c.timeoutSeconds);
            VerificationResult r = runVerifierProcess(req);
            // Without a GPU no control can run: say so once, not once per control.
            throwIfNoGpu(r, "verify --controls");
            ControlJudgement j = judgeControl(c, r);
            ++ran;
            bad += !j.asDesigned;
            t.addRow({c.name, c.kind, std::to_string(s), c.expectVerdict, r.verdict,
                      j.asDesigned ? "yes" : "NO", j.why,
                      r.timing ? formatted(r.timing->medianUs, "%.1f") : "-"});
            doc.push_back({{"control", c.name},
                           {"kind", c.kind},
                           {"seed", s},
                           {"expect_verdict", c.expectVerdict},
                           {"as_designed", j.asDesigned},
                           {"why", j.why},
                           {"result", r.toJson()}});
            if (!args.flag("--json"))
                io.err << c.name << " seed " << s << ": " << r.verdict
                       << (j.asDesigned ? "" : "  NOT AS DESIGNED") << "\n";
        }
    }
    if (args.flag("--json")) {
        io.out << reach::dumpJson(
                      nlohmann::json{{"controls", doc}, {"ran", ran}, {"not_as_designed", bad}})
               << "\n";
    } else {
        io.out << t.render() << "\n" << ran - bad << " of " << ran << " runs behaved as designed\n";
    }
    return bad == 0 ? kExitOk : kExitDataSaysNo;
}

int runVerify(const std::vector<std::string>& argv, CliIo& io) {
    std::vector<std::string> remaining = argv;
    const auto trusted = takeRepeated(remaining, "--trust");
    ArgSpec spec;
    spec.flags = {
        "--json",    "--controls", "--no-timing", "--no-baseline", "--no-compile-baseline",
        "--sandbox", "--fresh"};
    spec.options = {"--problem",      "--candidate", "--reps",         "--warmup",
                    "--seed",         "--scale",     "--thresholds",   "--baseline-us",
                    "--cache-dir",    "--resources", "--timeout",      "--seeds",
                    "--only",         "--record",    "--project",      "--kernelbench-dir",
                    "--python",       "--precision", "--kb-tolerance", "--worker-device",
                    "--queue-timeout"};
    addBatchOptions(spec);
    CliArgs args(remaining, spec);
    if (!args.positionals().empty())
        throw UsageError("verify: unexpected argument '" + args.positionals().front() + "'");
    // Said here, once, rather than as the verdict of every run.
    if (args.flag("--sandbox") && findBubblewrap().empty())
        throw UsageError(sandboxUnavailableMessage());
    if (isBatchCall(args))
        return runBatchCall(args, trusted, io);
    if (args.flag("--controls"))
        return runControls(args, io);
    if (args.value("--record"))
        return runRecord(args, trusted, io);
    return runOne(args, io);
}

}  // namespace

std::vector<std::string> verifyPassThrough(const CliArgs& args) {
    return passThrough(args);
}

CliCommand verifyCommand() {
    return {
        "verify", "verify a candidate kernel on the GPU (reach-verify in a child process)",
        "verify --problem P.json --candidate C.cu [--reps N] [--seed S] [--scale X]\n"
        "                        [--thresholds T.json] [--baseline-us US] [--timeout S] "
        "[--sandbox]\n"
        "                        [--json]\n"
        "       reach-cli verify --problem P.py --candidate C.py [--precision fp32|bf16|fp16]\n"
        "                        [--seed S] [--reps N] [--timeout S] [--queue-timeout S]\n"
        "                        [--python PY] [--json]\n"
        "       reach-cli verify --record KEY --project P.reach [--trust DIR ...]\n"
        "                        [--kernelbench-dir DIR] [--reps N] [--timeout S] [--json]\n"
        "       reach-cli verify --controls [--seeds K] [--reps N] [--only NAME] [--json]\n"
        "       reach-cli verify --batch JOBS [--project P.reach] [--gpus all|0,1,...]\n"
        "                        [--jobs-per-gpu N] [--suspicious] [--unverified] [--resume]\n"
        "                        [--each-gpu] [--compile-workers N] [--trust DIR ...] [--json]\n"
        "       reach-cli verify --batch JOBS --slurm [--partition P] [--gres gpu:1] [--time T]\n"
        "                        [--array-limit N] [--jobs-per-task K] [--slurm-dir DIR] "
        "[--no-wait]\n"
        "       reach-cli verify --slurm-watch DIR | --slurm-resubmit DIR [--project P.reach]\n"
        "  --batch JOBS   a records file, a .reach project or a job list (PROBLEM CANDIDATE\n"
        "                 per line, or JSON): every job its own reach-verify on a pool of GPU\n"
        "                 workers, each result stored as it arrives; progress on stderr\n"
        "                 (docs/batch.md)\n"
        "  --record KEY   re-verify a stored record (#ID, or problem[/model[/backend\n"
        "                 [/sample]]]) and store the result in the project, as the GUI's\n"
        "                 Re-verify does; its files must lie beside the record's source, in\n"
        "                 Reach's resources or in a folder given with --trust\n"
        "  --timeout S    the job's own work; its waits for the GPU (other jobs holding the\n"
        "                 timing lock) are not counted but bounded by --queue-timeout S\n"
        "                 (default 600): past it, \"error: the GPU was busy\", never timeout\n"
        "  --sandbox      run reach-verify (and the candidate) under bubblewrap: no network,\n"
        "                 the home directory hidden, only the job's files visible\n"
        "                 (docs/security.md)\n"
        "Exit 0 when the verdict is pass (or every control behaved as designed), 1 otherwise,\n"
        "2 for bad usage or input.",
        runVerify};
}

}  // namespace reach::cli
