#pragma once

#include <string>

namespace reach {

// Writes `text` to `path` whole or not at all: into a temporary file beside it (named with the
// process id, so two writers on a shared folder never share one), then renamed over it. A
// reader never sees half a file: a problem file half written would be code that fails in a way
// no one asked for; a batch watcher on another node would read a torn job list. Throws
// InputError naming the path and `expected` (what the caller needed it to be) when the file
// cannot be written or replaced.
void writeWholeFile(const std::string& path, const std::string& text, const std::string& expected);

}  // namespace reach
