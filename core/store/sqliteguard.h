#pragma once

#include <string>

#include "core/base/sqlitelimits.h"

struct sqlite3;

namespace reach {

// The project's side of "SQLite from outside is data, never code" (docs/security.md): a project
// is Reach's own file, but it may come from anyone. core/trace applies the same numbers to
// Nsight exports (core/trace/nsysdb.h); base, which both could share, does not use SQLite.

// Refuses, before SQLite touches it, a project path that is neither missing nor a regular file:
// a device, a FIFO or a socket, also behind a symbolic link (SQLite would read /dev/zero and
// create /dev/zero-journal), and a symbolic link to nothing (SQLite would create its target).
void checkProjectPath(const std::string& path);

// Refuses a file whose size disagrees with its own header: not a whole number of pages, or fewer
// pages than the header counts (a truncated copy). SQLite reads the missing part as zeros, and
// where that part held text or an overflow page, not even quick_check sees it. Judged only while
// no -wal or -journal file is beside it: then the file alone is the database.
void checkWholeFile(const std::string& path);

// Before the first read: SQLite's defensive settings (no writes to its own tables, no functions
// with side effects in the schema, no extension loading, no ATTACH), views and triggers off, the
// length limits, temporary tables in memory, the process's SQLite heap limit, and the budget's
// progress handler and trace callback (every statement under docs/limits.md's time limit).
void guardConnection(sqlite3* db, StatementBudget* budget);

// "table T, row R, column C" of the first value longer than SqliteLimits::kMaxValueBytes in the
// file, found from the record headers without loading any value; empty when there is none.
std::string findOversizedValue(sqlite3* db);

}  // namespace reach
