#include "core/batch/slurmbatch.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/wholefile.h"
#include "core/batch/batchpool.h"

namespace reach {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Written whole or not at all: a reader (the watcher, on another node) never sees half a file.
void writeWhole(const std::string& path, const std::string& text) {
    writeWholeFile(path, text, "a writable file in the batch directory");
}

json jobJson(const BatchJob& j, const json& tag) {
    json o = {{"index", j.index},
              {"label", j.label},
              {"problem_file", j.request.problemFile},
              {"candidate_file", j.request.candidateFile},
              {"args", j.request.extraArgs},
              {"timeout_s", j.request.timeoutSeconds},
              {"kernelbench_format", j.kernelBenchFormat},
              {"candidate_hash", j.candidateHash},
              {"problem_hash", j.problemHash},
              {"tag", tag}};
    return o;
}

std::string nowIso() {
    char b[32];
    const std::time_t t = std::time(nullptr);
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return b;
}

}  // namespace

std::string SlurmBatch::resultFile(int job) const {
    return dir + "/results/job-" + std::to_string(job) + ".json";
}

std::string SlurmBatch::doneFile(int task) const {
    return dir + "/tasks/task-" + std::to_string(task) + ".done";
}

json SlurmBatch::toJson() const {
    json j = {{"schema", "reach.slurm_batch"},
              {"schema_version", 1},
              {"id", id},
              {"dir", dir},
              {"reach_cli", reachCli},
              {"verifier", verifier},
              {"env", env},
              {"options",
               {{"partition", options.partition},
                {"gres", options.gres},
                {"time", options.time},
                {"account", options.account},
                {"array_limit", options.arrayLimit},
                {"jobs_per_task", options.jobsPerTask},
                {"sbatch_args", options.sbatchArgs}}},
              {"jobs", json::array()},
              {"tasks", tasks},
              {"submissions", json::array()}};
    for (size_t i = 0; i < jobs.size(); ++i)
        j["jobs"].push_back(jobJson(jobs[i], i < tags.size() ? tags[i] : json()));
    for (const SlurmSubmission& s : submissions)
        j["submissions"].push_back({{"job_id", s.jobId}, {"array", s.arraySpec}, {"at", s.at}});
    return j;
}

SlurmBatch SlurmBatch::read(const std::string& dirIn) {
    const std::string file = dirIn + "/batch.json";
    std::ifstream in(file);
    if (!in)
        throw InputError(file, "", "a Slurm batch directory written by reach-cli verify --slurm");
    std::ostringstream text;
    text << in.rdbuf();
    const json j = tryParseJson(text.str()).value_or(json());
    if (!j.is_object() || j.value("schema", "") != "reach.slurm_batch")
        throw InputError(file, "key \"schema\"", "\"reach.slurm_batch\"");
    SlurmBatch b;
    try {
        b.dir = j.at("dir").get<std::string>();
        b.id = j.at("id").get<std::string>();
        b.reachCli = j.at("reach_cli").get<std::string>();
        b.verifier = j.at("verifier").get<std::string>();
        b.env = j.at("env").get<std::vector<std::string>>();
        const json& o = j.at("options");
        b.options.partition = o.value("partition", "");
        b.options.gres = o.value("gres", "");
        b.options.time = o.value("time", "");
        b.options.account = o.value("account", "");
        b.options.arrayLimit = o.value("array_limit", 0);
        b.options.jobsPerTask = o.value("jobs_per_task", 0);
        b.options.sbatchArgs = o.value("sbatch_args", std::vector<std::string>());
        for (const json& jj : j.at("jobs")) {
            BatchJob job;
            job.index = jj.at("index").get<int>();
            job.label = jj.value("label", "");
            job.request.problemFile = jj.at("problem_file").get<std::string>();
            job.request.candidateFile = jj.at("candidate_file").get<std::string>();
            job.request.extraArgs = jj.value("args", std::vector<std::string>());
            job.request.timeoutSeconds = jj.value("timeout_s", 60.0);
            job.kernelBenchFormat = jj.value("kernelbench_format", false);
            job.candidateHash = jj.value("candidate_hash", "");
            job.problemHash = jj.value("problem_hash", "");
            b.jobs.push_back(std::move(job));
            b.tags.push_back(jj.value("tag", json()));
        }
        b.tasks = j.at("tasks").get<std::vector<std::vector<int>>>();
        for (const json& s : j.at("submissions"))
            b.submissions.push_back({s.at("job_id").get<std::string>(),
                                     s.at("array").get<std::string>(), s.value("at", "")});
    } catch (const json::exception& e) {
        throw InputError(file, "", std::string("the keys reach-cli writes (") + e.what() + ")");
    }
    for (const auto& t : b.tasks)
        for (int p : t)
            if (p < 0 || p >= int(b.jobs.size()))
                throw InputError(file, "key \"tasks\"", "positions of jobs in \"jobs\"");
    return b;
}

