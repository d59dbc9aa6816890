#include "core/batch/slurmwatch.h"

#include <ctime>
#include <filesystem>

#include "core/base/inputerror.h"
#include "core/batch/batchverify.h"
#include "core/store/projectstore.h"
#include "core/store/verificationstore.h"

namespace reach {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string firstLine(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
        line.pop_back();
    return line;
}

std::string join(const std::set<std::string>& ids) {
    std::string out;
    for (const std::string& id : ids)
        out += (out.empty() ? "" : ",") + id;
    return out;
}

std::string nowIso() {
    char b[32];
    const std::time_t t = std::time(nullptr);
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return b;
}

std::vector<int> arrayTasks(std::string spec) {
    spec = spec.substr(0, spec.find('%'));
    // The same grammar squeue prints inside brackets.
    std::vector<SlurmTaskState> parsed = parseSqueue("x_[" + spec + "]|PENDING|");
    return parsed.empty() ? std::vector<int>{} : parsed.front().tasks;
}

}  // namespace

json recordTag(const EvalRecord& r) {
    return {{"store_id", r.storeId},          {"suite", r.suite},   {"problem_id", r.problemId},
            {"problem_name", r.problemName},  {"model", r.model},   {"backend", r.backend},
            {"sample_id", r.sampleId},        {"source", r.source}, {"source_line", r.sourceLine},
            {"artifact_path", r.artifactPath}};
}

EvalRecord recordFromTag(const json& t) {
    EvalRecord r;
    if (!t.is_object())
        return r;
    r.storeId = t.value("store_id", int64_t(0));
    r.suite = t.value("suite", "");
    r.problemId = t.value("problem_id", "");
    r.problemName = t.value("problem_name", "");
    r.model = t.value("model", "");
    r.backend = t.value("backend", "");
    r.sampleId = t.value("sample_id", "");
    r.source = t.value("source", "");
    r.sourceLine = t.value("source_line", int64_t(0));
    r.artifactPath = t.value("artifact_path", "");
    return r;
}

SlurmWatcher::SlurmWatcher(SlurmBatch batch, ProjectStore* store, Runner runner)
    : m_batch(std::move(batch)), m_store(store), m_runner(std::move(runner)) {
    if (m_store)
        for (std::string& t : storedBatchEntries(*m_store, m_batch.id))
            m_tags.insert(std::move(t));
}

ChildResult SlurmWatcher::run(const std::vector<std::string>& argv) const {
    return m_runner ? m_runner(argv) : runChild(argv, 120);
}

std::string SlurmWatcher::submit(const std::vector<int>& tasksIn) {
    std::vector<int> tasks = tasksIn;
    if (tasks.empty())
        for (int t = 0; t < int(m_batch.tasks.size()); ++t)
            tasks.push_back(t);
    const std::string spec = slurmArraySpec(tasks, m_batch.options.arrayLimit);
    m_batch.write();  // the script and the jobs are on the shared disk before any task starts
    const ChildResult c = run(sbatchCommand(m_batch, spec));
    if (!c.started)
        throw InputError("sbatch", "", "Slurm's sbatch on PATH (" + c.error + ")");
    if (c.exitCode != 0)
        throw InputError("sbatch", "exit " + std::to_string(c.exitCode),
                         firstLine(c.err.empty() ? c.out : c.err));
    const std::string id = parseSbatchJobId(c.out);
    if (id.empty())
        throw InputError("sbatch", "output", "a job id, got '" + firstLine(c.out) + "'");
    m_batch.submissions.push_back({id, spec, nowIso()});
    m_batch.write();
    return id;
}

