#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/base/sqlitelimits.h"

struct sqlite3;
struct sqlite3_stmt;

namespace reach {

// The SQLite library projects are written with ("3.40.1"): Help > About says it.
std::string sqliteVersion();

// Thin RAII wrappers over the SQLite C API, just enough for the project store and the parts that
// add tables to it (records, verifications). Errors throw: InputError when the file itself is not
// usable (missing, a directory, a device, not SQLite, damaged, a value past the limits, a
// statement past its time budget), SqliteError for everything else.
//
// A project may come from anyone: every connection is opened with SQLite's defensive settings,
// views and triggers off and docs/limits.md's bounds (core/store/sqliteguard.h); the schema is
// checked against the migrations before use (core/store/schemacheck.h).
//
// Threading: one SqliteDb (one connection) per thread. A connection is never shared between
// threads; a worker that needs the project opens its own (WAL lets readers run beside a writer).

class SqliteError : public std::runtime_error {
public:
    SqliteError(const std::string& file, int code, const std::string& message);
    int code() const { return m_code; }
    const std::string& message() const { return m_message; }  // SQLite's, without the file

private:
    int m_code;
    std::string m_message;
};

class SqliteStatement {
public:
    SqliteStatement(sqlite3* db, std::string_view sql, std::string file,
                    StatementBudget* budget = nullptr);
    ~SqliteStatement();
    SqliteStatement(SqliteStatement&& other) noexcept;
    SqliteStatement& operator=(SqliteStatement&& other) noexcept;
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    // Parameters are 1-based, as in SQLite.
    SqliteStatement& bind(int index, int64_t value);
    SqliteStatement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
    SqliteStatement& bind(int index, double value);
    SqliteStatement& bind(int index, std::string_view value);
    SqliteStatement& bind(int index, const char* value) {
        return bind(index, std::string_view(value));
    }
    SqliteStatement& bindNull(int index);

    // True while a row is available; false when done. Throws on error.
    bool step();
    // Steps a statement that returns no rows (INSERT/UPDATE/DELETE/DDL).
    void run();
    // Resets for another execution with new bindings.
    void reset();

    // Columns are 0-based, as in SQLite. A text longer than SqliteLimits::kMaxValueBytes throws
    // InputError naming its table, row and column.
    int64_t columnInt(int col) const;
    double columnDouble(int col) const;
    std::string columnText(int col) const;
    bool columnIsNull(int col) const;
    // A number a column keeps: an INTEGER or a REAL, finite, from `lo` to `hi`. Anything else
    // (a TEXT, which columnDouble reads as 0; a -1e300; a NaN) throws InputError naming `place`,
    // as the Nsight reader refuses a time that is not one (a project is a stranger's file too).
    double columnNumber(int col, double lo, double hi, const std::string& place) const;

private:
    [[noreturn]] void failTooBig() const;

    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
    std::string m_file;
    StatementBudget* m_budget = nullptr;
};

class SqliteDb {
public:
    // ReadOnly: the file must exist; nothing is written to it or beside it (no -wal/-shm is
    // created unless a writer's -wal is already there), for files Reach may not write.
    enum class Mode { CreateIfMissing, MustExist, ReadOnly };

    // Opens (or creates) the database file. Throws InputError when the path is a directory, a
    // device, a FIFO, a symbolic link to one or to nothing, missing (MustExist, ReadOnly) or not
    // an SQLite file. Waits up to busyTimeoutMs for a lock held by another connection, from the
    // very first read on.
    static SqliteDb open(const std::string& path, Mode mode = Mode::CreateIfMissing);
    // An empty database in memory, guarded like a file (for the schema check's reference).
    static SqliteDb openInMemory(const std::string& name);
    static constexpr int kBusyTimeoutMs = 5000;

    SqliteDb() = default;
    ~SqliteDb();
    SqliteDb(SqliteDb&& other) noexcept;
    SqliteDb& operator=(SqliteDb&& other) noexcept;
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    sqlite3* handle() const { return m_db; }
    const std::string& path() const { return m_path; }
    bool readOnly() const { return m_readOnly; }

    // Closes now and reports what closing found (a checkpoint that could not be written);
    // afterwards the object is empty. The destructor closes silently.
    void close();

    // How long one statement may work before its next row (docs/limits.md); tests shorten it.
    void setStepBudget(std::chrono::milliseconds budget) { m_budget->setPerStep(budget); }

    void exec(std::string_view sql);  // one or more statements, no results
    SqliteStatement prepare(std::string_view sql) const;
    int64_t lastInsertId() const;
    int changes() const;  // rows changed by the last INSERT/UPDATE/DELETE
    bool tableExists(std::string_view table) const;

    // Runs body in a transaction: commits when it returns, rolls back everything it did when it
    // throws (and rethrows). Nested calls become savepoints, so a helper that opens its own
    // transaction can be called inside a larger one. The outermost level takes the write lock up
    // front (BEGIN IMMEDIATE) so two writers never deadlock on a lock upgrade. On a read-only
    // database it throws InputError (no write permission) before anything runs. The first write
    // of a connection runs SQLite's quick_check first: nothing is written into a damaged file.
    void transaction(const std::function<void()>& body);

private:
    void checkIntegrity();

    sqlite3* m_db = nullptr;
    std::string m_path;
    int m_depth = 0;
    bool m_readOnly = false;
    bool m_checked = false;  // quick_check passed on this connection
    std::unique_ptr<StatementBudget> m_budget;
};

}  // namespace reach
