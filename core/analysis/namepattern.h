#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace reach {

// A kernel-name pattern in the user's syntax (docs/rules.md): a POSIX extended regular
// expression, case-insensitive, searched anywhere in the text, '.' matching any byte and '^'/'$'
// only at the text's ends, as regcomp(REG_EXTENDED | REG_ICASE) did, matched by RE2 in time
// linear in the text: regexec is quadratic (minutes on a 10 MB name) and libstdc++'s std::regex
// recurses per character (a stack overflow on long template names). Latin-1: a name that is not
// UTF-8 matches byte by byte. Compiled patterns are immutable and thread-safe, so one may be
// shared. Rule sets, the operator table and `reach-cli diff --candidate` all use this one class.
class NamePattern {
public:
    explicit NamePattern(const std::string& pattern);
    ~NamePattern();
    NamePattern(const NamePattern&) = delete;
    NamePattern& operator=(const NamePattern&) = delete;

    bool ok() const { return m_error.empty(); }
    const std::string& error() const { return m_error; }  // why it does not compile, when !ok()
    bool matches(std::string_view text) const;

private:
    std::unique_ptr<re2::RE2> m_re;
    std::string m_error;
};

// Many patterns in one automaton: one pass over a name finds every pattern that matches it, where
// trying them one by one reads the name once per pattern (the default rule set has ~50).
class NamePatternSet {
public:
    explicit NamePatternSet(const std::vector<std::string>& patterns);
    ~NamePatternSet();
    NamePatternSet(const NamePatternSet&) = delete;
    NamePatternSet& operator=(const NamePatternSet&) = delete;

    // The index of the first matching pattern, -1 for none; nullopt when the set cannot tell (not
    // compiled, or its DFA ran out of memory on this text): then the caller tries them one by one.
    std::optional<int> firstMatch(std::string_view text) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace reach
