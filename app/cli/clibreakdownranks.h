#pragma once

#include "app/args/cliargs.h"
#include "clicommand.h"

namespace reach::cli {

// `breakdown --ranks`: the traces of one distributed run, each rank's breakdown and the run's
// collectives (docs/distributed.md).
int runBreakdownRanks(const CliArgs& args, CliIo& io);

// `breakdown TRACE --rank-summary OUT`: one rank's summary for the reduce (the map of a run read
// on many machines, e.g. a Slurm job array).
int runRankSummary(const CliArgs& args, CliIo& io);

}  // namespace reach::cli
