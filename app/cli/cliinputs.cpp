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

RuleSet loadRules(const std::optional<std::string>& path) {
    if (!path)
        return RuleSet::builtinDefault();
    requireReadableFile(*path, "a rule set (.json)");
    return RuleSet::fromFile(*path);
}

Project openCliInputs(std::vector<std::string> inputs, const std::optional<std::string>& project,
                      const std::optional<std::string>& rulesPath, const OpenOptions& options) {
    if (project) {
        requireReadableFile(*project, "a Reach project (.reach)");
        inputs.insert(inputs.begin(), *project);
    }
    std::optional<RuleSet> rules;
    if (rulesPath)
        rules = loadRules(rulesPath);
    Project opened = openInputs(inputs, rules, options);
    // The project remembers which rule set its numbers were last made with (as the GUI does),
    // when it may be written: a read-only project is still read.
    if (!opened.storePath.empty()) {
        ProjectStore store = ProjectStore::open(opened.storePath, ProjectStore::Mode::MustExist);
        if (!store.readOnly())
            store.saveRuleSet(opened.rules);
    }
    return opened;
}

}  // namespace reach::cli
