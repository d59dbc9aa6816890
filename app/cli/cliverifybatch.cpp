// reach-cli verify --batch JOBS [--project P.reach] [--gpus all|0,1,...] [--jobs-per-gpu N]
// Runs many reach-verify jobs on a pool of GPU workers (core/verify/batchpool.h), storing each
// result in the project as it arrives (core/project/batchverify.h); --slurm hands the same jobs
// to a Slurm job array instead (cliverifyslurm.cpp). docs/batch.md.
#include "cliverifybatch.h"
#include "clitext.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/parallel.h"
#include "core/records/suspicion.h"
#include "core/store/projectstore.h"
#include "core/verify/batchpool.h"
#include "core/verify/verifyprocess.h"

namespace reach::cli {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_interrupted = 0;

void onSignal(int) {
    g_interrupted = 1;
}

std::string projectPath(const CliArgs& args, const BatchPlan& plan) {
    if (auto p = args.value("--project"))
        return *p;
    return plan.kind == "project" ? plan.source : std::string();
}

json resultJson(const BatchJob& job, const VerificationResult& r, const BatchSlot& slot,
                bool stored) {
    json gpu = {{"index", !slot.gpu.empty() ? slot.gpu : r.device.visibleDevices},
                {"uuid", !r.device.uuid.empty() ? r.device.uuid : slot.uuid},
                {"name", r.device.name}};
    if (r.timing) {
        gpu["sm_clock_before_mhz"] = r.timing->smClockBeforeMhz;
        gpu["sm_clock_after_mhz"] = r.timing->smClockAfterMhz;
    }
    return {{"index", job.index},
            {"label", job.label},
            {"problem_file", job.request.problemFile},
            {"candidate_file", job.request.candidateFile},
            {"verdict", r.verdict},
            {"reasons", r.reasons},
            {"median_us", r.timing ? json(r.timing->medianUs) : json(nullptr)},
            {"speedup", r.speedup > 0 ? json(r.speedup) : json(nullptr)},
            {"gpu", gpu},
            {"wall_seconds", r.wallSeconds},
            {"stored", stored}};
}

json spreadJson(const TimingSpread& s) {
    return {{"label", s.label},
            {"spread", s.spread},
            {"exceeds", s.exceeds},
            {"median_us_by_gpu", s.medianUsByGpu}};
}

std::string spreadLine(const TimingSpread& s) {
    std::string line = "timing spread: " + s.label + ": the median differs by " +
                       formatted(100 * s.spread, "%.1f", "-") + " % across GPUs (";
    bool first = true;
    for (const auto& [uuid, m] : s.medianUsByGpu) {
        line += (first ? "" : ", ") + uuid + " " + formatted(m, "%.2f", "-") + " us";
        first = false;
    }
    return line + ")";
}

int runPool(const CliArgs& args, BatchPlan plan, CliIo& io) {
    const bool asJson = args.flag("--json");
    const std::string project = projectPath(args, plan);
    if (args.flag("--resume") && project.empty())
        throw UsageError("verify --batch --resume needs --project P.reach (where the results are)");
    const std::string verifier = findVerifierExecutable();
    const int perGpu = int(args.integer("--jobs-per-gpu", 1, 64).value_or(1));
    const std::vector<BatchSlot> slots =
        batchSlots(verifier, args.value("--gpus").value_or("all"), perGpu);
    std::set<std::string> uuids;
    std::map<std::string, std::string> uuidByGpu;
    for (const BatchSlot& s : slots) {
        if (!s.uuid.empty())
            uuids.insert(s.uuid);
        uuidByGpu[s.gpu] = s.uuid;
    }
    if (args.flag("--each-gpu"))
        pinToEveryGpu(plan, slots);

    std::optional<ProjectStore> store;
    if (!project.empty())
        store.emplace(ProjectStore::open(project));
    int skipped = 0;
    if (args.flag("--resume"))
        skipped = dropDoneJobs(plan, *store, uuids, uuidByGpu);

    BatchPoolOptions o;
    o.verifier = verifier;
    o.slots = slots;
    bool anyCpp = false;
    for (const BatchJob& j : plan.jobs)
        anyCpp |= j.needsCompile();
    const int cores = cpusAvailable();
    o.compileWorkers =
        int(args.integer("--compile-workers", 0, 256).value_or(anyCpp ? std::min(4, cores) : 0));
    o.compileArch = slots.front().arch;
    for (const BatchSlot& s : slots)
        if (s.arch != o.compileArch)
            o.compileArch.clear();  // mixed GPUs: each job compiles for its own
    if (auto d = args.value("--lock-dir"))
        o.lockDir = *d;

    const std::string batchId = newBatchId();
    const double every = args.number("--progress-interval", 0, 3600).value_or(2);
    json results = json::array();
    std::map<std::string, int> verdicts;
    std::vector<TimingSample> samples;  // for the spread when there is no project
    std::map<std::string, std::string> labels;
    auto lastProgress = Clock::now() - std::chrono::hours(1);
    BatchProgress last;
    last.total = int(plan.jobs.size());
    last.skipped = skipped;
    const auto t0 = Clock::now();
    if (!plan.jobs.empty()) {
        io.err << "batch " << batchId << ": " << plan.jobs.size() << " jobs on " << slots.size()
               << " worker(s) (" << slots.size() / size_t(perGpu) << " GPU(s) x " << perGpu << ")"
               << (skipped ? ", " + std::to_string(skipped) + " done before (resume)" : "") << "\n";
        runBatch(
            plan.jobs, o,
            [&](const BatchOutcome& out) {
                const BatchJob& job = *out.job;
                const BatchSlot& slot = slots[size_t(out.slot)];
                bool stored = false;
                if (store) {
                    EvalRecord& record = plan.records[size_t(&job - plan.jobs.data())];
                    stored = storeBatchResult(*store, record, job, out.result, out.run.out,
                                              out.run.seconds * 1000, slot, batchId);
                }
                ++verdicts[out.result.verdict];
                if (out.result.timing) {
                    samples.push_back(
                        {job.candidateHash, job.problemHash,
                         !out.result.device.uuid.empty() ? out.result.device.uuid : slot.uuid,
                         out.result.timing->medianUs});
                    labels.emplace(job.candidateHash + " " + job.problemHash,
                                   job.label.substr(0, job.label.find(" [GPU ")));
                }
                if (asJson)
                    results.push_back(resultJson(job, out.result, slot, stored));
                else
                    io.out << resultLine(job.label, out.result, slot.gpu) << std::endl;
            },
            [&](const BatchProgress& p) {
                last = p;
                if (Clock::now() - lastProgress >= std::chrono::duration<double>(every)) {
                    io.err << p.line(slots) << std::endl;
                    lastProgress = Clock::now();
                }
            },
            interruptToken(), skipped);
    }
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    last.elapsedSeconds = wall;
    last.running = 0;
    if (last.total > 0)
        io.err << last.line(slots) << std::endl;
    const bool stopped = last.done < last.total;
    if (stopped)
        io.err << "batch " << batchId << ": stopped with " << last.remaining()
               << " jobs left; run again with --resume to finish\n";

    std::vector<TimingSpread> spreads =
        store ? batchTimingSpreads(*store, plan) : timingSpreads(samples, labels);
    std::vector<std::string> warnings;
    for (const TimingSpread& s : spreads)
        if (s.exceeds)
            warnings.push_back(spreadLine(s));
    int failed = 0;
    for (const auto& [v, n] : verdicts)
        failed += v == "pass" ? 0 : n;
    if (asJson) {
        json gpus = json::array();
        for (size_t i = 0; i < slots.size() / size_t(perGpu); ++i)
            gpus.push_back({{"index", slots[i].gpu},
                            {"uuid", slots[i].uuid},
                            {"name", slots[i].name},
                            {"arch", slots[i].arch}});
        json spreadDoc = json::array();
        for (const TimingSpread& s : spreads)
            spreadDoc.push_back(spreadJson(s));
        io.out << json{{"batch", batchId},
                       {"source", plan.source},
                       {"project", project.empty() ? json(nullptr) : json(project)},
                       {"gpus", gpus},
                       {"jobs_per_gpu", perGpu},
                       {"total", last.total},
                       {"skipped", skipped},
                       {"done", last.done},
                       {"stopped", stopped},
                       {"verdicts", verdicts},
                       {"wall_seconds", wall},
                       {"jobs_per_hour", wall > 0 ? last.done * 3600.0 / wall : 0},
                       {"results", results},
                       {"refused", plan.refused},
                       {"left_out", plan.leftOut},
                       {"timing_spread", spreadDoc},
                       {"warnings", warnings}}
                      .dump(2)
               << "\n";
    } else if (last.total == 0) {
        io.out << "nothing to run: " << skipped << " job(s) done before"
               << (plan.leftOut ? ", " + std::to_string(plan.leftOut) + " left out by the selection"
                                : "")
               << "\n";
    } else {
        io.out << last.done << " of " << last.total << " jobs in " << formatted(wall, "%.1f", "-")
               << " s";
        if (wall > 0 && last.done)
            io.out << " (" << formatted(last.done * 3600.0 / wall, "%.0f", "-") << " jobs/h)";
        io.out << ":";
        for (const auto& [v, n] : verdicts)
            io.out << " " << n << " " << v;
        io.out << (skipped ? "; " + std::to_string(skipped) + " skipped (done before)" : "")
               << "\n";
        if (store)
            io.out << "stored in " << project << " (batch " << batchId << ")\n";
        for (const std::string& w : warnings)
            io.out << "warning: " << w << "\n";
    }
    return failed == 0 && plan.refused.empty() && !stopped ? kExitOk : kExitDataSaysNo;
}

}  // namespace

