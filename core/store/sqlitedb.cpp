#include "core/store/sqlitedb.h"

#include <cmath>
#include <cstdio>

#include <sqlite3.h>

#include <filesystem>
#include <system_error>
#include <utility>

#include "core/base/fileuri.h"
#include "core/base/inputerror.h"
#include "core/base/progress.h"
#include "core/store/sqliteguard.h"

namespace reach {

std::string sqliteVersion() {
    return sqlite3_libversion();
}

namespace {

std::string describe(sqlite3* db, int code) {
    const char* msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    return msg ? msg : sqlite3_errstr(code);
}

// A statement the progress handler interrupted: a stop request, or the time budget spent.
[[noreturn]] void failInterrupted(const std::string& file, StatementBudget& budget) {
    if (budget.takeReason() == StatementBudget::Reason::Stop)
        throw Cancelled{};
    throw InputError(file, "",
                     "SQLite worked on one statement for longer than the limit of " +
                         std::to_string(budget.perStep().count()) +
                         " ms (docs/limits.md); expected a project it reads in one pass");
}

}  // namespace

SqliteError::SqliteError(const std::string& file, int code, const std::string& message)
    : std::runtime_error(file + ": SQLite error " + std::to_string(code) + ": " + message),
      m_code(code),
      m_message(message) {}

// ---- SqliteStatement ----

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql, std::string file,
                                 StatementBudget* budget)
    : m_db(db), m_file(std::move(file)), m_budget(budget) {
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
      m_file(std::move(other.m_file)),
      m_budget(other.m_budget) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
    if (this != &other) {
        if (m_stmt)
            sqlite3_finalize(m_stmt);
        m_db = other.m_db;
        m_stmt = std::exchange(other.m_stmt, nullptr);
        m_file = std::move(other.m_file);
        m_budget = other.m_budget;
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
    if (value.size() > size_t(SqliteLimits::kMaxValueBytes)) {
        throw SqliteError(m_file, SQLITE_TOOBIG,
                          "a value of " + std::to_string(value.size()) +
                              " bytes; a project keeps at most " +
                              std::to_string(SqliteLimits::kMaxValueBytes >> 20) +
                              " MiB in one value (docs/limits.md)");
    }
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
    if ((rc & 0xff) == SQLITE_INTERRUPT && m_budget)
        failInterrupted(m_file, *m_budget);
    if ((rc & 0xff) == SQLITE_TOOBIG)
        failTooBig();
    throw SqliteError(m_file, rc, describe(m_db, rc));
}

// SQLite refused to load a value past its length limit, or loaded one past the limit of a kept
// string: name the first such value of the file.
void SqliteStatement::failTooBig() const {
    const std::string place = findOversizedValue(m_db);
    throw InputError(m_file, place.empty() ? "a value" : place,
                     "longer than " + std::to_string(SqliteLimits::kMaxValueBytes >> 20) +
                         " MiB, the limit of one string Reach keeps (docs/limits.md)");
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
    if (n > SqliteLimits::kMaxValueBytes)
        failTooBig();
    return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(n))
                : std::string();
}

