#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/analysis/ruleset.h"
#include "core/base/progress.h"
#include "core/base/workload.h"
#include "core/store/sqlitedb.h"

struct sqlite3;

namespace reach {

// A workload as listed in a project, without its kernels.
struct WorkloadEntry {
    int64_t id = 0;
    std::string name;
    std::string source;
    std::string sourceHash;
    std::string format;
    std::string device;
    std::string importedAt;  // ISO 8601 UTC
    double gpuTimeUs = 0;
    int64_t kernelCount = 0;
};

// A rule set a breakdown in this project was made with (kept so results can be reproduced).
struct StoredRuleSet {
    int64_t id = 0;
    std::string name;
    std::string hash;
    std::string json;
    std::string savedAt;
};

// A Reach project: one SQLite file (`*.reach`) with a schema version table and the migrations of
// schema.cpp, in WAL mode with foreign keys on. Every write is one transaction: a failed or
// cancelled import leaves the project exactly as it was.
//
// Threading: a ProjectStore is one SQLite connection and belongs to the thread that opened it.
// A worker thread opens its own ProjectStore on the same path; WAL lets it read while another
// connection writes, and writers wait (busy timeout) instead of failing.
class ProjectStore {
public:
    enum class Mode { CreateIfMissing, MustExist };

    // Opens the project, creating it when allowed, and applies pending migrations. Throws
    // InputError when the file is missing (MustExist), a directory, not SQLite, another kind of
    // SQLite file, or written by a newer Reach. A new project appears whole or not at all (built
    // in a temporary file, then renamed). A project Reach may not write (the file or its
    // folder) is opened read-only: every read works, a write throws InputError.
    static ProjectStore open(const std::string& path, Mode mode = Mode::CreateIfMissing);

    const std::string& path() const { return m_db.path(); }
    bool readOnly() const { return m_db.readOnly(); }
    int schemaVersion() const;

    // For the parts that own their own tables (records, verifications): the raw connection and
    // the transaction helper. Nested transaction() calls become savepoints.
    sqlite3* db() const { return m_db.handle(); }
    SqliteDb& database() { return m_db; }
    const SqliteDb& database() const { return m_db; }
    void transaction(const std::function<void()>& body) { m_db.transaction(body); }

    // Stores the workload with all its kernels and operator times in one transaction; returns
    // its id. Progress is reported per kernel; a stop request throws Cancelled and rolls back.
    int64_t importWorkload(const Workload& workload, const ProgressFn& progress = {},
                           std::stop_token stop = {});
    // The same, unless a workload from a file with the same bytes is already stored: the check
    // and the insert are one write transaction, so concurrent imports of one file store it once.
    struct ImportOnce {
        int64_t id = 0;
        bool existed = false;  // id is the workload stored before
    };
    ImportOnce importWorkloadOnce(const Workload& workload, const ProgressFn& progress = {},
                                  std::stop_token stop = {});
    // Id of a workload imported from a file with these bytes (SHA-256), if any.
    std::optional<int64_t> findWorkloadBySourceHash(const std::string& sourceHash) const;
    std::vector<WorkloadEntry> workloadEntries() const;  // in import order
    Workload loadWorkload(int64_t id) const;             // throws std::out_of_range when absent
    std::vector<Workload> workloads() const;             // in import order, with kernels
    bool removeWorkload(int64_t id);

    // Keeps a rule set (by content hash; saving the same hash again stores nothing new but
    // marks it as the one last used). Returns its id.
    int64_t saveRuleSet(const std::string& name, const std::string& hash, const std::string& json);
    int64_t saveRuleSet(const RuleSet& rules);
    std::vector<StoredRuleSet> ruleSets() const;
    // The rule set saved with this content hash, parsed back; nullopt when the project has none.
    std::optional<RuleSet> loadRuleSet(const std::string& hash) const;
    // The rule set saved last (the project's current rules); nullopt when it has none.
    std::optional<RuleSet> latestRuleSet() const;

private:
    explicit ProjectStore(SqliteDb db) : m_db(std::move(db)) {}
    SqliteDb m_db;
};

}  // namespace reach
