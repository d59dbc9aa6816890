#pragma once

#include <string>
#include <vector>

#include "app/args/cliargs.h"
#include "clicommand.h"

namespace reach::cli {

// `reach-cli project PROFILE --benchmark DIR --records R...`: the exact projection of PROFILE
// from its own benchmark (reach-cli extract) and the verified results in R
// (core/ownbenchmark/exactprojectionreport.h computes it; this prints it).
int runExactProjection(const CliArgs& args, const std::vector<std::string>& records, CliIo& io);

}  // namespace reach::cli
