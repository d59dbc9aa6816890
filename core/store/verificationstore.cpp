#include "core/store/verificationstore.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/sha256.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/sqlitedb.h"

namespace reach {

namespace {

// "" for a file that is gone or unreadable: such a row is kept, it just cannot be resumed by.
std::string hashOrEmpty(const std::string& path) {
    std::error_code ec;
    if (path.empty() || !std::filesystem::is_regular_file(path, ec))
        return {};
    try {
        return Sha256::hexOfFile(path);
    } catch (const InputError&) {
        return {};
    }
}

}  // namespace

int64_t storeVerification(ProjectStore& store, const EvalRecord& record,
                          const VerificationResult& result, const std::string& rawJson,
                          double wallMs, const VerificationOrigin& given) {
    VerificationOrigin origin = given;
    if (origin.candidateHash.empty())
        origin.candidateHash = hashOrEmpty(result.candidateFile);
    if (origin.problemHash.empty())
        origin.problemHash = hashOrEmpty(result.problemFile);
    if (origin.deviceUuid.empty())
        origin.deviceUuid = result.device.uuid;
    if (origin.gpuIndex.empty())
        origin.gpuIndex = result.device.visibleDevices;
    SqliteDb& db = store.database();
    int64_t id = 0;
    store.transaction([&] {
        const std::optional<int64_t> recordId = findStoredRecord(store, record);
        SqliteStatement ins = db.prepare(
            "INSERT INTO verifications(record_id, suite, problem_id, model, backend, sample_id, "
            "problem_file, candidate_file, verdict, reasons, median_us, speedup, device, wall_ms, "
            "json, log, verified_at, candidate_hash, problem_hash, device_uuid, gpu_index, batch) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
            "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?17, ?18, ?19, ?20, ?21)");
        recordId ? ins.bind(1, *recordId) : ins.bindNull(1);
        ins.bind(2, record.suite).bind(3, record.problemId).bind(4, record.model);
        ins.bind(5, record.backend).bind(6, record.sampleId);
        ins.bind(7, result.problemFile).bind(8, result.candidateFile).bind(9, result.verdict);
        ins.bind(10, nlohmann::json(result.reasons).dump());
        result.timing ? ins.bind(11, result.timing->medianUs) : ins.bindNull(11);
        result.speedup > 0 ? ins.bind(12, result.speedup) : ins.bindNull(12);
        // The document as printed, without the line break that ends it (GUI and CLI alike).
        std::string json = rawJson;
        while (!json.empty() && (json.back() == '\n' || json.back() == '\r' || json.back() == ' '))
            json.pop_back();
        ins.bind(13, result.device.name).bind(14, wallMs).bind(15, json);
        ins.bind(16, result.log);
        ins.bind(17, origin.candidateHash).bind(18, origin.problemHash);
        ins.bind(19, origin.deviceUuid).bind(20, origin.gpuIndex).bind(21, origin.batch);
        ins.run();
        id = db.lastInsertId();
        if (recordId)
            updateStoredVerification(store, *recordId, record);
    });
    return id;
}

std::vector<StoredVerification> loadVerifications(const ProjectStore& store) {
    std::vector<StoredVerification> out;
    if (!store.database().tableExists("verifications"))
        return out;
    SqliteStatement st = store.database().prepare(
        "SELECT id, record_id, suite, problem_id, model, backend, sample_id, verdict, reasons, "
        "median_us, speedup, device, json, verified_at, candidate_hash, problem_hash, "
        "device_uuid, gpu_index, batch FROM verifications ORDER BY id");
    while (st.step()) {
        StoredVerification v;
        v.id = st.columnInt(0);
        if (!st.columnIsNull(1))
            v.recordId = st.columnInt(1);
        v.suite = st.columnText(2);
        v.problemId = st.columnText(3);
        v.model = st.columnText(4);
        v.backend = st.columnText(5);
        v.sampleId = st.columnText(6);
        v.verdict = st.columnText(7);
        const auto reasons = tryParseJson(st.columnText(8)).value_or(nlohmann::json());
        if (reasons.is_array()) {
            for (const auto& r : reasons) {
                if (r.is_string())
                    v.reasons.push_back(r.get<std::string>());
            }
        }
        // Bounded as every record's time and speedup is (core/records/evalrecord.h).
        const std::string row = "table verifications, row " + std::to_string(v.id) + ", column ";
        if (!st.columnIsNull(9))
            v.medianUs = st.columnNumber(9, kMinRecordUs, kMaxRecordUs, row + "median_us");
        if (!st.columnIsNull(10))
            v.speedup = st.columnNumber(10, kMinRecordSpeedup, kMaxRecordSpeedup, row + "speedup");
        v.device = st.columnText(11);
        v.json = st.columnText(12);
        v.verifiedAt = st.columnText(13);
        v.candidateHash = st.columnText(14);
        v.problemHash = st.columnText(15);
        v.deviceUuid = st.columnText(16);
        v.gpuIndex = st.columnText(17);
        v.batch = st.columnText(18);
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<StoredRunKey> storedRunKeys(const ProjectStore& store) {
    std::vector<StoredRunKey> out;
    SqliteStatement st = store.database().prepare(
        "SELECT DISTINCT candidate_hash, problem_hash, device_uuid FROM verifications "
        "WHERE candidate_hash != '' AND problem_hash != ''");
    while (st.step())
        out.push_back({st.columnText(0), st.columnText(1), st.columnText(2)});
    return out;
}

std::vector<std::string> storedBatchEntries(const ProjectStore& store, const std::string& batch) {
    std::vector<std::string> out;
    SqliteStatement st =
        store.database().prepare("SELECT batch FROM verifications WHERE substr(batch, 1, ?1) = ?2");
    st.bind(1, int64_t(batch.size() + 1)).bind(2, batch + "#");
    while (st.step())
        out.push_back(st.columnText(0));
    return out;
}

std::vector<StoredTiming> storedTimings(const ProjectStore& store) {
    std::vector<StoredTiming> out;
    SqliteStatement st = store.database().prepare(
        "SELECT candidate_hash, problem_hash, device_uuid, gpu_index, median_us FROM "
        "verifications WHERE candidate_hash != '' AND median_us IS NOT NULL ORDER BY id");
    while (st.step())
        out.push_back({{st.columnText(0), st.columnText(1), st.columnText(2)},
                       st.columnText(3),
                       st.columnNumber(4, kMinRecordUs, kMaxRecordUs,
                                       "table verifications, column median_us")});
    return out;
}

}  // namespace reach
