// reach-cli verify --batch JOBS [--project P.reach] [--gpus all|0,1,...] [--jobs-per-gpu N]
// Runs many reach-verify jobs on a pool of GPU workers (core/batch/batchpool.h), storing each
// result in the project as it arrives (core/batch/batchverify.h); --slurm hands the same jobs
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
#include "core/batch/batchpool.h"
#include "core/records/suspicion.h"
#include "core/store/projectstore.h"
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

// One pool run: what it was given and what it finished, which the summary line and the JSON
// document are written from.
struct PoolRun {
    std::string project;  // "" for none
    std::string batchId;
    int perGpu = 1;
    int skipped = 0;  // done before (--resume)
    json results = json::array();
    std::map<std::string, int> verdicts;
    std::vector<TimingSample> samples;  // for the spread when there is no project
    std::map<std::string, std::string> labels;
    BatchProgress last;
    double wall = 0;
    bool stopped = false;
};

// --resume: drops the jobs the project holds a run of on the batch's GPUs (matched by UUID).
int dropJobsDoneBefore(BatchPlan& plan, const ProjectStore& store,
                       const std::vector<BatchSlot>& slots) {
    std::set<std::string> uuids;
    std::map<std::string, std::string> uuidByGpu;
    for (const BatchSlot& s : slots) {
        if (!s.uuid.empty())
            uuids.insert(s.uuid);
        uuidByGpu[s.gpu] = s.uuid;
    }
    return dropDoneJobs(plan, store, uuids, uuidByGpu);
}

BatchPoolOptions poolOptions(const CliArgs& args, const std::string& verifier,
                             const std::vector<BatchSlot>& slots, const BatchPlan& plan) {
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
    return o;
}

// One finished job: stored in the project (if any), counted, and reported (a line, or an entry
// of the --json document).
void takeOutcome(const BatchOutcome& out, BatchPlan& plan, const std::vector<BatchSlot>& slots,
                 std::optional<ProjectStore>& store, bool asJson, PoolRun& run, CliIo& io) {
    const BatchJob& job = *out.job;
    const BatchSlot& slot = slots[size_t(out.slot)];
    bool stored = false;
    if (store) {
        EvalRecord& record = plan.records[size_t(&job - plan.jobs.data())];
        stored = storeBatchResult(*store, record, job, out.result, out.run.out,
                                  out.run.seconds * 1000, slot, run.batchId);
    }
    ++run.verdicts[out.result.verdict];
    if (out.result.timing) {
        run.samples.push_back({job.candidateHash, job.problemHash,
                               !out.result.device.uuid.empty() ? out.result.device.uuid : slot.uuid,
                               out.result.timing->medianUs});
        run.labels.emplace(job.candidateHash + " " + job.problemHash,
                           job.label.substr(0, job.label.find(" [GPU ")));
    }
    if (asJson)
        run.results.push_back(resultJson(job, out.result, slot, stored));
    else
        io.out << resultLine(job.label, out.result, slot.gpu) << std::endl;
}

// Runs the plan's jobs on the pool, with a progress line on stderr at most every
// --progress-interval seconds and one at the end; a stop (Ctrl-C, SIGTERM) leaves the rest for
// --resume.
void runJobs(const CliArgs& args, BatchPlan& plan, const BatchPoolOptions& o,
             std::optional<ProjectStore>& store, PoolRun& run, CliIo& io) {
    const std::vector<BatchSlot>& slots = o.slots;
    const bool asJson = args.flag("--json");
    const double every = args.number("--progress-interval", 0, 3600).value_or(2);
    auto lastProgress = Clock::now() - std::chrono::hours(1);
    run.last.total = int(plan.jobs.size());
    run.last.skipped = run.skipped;
    const auto t0 = Clock::now();
    if (!plan.jobs.empty()) {
        io.err << "batch " << run.batchId << ": " << plan.jobs.size() << " jobs on " << slots.size()
               << " worker(s) (" << slots.size() / size_t(run.perGpu) << " GPU(s) x " << run.perGpu
               << ")"
               << (run.skipped ? ", " + std::to_string(run.skipped) + " done before (resume)" : "")
               << "\n";
        runBatch(
            plan.jobs, o,
            [&](const BatchOutcome& out) { takeOutcome(out, plan, slots, store, asJson, run, io); },
            [&](const BatchProgress& p) {
                run.last = p;
                if (Clock::now() - lastProgress >= std::chrono::duration<double>(every)) {
                    io.err << p.line(slots) << std::endl;
                    lastProgress = Clock::now();
                }
            },
            interruptToken(), run.skipped);
    }
    run.wall = std::chrono::duration<double>(Clock::now() - t0).count();
    run.last.elapsedSeconds = run.wall;
    run.last.running = 0;
    if (run.last.total > 0)
        io.err << run.last.line(slots) << std::endl;
    run.stopped = run.last.done < run.last.total;
    if (run.stopped)
        io.err << "batch " << run.batchId << ": stopped with " << run.last.remaining()
               << " jobs left; run again with --resume to finish\n";
}

