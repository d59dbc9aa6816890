#include "ui/verificationstore.h"

#include <QDateTime>
#include <nlohmann/json.hpp>

#include "core/store/schema.h"
#include "core/store/sqlitedb.h"
#include "core/verify/verification.h"

namespace reach {

int64_t VerificationStore::store(const QString& projectPath, const EvalRecord& record,
                                 const VerifyOutcome& outcome) {
    SqliteDb db = SqliteDb::open(projectPath.toStdString(), SqliteDb::Mode::MustExist);
    migrate(db);
    std::string verdictText, device, problemFile, candidateFile, json;
    std::vector<std::string> reasons;
    std::optional<double> medianUs, speedup;
    if (!outcome.stdoutJson.isEmpty()) {
        json = outcome.stdoutJson.toStdString();
        const VerificationResult r =
            VerificationResult::fromJson(nlohmann::json::parse(json), "reach-verify");
        verdictText = r.verdict;
        reasons = r.reasons;
        device = r.device.name;
        problemFile = r.problemFile;
        candidateFile = r.candidateFile;
        if (r.timing)
            medianUs = r.timing->medianUs;
        if (r.speedup > 0)
            speedup = r.speedup;
    } else {
        // The verifier died or hung: the run is still a verdict, with the log as its evidence.
        verdictText = VerifyOutcome::statusKey(outcome.status).toStdString();
        if (!outcome.log.isEmpty())
            reasons.push_back(outcome.log.toStdString());
    }
    const std::string now = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    int64_t id = 0;
    db.transaction([&] {
        SqliteStatement ins = db.prepare(
            "INSERT INTO verifications(record_id, suite, problem_id, model, backend, sample_id, "
            "problem_file, candidate_file, verdict, reasons, median_us, speedup, device, wall_ms, "
            "json, log, verified_at) VALUES((SELECT id FROM eval_records WHERE suite = ?1 AND "
            "problem_id = ?2 AND model = ?3 AND backend = ?4 AND sample_id = ?5 AND source = ?6 "
            "ORDER BY id DESC LIMIT 1), ?1, ?2, ?3, ?4, ?5, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
            "?15, ?16, ?17)");
        ins.bind(1, record.suite).bind(2, record.problemId).bind(3, record.model);
        ins.bind(4, record.backend).bind(5, record.sampleId).bind(6, record.source);
        ins.bind(7, problemFile).bind(8, candidateFile).bind(9, verdictText);
        ins.bind(10, nlohmann::json(reasons).dump());
        medianUs ? ins.bind(11, *medianUs) : ins.bindNull(11);
        speedup ? ins.bind(12, *speedup) : ins.bindNull(12);
        ins.bind(13, device).bind(14, outcome.wallMs).bind(15, json);
        ins.bind(16, outcome.log.toStdString()).bind(17, now);
        ins.run();
        id = db.lastInsertId();
        // The record's own status follows what the model now says about it.
        SqliteStatement upd = db.prepare(
            "UPDATE eval_records SET verification = ?1, verification_reasons = ?2 WHERE suite = ?3 "
            "AND problem_id = ?4 AND model = ?5 AND backend = ?6 AND sample_id = ?7 AND source = "
            "?8");
        upd.bind(1, verificationKey(record.verification));
        upd.bind(2, nlohmann::json(record.verificationReasons).dump());
        upd.bind(3, record.suite).bind(4, record.problemId).bind(5, record.model);
        upd.bind(6, record.backend).bind(7, record.sampleId).bind(8, record.source);
        upd.run();
    });
    return id;
}

std::vector<StoredVerification> VerificationStore::load(const QString& projectPath) {
    SqliteDb db = SqliteDb::open(projectPath.toStdString(), SqliteDb::Mode::MustExist);
    std::vector<StoredVerification> out;
    if (!db.tableExists("verifications"))
        return out;
    SqliteStatement st = db.prepare(
        "SELECT id, suite, problem_id, model, backend, sample_id, verdict, reasons, json, "
        "verified_at FROM verifications ORDER BY id");
    while (st.step()) {
        StoredVerification v;
        v.id = st.columnInt(0);
        v.suite = st.columnText(1);
        v.problemId = st.columnText(2);
        v.model = st.columnText(3);
        v.backend = st.columnText(4);
        v.sampleId = st.columnText(5);
        v.verdict = st.columnText(6);
        const auto reasons = nlohmann::json::parse(st.columnText(7), nullptr, false);
        if (reasons.is_array()) {
            for (const auto& r : reasons)
                v.reasons.push_back(r.get<std::string>());
        }
        v.json = st.columnText(8);
        v.verifiedAt = st.columnText(9);
        out.push_back(std::move(v));
    }
    return out;
}

}  // namespace reach
