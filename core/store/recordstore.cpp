#include "core/store/recordstore.h"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/sha256.h"
#include "core/store/projectstore.h"
#include "core/store/sqlitedb.h"

namespace reach {

namespace {

constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

void bindOptional(SqliteStatement& st, int index, const std::optional<double>& v) {
    if (v) {
        st.bind(index, *v);
    } else {
        st.bindNull(index);
    }
}

// A stored time or speedup: NULL, or a number within the bounds every reader of records holds
// (core/records/evalrecord.h); a project is a file from anyone, as a records file is.
std::optional<double> columnOptional(const SqliteStatement& st, int col, int64_t id,
                                     const char* column, double lo, double hi) {
    if (st.columnIsNull(col))
        return std::nullopt;
    return st.columnNumber(col, lo, hi,
                           "table eval_records, row " + std::to_string(id) + ", column " + column);
}

// Empty for a folder or a missing file: only a single source file has bytes to identify.
std::string fileHash(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return {};
    try {
        return Sha256::hexOfFile(path);
    } catch (const InputError&) {
        return {};
    }
}

}  // namespace

int64_t importRecordSet(ProjectStore& store, const std::string& name, const std::string& source,
                        const std::string& format, const std::vector<EvalRecord>& records) {
    SqliteDb& db = store.database();
    int64_t setId = 0;
    const std::string hash = fileHash(source);
    db.transaction([&] {
        SqliteStatement set = db.prepare(
            std::string("INSERT INTO record_sets(name, source, source_hash, format, denominator, "
                        "imported_at) VALUES(?1, ?2, ?3, ?4, NULL, ") +
            kNow + ")");
        set.bind(1, name).bind(2, source).bind(3, hash).bind(4, format);
        set.run();
        setId = db.lastInsertId();
        SqliteStatement ins = db.prepare(
            "INSERT INTO eval_records(set_id, position, problem_id, problem_name, level, suite, "
            "category, dtype, model, backend, sample_id, compiled, correct, candidate_time_us, "
            "baseline_eager_us, baseline_compile_us, baseline_recorded_us, speedup, "
            "artifact_path, harness, hardware, date, verification, verification_reasons, "
            "roofline_floor_us, source, source_line) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
            "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, "
            "?26, ?27)");
        int64_t position = 0;
        for (const EvalRecord& r : records) {
            ins.reset();
            ins.bind(1, setId).bind(2, position++).bind(3, r.problemId).bind(4, r.problemName);
            ins.bind(5, r.level).bind(6, r.suite).bind(7, r.category).bind(8, r.dtype);
            ins.bind(9, r.model).bind(10, r.backend).bind(11, r.sampleId);
            ins.bind(12, r.compiled ? 1 : 0).bind(13, r.correct ? 1 : 0);
            bindOptional(ins, 14, r.candidateTimeUs);
            bindOptional(ins, 15, r.baselineEagerUs);
            bindOptional(ins, 16, r.baselineCompileUs);
            bindOptional(ins, 17, r.baselineRecordedUs);
            bindOptional(ins, 18, r.speedup);
            ins.bind(19, r.artifactPath).bind(20, r.harness).bind(21, r.hardware).bind(22, r.date);
            ins.bind(23, verificationKey(r.verification));
            ins.bind(24, nlohmann::json(r.verificationReasons).dump());
            bindOptional(ins, 25, r.rooflineFloorUs);
            ins.bind(26, r.source).bind(27, r.sourceLine);
            ins.run();
        }
    });
    return setId;
}

std::vector<RecordSetEntry> recordSets(const ProjectStore& store) {
    SqliteStatement st = store.database().prepare(
        "SELECT s.id, s.name, s.source, s.source_hash, s.format, s.denominator, s.imported_at, "
        "(SELECT count(*) FROM eval_records r WHERE r.set_id = s.id) FROM record_sets s "
        "ORDER BY s.id");
    std::vector<RecordSetEntry> out;
    while (st.step()) {
        RecordSetEntry e;
        e.id = st.columnInt(0);
        e.name = st.columnText(1);
        e.source = st.columnText(2);
        e.sourceHash = st.columnText(3);
        e.format = st.columnText(4);
        if (!st.columnIsNull(5))
            e.denominator = static_cast<int>(st.columnInt(5));
        e.importedAt = st.columnText(6);
        e.recordCount = st.columnInt(7);
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<EvalRecord> loadRecordSet(const ProjectStore& store, int64_t setId) {
    SqliteStatement st = store.database().prepare(
        "SELECT problem_id, problem_name, level, suite, category, dtype, model, backend, "
        "sample_id, compiled, correct, candidate_time_us, baseline_eager_us, "
        "baseline_compile_us, baseline_recorded_us, speedup, artifact_path, harness, hardware, "
        "date, verification, verification_reasons, roofline_floor_us, source, source_line, id "
        "FROM eval_records WHERE set_id = ?1 ORDER BY position");
    st.bind(1, setId);
    std::vector<EvalRecord> out;
    while (st.step()) {
        EvalRecord r;
        r.problemId = st.columnText(0);
        r.problemName = st.columnText(1);
        r.level = static_cast<int>(st.columnInt(2));
        r.suite = st.columnText(3);
        r.category = st.columnText(4);
        r.dtype = st.columnText(5);
        r.model = st.columnText(6);
        r.backend = st.columnText(7);
        r.sampleId = st.columnText(8);
        r.compiled = st.columnInt(9) != 0;
        r.correct = st.columnInt(10) != 0;
        const int64_t id = st.columnInt(25);
        auto time = [&](int col, const char* column) {
            return columnOptional(st, col, id, column, kMinRecordUs, kMaxRecordUs);
        };
        r.candidateTimeUs = time(11, "candidate_time_us");
        r.baselineEagerUs = time(12, "baseline_eager_us");
        r.baselineCompileUs = time(13, "baseline_compile_us");
        r.baselineRecordedUs = time(14, "baseline_recorded_us");
        r.speedup = columnOptional(st, 15, id, "speedup", kMinRecordSpeedup, kMaxRecordSpeedup);
        r.artifactPath = st.columnText(16);
        r.harness = st.columnText(17);
        r.hardware = st.columnText(18);
        r.date = st.columnText(19);
        r.verification =
            verificationFromString(st.columnText(20)).value_or(Verification::Unverified);
        const auto reasons = tryParseJson(st.columnText(21)).value_or(nlohmann::json());
        if (reasons.is_array()) {
            for (const auto& reason : reasons) {
                if (reason.is_string())
                    r.verificationReasons.push_back(reason.get<std::string>());
            }
        }
        r.rooflineFloorUs = time(22, "roofline_floor_us");
        r.source = st.columnText(23);
        r.sourceLine = st.columnInt(24);
        r.storeId = st.columnInt(25);
        out.push_back(std::move(r));
    }
    return out;
}

std::optional<int64_t> findStoredRecord(const ProjectStore& store, const EvalRecord& record) {
    SqliteStatement st = store.database().prepare(
        "SELECT id FROM eval_records WHERE (?1 > 0 AND id = ?1) OR (?1 = 0 AND suite = ?2 AND "
        "problem_id = ?3 AND model = ?4 AND backend = ?5 AND sample_id = ?6 AND source = ?7) "
        "ORDER BY id DESC LIMIT 1");
    st.bind(1, record.storeId).bind(2, record.suite).bind(3, record.problemId);
    st.bind(4, record.model).bind(5, record.backend).bind(6, record.sampleId);
    st.bind(7, record.source);
    if (!st.step())
        return std::nullopt;
    return st.columnInt(0);
}

std::vector<EvalRecord> findStoredRecords(const ProjectStore& store, const std::string& key) {
    std::vector<EvalRecord> out;
    for (const RecordSetEntry& set : recordSets(store)) {
        for (EvalRecord& r : loadRecordSet(store, set.id)) {
            if (recordMatchesKey(r, key))
                out.push_back(std::move(r));
        }
    }
    return out;
}

bool recordMatchesKey(const EvalRecord& r, const std::string& key) {
    // "#17": the row id (problem ids are often numbers themselves: KernelBench's are).
    if (key.size() > 1 && key[0] == '#')
        return std::to_string(r.storeId) == key.substr(1);
    // problem[/model[/backend[/sample]]]: each part given must equal the record's.
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        const size_t slash = key.find('/', start);
        parts.push_back(key.substr(start, slash == std::string::npos ? slash : slash - start));
        if (slash == std::string::npos)
            break;
        start = slash + 1;
    }
    const std::string* fields[] = {&r.problemId, &r.model, &r.backend, &r.sampleId};
    if (parts.size() > 4)
        return false;
    if (parts[0] != r.problemId && parts[0] != r.problemName)
        return false;
    for (size_t i = 1; i < parts.size(); ++i) {
        if (!parts[i].empty() && parts[i] != *fields[i])
            return false;
    }
    return true;
}

void updateStoredVerification(ProjectStore& store, int64_t recordId, const EvalRecord& record) {
    SqliteStatement upd = store.database().prepare(
        "UPDATE eval_records SET verification = ?1, verification_reasons = ?2, "
        "roofline_floor_us = coalesce(?3, roofline_floor_us) WHERE id = ?4");
    upd.bind(1, verificationKey(record.verification));
    upd.bind(2, nlohmann::json(record.verificationReasons).dump());
    bindOptional(upd, 3, record.rooflineFloorUs);
    upd.bind(4, recordId);
    upd.run();
}

bool removeRecordSet(ProjectStore& store, int64_t setId) {
    bool removed = false;
    store.transaction([&] {
        // Explicit delete of the children: foreign-key cascades need PRAGMA foreign_keys, and
        // removal must not depend on how the connection was opened.
        SqliteStatement rec =
            store.database().prepare("DELETE FROM eval_records WHERE set_id = ?1");
        rec.bind(1, setId);
        rec.run();
        SqliteStatement set = store.database().prepare("DELETE FROM record_sets WHERE id = ?1");
        set.bind(1, setId);
        set.run();
        removed = store.database().changes() > 0;
    });
    return removed;
}

void setRecordSetDenominator(ProjectStore& store, int64_t setId, std::optional<int> denominator) {
    store.transaction([&] {
        SqliteStatement st =
            store.database().prepare("UPDATE record_sets SET denominator = ?1 WHERE id = ?2");
        if (denominator) {
            st.bind(1, *denominator);
        } else {
            st.bindNull(1);
        }
        st.bind(2, setId);
        st.run();
    });
}

void saveMappingPreset(ProjectStore& store, const ColumnMapping& mapping) {
    if (mapping.name.empty()) {
        throw InputError(store.path(), "mapping preset", "expected a name for the preset");
    }
    mapping.validate(store.path());
    store.transaction([&] {
        SqliteStatement st = store.database().prepare(
            std::string("INSERT OR REPLACE INTO mapping_presets(name, json, saved_at) VALUES(?1, "
                        "?2, ") +
            kNow + ")");
        st.bind(1, mapping.name).bind(2, mapping.toJson().dump());
        st.run();
    });
}

std::vector<ColumnMapping> mappingPresets(const ProjectStore& store) {
    SqliteStatement st =
        store.database().prepare("SELECT name, json FROM mapping_presets ORDER BY name");
    std::vector<ColumnMapping> out;
    while (st.step()) {
        const auto j = tryParseJson(st.columnText(1)).value_or(nlohmann::json());
        out.push_back(
            ColumnMapping::fromJson(j, store.path() + " (preset " + st.columnText(0) + ")"));
    }
    return out;
}

}  // namespace reach
