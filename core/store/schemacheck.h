#pragma once

namespace reach {

class SqliteDb;

// A project may come from anyone, and SQLite files carry code: a trigger runs on Reach's own
// writes, a view runs where Reach reads a table. Before a project is used, read or written, its
// schema must be exactly the one that the migrations recorded in its schema_version table make
// (core/store/schema.cpp): the same tables with the same columns and constraints, the same
// indexes, nothing else (no trigger, no view, no other table, not even SQLite's statistics).
// Objects are compared by the SQL SQLite keeps for them, against a database in memory that the
// same migrations built.
//
// Returns false for a database without any object (a project not yet initialized), true for a
// project. Throws InputError naming the file and the first object that differs ("trigger t",
// "view workloads", "table kernels"), for an SQLite file of another kind, and for a project
// from a newer Reach.
bool checkProjectSchema(const SqliteDb& db);

}  // namespace reach
