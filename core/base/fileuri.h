#pragma once

#include <string>

namespace reach {

// "file:/abs/path?QUERY" for sqlite3_open_v2 with SQLITE_OPEN_URI: the path made absolute and
// percent-encoded where a URI needs it ('?', '#', '%', spaces, bytes that are not ASCII), so
// that options such as immutable=1 apply to whatever file name the user has.
std::string sqliteFileUri(const std::string& path, const std::string& query);

}  // namespace reach
