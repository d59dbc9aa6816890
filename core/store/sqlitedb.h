#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace reach {

// Thin RAII wrappers over the SQLite C API, just enough for the project store and the parts that
// add tables to it (records, verifications). Errors throw: InputError when the file itself is not
// usable (missing, a directory, not SQLite), SqliteError for everything else.
//
// Threading: one SqliteDb (one connection) per thread. A connection is never shared between
// threads; a worker that needs the project opens its own (WAL lets readers run beside a writer).

class SqliteError : public std::runtime_error {
public:
    SqliteError(const std::string& file, int code, const std::string& message);
    int code() const { return m_code; }

private:
    int m_code;
};

class SqliteStatement {
public:
    SqliteStatement(sqlite3* db, std::string_view sql, std::string file);
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

    // Columns are 0-based, as in SQLite.
    int64_t columnInt(int col) const;
    double columnDouble(int col) const;
    std::string columnText(int col) const;
    bool columnIsNull(int col) const;

private:
    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
    std::string m_file;
};

class SqliteDb {
public:
    // ReadOnly: the file must exist; nothing is written to it or beside it (no -wal/-shm is
    // created unless a writer's -wal is already there), for files Reach may not write.
    enum class Mode { CreateIfMissing, MustExist, ReadOnly };

    // Opens (or creates) the database file. Throws InputError when the path is a directory,
    // missing (MustExist, ReadOnly) or not an SQLite file. Waits up to busyTimeoutMs for a lock
    // held by another connection, from the very first read on.
    static SqliteDb open(const std::string& path, Mode mode = Mode::CreateIfMissing);
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

    void exec(std::string_view sql);  // one or more statements, no results
    SqliteStatement prepare(std::string_view sql) const;
    int64_t lastInsertId() const;
    int changes() const;  // rows changed by the last INSERT/UPDATE/DELETE
    bool tableExists(std::string_view table) const;

    // Runs body in a transaction: commits when it returns, rolls back everything it did when it
    // throws (and rethrows). Nested calls become savepoints, so a helper that opens its own
    // transaction can be called inside a larger one. The outermost level takes the write lock up
    // front (BEGIN IMMEDIATE) so two writers never deadlock on a lock upgrade. On a read-only
    // database it throws InputError (no write permission) before anything runs.
    void transaction(const std::function<void()>& body);

private:
    sqlite3* m_db = nullptr;
    std::string m_path;
    int m_depth = 0;
    bool m_readOnly = false;
};

}  // namespace reach
