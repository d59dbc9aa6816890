// reach-cli verify --batch JOBS --slurm [--partition P] [--gres gpu:1] [--time T]
//                  [--array-limit N] [--jobs-per-task K] [--slurm-dir DIR] [--no-wait]
// reach-cli verify --slurm-watch DIR | --slurm-resubmit DIR [--project P.reach]
// reach-cli verify --slurm-task DIR --task I          (what each array task runs)
// The same jobs as the pool, as one Slurm job array: Reach writes the script and the job list,
// sbatch runs them, and Reach reads back the result files and Slurm's own view (squeue, sacct,
// scontrol). core/batch/slurmbatch.h, core/batch/slurmwatch.h, docs/batch.md.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <ostream>
#include <thread>

#include "cliverifybatch.h"
#include "core/base/inputerror.h"
#include "core/base/resourcepaths.h"
#include "core/batch/slurmwatch.h"
#include "core/store/projectstore.h"
#include "core/verify/verifyprocess.h"

namespace reach::cli {

namespace {

namespace fs = std::filesystem;

std::string absoluteProgram(const std::string& p) {
    if (p.find('/') == std::string::npos)
        return p;  // found on PATH, on the nodes too
    return fs::absolute(p).lexically_normal().string();
}

// Imports and polls until no task is pending or running; returns the exit status.
int watch(SlurmWatcher& w, const std::optional<std::string>& project, double pollSeconds,
          CliIo& io) {
    const SlurmBatch& b = w.batch();
    const std::stop_token stop = interruptToken();
    std::map<std::string, int> verdicts;
    int read = 0;
    std::vector<SlurmTaskReport> tasks;
    auto importAll = [&] {
        for (const SlurmImport& imp : w.importNew()) {
            ++read;
            if (imp.job < 0 || !imp.skipped.empty()) {
                if (imp.skipped != "imported before" && imp.skipped != "no project")
                    io.err << "slurm: job " << imp.job << " (" << imp.label
                           << "): not stored: " << imp.skipped << "\n";
            }
            ++verdicts[imp.result.verdict];
            io.out << resultLine(imp.label, imp.result, imp.gpu) << std::endl;
        }
    };
    while (true) {
        importAll();
        tasks = w.poll();
        int active = 0, failed = 0;
        for (const SlurmTaskReport& t : tasks) {
            active += t.active();
            failed += !t.active() && t.missing > 0;
        }
        io.err << "slurm " << (b.submissions.empty() ? "" : b.submissions.back().jobId) << ": "
               << w.jobsWithResults() << "/" << b.jobs.size() << " results, " << w.imported()
               << " imported; tasks: " << active << " pending or running, " << failed
               << " ended unfinished" << std::endl;
        if (active == 0 || stop.stop_requested())
            break;
        const auto until = std::chrono::steady_clock::now() +
                           std::chrono::milliseconds(int64_t(pollSeconds * 1000));
        while (std::chrono::steady_clock::now() < until && !stop.stop_requested())
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    importAll();
    tasks = w.poll();
    const std::vector<int> again = SlurmWatcher::unfinished(tasks);
    for (const SlurmTaskReport& t : tasks)
        if (!t.active() && t.missing > 0)
            io.out << "task " << t.task << " (Slurm job " << t.jobId << "_" << t.task
                   << "): " << t.state << (t.exitCode.empty() ? "" : ", exit " + t.exitCode) << "; "
                   << t.missing << " of " << t.jobs << " jobs without a result\n";
    int failedVerdicts = 0;
    for (const auto& [v, n] : verdicts)
        failedVerdicts += v == "pass" ? 0 : n;
    io.out << w.jobsWithResults() << " of " << b.jobs.size() << " jobs have results";
    if (project)
        io.out << ", " << w.imported() << " imported into " << *project << " this time";
    io.out << "\n";
    if (!again.empty())
        io.out << again.size() << " task(s) ended without finishing; resubmit them with:\n"
               << "  reach-cli verify --slurm-resubmit " << b.dir
               << (project ? " --project " + *project : std::string()) << "\n";
    const bool complete = w.jobsWithResults() == int(b.jobs.size());
    return complete && failedVerdicts == 0 ? kExitOk : kExitDataSaysNo;
}

}  // namespace

int runSlurmCall(const CliArgs& args, BatchPlan* plan, CliIo& io) {
    if (auto dir = args.value("--slurm-task")) {
        const auto task = args.integer("--task", 0, 10000000);
        if (!task)
            throw UsageError("verify --slurm-task DIR needs --task I (the array task id)");
        const SlurmBatch b = SlurmBatch::read(*dir);
        const int ran = runSlurmTask(b, int(*task), interruptToken());
        io.err << "slurm task " << *task << ": " << ran << " job(s) run\n";
        return interruptToken().stop_requested() ? kExitDataSaysNo : kExitOk;
    }
    const std::optional<std::string> project = args.value("--project");
    std::optional<ProjectStore> store;
    if (project)
        store.emplace(ProjectStore::open(*project));
    const double poll = args.number("--poll", 0.1, 3600).value_or(10);
    const bool wait = !args.flag("--no-wait");

    if (auto dir = args.value("--slurm-watch")) {
        SlurmWatcher w(SlurmBatch::read(*dir), store ? &*store : nullptr);
        return watch(w, project, poll, io);
    }
    if (auto dir = args.value("--slurm-resubmit")) {
        SlurmWatcher w(SlurmBatch::read(*dir), store ? &*store : nullptr);
        w.importNew();
        const std::vector<int> again = SlurmWatcher::unfinished(w.poll());
        if (again.empty()) {
            io.out << "nothing to resubmit: no task of " << *dir
                   << " ended without finishing (or some are still pending or running)\n";
            return wait ? watch(w, project, poll, io) : kExitOk;
        }
        const std::string id = w.submit(again);
        io.out << "resubmitted " << again.size() << " task(s) as Slurm job " << id << " ("
               << w.batch().submissions.back().arraySpec << ")\n";
        return wait ? watch(w, project, poll, io) : kExitOk;
    }

    // A new batch.
    std::string resolvedProject = project.value_or(plan->kind == "project" ? plan->source : "");
    if (!resolvedProject.empty() && !store)
        store.emplace(ProjectStore::open(resolvedProject));
    const std::string id = newBatchId();
    const std::string dir =
        args.value("--slurm-dir")
            .value_or(!resolvedProject.empty() ? resolvedProject + ".slurm/" + id
                                               : "reach-slurm/" + id);
    std::error_code ec;
    if (fs::exists(fs::path(dir) / "batch.json", ec))
        throw InputError(dir, "batch.json",
                         "a directory without a batch (watch that one with --slurm-watch " + dir +
                             ", or choose another --slurm-dir)");
    int skipped = 0;
    if (args.flag("--resume")) {
        if (!store)
            throw UsageError("verify --slurm --resume needs --project P.reach");
        // The GPUs of a cluster are not known before the tasks run: any GPU counts.
        skipped = dropDoneJobs(*plan, *store, {});
    }
    if (plan->jobs.empty()) {
        io.out << "nothing to submit: " << skipped << " job(s) done before\n";
        return plan->refused.empty() ? kExitOk : kExitDataSaysNo;
    }
    SlurmOptions o;
    o.partition = args.value("--partition").value_or("");
    o.gres = args.value("--gres").value_or("gpu:1");
    o.time = args.value("--time").value_or("");
    o.account = args.value("--account").value_or("");
    o.arrayLimit = int(args.integer("--array-limit", 1, 1000000).value_or(0));
    o.jobsPerTask = int(args.integer("--jobs-per-task", 1, 1000000).value_or(0));
    std::vector<nlohmann::json> tags;
    for (const EvalRecord& r : plan->records)
        tags.push_back(recordTag(r));
    std::vector<std::string> env;
    for (const char* name : {"REACH_RESOURCES", "REACH_CACHE_DIR", "REACH_PYTHON"})
        if (const char* v = std::getenv(name))
            env.push_back(std::string(name) + "=" + v);
    SlurmBatch batch = makeSlurmBatch(dir, id, plan->jobs, tags, o, executableDir() + "/reach-cli",
                                      absoluteProgram(findVerifierExecutable()), env);
    SlurmWatcher w(std::move(batch), store ? &*store : nullptr);
    const std::string jobId = w.submit();
    io.out << "submitted Slurm job " << jobId << ": " << w.batch().tasks.size()
           << " array task(s), " << w.batch().options.jobsPerTask << " job(s) each, "
           << w.batch().jobs.size() << " job(s)"
           << (skipped ? " (" + std::to_string(skipped) + " done before)" : "") << "\n"
           << "batch directory: " << w.batch().dir << "\n";
    if (!wait) {
        io.out << "watch it with: reach-cli verify --slurm-watch " << w.batch().dir
               << (resolvedProject.empty() ? "" : " --project " + resolvedProject) << "\n";
        return kExitOk;
    }
    return watch(w, resolvedProject.empty() ? std::nullopt : std::optional(resolvedProject), poll,
                 io);
}

}  // namespace reach::cli