void addBatchOptions(ArgSpec& spec) {
    for (const char* f :
         {"--suspicious", "--unverified", "--resume", "--each-gpu", "--slurm", "--no-wait"})
        spec.flags.insert(f);
    for (const char* o : {"--batch",
                          "--gpus",
                          "--jobs-per-gpu",
                          "--compile-workers",
                          "--progress-interval",
                          "--lock-dir",
                          "--degenerate",
                          "--threshold",
                          "--partition",
                          "--gres",
                          "--time",
                          "--account",
                          "--array-limit",
                          "--jobs-per-task",
                          "--slurm-dir",
                          "--poll",
                          "--slurm-watch",
                          "--slurm-resubmit",
                          "--slurm-task",
                          "--task"})
        spec.options.insert(o);
}

bool isBatchCall(const CliArgs& args) {
    for (const char* o : {"--batch", "--slurm-watch", "--slurm-resubmit", "--slurm-task"})
        if (args.value(o))
            return true;
    return false;
}

std::stop_token interruptToken() {
    static std::stop_source source;
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa {};
        sa.sa_handler = onSignal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, nullptr);
        sigaction(SIGTERM, &sa, nullptr);
        // The handler only sets a flag; this thread turns it into a stop request.
        std::thread([] {
            while (!g_interrupted)
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            source.request_stop();
        }).detach();
    });
    return source.get_token();
}

