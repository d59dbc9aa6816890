#include "core/store/sqliteguard.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/base/inputerror.h"

namespace reach {

namespace {

int onProgress(void* budget) {
    return static_cast<StatementBudget*>(budget)->spent() ? 1 : 0;
}

// A statement starts, or returns a row: its time budget starts again.
int onTrace(unsigned, void* budget, void*, void*) {
    static_cast<StatementBudget*>(budget)->arm();
    return 0;
}

std::string identifier(const std::string& name) {
    std::string q = "\"";
    for (char c : name)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::vector<std::string> column0(sqlite3* db, const std::string& sql) {
    std::vector<std::string> out;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
            out.push_back(t ? t : "");
        }
    }
    sqlite3_finalize(st);
    return out;
}

const char* kindOf(mode_t mode) {
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

}  // namespace

void checkProjectPath(const std::string& path) {
    struct stat link {};
    if (::lstat(path.c_str(), &link) != 0)
        return;  // missing: created, or refused as missing, by the caller
    struct stat target {};
    if (::stat(path.c_str(), &target) != 0) {
        throw InputError(path, "",
                         "is a symbolic link to nothing; expected a project file (.reach)");
    }
    if (S_ISDIR(target.st_mode))
        return;  // SqliteDb::open names a directory itself
    if (!S_ISREG(target.st_mode)) {
        throw InputError(path, "",
                         std::string("is ") + kindOf(target.st_mode) +
                             (S_ISLNK(link.st_mode) ? " (through a symbolic link)" : "") +
                             ", not a regular file; expected a project file (.reach)");
    }
}

void checkWholeFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::exists(path + "-wal", ec) ||
        std::filesystem::exists(path + "-journal", ec))
        return;
    unsigned char h[100];
    std::ifstream in(path, std::ios::binary);
    if (!in.read(reinterpret_cast<char*>(h), sizeof h) ||
        std::memcmp(h, "SQLite format 3", 16) != 0) {
        return;  // empty (a new project) or not SQLite: SQLite itself says so
    }
    auto be32 = [&](int at) {
        return uint32_t(h[at]) << 24 | uint32_t(h[at + 1]) << 16 | uint32_t(h[at + 2]) << 8 |
               uint32_t(h[at + 3]);
    };
    uint64_t pageSize = uint64_t(h[16]) << 8 | h[17];
    if (pageSize == 1)
        pageSize = 65536;
    if (pageSize < 512 || (pageSize & (pageSize - 1)) != 0)
        return;  // not a page size: SQLite refuses the header itself
    const uint64_t bytes = std::filesystem::file_size(path, ec);
    if (ec)
        return;
    // The page count is valid when the change counter matches the version it was written by.
    const uint64_t pages = be32(28);
    const bool counted = pages != 0 && be32(24) == be32(92);
    if (bytes % pageSize != 0 || (counted && pages * pageSize > bytes)) {
        throw InputError(path, "byte " + std::to_string(bytes),
                         "the file ends here, inside its " +
                             (counted ? std::to_string(pages) + " pages" : std::string("pages")) +
                             " of " + std::to_string(pageSize) +
                             " bytes; expected a whole project (this copy is damaged or "
                             "truncated)");
    }
}

void guardConnection(sqlite3* db, StatementBudget* budget) {
    sqlite3_hard_heap_limit64(SqliteLimits::kMaxHeapBytes);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    // A project's schema has neither (checkProjectSchema refuses them); off as well, so that a
    // trigger never fires and a view never runs even before that check. Foreign-key actions
    // (ON DELETE CASCADE) are not triggers and still work.
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, SqliteLimits::kMaxRowBytes);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, SqliteLimits::kMaxSqlBytes);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
    if (budget) {
        sqlite3_progress_handler(db, SqliteLimits::kOpsPerCheck, onProgress, budget);
        sqlite3_trace_v2(db, SQLITE_TRACE_STMT | SQLITE_TRACE_ROW, onTrace, budget);
    }
    // Temporary tables, indexes and statement journals stay in memory, under the heap limit,
    // never in /var/tmp. The pragmas read nothing from the file.
    sqlite3_exec(db, "PRAGMA temp_store = MEMORY; PRAGMA cell_size_check = ON", nullptr, nullptr,
                 nullptr);
}

std::string findOversizedValue(sqlite3* db) {
    for (const std::string& table :
         column0(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) {
        for (const std::string& column :
             column0(db, "SELECT name FROM pragma_table_info(" + identifier(table) + ")")) {
            // typeof() reads the record header only, and a blob handle gives a value's size the
            // same way; one handle moves from row to row (opening one compiles a statement).
            sqlite3_stmt* st = nullptr;
            const std::string sql = "SELECT rowid FROM " + identifier(table) + " WHERE typeof(" +
                                    identifier(column) + ") IN ('text', 'blob')";
            if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
                sqlite3_finalize(st);
                continue;
            }
            sqlite3_blob* blob = nullptr;
            std::string found;
            while (found.empty() && sqlite3_step(st) == SQLITE_ROW) {
                const sqlite3_int64 rowid = sqlite3_column_int64(st, 0);
                int rc = blob ? sqlite3_blob_reopen(blob, rowid) : SQLITE_ERROR;
                if (rc != SQLITE_OK) {
                    sqlite3_blob_close(blob);
                    blob = nullptr;
                    rc = sqlite3_blob_open(db, "main", table.c_str(), column.c_str(), rowid, 0,
                                           &blob);
                }
                if (rc == SQLITE_OK && sqlite3_blob_bytes(blob) > SqliteLimits::kMaxValueBytes) {
                    found = "table " + table + ", row " + std::to_string(rowid) + ", column " +
                            column + " (" + std::to_string(sqlite3_blob_bytes(blob)) + " bytes)";
                }
            }
            sqlite3_blob_close(blob);
            sqlite3_finalize(st);
            if (!found.empty())
                return found;
        }
    }
    return {};
}

}  // namespace reach
