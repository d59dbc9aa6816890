#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/ruleset.h"
#include "core/base/workload.h"

namespace reach::cli {

// Inputs shared by the subcommands.

// Reads each profile in order (any format readProfile knows). A missing path or a directory is
// reported before the reader is asked, with the same one-line InputError.
std::vector<Workload> readProfiles(const std::vector<std::string>& paths);

// Every workload of an existing project, in import order (InputError when it is not a project).
std::vector<Workload> projectWorkloads(const std::string& projectPath);

// The rule set from --rules, or the built-in default.
RuleSet loadRules(const std::optional<std::string>& path);

// Remembers in the project which rule set a result was made with.
void rememberRules(const std::string& projectPath, const RuleSet& rules);

// Throws InputError when path is missing or a directory ("what" names the expected kind).
void requireReadableFile(const std::string& path, const std::string& what);

}  // namespace reach::cli
