#include "core/base/resourcepaths.h"

#include <cstdlib>
#include <filesystem>

namespace reach {

namespace fs = std::filesystem;

std::string executableDir() {
    std::error_code ec;
    fs::path p = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        return "";
    return p.parent_path().string();
}

std::vector<std::string> resourceDirCandidates(const std::string& argv0) {
    std::vector<std::string> c;
    if (const char* env = std::getenv("REACH_RESOURCES"))
        c.push_back(env);
    std::string exe = executableDir();
    if (exe.empty() && !argv0.empty())
        exe = fs::absolute(argv0).parent_path().string();
    if (!exe.empty()) {
        c.push_back(exe + "/../share/reach");
        c.push_back(exe + "/../../resources");
        c.push_back(exe + "/../../../resources");
    }
#ifdef REACH_SOURCE_RESOURCES
    c.push_back(REACH_SOURCE_RESOURCES);
#endif
    return c;
}

std::string findResourceDir(const std::string& argv0) {
    for (const auto& d : resourceDirCandidates(argv0)) {
        std::error_code ec;
        if (fs::exists(fs::path(d) / "include/reach/candidate.h", ec))
            return fs::weakly_canonical(d, ec).string();
    }
    return "";
}

std::string findDatasetsDir() {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("REACH_DATASETS"))
        candidates.push_back(env);
    if (const std::string exe = executableDir(); !exe.empty())
        candidates.push_back(exe + "/../share/reach/datasets");
#ifdef REACH_SOURCE_DATASETS
    candidates.push_back(REACH_SOURCE_DATASETS);
#endif
    for (const auto& d : candidates) {
        std::error_code ec;
        if (fs::exists(fs::path(d) / "paper/table3.json", ec))
            return fs::weakly_canonical(d, ec).string();
    }
    return "";
}

}  // namespace reach
