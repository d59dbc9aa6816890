#include "core/store/sqlitedb.h"

#include <sqlite3.h>

#include <filesystem>
#include <system_error>
#include <utility>

#include "core/base/fileuri.h"
#include "core/base/inputerror.h"

namespace reach {

namespace {

std::string describe(sqlite3* db, int code) {
    const char* msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    return msg ? msg : sqlite3_errstr(code);
}

}  // namespace

SqliteError::SqliteError(const std::string& file, int code, const std::string& message)
    : std::runtime_error(file + ": SQLite error " + std::to_string(code) + ": " + message),
      m_code(code) {}

// ---- SqliteStatement ----

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql, std::string file)
    : m_db(db), m_file(std::move(file)) {
    int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &m_stmt, nullptr);
    if (rc != SQLITE_OK) {
        throw SqliteError(m_file, rc, describe(db, rc) + " in: " + std::string(sql.substr(0, 80)));
    }
}

SqliteStatement::~SqliteStatement() {
    if (m_stmt)
        sqlite3_finalize(m_stmt);
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : m_db(other.m_db),
      m_stmt(std::exchange(other.m_stmt, nullptr)),
      m_file(std::move(other.m_file)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
    if (this != &other) {
        if (m_stmt)
            sqlite3_finalize(m_stmt);
        m_db = other.m_db;
        m_stmt = std::exchange(other.m_stmt, nullptr);
        m_file = std::move(other.m_file);
    }
    return *this;
}

static void check(sqlite3* db, int rc, const std::string& file) {
    if (rc != SQLITE_OK)
        throw SqliteError(file, rc, describe(db, rc));
}

SqliteStatement& SqliteStatement::bind(int index, int64_t value) {
    check(m_db, sqlite3_bind_int64(m_stmt, index, value), m_file);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
    check(m_db, sqlite3_bind_double(m_stmt, index, value), m_file);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view value) {
    check(m_db,
          sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT,
                              SQLITE_UTF8),
          m_file);
    return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index) {
    check(m_db, sqlite3_bind_null(m_stmt, index), m_file);
    return *this;
}

bool SqliteStatement::step() {
    int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    throw SqliteError(m_file, rc, describe(m_db, rc));
}

void SqliteStatement::run() {
    while (step()) {
    }
    reset();
}

void SqliteStatement::reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

int64_t SqliteStatement::columnInt(int col) const {
    return sqlite3_column_int64(m_stmt, col);
}

double SqliteStatement::columnDouble(int col) const {
    return sqlite3_column_double(m_stmt, col);
}

std::string SqliteStatement::columnText(int col) const {
    const unsigned char* text = sqlite3_column_text(m_stmt, col);
    int n = sqlite3_column_bytes(m_stmt, col);
    return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(n))
                : std::string();
}

bool SqliteStatement::columnIsNull(int col) const {
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}

// ---- SqliteDb ----

SqliteDb SqliteDb::open(const std::string& path, Mode mode) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw InputError(path, "", "is a directory, expected a project file (.reach)");
    }
    bool exists = std::filesystem::exists(path, ec);
    if (!exists && mode != Mode::CreateIfMissing) {
        throw InputError(path, "", "no such file, expected a project file (.reach)");
    }
    SqliteDb db;
    db.m_path = path;
    int rc;
    if (mode == Mode::ReadOnly) {
        // immutable: no lock, no -shm, nothing created. Only while a writer's -wal exists (its
        // last changes may still be there) is the file read through the WAL, read-only.
        const bool wal = std::filesystem::exists(path + "-wal", ec);
        db.m_readOnly = true;
        rc = sqlite3_open_v2(sqliteFileUri(path, wal ? "mode=ro" : "immutable=1").c_str(), &db.m_db,
                             SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    } else {
        const int flags =
            SQLITE_OPEN_READWRITE | (mode == Mode::CreateIfMissing ? SQLITE_OPEN_CREATE : 0);
        rc = sqlite3_open_v2(path.c_str(), &db.m_db, flags, nullptr);
    }
    if (rc != SQLITE_OK) {
        std::string msg = describe(db.m_db, rc);
        throw InputError(path, "", "cannot open as a project: " + msg);
    }
    sqlite3_extended_result_codes(db.m_db, 1);
    // Before the first read: a project another process is writing must be waited for, not
    // reported as "database is locked".
    sqlite3_busy_timeout(db.m_db, kBusyTimeoutMs);
    // SQLite opens lazily: the first read of the header tells whether this is a database.
    rc = sqlite3_exec(db.m_db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = describe(db.m_db, rc);
        throw InputError(path, "byte 0", "expected an SQLite project file (" + msg + ")");
    }
    return db;
}

SqliteDb::~SqliteDb() {
    if (m_db)
        sqlite3_close_v2(m_db);
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)),
      m_path(std::move(other.m_path)),
      m_depth(std::exchange(other.m_depth, 0)),
      m_readOnly(other.m_readOnly) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
    if (this != &other) {
        if (m_db)
            sqlite3_close_v2(m_db);
        m_db = std::exchange(other.m_db, nullptr);
        m_path = std::move(other.m_path);
        m_depth = std::exchange(other.m_depth, 0);
        m_readOnly = other.m_readOnly;
    }
    return *this;
}

void SqliteDb::exec(std::string_view sql) {
    std::string text(sql);
    char* err = nullptr;
    int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        std::string msg = err ? err : describe(m_db, rc);
        sqlite3_free(err);
        throw SqliteError(m_path, rc, msg);
    }
}

SqliteStatement SqliteDb::prepare(std::string_view sql) const {
    return SqliteStatement(m_db, sql, m_path);
}

int64_t SqliteDb::lastInsertId() const {
    return sqlite3_last_insert_rowid(m_db);
}

int SqliteDb::changes() const {
    return sqlite3_changes(m_db);
}

bool SqliteDb::tableExists(std::string_view table) const {
    SqliteStatement st = prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1");
    st.bind(1, table);
    return st.step();
}

void SqliteDb::transaction(const std::function<void()>& body) {
    if (m_readOnly) {
        throw InputError(m_path, "",
                         "opened read-only (no write permission for the file or its folder); "
                         "expected a project Reach may write");
    }
    const bool outer = m_depth == 0;
    const std::string savepoint = "reach_sp" + std::to_string(m_depth);
    exec(outer ? "BEGIN IMMEDIATE" : "SAVEPOINT " + savepoint);
    ++m_depth;
    try {
        body();
    } catch (...) {
        --m_depth;
        // Rollback must not throw over the original error; if it fails the connection is closed
        // uncommitted anyway, which SQLite also rolls back.
        if (outer) {
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
        } else {
            std::string sql = "ROLLBACK TO " + savepoint + "; RELEASE " + savepoint;
            sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, nullptr);
        }
        throw;
    }
    --m_depth;
    try {
        exec(outer ? "COMMIT" : "RELEASE " + savepoint);
    } catch (...) {
        if (outer)
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

}  // namespace reach