std::vector<SlurmImport> SlurmWatcher::importNew() {
    std::map<int, size_t> position;
    for (size_t p = 0; p < m_batch.jobs.size(); ++p)
        position[m_batch.jobs[p].index] = p;
    std::set<StoredRunKey> stored;
    if (m_store)
        for (StoredRunKey& k : storedRunKeys(*m_store))
            stored.insert(std::move(k));
    std::vector<SlurmImport> out;
    for (int job : slurmResultsPresent(m_batch)) {
        if (m_read.count(job) || !position.count(job))
            continue;
        m_read.insert(job);
        const size_t p = position[job];
        const BatchJob& bj = m_batch.jobs[p];
        SlurmImport imp;
        imp.job = job;
        imp.label = bj.label;
        SlurmResult r;
        try {
            r = readSlurmResult(m_batch.resultFile(job));
        } catch (const InputError& e) {
            imp.skipped = e.what();
            out.push_back(std::move(imp));
            continue;
        }
        VerifyProcessRequest req = bj.request;
        req.verifier = m_batch.verifier;
        imp.result = resultFromRun(req, r.run);
        imp.rawJson = r.run.out;
        imp.host = r.host;
        imp.gpu = r.gpu;
        const std::string tag = m_batch.id + "#" + std::to_string(job);
        if (!m_store) {
            imp.skipped = "no project";
        } else if (m_tags.count(tag)) {
            imp.skipped = "imported before";
        } else if (stored.count({bj.candidateHash, bj.problemHash, imp.result.device.uuid})) {
            imp.skipped = "the project holds a run of this candidate on this GPU";
        } else {
            EvalRecord record = recordFromTag(p < m_batch.tags.size() ? m_batch.tags[p] : json());
            BatchSlot slot;
            slot.gpu = r.gpu;
            imp.stored = storeBatchResult(*m_store, record, bj, imp.result, imp.rawJson,
                                          r.run.seconds * 1000, slot, tag);
            if (imp.stored) {
                m_tags.insert(tag);
                stored.insert({bj.candidateHash, bj.problemHash, imp.result.device.uuid});
                ++m_imported;
            } else {
                imp.skipped = "it judged nothing (" + imp.result.verdict + ")";
            }
        }
        out.push_back(std::move(imp));
    }
    return out;
}

std::map<int, std::string> SlurmWatcher::latestJobIdByTask() const {
    std::map<int, std::string> latest;
    for (const SlurmSubmission& s : m_batch.submissions)
        for (int t : arrayTasks(s.arraySpec))
            latest[t] = s.jobId;
    return latest;
}

std::vector<SlurmTaskReport> SlurmWatcher::poll() {
    const std::map<int, std::string> latest = latestJobIdByTask();
    std::set<std::string> ids;
    for (const auto& [t, id] : latest)
        ids.insert(id);
    std::map<std::pair<std::string, int>, SlurmTaskState> known;
    auto learn = [&](const std::vector<SlurmTaskState>& states, bool overwrite) {
        for (const SlurmTaskState& s : states)
            for (int t : s.tasks)
                if (overwrite || !known.count({s.jobId, t}))
                    known[{s.jobId, t}] = s;
    };
    if (!ids.empty()) {
        const ChildResult sq = run({"squeue", "-h", "-r", "-j", join(ids), "-o", "%i|%T|%r"});
        if (!sq.started)
            throw InputError("squeue", "", "Slurm's squeue on PATH (" + sq.error + ")");
        // A job Slurm has already forgotten is "Invalid job id": nothing of it is active.
        if (sq.exitCode != 0 && sq.err.find("Invalid job id") == std::string::npos)
            throw InputError("squeue", "exit " + std::to_string(sq.exitCode), firstLine(sq.err));
        learn(parseSqueue(sq.out), true);
    }
    bool ended = false;
    for (const auto& [t, id] : latest)
        ended |= !known.count({id, t});
    if (ended) {
        // Ended tasks: Slurm's accounting when the cluster keeps it, else the controller's memory.
        const ChildResult sa =
            run({"sacct", "-n", "-P", "-X", "-j", join(ids), "-o", "JobID,State,ExitCode"});
        if (sa.started && sa.exitCode == 0)
            learn(parseSacct(sa.out), false);
        for (const std::string& id : ids) {
            const ChildResult sc = run({"scontrol", "-o", "show", "job", id});
            if (sc.started && sc.exitCode == 0)
                learn(parseScontrolJobs(sc.out), false);
        }
    }
    std::vector<SlurmTaskReport> out;
    for (int t = 0; t < int(m_batch.tasks.size()); ++t) {
        SlurmTaskReport r;
        r.task = t;
        r.jobs = int(m_batch.tasks[size_t(t)].size());
        for (int p : m_batch.tasks[size_t(t)]) {
            std::error_code ec;
            r.missing += !fs::exists(m_batch.resultFile(m_batch.jobs[size_t(p)].index), ec);
        }
        const auto l = latest.find(t);
        if (l == latest.end()) {
            r.state = "NOT_SUBMITTED";
        } else {
            r.jobId = l->second;
            const auto k = known.find({l->second, t});
            if (k != known.end()) {
                r.state = k->second.state;
                r.reason = k->second.reason;
                r.exitCode = k->second.exitCode;
            } else {
                std::error_code ec;
                r.state = fs::exists(m_batch.doneFile(t), ec) ? "COMPLETED" : "ENDED";
            }
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<int> SlurmWatcher::unfinished(const std::vector<SlurmTaskReport>& tasks) {
    std::vector<int> out;
    for (const SlurmTaskReport& r : tasks)
        if (!r.active() && r.missing > 0)
            out.push_back(r.task);
    return out;
}

}  // namespace reach
