#include "core/trace/nsysreader.h"

#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>

#include "core/base/fileuri.h"
#include "core/base/inputerror.h"
#include "core/base/sha256.h"
#include "core/trace/bytesource.h"
#include "core/trace/gpuintervals.h"

namespace reach {

namespace {

struct DbCloser {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

// CUpti_ActivityMemcpyKind, as nsys 2.x exports store it (3.x adds ENUM_CUDA_MEMCPY_OPER).
const char* memcpyKindName(int k) {
    switch (k) {
        case 1:
            return "Memcpy HtoD";
        case 2:
            return "Memcpy DtoH";
        case 3:
            return "Memcpy HtoA";
        case 4:
            return "Memcpy AtoH";
        case 5:
            return "Memcpy AtoA";
        case 6:
            return "Memcpy AtoD";
        case 7:
            return "Memcpy DtoA";
        case 8:
            return "Memcpy DtoD";
        case 9:
            return "Memcpy HtoH";
        case 10:
            return "Memcpy PtoP";
        default:
            return "Memcpy";
    }
}

class NsysReader {
public:
    NsysReader(std::string path, const ProgressFn& progress, std::stop_token stop)
        : m_path(std::move(path)), m_progress(progress), m_stop(stop) {}

    Workload run();

private:
    [[noreturn]] void fail(const std::string& place, const std::string& what) const {
        throw InputError(m_path, place, what);
    }
    Stmt prepare(const std::string& sql, const std::string& place);
    bool hasTable(const std::string& name);
    bool hasColumn(const std::string& table, const std::string& column);
    void readKernels();
    void readMemory(const std::string& table, ActivityKind kind);
    void readSpan(const std::string& table);
    uint32_t entry(const std::string& name, ActivityKind kind);
    void add(uint32_t idx, int64_t startNs, int64_t endNs, int64_t stream);
    void checkTimes(const std::string& table, int64_t rowid, int64_t startNs, int64_t endNs) const;
    void checkStop();

    std::string m_path;
    const ProgressFn& m_progress;
    std::stop_token m_stop;
    Db m_db;
    std::vector<KernelStats> m_kernels;
    std::unordered_map<std::string, uint32_t> m_index;
    std::vector<GpuInterval> m_gpu;
    double m_spanBegin = std::numeric_limits<double>::infinity();
    double m_spanEnd = -std::numeric_limits<double>::infinity();
    int64_t m_firstDevice = -1;
    uint64_t m_rows = 0;
};

Stmt NsysReader::prepare(const std::string& sql, const std::string& place) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(m_db.get(), sql.c_str(), int(sql.size()), &s, nullptr) != SQLITE_OK) {
        fail(place, std::string("SQLite cannot read it: ") + sqlite3_errmsg(m_db.get()));
    }
    return Stmt(s);
}

bool NsysReader::hasTable(const std::string& name) {
    Stmt s = prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?",
                     "table list");
    sqlite3_bind_text(s.get(), 1, name.c_str(), -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s.get());
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        fail("table list", std::string("SQLite cannot read it: ") + sqlite3_errmsg(m_db.get()));
    }
    return rc == SQLITE_ROW;
}

bool NsysReader::hasColumn(const std::string& table, const std::string& column) {
    Stmt s = prepare("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", "table " + table);
    sqlite3_bind_text(s.get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s.get(), 2, column.c_str(), -1, SQLITE_TRANSIENT);
    return sqlite3_step(s.get()) == SQLITE_ROW;
}

void NsysReader::checkStop() {
    if ((++m_rows & 0xFFF) == 0 && m_stop.stop_requested())
        throw Cancelled{};
}

uint32_t NsysReader::entry(const std::string& name, ActivityKind kind) {
    auto it = m_index.find(name);
    if (it != m_index.end())
        return it->second;
    uint32_t idx = uint32_t(m_kernels.size());
    KernelStats s;
    s.name = name;
    s.kind = kind;
    s.minUs = std::numeric_limits<double>::infinity();
    m_kernels.push_back(std::move(s));
    m_index.emplace(name, idx);
    return idx;
}

