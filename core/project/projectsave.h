#pragma once

#include <string>
#include <vector>

#include "core/project/project.h"

namespace reach {

// File > Save Project As...: what the GUI holds in memory (profiles read from files, record sets
// imported or mapped, hand-edited rules) written as one .reach file, so reopening it shows the
// same numbers. Written whole to a temporary file beside `path` and renamed over it at the end:
// a failure leaves `path` as it was, and nothing the user loaded is lost either way. Published
// rows and summaries (the study's tables) have no place in a project file; they are left out
// and named in the result. Throws InputError naming `path` when it cannot be written.
struct SavedProject {
    int workloads = 0;
    int recordSets = 0;
    std::vector<std::string> leftOut;  // "NAME: why", one per row or set not stored
};
SavedProject saveProjectAs(const Project& project, const std::string& path);

}  // namespace reach
