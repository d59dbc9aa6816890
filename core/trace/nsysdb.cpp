#include "core/trace/nsysdb.h"

#include <sqlite3.h>

#include <cctype>

#include "core/base/fileuri.h"
#include "core/base/inputerror.h"
#include "core/base/progress.h"

namespace reach {

namespace {

// An identifier for SQL text: table names come from Reach's own list, but are quoted anyway.
std::string identifier(const std::string& name) {
    std::string q = "\"";
    for (char c : name)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string upper(std::string s) {
    for (char& c : s)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

int onProgress(void* budget) {
    return static_cast<StatementBudget*>(budget)->spent() ? 1 : 0;
}

// A statement starts, or returns a row: its time budget starts again.
int onTrace(unsigned, void* budget, void*, void*) {
    static_cast<StatementBudget*>(budget)->arm();
    return 0;
}

}  // namespace

std::string sqlIntegerOrNull(const std::string& column) {
    return "CASE WHEN typeof(" + column + ") = 'integer' THEN " + column + " END";
}

NsysDb::NsysDb(std::string path, uint64_t fileBytes, std::stop_token stop)
    : m_path(std::move(path)),
      m_budget(
          std::make_unique<StatementBudget>(SqliteLimits::stepBudget(fileBytes), std::move(stop))) {
    // Whatever SQLite allocates for any file is bounded, the schema it parses included.
    sqlite3_hard_heap_limit64(SqliteLimits::kMaxHeapBytes);
    // immutable=1: SQLite reads the file as it is and creates nothing: no -wal/-shm beside an
    // export in WAL mode, no lock, and a read-only file or folder is no obstacle. The user's
    // export and its folder stay exactly as they were.
    const int rc = sqlite3_open_v2(sqliteFileUri(m_path, "immutable=1").c_str(), &m_db,
                                   SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    try {
        if (rc != SQLITE_OK) {
            fail("", std::string("SQLite cannot open it: ") +
                         (m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc)));
        }
        configure();
    } catch (...) {
        // No destructor runs for an object whose constructor throws.
        sqlite3_close_v2(m_db);
        throw;
    }
}

void NsysDb::configure() {
    // Before the first read, which parses the file's schema: from here on the file is data.
    // Views and triggers are off (a view is SQL that would run here; no trigger may fire), the
    // schema's SQL may call no function with side effects, nothing is loaded or attached,
    // SQLite's own tables cannot be written, and one value or statement has a size limit.
    sqlite3_extended_result_codes(m_db, 1);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    sqlite3_limit(m_db, SQLITE_LIMIT_LENGTH, SqliteLimits::kMaxValueBytes);
    sqlite3_limit(m_db, SQLITE_LIMIT_SQL_LENGTH, SqliteLimits::kMaxSqlBytes);
    sqlite3_limit(m_db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(m_db, SQLITE_LIMIT_WORKER_THREADS, 0);
    sqlite3_progress_handler(m_db, SqliteLimits::kOpsPerCheck, onProgress, m_budget.get());
    sqlite3_trace_v2(m_db, SQLITE_TRACE_STMT | SQLITE_TRACE_ROW, onTrace, m_budget.get());
    // Temporary tables and indexes stay in memory (under the heap limit), never in /var/tmp.
    Query(*this, "PRAGMA temp_store = MEMORY", "").step();
    Query(*this, "PRAGMA cell_size_check = ON", "").step();
}

NsysDb::~NsysDb() {
    sqlite3_close_v2(m_db);
}

void NsysDb::fail(const std::string& place, const std::string& what) const {
    throw InputError(m_path, place, what);
}

bool NsysDb::object(const std::string& name, Object& out) {
    // Names are case-insensitive in SQL: a view "stringids" stands where StringIds is read.
    Query q(*this,
            "SELECT type, coalesce(sql, '') FROM sqlite_master WHERE name = ?1 COLLATE NOCASE "
            "AND type IN ('table', 'view')",
            "table list");
    q.bind(1, name);
    if (!q.step())
        return false;
    out.type = q.text(0);
    out.sql = q.text(1);
    return true;
}

bool NsysDb::hasTable(const std::string& name) {
    Object o;
    if (!object(name, o))
        return false;
    if (o.type == "view") {
        fail("view " + name,
             "expected a table: Reach reads an Nsight export only from its tables, never through "
             "a view (SQL that would run here)");
    }
    if (upper(o.sql).rfind("CREATE TABLE", 0) != 0) {
        fail("table " + name, "expected a plain table as nsys writes it, found a virtual table");
    }
    for (const char* hidden : {"rowid", "oid", "_rowid_"}) {
        if (hasColumn(name, hidden)) {
            fail("table " + name + ", column " + hidden,
                 "expected the columns nsys writes; this one hides the row number");
        }
    }
    // Every message names a row by its rowid: a table without rowids is not an export.
    sqlite3_stmt* probe = nullptr;
    const std::string sql = "SELECT rowid FROM " + identifier(name) + " LIMIT 0";
    const int rc = sqlite3_prepare_v2(m_db, sql.c_str(), -1, &probe, nullptr);
    sqlite3_finalize(probe);
    if (rc != SQLITE_OK) {
        fail("table " + name, "expected a table with row numbers as nsys writes it (" +
                                  std::string(sqlite3_errmsg(m_db)) + ")");
    }
    return true;
}

bool NsysDb::hasColumn(const std::string& table, const std::string& column) {
    Query q(*this, "SELECT hidden FROM pragma_table_xinfo(?1) WHERE name = ?2 COLLATE NOCASE",
            "table " + table);
    q.bind(1, table);
    q.bind(2, column);
    if (!q.step())
        return false;
    // hidden 2 and 3: a generated column, an expression of the file evaluated on every read.
    if (q.integer(0) != 0) {
        fail("table " + table + ", column " + column,
             "expected a stored column as nsys writes it, found a generated one");
    }
    return true;
}

void NsysDb::requireColumns(const std::string& table, const std::vector<std::string>& columns) {
    for (const std::string& c : columns) {
        if (!hasColumn(table, c))
            fail("table " + table, "expected a column " + c + " (as nsys writes the table)");
    }
}

bool NsysDb::isPrimaryKey(const std::string& table, const std::string& column) {
    Query q(*this, "SELECT name, pk FROM pragma_table_info(?1) WHERE pk > 0", "table " + table);
    q.bind(1, table);
    int keys = 0;
    bool found = false;
    while (q.step()) {
        ++keys;
        found = found || upper(q.text(0)) == upper(column);
    }
    return found && keys == 1;
}

int64_t NsysDb::valueBytes(const std::string& table, const std::string& column, int64_t rowid) {
    sqlite3_blob* blob = nullptr;
    const int rc = sqlite3_blob_open(m_db, "main", table.c_str(), column.c_str(), rowid, 0, &blob);
    const int64_t bytes = rc == SQLITE_OK ? sqlite3_blob_bytes(blob) : -1;
    sqlite3_blob_close(blob);
    return bytes;
}

int64_t NsysDb::firstOversizedRow(const std::string& table, const std::string& column) {
    // typeof() reads the record header only, and a blob handle gives a value's size the same
    // way: nothing longer than the limit is loaded to find it. One handle moves from row to row
    // (opening one compiles a statement).
    Query q(*this,
            "SELECT rowid FROM " + identifier(table) + " WHERE typeof(" + identifier(column) +
                ") IN ('text', 'blob')",
            "table " + table);
    sqlite3_blob* blob = nullptr;
    int64_t found = -1;
    while (found < 0 && q.step()) {
        const int64_t rowid = q.integer(0);
        int rc = blob ? sqlite3_blob_reopen(blob, rowid) : SQLITE_ERROR;
        if (rc != SQLITE_OK) {
            sqlite3_blob_close(blob);
            blob = nullptr;
            rc = sqlite3_blob_open(m_db, "main", table.c_str(), column.c_str(), rowid, 0, &blob);
        }
        if (rc == SQLITE_OK && sqlite3_blob_bytes(blob) > SqliteLimits::kMaxValueBytes)
            found = rowid;
    }
    sqlite3_blob_close(blob);
    return found;
}

std::vector<std::string> NsysDb::typesOf(const std::string& table,
                                         const std::vector<std::string>& columns, int64_t rowid) {
    std::string sql = "SELECT ";
    for (size_t i = 0; i < columns.size(); ++i)
        sql += (i ? ", typeof(" : "typeof(") + identifier(columns[i]) + ")";
    sql += " FROM " + identifier(table) + " WHERE rowid = ?1";
    Query q(*this, sql, "table " + table);
    q.bind(1, rowid);
    std::vector<std::string> out(columns.size());
    if (q.step()) {
        for (size_t i = 0; i < columns.size(); ++i)
            out[i] = q.text(int(i));
    }
    return out;
}

// ---- Query ----

NsysDb::Query::Query(NsysDb& db, const std::string& sql, std::string place)
    : m_db(db), m_place(std::move(place)) {
    if (sqlite3_prepare_v2(db.m_db, sql.c_str(), int(sql.size()), &m_stmt, nullptr) != SQLITE_OK) {
        db.fail(m_place, std::string("SQLite cannot read it: ") + sqlite3_errmsg(db.m_db));
    }
}

NsysDb::Query::~Query() {
    sqlite3_finalize(m_stmt);
}

void NsysDb::Query::bind(int index, const std::string& value) {
    sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

void NsysDb::Query::bind(int index, int64_t value) {
    sqlite3_bind_int64(m_stmt, index, value);
}

bool NsysDb::Query::step(bool* tooBig) {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    if (rc == SQLITE_TOOBIG && tooBig) {
        *tooBig = true;
        return false;
    }
    if ((rc & 0xff) == SQLITE_INTERRUPT) {
        if (m_db.m_budget->takeReason() == StatementBudget::Reason::Stop)
            throw Cancelled{};
        m_db.fail(m_place, "SQLite worked on one statement for longer than the limit of " +
                               std::to_string(m_db.m_budget->perStep().count() / 1000) +
                               " s (docs/limits.md); expected an export it reads in one pass");
    }
    m_db.fail(m_place, std::string("SQLite cannot read it: ") + sqlite3_errmsg(m_db.m_db));
}

bool NsysDb::Query::isInteger(int col) const {
    return sqlite3_column_type(m_stmt, col) == SQLITE_INTEGER;
}

bool NsysDb::Query::isNull(int col) const {
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}

int64_t NsysDb::Query::integer(int col) const {
    return sqlite3_column_int64(m_stmt, col);
}

std::string NsysDb::Query::text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, col));
    const int n = sqlite3_column_bytes(m_stmt, col);
    return p ? std::string(p, size_t(n)) : std::string();
}

}  // namespace reach
