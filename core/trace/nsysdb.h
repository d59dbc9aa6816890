#pragma once

#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/sqlitelimits.h"

struct sqlite3;
struct sqlite3_stmt;

namespace reach {

// An Nsight Systems export opened as data, never as code (docs/security.md): read-only and
// immutable (nothing is written beside it), SQLite's defensive settings, views and triggers
// disabled, no extension loading, temporary tables in memory, one value at most
// SqliteLimits::kMaxValueBytes, and every statement under the time budget of docs/limits.md.
// Reach reads only real tables: a view or a virtual table where it expects one is refused, as is
// a computed (generated) column among those it reads. Every failure is an InputError naming the
// file and the place (table, row, column).
class NsysDb {
public:
    NsysDb(std::string path, uint64_t fileBytes, std::stop_token stop);
    ~NsysDb();
    NsysDb(const NsysDb&) = delete;
    NsysDb& operator=(const NsysDb&) = delete;

    [[noreturn]] void fail(const std::string& place, const std::string& what) const;

    // Whether the export has a table of this name (nsys writes a table only when the capture had
    // such activity). Throws for a view, a virtual table or a table without rowids there.
    bool hasTable(const std::string& name);
    // Whether the table has this stored column. Throws for a generated column of that name.
    bool hasColumn(const std::string& table, const std::string& column);
    // Throws naming the first column the table lacks.
    void requireColumns(const std::string& table, const std::vector<std::string>& columns);
    // Whether `column` alone is the table's primary key (then a lookup by it is a b-tree search).
    bool isPrimaryKey(const std::string& table, const std::string& column);

    // Bytes of one text or blob value, read from its record header without loading the value;
    // -1 when the row is missing or the value is a number or NULL.
    int64_t valueBytes(const std::string& table, const std::string& column, int64_t rowid);
    // The first row (by rowid) whose column holds more than SqliteLimits::kMaxValueBytes, or -1.
    int64_t firstOversizedRow(const std::string& table, const std::string& column);
    // typeof() of each column of one row (for naming the column that broke a rule).
    std::vector<std::string> typesOf(const std::string& table,
                                     const std::vector<std::string>& columns, int64_t rowid);

    // A statement over the export. step() is true while a row is available; an error, the time
    // budget or a stop request (Cancelled) ends it with an exception. A value longer than the
    // limit ends it with SQLITE_TOOBIG, which step() reports through tooBig.
    class Query {
    public:
        Query(NsysDb& db, const std::string& sql, std::string place);
        ~Query();
        Query(const Query&) = delete;
        Query& operator=(const Query&) = delete;
        void bind(int index, const std::string& value);  // 1-based, as in SQLite
        void bind(int index, int64_t value);
        bool step(bool* tooBig = nullptr);
        bool isInteger(int col) const;
        bool isNull(int col) const;
        int64_t integer(int col) const;
        std::string text(int col) const;

    private:
        NsysDb& m_db;
        sqlite3_stmt* m_stmt = nullptr;
        std::string m_place;
    };

private:
    struct Object {
        std::string type;
        std::string sql;
    };
    void configure();
    bool object(const std::string& name, Object& out);

    std::string m_path;
    sqlite3* m_db = nullptr;
    std::unique_ptr<StatementBudget> m_budget;
};

// "CASE WHEN typeof(c) = 'integer' THEN c END": an integer column as a value only when it holds
// one, so that a text or blob stored there is never loaded, whatever its size.
std::string sqlIntegerOrNull(const std::string& column);

}  // namespace reach
