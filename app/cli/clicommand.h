#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace reach::cli {

// Exit statuses (DESIGN.md): 0 ok, 1 the data says no (e.g. a verification failed), 2 bad usage
// or unreadable input (one line on stderr naming the file and the problem).
inline constexpr int kExitOk = 0;
inline constexpr int kExitDataSaysNo = 1;
inline constexpr int kExitBadInput = 2;

// Where a subcommand writes. Human text by default; with --json exactly one JSON document on out.
struct CliIo {
    std::ostream& out;
    std::ostream& err;
};

// One subcommand. run() gets the arguments after the subcommand name and returns the exit
// status; bad input and bad usage are thrown (InputError, UsageError) and turned into status 2
// with one line on stderr by reachcli.cpp, so subcommands never print errors themselves.
struct CliCommand {
    std::string name;
    std::string summary;  // one line for `reach-cli --help`
    std::string usage;    // shown by `reach-cli NAME --help`
    int (*run)(const std::vector<std::string>& args, CliIo& io);
};

// Every subcommand, in the order `reach-cli --help` lists them (clicommands.cpp).
const std::vector<CliCommand>& cliCommands();

}  // namespace reach::cli