double SqliteStatement::columnNumber(int col, double lo, double hi,
                                     const std::string& place) const {
    const int type = sqlite3_column_type(m_stmt, col);
    const double v = sqlite3_column_double(m_stmt, col);
    if ((type != SQLITE_INTEGER && type != SQLITE_FLOAT) || !std::isfinite(v) || v < lo || v > hi) {
        char range[96];
        std::snprintf(range, sizeof range, "a number from %g to %g", lo, hi);
        throw InputError(
            m_file, place,
            std::string(range) +
                (type == SQLITE_INTEGER || type == SQLITE_FLOAT ? "" : " (it holds no number)"));
    }
    return v;
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
    checkProjectPath(path);
    bool exists = std::filesystem::exists(path, ec);
    if (!exists && mode != Mode::CreateIfMissing) {
        throw InputError(path, "", "no such file, expected a project file (.reach)");
    }
    if (exists)
        checkWholeFile(path);
    SqliteDb db;
    db.m_path = path;
    const uintmax_t bytes = exists ? std::filesystem::file_size(path, ec) : 0;
    db.m_budget = std::make_unique<StatementBudget>(SqliteLimits::stepBudget(ec ? 0 : bytes));
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
    // Before the first read, which parses the file's schema: from here on the file is data.
    guardConnection(db.m_db, db.m_budget.get());
    // Before the first read: a project another process is writing must be waited for, not
    // reported as "database is locked".
    sqlite3_busy_timeout(db.m_db, kBusyTimeoutMs);
    // SQLite opens lazily: the first read of the header tells whether this is a database.
    rc = sqlite3_exec(db.m_db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = describe(db.m_db, rc);
        if ((rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_FULL ||
            (rc & 0xff) == SQLITE_CANTOPEN) {
            // Not the file's content: the disk, or the -wal/-shm beside it, failed.
            throw InputError(path, "", "cannot read it: " + msg);
        }
        throw InputError(path, "byte 0", "expected an SQLite project file (" + msg + ")");
    }
    return db;
}

SqliteDb SqliteDb::openInMemory(const std::string& name) {
    SqliteDb db;
    db.m_path = name;
    db.m_budget = std::make_unique<StatementBudget>(SqliteLimits::kStepBase);
    const int rc = sqlite3_open_v2(":memory:", &db.m_db, SQLITE_OPEN_READWRITE, nullptr);
    if (rc != SQLITE_OK)
        throw SqliteError(name, rc, describe(db.m_db, rc));
    sqlite3_extended_result_codes(db.m_db, 1);
    guardConnection(db.m_db, db.m_budget.get());
    db.m_checked = true;
    return db;
}

void SqliteDb::close() {
    if (!m_db)
        return;
    const int rc = sqlite3_close(std::exchange(m_db, nullptr));
    if (rc != SQLITE_OK)
        throw SqliteError(m_path, rc, sqlite3_errstr(rc));
}

SqliteDb::~SqliteDb() {
    if (m_db)
        sqlite3_close_v2(m_db);
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)),
      m_path(std::move(other.m_path)),
      m_depth(std::exchange(other.m_depth, 0)),
      m_readOnly(other.m_readOnly),
      m_checked(other.m_checked),
      m_budget(std::move(other.m_budget)) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
    if (this != &other) {
        if (m_db)
            sqlite3_close_v2(m_db);
        m_db = std::exchange(other.m_db, nullptr);
        m_path = std::move(other.m_path);
        m_depth = std::exchange(other.m_depth, 0);
        m_readOnly = other.m_readOnly;
        m_checked = other.m_checked;
        m_budget = std::move(other.m_budget);
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
        if ((rc & 0xff) == SQLITE_INTERRUPT && m_budget)
            failInterrupted(m_path, *m_budget);
        throw SqliteError(m_path, rc, msg);
    }
}

// A file damaged by a truncation or a bad copy still opens, and SQLite writes into it; the
// damage only shows later, as errors on reading. quick_check (every page and every row's
// constraints, without comparing indexes to their tables) is one pass over the file.
void SqliteDb::checkIntegrity() {
    SqliteStatement st = prepare("PRAGMA quick_check(1)");
    std::string result = st.step() ? st.columnText(0) : std::string("no answer");
    if (result != "ok") {
        // "*** in database main ***\nOn tree page 23 cell 1: ...": the part after the heading.
        const size_t heading = result.find("***\n");
        if (heading != std::string::npos)
            result.erase(0, heading + 4);
        for (char& c : result) {
            if (c == '\n')
                c = ';';
        }
        throw InputError(m_path, "",
                         "SQLite's quick_check finds the file damaged (" + result +
                             "); expected an intact project, so nothing is written to it");
    }
    m_checked = true;
}

SqliteStatement SqliteDb::prepare(std::string_view sql) const {
    return SqliteStatement(m_db, sql, m_path, m_budget.get());
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
    if (outer && !m_checked) {
        try {
            checkIntegrity();
        } catch (...) {
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }
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
