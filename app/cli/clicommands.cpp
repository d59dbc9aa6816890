#include "clicommand.h"

#include <ostream>  // for subcommands that print from their line below

namespace reach::cli {

// The registry. To add a subcommand: write app/cli/cliNAME.cpp defining
// `CliCommand NAMECommand()` in namespace reach::cli, add the file to your block in
// app/CMakeLists.txt, and add one line in your block below. Each line declares the function in
// block scope (so nothing else needs editing) and appends its command, in this exact form:
//   { extern CliCommand NAMECommand(); list.push_back(NAMECommand()); }
// (`extern` keeps GCC's -Wvexing-parse quiet).
const std::vector<CliCommand>& cliCommands() {
    static const std::vector<CliCommand> kCommands = [] {
        std::vector<CliCommand> list;
        // clang-format off
        // -- cli-begin
        { extern CliCommand breakdownCommand(); list.push_back(breakdownCommand()); }
        { extern CliCommand projectCommand(); list.push_back(projectCommand()); }
        { extern CliCommand rulesCommand(); list.push_back(rulesCommand()); }
        { extern CliCommand importCommand(); list.push_back(importCommand()); }
        // -- cli-end
        // -- diff-begin
        { extern CliCommand diffCommand(); list.push_back(diffCommand()); }
        // -- diff-end
        // -- records-begin
        { extern CliCommand speedupsCommand(); list.push_back(speedupsCommand()); }
        // -- records-end
        // -- verify-begin
        { extern CliCommand verifyCommand(); list.push_back(verifyCommand()); }
        // -- verify-end
        // -- plots-begin
#ifdef REACH_CLI_FIGURE
        { extern CliCommand figureCommand(); list.push_back(figureCommand()); }
#else
        list.push_back({"figure", "export a figure (not in this build: it was built without Qt)",
                        "figure ... (needs a build with REACH_BUILD_GUI=ON)",
                        [](const std::vector<std::string>&, CliIo& io) {
                            io.err << "reach-cli figure: this reach-cli was built without Qt "
                                      "(REACH_BUILD_GUI=OFF); rebuild with the GUI to export figures\n";
                            return kExitBadInput;
                        }});
#endif
        // -- plots-end
        // -- headroom-begin
        { extern CliCommand headroomCommand(); list.push_back(headroomCommand()); }
        { extern CliCommand extractCommand(); list.push_back(extractCommand()); }
        { extern CliCommand integrateCommand(); list.push_back(integrateCommand()); }
        { extern CliCommand profileCommand(); list.push_back(profileCommand()); }
        // -- headroom-end
        // -- gui-begin
        // -- gui-end
        // clang-format on
        return list;
    }();
    return kCommands;
}

}  // namespace reach::cli
