#include "cliinputs.h"

#include <filesystem>
#include <system_error>

#include "core/base/inputerror.h"
#include "core/store/projectstore.h"
#include "core/trace/profilereader.h"

namespace reach::cli {

void requireReadableFile(const std::string& path, const std::string& what) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) {
        throw InputError(path, "", "no such file, expected " + what);
    }
    if (std::filesystem::is_directory(status)) {
        throw InputError(path, "", "is a directory, expected " + what);
    }
}

std::vector<Workload> readProfiles(const std::vector<std::string>& paths) {
    std::vector<Workload> out;
    out.reserve(paths.size());
    for (const std::string& p : paths) {
        requireReadableFile(p, "a profile (.json, .json.gz or .sqlite)");
        out.push_back(readProfile(p));
    }
    return out;
}

std::vector<Workload> projectWorkloads(const std::string& projectPath) {
    ProjectStore store = ProjectStore::open(projectPath, ProjectStore::Mode::MustExist);
    return store.workloads();
}

RuleSet loadRules(const std::optional<std::string>& path) {
    if (!path)
        return RuleSet::builtinDefault();
    requireReadableFile(*path, "a rule set (.json)");
    return RuleSet::fromFile(*path);
}

void rememberRules(const std::string& projectPath, const RuleSet& rules) {
    ProjectStore store = ProjectStore::open(projectPath, ProjectStore::Mode::MustExist);
    store.saveRuleSet(rules);
}

}  // namespace reach::cli
