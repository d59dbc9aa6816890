#include "core/batch/batchverify.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/base/inputerror.h"
#include "core/records/recordimportverify.h"
#include "core/records/recordreader.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/verificationstore.h"

namespace reach {

namespace fs = std::filesystem;

namespace {

bool isSqliteFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[16] = {};
    in.read(head, sizeof head);
    return in.gcount() == 16 && std::string(head, 15) == "SQLite format 3";
}

std::string recordLabel(const EvalRecord& r) {
    std::string s = r.storeId ? "#" + std::to_string(r.storeId) + " "
                              : "line " + std::to_string(r.sourceLine) + " ";
    s += r.problemName.empty() ? r.problemId : r.problemName;
    std::string who = r.model;
    if (!r.sampleId.empty())
        who += (who.empty() ? "" : ", ") + std::string("sample ") + r.sampleId;
    return who.empty() ? s : s + " (" + who + ")";
}

bool selected(const EvalRecord& r, const BatchSelection& sel) {
    if (!sel.suspicious && !sel.unverified)
        return true;
    if (sel.unverified && r.verification == Verification::Unverified)
        return true;
    return sel.suspicious && !suspicionsFor(r, sel.suspicion).empty();
}

// Adds the job when its files hash; a file that vanished is refused, not fatal.
void addJob(BatchPlan& plan, BatchJob job, EvalRecord record, const BatchJobDefaults& d,
            const std::optional<double>& timeout) {
    try {
        hashJobFiles(job);
    } catch (const InputError& e) {
        plan.refused.push_back(job.label + ": " + e.what());
        return;
    }
    job.request.extraArgs.insert(job.request.extraArgs.end(), d.extraArgs.begin(),
                                 d.extraArgs.end());
    setJobTimeout(job.request, job.kernelBenchFormat, timeout ? timeout : d.timeoutSeconds);
    job.index = int(plan.jobs.size());
    plan.jobs.push_back(std::move(job));
    plan.records.push_back(std::move(record));
}

}  // namespace

BatchPlan planBatch(const std::string& jobsFile, const BatchSelection& selection,
                    const RecordJobOptions& trust, const BatchJobDefaults& defaults) {
    std::error_code ec;
    if (!fs::is_regular_file(jobsFile, ec))
        throw InputError(jobsFile, "",
                         fs::exists(jobsFile, ec)
                             ? "is not a file, expected a job list, records or a .reach project"
                             : "no such file, expected a job list, records or a .reach project");
    BatchPlan plan;
    plan.source = jobsFile;
    if (!isSqliteFile(jobsFile) && looksLikeJobPairs(jobsFile)) {
        plan.kind = "pairs";
        for (const JobPair& pair : readJobPairs(jobsFile)) {
            const std::string where = jobsFile + ": line " + std::to_string(pair.line);
            std::string why;
            const auto job = jobForPair(pair.problem, pair.candidate, jobsFile, trust, &why);
            if (!job) {
                plan.refused.push_back(where + ": " + why);
                continue;
            }
            BatchJob b;
            b.label = "line " + std::to_string(pair.line) + " " +
                      fs::path(pair.candidate).filename().string();
            b.request = job->request;
            b.request.extraArgs = pair.args;
            b.kernelBenchFormat = job->kernelBenchFormat;
            EvalRecord r;
            r.suite = "Reach";
            r.problemId = r.problemName = fs::path(b.request.problemFile).stem().string();
            r.sampleId = fs::path(b.request.candidateFile).filename().string();
            r.artifactPath = b.request.candidateFile;
            r.source = jobsFile;
            r.sourceLine = pair.line;
            addJob(plan, std::move(b), std::move(r), defaults, pair.timeoutSeconds);
        }
        return plan;
    }
    std::vector<EvalRecord> records;
    if (isSqliteFile(jobsFile)) {
        plan.kind = "project";
        const ProjectStore store = ProjectStore::open(jobsFile, ProjectStore::Mode::MustExist);
        for (const RecordSetEntry& set : recordSets(store)) {
            std::vector<EvalRecord> rs = loadRecordSet(store, set.id);
            records.insert(records.end(), rs.begin(), rs.end());
        }
    } else {
        plan.kind = "records";
        records = readRecords(jobsFile, {});
    }
    // The records file or project is one the user named: its folder is the records' folder.
    RecordJobOptions recordTrust = trust;
    recordTrust.recordDir = fs::absolute(fs::path(jobsFile)).parent_path().string();
    for (EvalRecord& r : records) {
        if (!selected(r, selection)) {
            ++plan.leftOut;
            continue;
        }
        BatchJob b;
        b.label = recordLabel(r);
        std::string why;
        const auto job = jobForRecord(r, recordTrust, &why);
        if (!job) {
            plan.refused.push_back(b.label + ": " + why);
            continue;
        }
        b.request = job->request;
        b.kernelBenchFormat = job->kernelBenchFormat;
        addJob(plan, std::move(b), std::move(r), defaults, std::nullopt);
    }
    return plan;
}

