#pragma once

#include "app/args/cliargs.h"
#include "clicommand.h"

namespace reach::cli {

// `breakdown --ranks`: the traces of one distributed run, each rank's breakdown and the run's
// collectives (docs/distributed.md).
int runBreakdownRanks(const CliArgs& args, CliIo& io);

}  // namespace reach::cli
