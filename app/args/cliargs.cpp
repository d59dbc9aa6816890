#include "cliargs.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace reach::cli {

namespace {
std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}
}  // namespace

CliArgs::CliArgs(const std::vector<std::string>& args, const ArgSpec& spec) {
    bool optionsEnded = false;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i];
        if (auto alias = spec.aliases.find(a); !optionsEnded && alias != spec.aliases.end())
            a = alias->second;
        if (optionsEnded || a.size() < 2 || a.compare(0, 2, "--") != 0) {
            if (!optionsEnded && a.size() > 1 && a[0] == '-' && a != "-") {
                throw UsageError("unknown argument '" + a + "' (options start with --)");
            }
            m_positionals.push_back(a);
            continue;
        }
        if (a == "--") {
            optionsEnded = true;
            continue;
        }
        std::string name = a;
        std::optional<std::string> inlineValue;
        if (auto eq = a.find('='); eq != std::string::npos) {
            name = a.substr(0, eq);
            inlineValue = a.substr(eq + 1);
        }
        if (spec.flags.count(name)) {
            if (inlineValue)
                throw UsageError(name + " takes no value");
            m_flags.insert(name);
            m_given.push_back({name, std::nullopt});
            if (spec.stopAt.count(name))
                return;
        } else if (spec.options.count(name)) {
            if (!inlineValue && i + 1 >= args.size())
                throw UsageError(name + " needs a value");
            const std::string v = inlineValue ? *inlineValue : args[++i];
            m_values[name] = v;
            m_given.push_back({name, v});
        } else {
            throw UsageError("unknown argument '" + name + "'");
        }
    }
}

std::optional<std::string> CliArgs::value(const std::string& name) const {
    auto it = m_values.find(name);
    if (it == m_values.end())
        return std::nullopt;
    return it->second;
}

std::optional<double> CliArgs::number(const std::string& name, double min, double max) const {
    auto text = value(name);
    if (!text)
        return std::nullopt;
    const char* begin = text->c_str();
    char* end = nullptr;
    double v = std::strtod(begin, &end);
    if (text->empty() || end != begin + text->size() || !std::isfinite(v)) {
        throw UsageError(name + ": expected a number, got '" + *text + "'");
    }
    if (v < min || v > max) {
        throw UsageError(name + ": " + *text + " is outside [" + shortNumber(min) + ", " +
                         shortNumber(max) + "]");
    }
    return v;
}

std::optional<long> CliArgs::integer(const std::string& name, long min, long max) const {
    auto text = value(name);
    if (!text)
        return std::nullopt;
    long v = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (text->empty() || ec != std::errc() || ptr != text->data() + text->size()) {
        throw UsageError(name + ": expected an integer, got '" + *text + "'");
    }
    if (v < min || v > max) {
        throw UsageError(name + ": " + *text + " is outside [" + std::to_string(min) + ", " +
                         std::to_string(max) + "]");
    }
    return v;
}

double parseNumber(const std::string& option, const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end)
        throw UsageError(option + ": expected a number, got '" + text + "'");
    return v;
}

unsigned long long parseUnsigned(const std::string& option, const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        throw UsageError(option + ": expected a non-negative integer, got '" + text + "'");
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (errno == ERANGE || *end)
        throw UsageError(option + ": expected an integer below 2^64, got '" + text + "'");
    return v;
}

std::vector<std::string> takeAfterDashes(std::vector<std::string>& args) {
    std::vector<std::string> after;
    if (const auto cut = std::find(args.begin(), args.end(), "--"); cut != args.end()) {
        after.assign(cut + 1, args.end());
        args.erase(cut, args.end());
    }
    return after;
}

std::vector<std::string> takeRepeated(std::vector<std::string>& args, const std::string& name) {
    std::vector<std::string> values;
    std::vector<std::string> rest;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--") {
            rest.insert(rest.end(), args.begin() + static_cast<long>(i), args.end());
            break;
        }
        if (args[i] == name) {
            if (i + 1 >= args.size())
                throw UsageError(name + " needs a value");
            values.push_back(args[++i]);
        } else if (args[i].rfind(name + "=", 0) == 0) {
            values.push_back(args[i].substr(name.size() + 1));
        } else {
            rest.push_back(args[i]);
        }
    }
    args = std::move(rest);
    return values;
}

}  // namespace reach::cli