std::string newBatchId() {
    char b[32];
    const std::time_t t = std::time(nullptr);
    std::strftime(b, sizeof b, "%Y%m%dT%H%M%SZ", std::gmtime(&t));
    return "batch-" + std::string(b) + "-" + std::to_string(getpid());
}

std::string resultLine(const std::string& label, const VerificationResult& r,
                       const std::string& gpu) {
    char head[64];
    std::snprintf(head, sizeof head, "%-13s GPU %-3s ", r.verdict.c_str(),
                  gpu.empty() ? r.device.visibleDevices.c_str() : gpu.c_str());
    std::string line = head;
    line += r.timing ? formatted(r.timing->medianUs, "%10.2f us", "-") : std::string(13, ' ');
    line += r.speedup > 0 ? formatted(r.speedup, " %7.3fx", "-") : std::string(9, ' ');
    line += "  " + label;
    if (!r.passed() && !r.reasons.empty())
        line += ": " + r.reasons.front();
    return line;
}

BatchPlan planFromArgs(const CliArgs& args, const std::vector<std::string>& trusted) {
    BatchSelection sel;
    sel.suspicious = args.flag("--suspicious");
    sel.unverified = args.flag("--unverified");
    if (auto t = args.number("--threshold", 1.0, 1e9))
        sel.suspicion.speedupThreshold = *t;
    if (auto d = args.value("--degenerate"))
        sel.suspicion.degenerate = readDegenerateProblems(*d);
    RecordJobOptions trust;
    trust.trustedDirs = trusted;
    trust.kernelBenchDir = args.value("--kernelbench-dir").value_or("");
    BatchJobDefaults defaults;
    defaults.extraArgs = verifyPassThrough(args);
    defaults.timeoutSeconds = args.number("--timeout", 1, 86400);
    const std::string jobs = *args.value("--batch");
    BatchPlan plan = planBatch(jobs, sel, trust, defaults);
    if (plan.jobs.empty() && !plan.refused.empty())
        throw InputError(jobs, "", "jobs that can run; none can: " + plan.refused.front());
    return plan;
}

int runBatchCall(const CliArgs& args, const std::vector<std::string>& trusted, CliIo& io) {
    if (args.value("--slurm-watch") || args.value("--slurm-resubmit") || args.value("--slurm-task"))
        return runSlurmCall(args, nullptr, io);
    BatchPlan plan = planFromArgs(args, trusted);
    for (const std::string& r : plan.refused)
        io.err << "reach-cli verify: refused: " << r << "\n";
    if (args.flag("--slurm"))
        return runSlurmCall(args, &plan, io);
    return runPool(args, std::move(plan), io);
}

}  // namespace reach::cli