void printPoolJson(const PoolRun& run, const BatchPlan& plan, const std::vector<BatchSlot>& slots,
                   const std::vector<TimingSpread>& spreads,
                   const std::vector<std::string>& warnings, CliIo& io) {
    json gpus = json::array();
    for (size_t i = 0; i < slots.size() / size_t(run.perGpu); ++i)
        gpus.push_back({{"index", slots[i].gpu},
                        {"uuid", slots[i].uuid},
                        {"name", slots[i].name},
                        {"arch", slots[i].arch}});
    json spreadDoc = json::array();
    for (const TimingSpread& s : spreads)
        spreadDoc.push_back(spreadJson(s));
    const BatchProgress& last = run.last;
    io.out << json{{"batch", run.batchId},
                   {"source", plan.source},
                   {"project", run.project.empty() ? json(nullptr) : json(run.project)},
                   {"gpus", gpus},
                   {"jobs_per_gpu", run.perGpu},
                   {"total", last.total},
                   {"skipped", run.skipped},
                   {"done", last.done},
                   {"stopped", run.stopped},
                   {"verdicts", run.verdicts},
                   {"wall_seconds", run.wall},
                   {"jobs_per_hour", run.wall > 0 ? last.done * 3600.0 / run.wall : 0},
                   {"results", run.results},
                   {"refused", plan.refused},
                   {"left_out", plan.leftOut},
                   {"timing_spread", spreadDoc},
                   {"warnings", warnings}}
                  .dump(2)
           << "\n";
}

void printPoolSummary(const PoolRun& run, const BatchPlan& plan,
                      const std::vector<std::string>& warnings, CliIo& io) {
    const BatchProgress& last = run.last;
    if (last.total == 0) {
        io.out << "nothing to run: " << run.skipped << " job(s) done before"
               << (plan.leftOut ? ", " + std::to_string(plan.leftOut) + " left out by the selection"
                                : "")
               << "\n";
        return;
    }
    io.out << last.done << " of " << last.total << " jobs in " << formatted(run.wall, "%.1f", "-")
           << " s";
    if (run.wall > 0 && last.done)
        io.out << " (" << formatted(last.done * 3600.0 / run.wall, "%.0f", "-") << " jobs/h)";
    io.out << ":";
    for (const auto& [v, n] : run.verdicts)
        io.out << " " << n << " " << v;
    io.out << (run.skipped ? "; " + std::to_string(run.skipped) + " skipped (done before)" : "")
           << "\n";
    if (!run.project.empty())
        io.out << "stored in " << run.project << " (batch " << run.batchId << ")\n";
    for (const std::string& w : warnings)
        io.out << "warning: " << w << "\n";
}

int runPool(const CliArgs& args, BatchPlan plan, CliIo& io) {
    PoolRun run;
    run.project = projectPath(args, plan);
    if (args.flag("--resume") && run.project.empty())
        throw UsageError("verify --batch --resume needs --project P.reach (where the results are)");
    const std::string verifier = findVerifierExecutable();
    run.perGpu = int(args.integer("--jobs-per-gpu", 1, 64).value_or(1));
    const std::vector<BatchSlot> slots =
        batchSlots(verifier, args.value("--gpus").value_or("all"), run.perGpu);
    if (args.flag("--each-gpu"))
        pinToEveryGpu(plan, slots);

    // Where each result is stored as it arrives (one transaction each).
    std::optional<ProjectStore> store;
    if (!run.project.empty())
        store.emplace(ProjectStore::open(run.project));
    if (args.flag("--resume"))
        run.skipped = dropJobsDoneBefore(plan, *store, slots);
    const BatchPoolOptions o = poolOptions(args, verifier, slots, plan);
    run.batchId = newBatchId();
    runJobs(args, plan, o, store, run, io);

    // The cross-GPU timing spread: from every run the project holds of these jobs, else from
    // this run's.
    std::vector<TimingSpread> spreads =
        store ? batchTimingSpreads(*store, plan) : timingSpreads(run.samples, run.labels);
    std::vector<std::string> warnings;
    for (const TimingSpread& s : spreads)
        if (s.exceeds)
            warnings.push_back(spreadLine(s));
    int failed = 0;
    for (const auto& [v, n] : run.verdicts)
        failed += v == "pass" ? 0 : n;
    if (args.flag("--json"))
        printPoolJson(run, plan, slots, spreads, warnings, io);
    else
        printPoolSummary(run, plan, warnings, io);
    return failed == 0 && plan.refused.empty() && !run.stopped ? kExitOk : kExitDataSaysNo;
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
