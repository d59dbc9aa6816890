// reach-cli: the batch front end. Dispatches to one file per subcommand (app/cli/) and turns every
// error into the contract of DESIGN.md: exit 2 with exactly one line on stderr.
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "app/args/cliargs.h"
#include "cli/clicommand.h"
#include "cli/clitext.h"
#include "core/base/inputerror.h"
#include "core/base/progress.h"
#include "core/base/textescape.h"
#include "core/store/sqlitedb.h"
#include "core/verify/processguard.h"

namespace {

using reach::cli::CliCommand;

void printHelp(std::ostream& os) {
    os << "reach-cli: how much of a GPU workload can new kernels reach?\n\n"
          "usage: reach-cli COMMAND [ARGS...] [--json]\n\ncommands:\n";
    for (const CliCommand& c : reach::cli::cliCommands()) {
        os << "  " << c.name << std::string(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ')
           << c.summary << "\n";
    }
    os << "\n`reach-cli COMMAND --help` shows a command's arguments. Exit status: 0 ok, 1 the "
          "data\n"
          "says no, 2 bad usage or unreadable input (one line on stderr). `reach-cli --version`\n"
          "says which Reach this is.\n";
}

// Error text must stay one line and inert even when it quotes input (kernel names, paths).
std::string oneLine(const std::string& s) {
    return reach::escapeControls(s);
}

int run(const std::vector<std::string>& args) {
    if (args.empty()) {
        throw reach::cli::UsageError("missing command (try `reach-cli --help`)");
    }
    const std::string& name = args[0];
    if (name == "--help" || name == "-h" || name == "help") {
        printHelp(std::cout);
        return reach::cli::kExitOk;
    }
    if (name == "--version") {
        std::cout << "reach-cli " << REACH_VERSION << "\n";
        return reach::cli::kExitOk;
    }
    for (const CliCommand& c : reach::cli::cliCommands()) {
        if (c.name != name)
            continue;
        std::vector<std::string> rest(args.begin() + 1, args.end());
        for (const std::string& a : rest) {
            if (a == "--help" || a == "-h") {
                std::cout << "usage: reach-cli " << c.usage << "\n";
                return reach::cli::kExitOk;
            }
        }
        reach::cli::CliIo io{std::cout, std::cerr};
        return c.run(rest, io);
    }
    throw reach::cli::UsageError("unknown command '" + name + "' (try `reach-cli --help`)");
}

}  // namespace

int main(int argc, char** argv) {
    // It reads verdicts from reach-verify through a pipe: no candidate may write into it.
    reach::guardProcessFromCandidates();
    std::ios::sync_with_stdio(false);
    // Everything on stdout passes the terminal filter (control characters from names escaped).
    reach::cli::TerminalSafeBuf safeOut(std::cout.rdbuf());
    std::streambuf* const rawOut = std::cout.rdbuf(&safeOut);
    struct Restore {
        std::streambuf* raw;
        ~Restore() {
            std::cout.flush();
            std::cout.rdbuf(raw);
        }
    } restore{rawOut};
    std::vector<std::string> args(argv + 1, argv + argc);
    const std::string command = args.empty() ? "" : args[0];
    const std::string prefix = command.empty() ? "reach-cli: " : "reach-cli " + command + ": ";
    int status = reach::cli::kExitBadInput;
    try {
        status = run(args);
    } catch (const reach::InputError& e) {
        // Already "FILE: PLACE: expected ...": the file comes first so scripts can cut it.
        std::cerr << oneLine(e.what()) << "\n";
    } catch (const reach::cli::UsageError& e) {
        std::cerr << prefix << oneLine(e.what()) << "\n";
    } catch (const reach::SqliteError& e) {
        std::cerr << oneLine(e.what()) << "\n";
    } catch (const reach::Cancelled&) {
        std::cerr << prefix << "cancelled\n";
    } catch (const std::bad_alloc&) {
        std::cerr << prefix << "out of memory\n";
        status = 3;
    } catch (const std::exception& e) {
        // Not an input problem Reach recognised: a bug to report, hence its own status.
        std::cerr << prefix << "internal error: " << oneLine(e.what()) << "\n";
        status = 3;
    }
    std::cout.flush();
    if (!std::cout) {
        std::cerr << prefix << "cannot write the output\n";
        return reach::cli::kExitBadInput;
    }
    return status;
}