void SlurmBatch::write() const {
    for (const char* sub : {"results", "tasks", "logs"})
        fs::create_directories(fs::path(dir) / sub);
    writeWhole(batchFile(), toJson().dump(1) + "\n");
    writeWhole(scriptFile(), slurmArrayScript(*this));
    fs::permissions(scriptFile(), fs::perms::owner_all | fs::perms::group_read |
                                      fs::perms::group_exec | fs::perms::others_read |
                                      fs::perms::others_exec);
}

SlurmBatch makeSlurmBatch(const std::string& dir, const std::string& id, std::vector<BatchJob> jobs,
                          std::vector<json> tags, const SlurmOptions& options,
                          const std::string& reachCli, const std::string& verifier,
                          const std::vector<std::string>& env) {
    SlurmBatch b;
    b.dir = fs::absolute(dir).lexically_normal().string();
    while (b.dir.size() > 1 && b.dir.back() == '/')
        b.dir.pop_back();
    b.id = id;
    b.reachCli = reachCli;
    b.verifier = verifier;
    b.env = env;
    b.options = options;
    const int n = int(jobs.size());
    int per = options.jobsPerTask;
    if (per <= 0)
        per = std::max(1, (n + 999) / 1000);  // Slurm's default MaxArraySize is 1001
    b.options.jobsPerTask = per;
    for (int first = 0; first < n; first += per) {
        std::vector<int> slice;
        for (int k = first; k < std::min(n, first + per); ++k)
            slice.push_back(k);
        b.tasks.push_back(std::move(slice));
    }
    b.jobs = std::move(jobs);
    b.tags = std::move(tags);
    return b;
}

std::string slurmArrayScript(const SlurmBatch& b) {
    std::ostringstream s;
    s << "#!/bin/bash\n"
      << "# Written by reach-cli verify --slurm (docs/batch.md). Each array task verifies its\n"
      << "# slice of batch.json, one reach-verify per job, and writes results/job-N.json.\n"
      << "#SBATCH --job-name=reach-verify\n"
      << "#SBATCH --output=" << b.dir << "/logs/task-%a-%A.out\n";
    if (!b.options.partition.empty())
        s << "#SBATCH --partition=" << b.options.partition << "\n";
    if (!b.options.gres.empty())
        s << "#SBATCH --gres=" << b.options.gres << "\n";
    if (!b.options.time.empty())
        s << "#SBATCH --time=" << b.options.time << "\n";
    if (!b.options.account.empty())
        s << "#SBATCH --account=" << b.options.account << "\n";
    for (const std::string& e : b.env) {
        const size_t eq = e.find('=');
        if (eq != std::string::npos && eq > 0)
            s << "export " << e.substr(0, eq) << "=" << shellQuote(e.substr(eq + 1)) << "\n";
    }
    s << "export REACH_VERIFY=" << shellQuote(b.verifier) << "\n"
      << "exec " << shellQuote(b.reachCli) << " verify --slurm-task " << shellQuote(b.dir)
      << " --task \"$SLURM_ARRAY_TASK_ID\"\n";
    return s.str();
}

std::string slurmArraySpec(const std::vector<int>& tasksIn, int limit) {
    std::vector<int> tasks = tasksIn;
    std::sort(tasks.begin(), tasks.end());
    tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
    std::string out;
    for (size_t i = 0; i < tasks.size();) {
        size_t j = i;
        while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1)
            ++j;
        out += (out.empty() ? "" : ",") + std::to_string(tasks[i]);
        if (j > i)
            out += "-" + std::to_string(tasks[j]);
        i = j + 1;
    }
    if (limit > 0)
        out += "%" + std::to_string(limit);
    return out;
}

