#pragma once

#include <string>
#include <vector>

namespace reach {

// Finds Reach's shipped resources (reach/candidate.h, baselines, controls, problems) at run
// time, in this order: $REACH_RESOURCES; <exe dir>/../share/reach (installed); <exe dir>/../..
// /resources and <exe dir>/../../../resources (build trees); the source tree's resources/
// compiled in as a last resort. Returns the first directory that holds include/reach/candidate.h,
// or "" when none does.
std::string findResourceDir(const std::string& argv0 = "");
// The directory of the running executable (/proc/self/exe), "" when unknown.
std::string executableDir();
// The directories findResourceDir tries, in order (for error messages).
std::vector<std::string> resourceDirCandidates(const std::string& argv0 = "");

// The bundled datasets (the sample project): $REACH_DATASETS; <exe dir>/../share/reach/datasets
// (installed); the source tree's datasets/ compiled in. The first that holds paper/table3.json,
// or "" when none does.
std::string findDatasetsDir();

}  // namespace reach