void pinToEveryGpu(BatchPlan& plan, const std::vector<BatchSlot>& slots) {
    std::vector<std::string> gpus;
    for (const BatchSlot& s : slots)
        if (std::find(gpus.begin(), gpus.end(), s.gpu) == gpus.end())
            gpus.push_back(s.gpu);
    BatchPlan out = plan;
    out.jobs.clear();
    out.records.clear();
    for (size_t j = 0; j < plan.jobs.size(); ++j) {
        for (const std::string& g : gpus) {
            BatchJob job = plan.jobs[j];
            job.pinnedGpu = g;
            job.label += " [GPU " + g + "]";
            job.index = int(out.jobs.size());
            out.jobs.push_back(std::move(job));
            out.records.push_back(plan.records[j]);
        }
    }
    plan = std::move(out);
}

int dropDoneJobs(BatchPlan& plan, const ProjectStore& store, const std::set<std::string>& uuids,
                 const std::map<std::string, std::string>& uuidByGpu) {
    std::set<StoredRunKey> done;
    for (StoredRunKey& k : storedRunKeys(store))
        done.insert(std::move(k));
    auto doneOn = [&](const BatchJob& j, const std::string& uuid) {
        return done.count({j.candidateHash, j.problemHash, uuid}) > 0;
    };
    auto isDone = [&](const BatchJob& j) {
        if (j.pinnedGpu) {
            const auto u = uuidByGpu.find(*j.pinnedGpu);
            return u != uuidByGpu.end() && doneOn(j, u->second);
        }
        if (!uuids.empty()) {
            for (const std::string& u : uuids)
                if (doneOn(j, u))
                    return true;
            return false;
        }
        const auto it = done.lower_bound({j.candidateHash, j.problemHash, ""});
        return it != done.end() && it->candidateHash == j.candidateHash &&
               it->problemHash == j.problemHash;
    };
    BatchPlan kept = plan;
    kept.jobs.clear();
    kept.records.clear();
    int dropped = 0;
    for (size_t i = 0; i < plan.jobs.size(); ++i) {
        if (isDone(plan.jobs[i])) {
            ++dropped;
            continue;
        }
        kept.jobs.push_back(plan.jobs[i]);
        kept.records.push_back(plan.records[i]);
    }
    plan = std::move(kept);
    return dropped;
}

bool storeBatchResult(ProjectStore& store, EvalRecord& record, const BatchJob& job,
                      const VerificationResult& result, const std::string& rawJson, double wallMs,
                      const BatchSlot& slot, const std::string& batchId) {
    if (!applyVerification(record, result))
        return false;
    VerificationOrigin origin;
    origin.candidateHash = job.candidateHash;
    origin.problemHash = job.problemHash;
    origin.deviceUuid = !result.device.uuid.empty() ? result.device.uuid : slot.uuid;
    origin.gpuIndex = !slot.gpu.empty() ? slot.gpu : result.device.visibleDevices;
    origin.batch = batchId;
    storeVerification(store, record, result, rawJson, wallMs, origin);
    return true;
}

std::vector<TimingSpread> batchTimingSpreads(const ProjectStore& store, const BatchPlan& plan,
                                             double threshold) {
    std::map<std::string, std::string> labels;
    for (const BatchJob& j : plan.jobs)  // the job, not one of its --each-gpu copies
        labels.emplace(j.candidateHash + " " + j.problemHash,
                       j.label.substr(0, j.label.find(" [GPU ")));
    std::vector<TimingSample> samples;
    for (const StoredTiming& t : storedTimings(store)) {
        if (labels.count(t.key.candidateHash + " " + t.key.problemHash))
            samples.push_back(
                {t.key.candidateHash, t.key.problemHash, t.key.deviceUuid, t.medianUs});
    }
    return timingSpreads(samples, labels, threshold);
}

}  // namespace reach
