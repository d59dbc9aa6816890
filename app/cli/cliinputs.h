#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/ruleset.h"
#include "core/base/workload.h"
#include "core/project/openplan.h"

namespace reach::cli {

// Inputs shared by the subcommands.

// What a subcommand opens, through core's loader (the one the GUI's session uses): profiles, a
// folder, a .reach project, a published study table, records files; nothing: the bundled
// sample. `project` (--project P.reach) comes first when given. The rules are --rules when
// given, else the project's last-used rules, else the built-in default; the project remembers
// the rules used (the GUI keeps an edited rule set the same way).
Project openCliInputs(std::vector<std::string> inputs, const std::optional<std::string>& project,
                      const std::optional<std::string>& rulesPath, const OpenOptions& options = {});

// Reads each profile in order (any format readProfile knows). A missing path or a directory is
// reported before the reader is asked, with the same one-line InputError.
std::vector<Workload> readProfiles(const std::vector<std::string>& paths);

// The rule set from --rules, or the built-in default.
RuleSet loadRules(const std::optional<std::string>& path);

// Throws InputError when path is missing or a directory ("what" names the expected kind).
void requireReadableFile(const std::string& path, const std::string& what);

}  // namespace reach::cli