std::vector<std::string> sbatchCommand(const SlurmBatch& b, const std::string& arraySpec) {
    std::vector<std::string> argv = {"sbatch", "--parsable", "--array=" + arraySpec};
    argv.insert(argv.end(), b.options.sbatchArgs.begin(), b.options.sbatchArgs.end());
    argv.push_back(b.scriptFile());
    return argv;
}

void writeSlurmResult(const SlurmBatch& b, const SlurmResult& r) {
    const VerifierRun& run = r.run;
    const json j = {
        {"schema", "reach.slurm_result"},
        {"job", r.job},
        {"task", r.task},
        {"slurm_job_id", r.slurmJobId},
        {"host", r.host},
        {"cuda_visible_devices", r.gpu},
        {"run",
         {{"started", run.started},
          {"start_error", run.startError},
          {"timed_out", run.timedOut},
          {"crashed", run.crashed},
          {"exit_code", run.exitCode},
          {"term_signal", run.termSignal},
          {"seconds", run.seconds},
          {"stderr", run.err.size() > 65536 ? run.err.substr(run.err.size() - 65536) : run.err}}},
        {"stdout", run.out}};
    writeWhole(b.resultFile(r.job), j.dump() + "\n");
}

SlurmResult readSlurmResult(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    const json j = tryParseJson(text.str()).value_or(json());
    if (!j.is_object() || j.value("schema", "") != "reach.slurm_result")
        throw InputError(path, "key \"schema\"", "\"reach.slurm_result\"");
    SlurmResult r;
    try {
        r.job = j.at("job").get<int>();
        r.task = j.value("task", -1);
        r.slurmJobId = j.value("slurm_job_id", "");
        r.host = j.value("host", "");
        r.gpu = j.value("cuda_visible_devices", "");
        const json& run = j.at("run");
        r.run.started = run.value("started", true);
        r.run.startError = run.value("start_error", "");
        r.run.timedOut = run.value("timed_out", false);
        r.run.crashed = run.value("crashed", false);
        r.run.exitCode = run.value("exit_code", 0);
        r.run.termSignal = run.value("term_signal", 0);
        r.run.seconds = run.value("seconds", 0.0);
        r.run.err = run.value("stderr", "");
        r.run.out = j.value("stdout", "");
    } catch (const json::exception& e) {
        throw InputError(path, "",
                         std::string("a result written by a Slurm task (") + e.what() + ")");
    }
    return r;
}

std::vector<int> slurmResultsPresent(const SlurmBatch& b) {
    std::vector<int> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(b.dir) / "results", ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("job-", 0) != 0 || !name.ends_with(".json"))
            continue;
        try {
            out.push_back(std::stoi(name.substr(4, name.size() - 9)));
        } catch (const std::exception&) {
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

int runSlurmTask(const SlurmBatch& b, int task, std::stop_token stop) {
    if (task < 0 || task >= int(b.tasks.size()))
        throw InputError(
            b.batchFile(), "task " + std::to_string(task),
            "an array task of this batch (0.." + std::to_string(b.tasks.size() - 1) + ")");
    // A resubmitted task runs only what its earlier run did not finish.
    std::vector<BatchJob> todo;
    for (int p : b.tasks[size_t(task)]) {
        std::error_code ec;
        if (!fs::exists(b.resultFile(b.jobs[size_t(p)].index), ec))
            todo.push_back(b.jobs[size_t(p)]);
    }
    const char* jobId = std::getenv("SLURM_ARRAY_JOB_ID");
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    BatchPoolOptions o;
    o.verifier = b.verifier;
    o.env = b.env;            // as the array script exports them (also when run outside Slurm)
    o.slots = {BatchSlot{}};  // the GPU Slurm gave this task: CUDA_VISIBLE_DEVICES as it is
    o.lockDir.clear();        // the GPU is the task's alone (--gres)
    int ran = 0;
    runBatch(
        todo, o,
        [&](const BatchOutcome& out) {
            SlurmResult r;
            r.job = out.job->index;
            r.task = task;
            r.slurmJobId = jobId ? jobId : "";
            r.host = host;
            r.gpu = visible ? visible : "";
            r.run = out.run;
            writeSlurmResult(b, r);
            ++ran;
        },
        {}, stop);
    if (!stop.stop_requested())
        std::ofstream(b.doneFile(task)) << nowIso() << " " << ran << " jobs\n";
    return ran;
}

}  // namespace reach
