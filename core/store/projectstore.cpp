#include "core/store/projectstore.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "core/base/inputerror.h"
#include "core/store/schema.h"
#include "core/store/schemacheck.h"
#include "core/store/sqliteguard.h"

namespace reach {

namespace {

constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

std::string joinStreams(const std::vector<int>& streams) {
    std::string s;
    for (size_t i = 0; i < streams.size(); ++i) {
        if (i)
            s += ',';
        s += std::to_string(streams[i]);
    }
    return s;
}

std::vector<int> splitStreams(const std::string& s) {
    std::vector<int> out;
    const char* p = s.data();
    const char* end = s.data() + s.size();
    while (p < end) {
        int v = 0;
        auto [next, ec] = std::from_chars(p, end, v);
        if (ec != std::errc())
            break;
        out.push_back(v);
        p = next;
        if (p < end && *p == ',')
            ++p;
    }
    return out;
}

// What a project may hold, checked where it is read: a time in microseconds from 0 to 10^12
// (11.6 days of GPU time in one workload is past any profile), a count from 0 to 2^53.
constexpr double kMaxStoredUs = 1e12;
constexpr double kMaxStoredCount = 9007199254740992.0;

std::string at(const char* table, int64_t id, const char* column) {
    return std::string("table ") + table + ", row " + std::to_string(id) + ", column " + column;
}

WorkloadEntry entryFromRow(const SqliteStatement& st) {
    WorkloadEntry e;
    e.id = st.columnInt(0);
    e.name = st.columnText(1);
    e.source = st.columnText(2);
    e.sourceHash = st.columnText(3);
    e.format = st.columnText(4);
    e.device = st.columnText(5);
    e.importedAt = st.columnText(6);
    e.gpuTimeUs = st.columnNumber(7, 0, kMaxStoredUs, at("workloads", e.id, "gpu_time_us"));
    e.kernelCount = st.columnInt(8);
    return e;
}

}  // namespace

namespace {

// Reach may write the project only when it may write the file and its folder (WAL keeps its
// -wal/-shm files beside the project). Otherwise the project is opened read-only.
bool writable(const std::string& path) {
    const std::filesystem::path p = std::filesystem::absolute(path);
    return ::access(p.c_str(), W_OK) == 0 && ::access(p.parent_path().c_str(), W_OK) == 0;
}

void removeQuietly(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        ::unlink((path + suffix).c_str());
}

bool syncPath(const std::string& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::fsync(fd) == 0;
    return ::close(fd) == 0 && ok;
}

// A new project is built whole in a temporary file beside it and then renamed into place
// without replacing anything: a kill or a full disk at any point leaves either no project or a
// complete one (never a 0- or 4096-byte stub, or a file whose last pages are still in a -wal
// beside another name, that every later open refuses), and of two processes creating the same
// project the second simply opens the first one's.
void createProject(const std::string& path) {
    const std::filesystem::path target = std::filesystem::absolute(path);
    std::string tmp =
        (target.parent_path() / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) {
        throw InputError(path, "",
                         std::string("cannot create the project: ") + std::strerror(errno));
    }
    ::close(fd);
    try {
        SqliteDb db = SqliteDb::open(tmp, SqliteDb::Mode::MustExist);
        db.exec("PRAGMA foreign_keys = ON");
        // The rollback journal in memory: no -journal or -wal file beside the temporary one
        // while it is built (a failed build is deleted whole, journal or not).
        db.exec("PRAGMA journal_mode = MEMORY");
        migrate(db);
        // WAL is a flag in the file's header: set it here, so that the project appears in the
        // mode every later open expects. Closing checkpoints and removes the -wal and -shm;
        // a close that could not (a full disk) is an error, not a half-written project.
        db.exec("PRAGMA journal_mode = WAL");
        db.close();
    } catch (const SqliteError& e) {
        removeQuietly(tmp);
        throw InputError(path, "", "cannot create the project: " + e.message());
    } catch (...) {
        removeQuietly(tmp);
        throw;
    }
    std::error_code ec;
    if (std::filesystem::exists(tmp + "-wal", ec) || !syncPath(tmp, O_RDONLY)) {
        const std::string why = std::strerror(errno);
        removeQuietly(tmp);
        throw InputError(
            path, "", "cannot create the project: the file could not be completed (" + why + ")");
    }
    int rc = ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
        // A file system without RENAME_NOREPLACE: link() refuses an existing target as well.
        rc = ::link(tmp.c_str(), target.c_str());
        if (rc == 0 || errno == EEXIST)
            ::unlink(tmp.c_str());
    }
    const int err = errno;
    if (rc != 0) {
        removeQuietly(tmp);
        if (err != EEXIST) {
            throw InputError(path, "",
                             std::string("cannot create the project: ") + std::strerror(err));
        }
        return;  // created by another process meanwhile: open that one
    }
    syncPath(target.parent_path().string(), O_RDONLY | O_DIRECTORY);
}

}  // namespace