void NsysReader::add(uint32_t idx, int64_t startNs, int64_t endNs, int64_t stream) {
    double begin = double(startNs) / 1000.0;
    double end = double(endNs) / 1000.0;
    double dur = end - begin;
    KernelStats& s = m_kernels[idx];
    ++s.calls;
    s.totalUs += dur;
    s.minUs = std::min(s.minUs, dur);
    s.maxUs = std::max(s.maxUs, dur);
    if (std::find(s.streams.begin(), s.streams.end(), int(stream)) == s.streams.end()) {
        s.streams.insert(std::upper_bound(s.streams.begin(), s.streams.end(), int(stream)),
                         int(stream));
    }
    m_gpu.push_back({begin, end, idx});
    m_spanBegin = std::min(m_spanBegin, begin);
    m_spanEnd = std::max(m_spanEnd, end);
}

// A row that ends before it starts (or lasts longer than any profile) would add negative or
// absurd GPU time: the file is refused, naming the row, rather than summed into wrong numbers.
void NsysReader::checkTimes(const std::string& table, int64_t rowid, int64_t startNs,
                            int64_t endNs) const {
    constexpr int64_t kMaxDurationNs = 10'000'000'000'000'000;  // 1e13 us, as for Kineto
    const bool ok = endNs >= startNs && (startNs < 0 ? endNs - kMaxDurationNs <= startNs
                                                     : endNs - startNs <= kMaxDurationNs);
    if (!ok) {
        fail("table " + table + ", row " + std::to_string(rowid),
             "expected end >= start and a duration up to 1e13 us, got start " +
                 std::to_string(startNs) + " ns, end " + std::to_string(endNs) + " ns");
    }
}

void NsysReader::readKernels() {
    const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
    if (!hasTable(table))
        return;
    // The full demangled name when the export has it, else the short or the mangled one.
    std::string nameCol;
    for (const char* c : {"demangledName", "shortName", "mangledName"}) {
        if (hasColumn(table, c)) {
            nameCol = c;
            break;
        }
    }
    if (nameCol.empty())
        fail("table " + table, "expected a kernel name column (demangledName)");
    Stmt s = prepare(
        "SELECT k.start, k.end, k.streamId, k.deviceId, k.gridX, k.gridY, k.gridZ, "
        "k.blockX, k.blockY, k.blockZ, COALESCE(n.value, ''), k.rowid FROM " +
            table + " k LEFT JOIN StringIds n ON n.id = k." + nameCol + " ORDER BY k.start",
        "table " + table);
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
        checkStop();
        auto col = [&](int i) { return int64_t(sqlite3_column_int64(s.get(), i)); };
        const char* raw = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 10));
        std::string name = raw && *raw ? raw : "unknown";
        uint32_t idx = entry(name, ActivityKind::Kernel);
        KernelStats& k = m_kernels[idx];
        if (k.calls == 0) {
            k.grid = std::to_string(col(4)) + "," + std::to_string(col(5)) + "," +
                     std::to_string(col(6));
            k.block = std::to_string(col(7)) + "," + std::to_string(col(8)) + "," +
                      std::to_string(col(9));
        }
        if (m_firstDevice < 0)
            m_firstDevice = col(3);
        checkTimes(table, col(11), col(0), col(1));
        add(idx, col(0), col(1), col(2));
    }
    if (rc != SQLITE_DONE) {
        fail("table " + table, std::string("SQLite cannot read it: ") + sqlite3_errmsg(m_db.get()));
    }
}

void NsysReader::readMemory(const std::string& table, ActivityKind kind) {
    if (!hasTable(table))
        return;
    bool memcpy = kind == ActivityKind::Memcpy;
    std::string sql = std::string("SELECT start, end, streamId, ") +
                      (memcpy && hasColumn(table, "copyKind") ? "copyKind" : "0") +
                      ", rowid FROM " + table;
    Stmt s = prepare(sql, "table " + table);
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
        checkStop();
        auto col = [&](int i) { return int64_t(sqlite3_column_int64(s.get(), i)); };
        std::string name = memcpy ? memcpyKindName(int(col(3))) : "Memset (Device)";
        checkTimes(table, col(4), col(0), col(1));
        add(entry(name, kind), col(0), col(1), col(2));
    }
    if (rc != SQLITE_DONE) {
        fail("table " + table, std::string("SQLite cannot read it: ") + sqlite3_errmsg(m_db.get()));
    }
}

