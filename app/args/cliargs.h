#pragma once

// The command line of Reach's three executables (reach-cli's subcommands, reach-verify and the
// reach workbench), read one way: the same spellings (--name VALUE, --name=VALUE, "--" ends the
// options), the same one-line errors, exit status 2 for bad usage (DESIGN.md, conventions).

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace reach::cli {

// Bad usage (unknown option, missing value, wrong number): the front end prints it on one line
// and exits with status 2, like unreadable input.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What a command accepts: flags take no value (--json), options take one (--rules R.json or
// --rules=R.json). Everything else that does not start with "-" is a positional argument;
// "--" ends the options.
struct ArgSpec {
    std::set<std::string> flags;
    std::set<std::string> options;
    // Other spellings of a flag or option, read as the name they stand for ("-h" for "--help").
    std::map<std::string, std::string> aliases = {};
    // Flags after which nothing is read or judged (--help: the usage is what was asked for).
    std::set<std::string> stopAt = {};
};

// One flag or option as it stood on the command line (a flag has no value).
struct GivenArg {
    std::string name;
    std::optional<std::string> value;
};

class CliArgs {
public:
    // Parses args (without the program and subcommand names). Throws UsageError.
    CliArgs(const std::vector<std::string>& args, const ArgSpec& spec);

    bool flag(const std::string& name) const { return m_flags.count(name) > 0; }
    // The last value given for an option, if any.
    std::optional<std::string> value(const std::string& name) const;
    const std::vector<std::string>& positionals() const { return m_positionals; }
    // Every flag and option in the order given, repeats included: for a reader that checks each
    // value as it comes (reach-verify), so the first bad one is the one said and the last of a
    // repeated option wins.
    const std::vector<GivenArg>& given() const { return m_given; }

    // Typed option values; throw UsageError naming the option when the text is not a number or
    // is outside [min, max].
    std::optional<double> number(const std::string& name, double min, double max) const;
    std::optional<long> integer(const std::string& name, long min, long max) const;

private:
    std::set<std::string> m_flags;
    std::map<std::string, std::string> m_values;
    std::vector<std::string> m_positionals;
    std::vector<GivenArg> m_given;
};

// CliArgs keeps the last value of an option; options that repeat (--map, --baseline, ...) are
// taken out of args first, in order: "--map a=b" and "--map=a=b". "--" ends the options.
std::vector<std::string> takeRepeated(std::vector<std::string>& args, const std::string& name);

// A command that runs a program takes it after "--" (integrate, profile: -- PYTHON SCRIPT ARGS):
// everything after the first "--", taken out of args (with the "--"); empty without one.
std::vector<std::string> takeAfterDashes(std::vector<std::string>& args);

// Typed readers of one option's text, for values read in order (CliArgs::given) rather than by
// name; they throw UsageError naming the option, as CliArgs::number does.
double parseNumber(const std::string& option, const std::string& text);
// A non-negative 64-bit integer read as one (through a double, 2^53 + 1 became 2^53).
unsigned long long parseUnsigned(const std::string& option, const std::string& text);

}  // namespace reach::cli
