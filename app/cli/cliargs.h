#pragma once

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

// What a subcommand accepts: flags take no value (--json), options take one (--rules R.json or
// --rules=R.json). Everything else that does not start with "--" is a positional argument;
// "--" ends the options.
struct ArgSpec {
    std::set<std::string> flags;
    std::set<std::string> options;
};

class CliArgs {
public:
    // Parses args (without the program and subcommand names). Throws UsageError.
    CliArgs(const std::vector<std::string>& args, const ArgSpec& spec);

    bool flag(const std::string& name) const { return m_flags.count(name) > 0; }
    // The last value given for an option, if any.
    std::optional<std::string> value(const std::string& name) const;
    const std::vector<std::string>& positionals() const { return m_positionals; }

    // Typed option values; throw UsageError naming the option when the text is not a number or
    // is outside [min, max].
    std::optional<double> number(const std::string& name, double min, double max) const;
    std::optional<long> integer(const std::string& name, long min, long max) const;

private:
    std::set<std::string> m_flags;
    std::map<std::string, std::string> m_values;
    std::vector<std::string> m_positionals;
};

// CliArgs keeps the last value of an option; options that repeat (--map, --baseline, ...) are
// taken out of args first, in order: "--map a=b" and "--map=a=b". "--" ends the options.
std::vector<std::string> takeRepeated(std::vector<std::string>& args, const std::string& name);

}  // namespace reach::cli