// The profiled span also covers host-side CUDA API calls (launches precede their kernels).
void NsysReader::readSpan(const std::string& table) {
    if (!hasTable(table))
        return;
    Stmt s = prepare("SELECT MIN(start), MAX(end) FROM " + table, "table " + table);
    if (sqlite3_step(s.get()) == SQLITE_ROW && sqlite3_column_type(s.get(), 0) != SQLITE_NULL) {
        m_spanBegin = std::min(m_spanBegin, double(sqlite3_column_int64(s.get(), 0)) / 1000.0);
        m_spanEnd = std::max(m_spanEnd, double(sqlite3_column_int64(s.get(), 1)) / 1000.0);
    }
}

Workload NsysReader::run() {
    Workload w;
    w.format = "nsys-sqlite";
    {
        // Hash the bytes first: it also proves the file is readable and not a directory.
        ByteSource bytes(m_path, m_stop);
        for (std::string_view c = bytes.next(); !c.empty(); c = bytes.next()) {
        }
        w.sourceHash = bytes.sha256();
    }
    if (m_progress)
        m_progress(0.1);
    // immutable=1: SQLite reads the file as it is and creates nothing: no -wal/-shm beside an
    // export in WAL mode, no lock, and a read-only file or folder is no obstacle. The user's
    // export and its folder stay exactly as they were.
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(sqliteFileUri(m_path, "immutable=1").c_str(), &db,
                             SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    m_db.reset(db);
    if (rc != SQLITE_OK) {
        fail("", std::string("SQLite cannot open it: ") +
                     (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
    }
    bool nsys = hasTable("StringIds") || hasTable("EXPORT_META_DATA") ||
                hasTable("META_DATA_EXPORT") || hasTable("TARGET_INFO_GPU");
    if (!nsys) {
        fail("table StringIds",
             "expected an Nsight Systems export (StringIds, META_DATA_EXPORT or EXPORT_META_DATA "
             "tables); this SQLite file has none");
    }
    readKernels();
    if (m_progress)
        m_progress(0.6);
    readMemory("CUPTI_ACTIVITY_KIND_MEMCPY", ActivityKind::Memcpy);
    readMemory("CUPTI_ACTIVITY_KIND_MEMSET", ActivityKind::Memset);
    readSpan("CUPTI_ACTIVITY_KIND_RUNTIME");
    if (hasTable("TARGET_INFO_GPU")) {
        Stmt s =
            prepare("SELECT id, name FROM TARGET_INFO_GPU ORDER BY id", "table TARGET_INFO_GPU");
        while (sqlite3_step(s.get()) == SQLITE_ROW) {
            const char* n = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 1));
            if (!n || !*n)
                continue;
            if (w.device.empty() || sqlite3_column_int64(s.get(), 0) == m_firstDevice)
                w.device = n;
        }
    }
    for (KernelStats& k : m_kernels)
        w.gpuTimeUs += k.totalUs;
    w.kernels = std::move(m_kernels);
    std::sort(w.kernels.begin(), w.kernels.end(), [](const auto& a, const auto& b) {
        return a.totalUs != b.totalUs ? a.totalUs > b.totalUs : a.name < b.name;
    });
    w.eventCount = int64_t(m_gpu.size());
    w.busyTimeUs = unionLength(m_gpu);
    w.spanUs = m_spanEnd > m_spanBegin ? m_spanEnd - m_spanBegin : 0;
    if (m_progress)
        m_progress(1.0);
    return w;
}

}  // namespace

Workload readNsysSqlite(const std::string& path, const ProgressFn& progress, std::stop_token stop) {
    NsysReader reader(path, progress, stop);
    return reader.run();
}

}  // namespace reach
