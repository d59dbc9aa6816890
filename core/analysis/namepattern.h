#pragma once

#include <regex.h>

#include <string>

namespace reach {

// A kernel-name pattern: a POSIX extended regular expression, case-insensitive, searched anywhere
// in the text (docs/rules.md). POSIX <regex.h>, not std::regex: libstdc++'s std::regex recurses
// per character and overflows the stack on the kilobyte-long template names of real traces.
// regexec on a compiled regex_t is thread-safe, so one compiled pattern may be shared.
class NamePattern {
public:
    explicit NamePattern(const std::string& pattern);
    ~NamePattern();
    NamePattern(const NamePattern&) = delete;
    NamePattern& operator=(const NamePattern&) = delete;

    bool ok() const { return m_status == 0; }
    const std::string& error() const { return m_error; }  // regcomp's message when !ok()
    bool matches(const char* text) const;
    bool matches(const std::string& text) const { return matches(text.c_str()); }

private:
    regex_t m_re{};
    int m_status = 0;
    std::string m_error;
};

}  // namespace reach