ProjectStore ProjectStore::open(const std::string& path, Mode mode) {
    std::error_code ec;
    // Before anything touches the path: no project is created beside a device or through a
    // symbolic link to nothing.
    checkProjectPath(path);
    if (mode == Mode::CreateIfMissing && !std::filesystem::exists(path, ec) &&
        !std::filesystem::is_symlink(path, ec)) {
        createProject(path);
    }
    const bool readOnly = std::filesystem::exists(path, ec) && !writable(path);
    SqliteDb db = SqliteDb::open(path, readOnly                  ? SqliteDb::Mode::ReadOnly
                                       : mode == Mode::MustExist ? SqliteDb::Mode::MustExist
                                                                 : SqliteDb::Mode::CreateIfMissing);
    // Per-connection settings: WAL is stored in the file, foreign keys and the busy timeout are
    // not.
    db.exec("PRAGMA busy_timeout = " + std::to_string(SqliteDb::kBusyTimeoutMs));
    db.exec("PRAGMA foreign_keys = ON");
    // Before anything else reads or writes (WAL changes the file header): the schema must be
    // exactly what the migrations made, so that no trigger or view of the file runs.
    const bool project = checkProjectSchema(db);
    if (!project && mode == Mode::MustExist) {
        throw InputError(path, "table schema_version",
                         "expected a Reach project (create one with `reach-cli import`)");
    }
    if (readOnly) {
        // Readable as it is: a project one migration behind still answers every read that its
        // tables hold; writing is refused by SqliteDb::transaction.
        if (!project) {
            throw InputError(path, "table schema_version",
                             "expected a Reach project (this one is read-only, so it cannot be "
                             "initialized)");
        }
        return ProjectStore(std::move(db));
    }
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    migrate(db);
    return ProjectStore(std::move(db));
}

int ProjectStore::schemaVersion() const {
    return appliedSchemaVersion(m_db);
}

