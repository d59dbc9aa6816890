#pragma once

#include "app/args/cliargs.h"
#include "clicommand.h"

namespace reach::cli {

// `reach-cli rules suggest`: proposed name rules for the kernels no rule matches, grouped by
// name stem and launching operator (core/analysis/rulesuggest.h); --write OUT writes the rule set
// with the accepted ones first.
int suggestRulesCommand(const CliArgs& args, CliIo& io);

}  // namespace reach::cli
