#pragma once

#include <set>
#include <string>
#include <vector>

namespace reach {

class SqliteDb;

// One step of the project schema. Versions only grow; a migration, once released, is never
// edited (old projects have already run it): change the schema by appending a new one.
struct Migration {
    int version;
    const char* description;
    const char* sql;  // one or more statements, run in the same transaction as the version row
};

// Every migration, ascending by version (see schema.cpp for who owns which block).
const std::vector<Migration>& migrations();

// Highest version this build knows.
int latestSchemaVersion();

// Highest version applied to the database, 0 for a database without the schema_version table.
int appliedSchemaVersion(const SqliteDb& db);

// The statement that makes the schema_version table, before any migration.
extern const char* const kSchemaVersionTableSql;

// The versions recorded in schema_version (which must exist). Throws InputError for a version
// this build does not know: the project was written by a newer Reach.
std::set<int> appliedVersions(const SqliteDb& db);

// Applies, in version order, every migration whose version is not yet recorded in
// schema_version, each in its own transaction with its version row. Recording each applied
// version (not only the highest) means a migration merged later with a lower number still runs.
// Throws InputError when the file has tables but is not a Reach project, or when it was written
// by a newer Reach (a version this build does not know).
void migrate(SqliteDb& db);

}  // namespace reach
