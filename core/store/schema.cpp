#include "core/store/schema.h"

#include <algorithm>
#include <set>
#include <string>

#include "core/base/inputerror.h"
#include "core/store/sqlitedb.h"

namespace reach {

// The ordered list of migrations. Each engineer appends only inside their own marked block.
// Conventions: snake_case names, times in microseconds (_us), shares as fractions, text
// timestamps in ISO 8601 UTC, foreign keys with ON DELETE CASCADE to their workload/record.
const std::vector<Migration>& migrations() {
    static const std::vector<Migration> kMigrations = {
        {1, "workloads, kernels, per-kernel operator times, rule sets", R"sql(
CREATE TABLE workloads(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    source_hash TEXT NOT NULL,
    format TEXT NOT NULL,
    device TEXT NOT NULL,
    gpu_time_us REAL NOT NULL,
    busy_time_us REAL NOT NULL,
    span_us REAL NOT NULL,
    event_count INTEGER NOT NULL,
    imported_at TEXT NOT NULL
);
CREATE INDEX workloads_source_hash ON workloads(source_hash);
CREATE TABLE kernels(
    id INTEGER PRIMARY KEY,
    workload_id INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind INTEGER NOT NULL CHECK(kind IN (0, 1, 2)),
    calls INTEGER NOT NULL,
    total_us REAL NOT NULL,
    min_us REAL NOT NULL,
    max_us REAL NOT NULL,
    streams TEXT NOT NULL,
    grid TEXT NOT NULL,
    block TEXT NOT NULL,
    UNIQUE(workload_id, position)
);
CREATE TABLE kernel_operators(
    kernel_id INTEGER NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    op TEXT NOT NULL,
    total_us REAL NOT NULL,
    calls INTEGER NOT NULL,
    PRIMARY KEY(kernel_id, position)
);
CREATE TABLE rule_sets(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    json TEXT NOT NULL,
    saved_at TEXT NOT NULL
);
)sql"},
        // -- records-begin
        {2, "evaluation record sets, records, column-mapping presets", R"sql(
CREATE TABLE record_sets(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    source_hash TEXT NOT NULL,
    format TEXT NOT NULL,
    denominator INTEGER,
    imported_at TEXT NOT NULL
);
CREATE TABLE eval_records(
    id INTEGER PRIMARY KEY,
    set_id INTEGER NOT NULL REFERENCES record_sets(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    problem_id TEXT NOT NULL,
    problem_name TEXT NOT NULL,
    level INTEGER NOT NULL,
    suite TEXT NOT NULL,
    category TEXT NOT NULL,
    dtype TEXT NOT NULL,
    model TEXT NOT NULL,
    backend TEXT NOT NULL,
    sample_id TEXT NOT NULL,
    compiled INTEGER NOT NULL CHECK(compiled IN (0, 1)),
    correct INTEGER NOT NULL CHECK(correct IN (0, 1)),
    candidate_time_us REAL,
    baseline_eager_us REAL,
    baseline_compile_us REAL,
    baseline_recorded_us REAL,
    speedup REAL,
    artifact_path TEXT NOT NULL,
    harness TEXT NOT NULL,
    hardware TEXT NOT NULL,
    date TEXT NOT NULL,
    verification TEXT NOT NULL CHECK(verification IN ('unverified', 'passed', 'failed')),
    verification_reasons TEXT NOT NULL,
    roofline_floor_us REAL,
    source TEXT NOT NULL,
    source_line INTEGER NOT NULL,
    UNIQUE(set_id, position)
);
CREATE TABLE mapping_presets(
    name TEXT PRIMARY KEY,
    json TEXT NOT NULL,
    saved_at TEXT NOT NULL
);
)sql"},
        // -- records-end
        // -- verify-begin
        // (written by "plots" for the GUI's VerifyQueue while the verifier's block was empty)
        {3, "verifier runs: every reach-verify result with its full JSON", R"sql(
CREATE TABLE verifications(
    id INTEGER PRIMARY KEY,
    record_id INTEGER REFERENCES eval_records(id) ON DELETE SET NULL,
    suite TEXT NOT NULL,
    problem_id TEXT NOT NULL,
    model TEXT NOT NULL,
    backend TEXT NOT NULL,
    sample_id TEXT NOT NULL,
    problem_file TEXT NOT NULL,
    candidate_file TEXT NOT NULL,
    verdict TEXT NOT NULL,
    reasons TEXT NOT NULL,
    median_us REAL,
    speedup REAL,
    device TEXT NOT NULL,
    wall_ms REAL NOT NULL,
    json TEXT NOT NULL,
    log TEXT NOT NULL,
    verified_at TEXT NOT NULL
);
CREATE INDEX verifications_problem ON verifications(suite, problem_id, model, backend, sample_id);
)sql"},
        // -- verify-end
        // -- rules-begin
        {4, "rule sets: which one the project was last used with", R"sql(
ALTER TABLE rule_sets ADD COLUMN last_used INTEGER NOT NULL DEFAULT 0;
UPDATE rule_sets SET last_used = id;
)sql"},
        // -- rules-end
        // -- batch-begin
        {5, "verifications: what a batch resumes by (candidate and problem SHA-256, GPU)", R"sql(
ALTER TABLE verifications ADD COLUMN candidate_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE verifications ADD COLUMN problem_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE verifications ADD COLUMN device_uuid TEXT NOT NULL DEFAULT '';
ALTER TABLE verifications ADD COLUMN gpu_index TEXT NOT NULL DEFAULT '';
ALTER TABLE verifications ADD COLUMN batch TEXT NOT NULL DEFAULT '';
CREATE INDEX verifications_resume ON verifications(candidate_hash, problem_hash, device_uuid);
)sql"},
        // -- batch-end
        // -- hardening-begin
        {6, "workloads: one row per file (unique source hash)", R"sql(
DELETE FROM workloads WHERE source_hash <> '' AND id NOT IN
    (SELECT min(id) FROM workloads WHERE source_hash <> '' GROUP BY source_hash);
CREATE UNIQUE INDEX workloads_source_hash_unique ON workloads(source_hash)
    WHERE source_hash <> '';
)sql"},
        // -- hardening-end
        // -- shapes-begin
        {7,
         "kernels: CUDA-graph launches and the shaped calls (operator, input shapes) behind "
         "headroom, roofline and extraction; workloads: whether they were kept",
         R"sql(
ALTER TABLE kernels ADD COLUMN graph_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE kernels ADD COLUMN graph_us REAL NOT NULL DEFAULT 0;
CREATE TABLE kernel_shaped_calls(
    kernel_id INTEGER NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    op TEXT NOT NULL,
    signature TEXT NOT NULL,
    calls INTEGER NOT NULL,
    op_calls INTEGER NOT NULL,
    total_us REAL NOT NULL,
    PRIMARY KEY(kernel_id, position)
);
ALTER TABLE workloads ADD COLUMN shapes_kept INTEGER NOT NULL DEFAULT 0;
)sql"},
        // -- shapes-end
        {8,
         "workloads: the GPU time linked to its operator through a twin (a launch the trace "
         "missed)",
         R"sql(
ALTER TABLE workloads ADD COLUMN twin_linked_us REAL NOT NULL DEFAULT 0;
)sql"},
    };
    return kMigrations;
}

int latestSchemaVersion() {
    int v = 0;
    for (const Migration& m : migrations())
        v = std::max(v, m.version);
    return v;
}

int appliedSchemaVersion(const SqliteDb& db) {
    if (!db.tableExists("schema_version"))
        return 0;
    SqliteStatement st = db.prepare("SELECT coalesce(max(version), 0) FROM schema_version");
    st.step();
    return static_cast<int>(st.columnInt(0));
}

const char* const kSchemaVersionTableSql =
    "CREATE TABLE IF NOT EXISTS schema_version(version INTEGER PRIMARY KEY, "
    "description TEXT NOT NULL, applied_at TEXT NOT NULL)";

std::set<int> appliedVersions(const SqliteDb& db) {
    std::set<int> applied;
    {
        SqliteStatement st = db.prepare("SELECT version FROM schema_version");
        while (st.step())
            applied.insert(static_cast<int>(st.columnInt(0)));
    }
    std::set<int> known;
    for (const Migration& m : migrations())
        known.insert(m.version);
    for (int v : applied) {
        if (!known.count(v)) {
            throw InputError(db.path(), "schema_version " + std::to_string(v),
                             "written by a newer Reach (this build knows up to version " +
                                 std::to_string(latestSchemaVersion()) + ")");
        }
    }
    return applied;
}

void migrate(SqliteDb& db) {
    if (!db.tableExists("schema_version")) {
        SqliteStatement count = db.prepare("SELECT count(*) FROM sqlite_master");
        count.step();
        if (count.columnInt(0) != 0) {
            throw InputError(db.path(), "table schema_version",
                             "expected a Reach project, found an SQLite file of another kind");
        }
        db.transaction([&] { db.exec(kSchemaVersionTableSql); });
    }

    const std::set<int> applied = appliedVersions(db);
    std::vector<Migration> todo;
    for (const Migration& m : migrations()) {
        if (!applied.count(m.version))
            todo.push_back(m);
    }
    std::sort(todo.begin(), todo.end(),
              [](const Migration& a, const Migration& b) { return a.version < b.version; });
    for (const Migration& m : todo) {
        db.transaction([&] {
            db.exec(m.sql);
            SqliteStatement ins = db.prepare(
                "INSERT INTO schema_version(version, description, applied_at) "
                "VALUES(?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))");
            ins.bind(1, m.version).bind(2, m.description);
            ins.run();
        });
    }
}

}  // namespace reach