int64_t ProjectStore::importWorkload(const Workload& w, const ProgressFn& progress,
                                     std::stop_token stop) {
    int64_t workloadId = 0;
    m_db.transaction([&] {
        SqliteStatement ins = m_db.prepare(
            std::string(
                "INSERT INTO workloads(name, source, source_hash, format, device, gpu_time_us, "
                "busy_time_us, span_us, event_count, shapes_kept, twin_linked_us, imported_at) "
                "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ") +
            kNow + ")");
        ins.bind(1, w.name).bind(2, w.source).bind(3, w.sourceHash).bind(4, w.format);
        ins.bind(5, w.device).bind(6, w.gpuTimeUs).bind(7, w.busyTimeUs).bind(8, w.spanUs);
        // Its shaped calls are all kept below (a project keeps everything its inputs gave);
        // one that an older project had already lost stays marked so.
        ins.bind(9, w.eventCount).bind(10, w.shapesKept ? 1 : 0).bind(11, w.twinLinkedUs);
        ins.run();
        workloadId = m_db.lastInsertId();

        SqliteStatement kern = m_db.prepare(
            "INSERT INTO kernels(workload_id, position, name, kind, calls, total_us, min_us, "
            "max_us, streams, grid, block, graph_calls, graph_us) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
        SqliteStatement op = m_db.prepare(
            "INSERT INTO kernel_operators(kernel_id, position, op, total_us, calls) "
            "VALUES(?1, ?2, ?3, ?4, ?5)");
        SqliteStatement shaped = m_db.prepare(
            "INSERT INTO kernel_shaped_calls(kernel_id, position, op, signature, calls, "
            "op_calls, total_us) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        const size_t n = w.kernels.size();
        for (size_t i = 0; i < n; ++i) {
            if (stop.stop_requested())
                throw Cancelled{};
            const KernelStats& k = w.kernels[i];
            kern.bind(1, workloadId).bind(2, static_cast<int64_t>(i)).bind(3, k.name);
            kern.bind(4, static_cast<int>(k.kind)).bind(5, k.calls).bind(6, k.totalUs);
            kern.bind(7, k.minUs).bind(8, k.maxUs).bind(9, joinStreams(k.streams));
            kern.bind(10, k.grid).bind(11, k.block).bind(12, k.graphCalls).bind(13, k.graphUs);
            kern.run();
            const int64_t kernelId = m_db.lastInsertId();
            for (size_t j = 0; j < k.operators.size(); ++j) {
                const OperatorTime& o = k.operators[j];
                op.bind(1, kernelId).bind(2, static_cast<int64_t>(j)).bind(3, o.op);
                op.bind(4, o.totalUs).bind(5, o.calls);
                op.run();
            }
            for (size_t j = 0; j < k.shapedCalls.size(); ++j) {
                const ShapedCall& c = k.shapedCalls[j];
                shaped.bind(1, kernelId).bind(2, static_cast<int64_t>(j)).bind(3, c.op);
                shaped.bind(4, c.signature).bind(5, c.calls).bind(6, c.opCalls);
                shaped.bind(7, c.totalUs);
                shaped.run();
            }
            if (progress)
                progress(static_cast<double>(i + 1) / static_cast<double>(n));
        }
    });
    return workloadId;
}

ProjectStore::ImportOnce ProjectStore::importWorkloadOnce(const Workload& w,
                                                          const ProgressFn& progress,
                                                          std::stop_token stop) {
    ImportOnce out;
    // BEGIN IMMEDIATE takes the write lock before the check: between two processes importing
    // the same file, the second sees the first's row (and the unique index of migration 5
    // would refuse a second row anyway).
    m_db.transaction([&] {
        if (!w.sourceHash.empty()) {
            if (auto existing = findWorkloadBySourceHash(w.sourceHash)) {
                out = {*existing, true};
                return;
            }
        }
        out = {importWorkload(w, progress, stop), false};
    });
    return out;
}

std::optional<int64_t> ProjectStore::findWorkloadBySourceHash(const std::string& hash) const {
    SqliteStatement st =
        m_db.prepare("SELECT id FROM workloads WHERE source_hash = ?1 ORDER BY id LIMIT 1");
    st.bind(1, hash);
    if (st.step())
        return st.columnInt(0);
    return std::nullopt;
}

std::vector<WorkloadEntry> ProjectStore::workloadEntries() const {
    SqliteStatement st = m_db.prepare(
        "SELECT w.id, w.name, w.source, w.source_hash, w.format, w.device, w.imported_at, "
        "w.gpu_time_us, (SELECT count(*) FROM kernels k WHERE k.workload_id = w.id) "
        "FROM workloads w ORDER BY w.id");
    std::vector<WorkloadEntry> out;
    while (st.step())
        out.push_back(entryFromRow(st));
    return out;
}

Workload ProjectStore::loadWorkload(int64_t id) const {
    // A read-only project one migration behind (schema 6) has no shaped calls to read: its
    // workloads read as not kept, which is what they are.
    const int version = schemaVersion();
    const bool shapes = version >= 7;
    SqliteStatement st = m_db.prepare(
        std::string("SELECT name, source, source_hash, format, device, gpu_time_us, busy_time_us, "
                    "span_us, event_count, ") +
        (shapes ? "shapes_kept" : "0") + ", " + (version >= 8 ? "twin_linked_us" : "0") +
        " FROM workloads WHERE id = ?1");
    st.bind(1, id);
    if (!st.step()) {
        throw std::out_of_range(m_db.path() + ": no workload with id " + std::to_string(id));
    }
    Workload w;
    w.name = st.columnText(0);
    w.source = st.columnText(1);
    w.sourceHash = st.columnText(2);
    w.format = st.columnText(3);
    w.device = st.columnText(4);
    w.gpuTimeUs = st.columnNumber(5, 0, kMaxStoredUs, at("workloads", id, "gpu_time_us"));
    w.busyTimeUs = st.columnNumber(6, 0, kMaxStoredUs, at("workloads", id, "busy_time_us"));
    w.spanUs = st.columnNumber(7, 0, kMaxStoredUs, at("workloads", id, "span_us"));
    w.eventCount =
        int64_t(st.columnNumber(8, 0, kMaxStoredCount, at("workloads", id, "event_count")));
    w.shapesKept = st.columnNumber(9, 0, 1, at("workloads", id, "shapes_kept")) != 0;
    w.twinLinkedUs = st.columnNumber(10, 0, kMaxStoredUs, at("workloads", id, "twin_linked_us"));

    SqliteStatement ks = m_db.prepare(
        std::string("SELECT id, name, kind, calls, total_us, min_us, max_us, streams, grid, "
                    "block, ") +
        (shapes ? "graph_calls, graph_us" : "0, 0") +
        " FROM kernels WHERE workload_id = ?1 ORDER BY position");
    ks.bind(1, id);
    std::vector<int64_t> kernelIds;
    while (ks.step()) {
        KernelStats k;
        const int64_t row = ks.columnInt(0);
        kernelIds.push_back(row);
        k.name = ks.columnText(1);
        k.kind = static_cast<ActivityKind>(ks.columnNumber(2, 0, 2, at("kernels", row, "kind")));
        k.calls = int64_t(ks.columnNumber(3, 0, kMaxStoredCount, at("kernels", row, "calls")));
        k.totalUs = ks.columnNumber(4, 0, kMaxStoredUs, at("kernels", row, "total_us"));
        k.minUs = ks.columnNumber(5, 0, kMaxStoredUs, at("kernels", row, "min_us"));
        k.maxUs = ks.columnNumber(6, 0, kMaxStoredUs, at("kernels", row, "max_us"));
        k.streams = splitStreams(ks.columnText(7));
        k.grid = ks.columnText(8);
        k.block = ks.columnText(9);
        k.graphCalls =
            int64_t(ks.columnNumber(10, 0, kMaxStoredCount, at("kernels", row, "graph_calls")));
        k.graphUs = ks.columnNumber(11, 0, kMaxStoredUs, at("kernels", row, "graph_us"));
        w.kernels.push_back(std::move(k));
    }

    // One pass over the operator rows of this workload, matched back to kernels by id.
    SqliteStatement os = m_db.prepare(
        "SELECT k.position, o.op, o.total_us, o.calls, o.rowid FROM kernel_operators o "
        "JOIN kernels k ON k.id = o.kernel_id WHERE k.workload_id = ?1 "
        "ORDER BY k.position, o.position");
    os.bind(1, id);
    while (os.step()) {
        const auto pos = static_cast<size_t>(os.columnInt(0));
        if (pos >= w.kernels.size())
            continue;
        const int64_t row = os.columnInt(4);
        w.kernels[pos].operators.push_back(OperatorTime{
            os.columnText(1),
            os.columnNumber(2, 0, kMaxStoredUs, at("kernel_operators", row, "total_us")),
            int64_t(os.columnNumber(3, 0, kMaxStoredCount, at("kernel_operators", row, "calls")))});
    }

    // And the shaped calls (operator and input shapes) behind headroom, roofline and extract.
    if (!shapes)
        return w;
    SqliteStatement cs = m_db.prepare(
        "SELECT k.position, c.op, c.signature, c.calls, c.op_calls, c.total_us, c.rowid "
        "FROM kernel_shaped_calls c JOIN kernels k ON k.id = c.kernel_id "
        "WHERE k.workload_id = ?1 ORDER BY k.position, c.position");
    cs.bind(1, id);
    while (cs.step()) {
        const auto pos = static_cast<size_t>(cs.columnInt(0));
        if (pos >= w.kernels.size())
            continue;
        const int64_t row = cs.columnInt(6);
        ShapedCall c;
        c.op = cs.columnText(1);
        c.signature = cs.columnText(2);
        c.calls = int64_t(
            cs.columnNumber(3, 0, kMaxStoredCount, at("kernel_shaped_calls", row, "calls")));
        c.opCalls = int64_t(
            cs.columnNumber(4, 0, kMaxStoredCount, at("kernel_shaped_calls", row, "op_calls")));
        c.totalUs = cs.columnNumber(5, 0, kMaxStoredUs, at("kernel_shaped_calls", row, "total_us"));
        w.kernels[pos].shapedCalls.push_back(std::move(c));
    }
    return w;
}

std::vector<Workload> ProjectStore::workloads() const {
    std::vector<Workload> out;
    for (const WorkloadEntry& e : workloadEntries())
        out.push_back(loadWorkload(e.id));
    return out;
}

bool ProjectStore::removeWorkload(int64_t id) {
    bool removed = false;
    m_db.transaction([&] {
        SqliteStatement st = m_db.prepare("DELETE FROM workloads WHERE id = ?1");
        st.bind(1, id);
        st.run();
        removed = m_db.changes() > 0;
    });
    return removed;
}

int64_t ProjectStore::saveRuleSet(const std::string& name, const std::string& hash,
                                  const std::string& json) {
    int64_t id = 0;
    m_db.transaction([&] {
        // last_used counts up across the project, so the set saved (or saved again) last is
        // the one latestRuleSet() returns, whatever the clock's resolution.
        SqliteStatement find = m_db.prepare("SELECT id FROM rule_sets WHERE hash = ?1");
        find.bind(1, hash);
        if (find.step()) {
            id = find.columnInt(0);
        } else {
            SqliteStatement ins = m_db.prepare(
                std::string(
                    "INSERT INTO rule_sets(name, hash, json, saved_at) VALUES(?1, ?2, ?3, ") +
                kNow + ")");
            ins.bind(1, name).bind(2, hash).bind(3, json);
            ins.run();
            id = m_db.lastInsertId();
        }
        SqliteStatement use = m_db.prepare(
            "UPDATE rule_sets SET last_used = (SELECT coalesce(max(last_used), 0) + 1 FROM "
            "rule_sets) WHERE id = ?1");
        use.bind(1, id);
        use.run();
    });
    return id;
}

std::optional<RuleSet> ProjectStore::latestRuleSet() const {
    SqliteStatement st =
        m_db.prepare("SELECT hash FROM rule_sets ORDER BY last_used DESC, id DESC LIMIT 1");
    if (!st.step())
        return std::nullopt;
    return loadRuleSet(st.columnText(0));
}

int64_t ProjectStore::saveRuleSet(const RuleSet& rules) {
    return saveRuleSet(rules.name(), rules.hash(), rules.toJson());
}

std::optional<RuleSet> ProjectStore::loadRuleSet(const std::string& hash) const {
    SqliteStatement st = m_db.prepare("SELECT json FROM rule_sets WHERE hash = ?1");
    st.bind(1, hash);
    if (!st.step())
        return std::nullopt;
    return RuleSet::fromJsonText(st.columnText(0), m_db.path() + " (rule set " + hash + ")");
}

std::vector<StoredRuleSet> ProjectStore::ruleSets() const {
    SqliteStatement st =
        m_db.prepare("SELECT id, name, hash, json, saved_at FROM rule_sets ORDER BY id");
    std::vector<StoredRuleSet> out;
    while (st.step()) {
        out.push_back(StoredRuleSet{st.columnInt(0), st.columnText(1), st.columnText(2),
                                    st.columnText(3), st.columnText(4)});
    }
    return out;
}

}  // namespace reach
