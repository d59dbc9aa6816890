#include "core/trace/nsysreader.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "core/base/inputerror.h"
#include "core/base/sqlitelimits.h"
#include "core/trace/bytesource.h"
#include "core/trace/gpuintervals.h"
#include "core/trace/nsysdb.h"

namespace reach {

namespace {

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
    void readKernels();
    void readMemory(const std::string& table, ActivityKind kind);
    void readSpan(const std::string& table);
    std::string readDevice();
    static bool integers(const NsysDb::Query& row, size_t columns);
    [[noreturn]] void failType(const std::string& table, int64_t rowid,
                               const std::vector<std::string>& columns);
    [[noreturn]] void failTooBig(const std::string& table, const std::vector<std::string>& ints,
                                 const std::string& nameCol, int64_t lastRowid);
    uint32_t entry(const std::string& name, ActivityKind kind);
    void add(uint32_t idx, int64_t startNs, int64_t endNs, int64_t stream);
    void checkTimes(const std::string& table, int64_t rowid, int64_t startNs, int64_t endNs) const;
    void checkStop();

    std::string m_path;
    const ProgressFn& m_progress;
    std::stop_token m_stop;
    std::unique_ptr<NsysDb> m_db;
    std::vector<KernelStats> m_kernels;
    std::unordered_map<std::string, uint32_t> m_index;
    // Distinct (kernel, stream) pairs seen, and each kernel's last stream: a stream is added to
    // a kernel's list once, in constant time, and the lists are sorted at the end. (A sorted
    // insert per new stream was quadratic in a kernel's streams: 400k streams took 33 s.)
    std::unordered_set<uint64_t> m_kernelStreams;
    std::vector<int> m_lastStream;
    // The first launch of each kernel (smallest start) gives its grid and block; the first
    // kernel of the export gives the device. Rows are read in file order, not sorted by start
    // (sorting needs temporary storage as large as the table).
    std::vector<int64_t> m_firstStart;
    int64_t m_firstDeviceStart = std::numeric_limits<int64_t>::max();
    std::vector<GpuInterval> m_gpu;
    double m_spanBegin = std::numeric_limits<double>::infinity();
    double m_spanEnd = -std::numeric_limits<double>::infinity();
    int64_t m_firstDevice = -1;
    uint64_t m_rows = 0;
};

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
    m_lastStream.push_back(std::numeric_limits<int>::min());
    m_firstStart.push_back(std::numeric_limits<int64_t>::max());
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
    if (m_lastStream[idx] != int(stream)) {
        m_lastStream[idx] = int(stream);
        if (m_kernelStreams.insert((uint64_t(idx) << 32) | uint32_t(int(stream))).second)
            s.streams.push_back(int(stream));
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

// The first two of `columns` (start and end) must hold integers, the others integers or NULL.
bool NsysReader::integers(const NsysDb::Query& row, size_t columns) {
    for (size_t i = 0; i < columns; ++i) {
        if (!row.isInteger(int(i)) && (i < 2 || !row.isNull(int(i))))
            return false;
    }
    return true;
}

// nsys writes every column Reach reads as an INTEGER (times in ns). A REAL or TEXT time was read
// as 0 (or truncated) into wrong numbers: the row is refused, naming the column.
void NsysReader::failType(const std::string& table, int64_t rowid,
                          const std::vector<std::string>& columns) {
    const std::vector<std::string> types = m_db->typesOf(table, columns, rowid);
    for (size_t i = 0; i < columns.size(); ++i) {
        const bool time = i < 2;
        if (types[i] == "integer" || (!time && types[i] == "null"))
            continue;
        fail("table " + table + ", row " + std::to_string(rowid) + ", column " + columns[i],
             std::string("expected an integer") + (time ? " time in ns" : "") +
                 " as nsys writes it, found " + (types[i].empty() ? "nothing" : types[i]));
    }
    fail("table " + table + ", row " + std::to_string(rowid), "expected integers as nsys writes");
}

// SQLite refused a value longer than the limit without reading it. Rows come in rowid order, so
// the row is the first one after the last read: one of its numbers is a long text or blob, or
// (for kernels) its name is too long.
void NsysReader::failTooBig(const std::string& table, const std::vector<std::string>& ints,
                            const std::string& nameCol, int64_t lastRowid) {
    const std::string limit = std::to_string(SqliteLimits::kMaxValueBytes >> 20) + " MiB";
    NsysDb::Query next(*m_db,
                       "SELECT rowid" + (nameCol.empty() ? std::string() : ", " + nameCol) +
                           " FROM " + table + " WHERE rowid > ?1 ORDER BY rowid LIMIT 1",
                       "table " + table);
    next.bind(1, lastRowid);
    if (next.step()) {
        const int64_t rowid = next.integer(0);
        const std::vector<std::string> types = m_db->typesOf(table, ints, rowid);
        for (size_t i = 0; i < types.size(); ++i) {
            if (types[i] != "integer" && (i < 2 || types[i] != "null"))
                failType(table, rowid, ints);
        }
        const int64_t id = nameCol.empty() || !next.isInteger(1) ? -1 : next.integer(1);
        const int64_t bytes = id < 0 ? -1 : m_db->valueBytes("StringIds", "value", id);
        if (bytes > SqliteLimits::kMaxValueBytes) {
            fail("table StringIds, row " + std::to_string(id) + ", column value",
                 "a kernel name of " + std::to_string(bytes) + " bytes (the name of " + table +
                     " row " + std::to_string(rowid) + "); expected at most " + limit +
                     ", the limit of one string Reach keeps");
        }
    }
    const int64_t row = nameCol.empty() ? -1 : m_db->firstOversizedRow("StringIds", "value");
    fail(row >= 0 ? "table StringIds, row " + std::to_string(row) + ", column value"
                  : "table " + table,
         "expected values of at most " + limit + ", the limit of one string Reach keeps");
}

void NsysReader::readKernels() {
    const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
    if (!m_db->hasTable(table))
        return;
    const std::vector<std::string> ints = {"start", "end",   "streamId", "deviceId", "gridX",
                                           "gridY", "gridZ", "blockX",   "blockY",   "blockZ"};
    m_db->requireColumns(table, ints);
    // The full demangled name when the export has it, else the short or the mangled one.
    std::string nameCol;
    for (const char* c : {"demangledName", "shortName", "mangledName"}) {
        if (m_db->hasColumn(table, c)) {
            nameCol = c;
            break;
        }
    }
    if (nameCol.empty())
        fail("table " + table, "expected a kernel name column (demangledName)");
    // Names are looked up by StringIds' primary key: without it each lookup would scan the table
    // (or SQLite would build a temporary index of it).
    if (!m_db->hasTable("StringIds"))
        fail("table StringIds", "expected the table of kernel names that nsys writes");
    m_db->requireColumns("StringIds", {"id", "value"});
    if (!m_db->isPrimaryKey("StringIds", "id"))
        fail("table StringIds", "expected id to be its primary key, as nsys writes it");

    std::string sql = "SELECT ";
    for (const std::string& c : ints)
        sql += "k." + c + ", ";
    sql += "COALESCE(n.value, ''), k.rowid FROM " + table +
           " k LEFT JOIN StringIds n ON n.id = k." + nameCol;
    NsysDb::Query s(*m_db, sql, "table " + table);
    int64_t lastRowid = std::numeric_limits<int64_t>::min();
    bool tooBig = false;
    while (s.step(&tooBig)) {
        checkStop();
        const int64_t rowid = s.integer(11);
        if (!integers(s, ints.size()))
            failType(table, rowid, ints);
        auto col = [&](int i) { return s.integer(i); };
        std::string name = s.text(10);
        if (name.empty())
            name = "unknown";
        uint32_t idx = entry(name, ActivityKind::Kernel);
        KernelStats& k = m_kernels[idx];
        if (col(0) < m_firstStart[idx]) {
            m_firstStart[idx] = col(0);
            k.grid = std::to_string(col(4)) + "," + std::to_string(col(5)) + "," +
                     std::to_string(col(6));
            k.block = std::to_string(col(7)) + "," + std::to_string(col(8)) + "," +
                      std::to_string(col(9));
        }
        if (col(0) < m_firstDeviceStart) {
            m_firstDeviceStart = col(0);
            m_firstDevice = col(3);
        }
        checkTimes(table, rowid, col(0), col(1));
        add(idx, col(0), col(1), col(2));
        lastRowid = rowid;
    }
    if (tooBig)
        failTooBig(table, ints, nameCol, lastRowid);
}

void NsysReader::readMemory(const std::string& table, ActivityKind kind) {
    if (!m_db->hasTable(table))
        return;
    const bool memcpy = kind == ActivityKind::Memcpy;
    std::vector<std::string> ints = {"start", "end", "streamId"};
    m_db->requireColumns(table, ints);
    if (memcpy && m_db->hasColumn(table, "copyKind"))
        ints.push_back("copyKind");
    std::string sql = "SELECT ";
    for (const std::string& c : ints)
        sql += c + ", ";
    if (ints.size() == 3)
        sql += "0, ";
    sql += "rowid FROM " + table;
    NsysDb::Query s(*m_db, sql, "table " + table);
    int64_t lastRowid = std::numeric_limits<int64_t>::min();
    bool tooBig = false;
    while (s.step(&tooBig)) {
        checkStop();
        const int64_t rowid = s.integer(4);
        if (!integers(s, ints.size()))
            failType(table, rowid, ints);
        auto col = [&](int i) { return s.integer(i); };
        std::string name = memcpy ? memcpyKindName(int(col(3))) : "Memset (Device)";
        checkTimes(table, rowid, col(0), col(1));
        add(entry(name, kind), col(0), col(1), col(2));
        lastRowid = rowid;
    }
    if (tooBig)
        failTooBig(table, ints, "", lastRowid);
}

// The profiled span also covers host-side CUDA API calls (launches precede their kernels). Only
// the earliest start and the latest end are used, and those must be integers. (Checking the
// type of every row tripled the time of this pass over what is often the largest table.)
void NsysReader::readSpan(const std::string& table) {
    if (!m_db->hasTable(table))
        return;
    m_db->requireColumns(table, {"start", "end"});
    NsysDb::Query s(*m_db, "SELECT min(start), max(end) FROM " + table, "table " + table);
    bool tooBig = false;
    const bool row = s.step(&tooBig);
    if (row && s.isNull(0) && s.isNull(1))
        return;  // no rows
    if (tooBig || !row || !s.isInteger(0) || !s.isInteger(1)) {
        NsysDb::Query bad(*m_db,
                          "SELECT rowid FROM " + table +
                              " WHERE typeof(start) <> 'integer' OR typeof(end) <> 'integer' "
                              "LIMIT 1",
                          "table " + table);
        if (bad.step())
            failType(table, bad.integer(0), {"start", "end"});
        fail("table " + table, "expected integer times in ns as nsys writes them");
    }
    m_spanBegin = std::min(m_spanBegin, double(s.integer(0)) / 1000.0);
    m_spanEnd = std::max(m_spanEnd, double(s.integer(1)) / 1000.0);
}

// The name of the first kernel's GPU, else of the GPU with the smallest id.
std::string NsysReader::readDevice() {
    const std::string table = "TARGET_INFO_GPU";
    if (!m_db->hasTable(table))
        return {};
    m_db->requireColumns(table, {"id", "name"});
    NsysDb::Query s(*m_db,
                    "SELECT " + sqlIntegerOrNull("id") + ", name FROM " + table +
                        " WHERE typeof(name) = 'text'",
                    "table " + table);
    std::string device;
    int64_t deviceId = std::numeric_limits<int64_t>::max();
    bool tooBig = false;
    while (s.step(&tooBig)) {
        std::string name = s.text(1);
        const int64_t id = s.isNull(0) ? std::numeric_limits<int64_t>::max() : s.integer(0);
        if (name.empty())
            continue;
        const bool first = id == m_firstDevice;
        if (first || (deviceId != m_firstDevice && id < deviceId) || device.empty()) {
            device = std::move(name);
            deviceId = id;
        }
    }
    if (tooBig) {
        const int64_t row = m_db->firstOversizedRow(table, "name");
        fail("table " + table + (row >= 0 ? ", row " + std::to_string(row) : std::string()) +
                 ", column name",
             "expected a GPU name of at most " +
                 std::to_string(SqliteLimits::kMaxValueBytes >> 20) + " MiB");
    }
    return device;
}

Workload NsysReader::run() {
    Workload w;
    w.format = "nsys-sqlite";
    uint64_t bytesRead = 0;
    {
        // Hash the bytes first: it also proves the file is readable and not a directory.
        ByteSource bytes(m_path, m_stop);
        for (std::string_view c = bytes.next(); !c.empty(); c = bytes.next())
            bytesRead += c.size();
        w.sourceHash = bytes.sha256();
    }
    if (m_progress)
        m_progress(0.1);
    m_db = std::make_unique<NsysDb>(m_path, bytesRead, m_stop);
    bool nsys = m_db->hasTable("StringIds") || m_db->hasTable("EXPORT_META_DATA") ||
                m_db->hasTable("META_DATA_EXPORT") || m_db->hasTable("TARGET_INFO_GPU");
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
    w.device = readDevice();
    for (KernelStats& k : m_kernels) {
        w.gpuTimeUs += k.totalUs;
        std::sort(k.streams.begin(), k.streams.end());
    }
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
