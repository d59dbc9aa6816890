#pragma once

// Hostile SQLite files for the tests of issue 24, made at run time the way a stranger would make
// them: with SQLite itself (its C API, as the sqlite3 shell does), never with Reach's code. Used
// by core's tests and the CLI's.

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace reach::test {

// Runs `sql` (one or more statements) on the file; "" on success, else SQLite's message. As a
// stranger's sqlite3 shell would: without the heap limit Reach sets for the process.
inline std::string applySql(const std::string& path, const std::string& sql) {
    struct Unlimited {
        sqlite3_int64 saved = sqlite3_hard_heap_limit64(-1);
        Unlimited() { sqlite3_hard_heap_limit64(0); }
        ~Unlimited() { sqlite3_hard_heap_limit64(saved); }
    } unlimited;
    sqlite3* db = nullptr;
    std::string error;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
        error = db ? sqlite3_errmsg(db) : "cannot open";
    } else {
        char* err = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK)
            error = err ? err : sqlite3_errmsg(db);
        sqlite3_free(err);
    }
    sqlite3_close(db);
    return error;
}

// A copy of `from` with `sql` applied to it; throws when SQLite refuses the SQL.
inline std::string copyWithSql(const std::string& from, const std::string& to,
                               const std::string& sql) {
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    const std::string error = applySql(to, sql);
    if (!error.empty())
        throw std::runtime_error(to + ": " + error + " in: " + sql.substr(0, 200));
    return to;
}

// The first column of every row of one query, as text ("NULL" for NULL); opened read-only, with
// views and triggers off, so that what the test reads is the data as it is.
inline std::vector<std::string> queryColumn(const std::string& path, const std::string& sql) {
    std::vector<std::string> out;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
        sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
        sqlite3_busy_timeout(db, 5000);
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
            while (sqlite3_step(st) == SQLITE_ROW) {
                const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
                out.push_back(t ? t : "NULL");
            }
        } else {
            out.push_back(std::string("(error: ") + sqlite3_errmsg(db) + ")");
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out;
}

inline std::string queryOne(const std::string& path, const std::string& sql) {
    const std::vector<std::string> rows = queryColumn(path, sql);
    return rows.empty() ? "(no row)" : rows.front();
}

// Every row of every table of a project, as text, read without views or triggers: equal before
// and after shows that nothing in the file changed the project.
inline std::string projectContents(const std::string& path) {
    std::string out;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return "(cannot open)";
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    for (const char* table :
         {"schema_version", "workloads", "kernels", "kernel_operators", "rule_sets", "record_sets",
          "eval_records", "mapping_presets", "verifications"}) {
        out += std::string("[") + table + "]\n";
        sqlite3_stmt* st = nullptr;
        const std::string sql = std::string("SELECT * FROM ") + table + " ORDER BY rowid";
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
            out += std::string("(error: ") + sqlite3_errmsg(db) + ")\n";
        }
        while (st && sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); ++c) {
                const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
                out += t ? t : "NULL";
                out += '|';
            }
            out += '\n';
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out;
}

// The hostile triggers of issue 24, each on an insert Reach makes when it imports a workload.
struct HostileTrigger {
    const char* name;
    const char* sql;
};
inline const std::vector<HostileTrigger>& hostileTriggers() {
    static const std::vector<HostileTrigger> kTriggers = {
        {"endless_cte",
         "CREATE TRIGGER endless_cte AFTER INSERT ON workloads BEGIN SELECT count(*) FROM "
         "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c); "
         "END"},
        {"delete_records",
         "CREATE TRIGGER delete_records AFTER INSERT ON workloads BEGIN DELETE FROM "
         "eval_records; DELETE FROM workloads WHERE id <> NEW.id; END"},
        {"multiply_times",
         "CREATE TRIGGER multiply_times AFTER INSERT ON kernels BEGIN UPDATE kernels SET "
         "total_us = total_us * 1000, min_us = min_us * 1000, max_us = max_us * 1000 WHERE id = "
         "NEW.id; END"},
        {"insert_blobs",
         "CREATE TRIGGER insert_blobs AFTER INSERT ON kernels BEGIN INSERT INTO rule_sets(name, "
         "hash, json, saved_at) SELECT 'x', hex(randomblob(16)), randomblob(1000000), '' FROM "
         "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) "
         "SELECT x FROM c); END"},
    };
    return kTriggers;
}

// "WITH RECURSIVE" without an end, as a view standing where Reach reads a table.
inline std::string endlessViewSql(const std::string& table, const std::string& renamed) {
    return "ALTER TABLE " + table + " RENAME TO " + renamed + "; CREATE VIEW " + table +
           " AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT " + renamed +
           ".* FROM c, " + renamed;
}

// A view that computes for ever before its first row (and writes nothing to disk).
inline std::string spinningViewSql(const std::string& table, const std::string& renamed) {
    return "ALTER TABLE " + table + " RENAME TO " + renamed + "; CREATE VIEW " + table +
           " AS SELECT * FROM " + renamed +
           " WHERE (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < "
           "1e15) SELECT max(x) FROM c) < 0";
}

}  // namespace reach::test
