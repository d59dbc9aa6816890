#include "core/analysis/namepattern.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

namespace reach {

namespace {

// The user's syntax (docs/rules.md): POSIX extended, case-insensitive, searched anywhere in the
// name, '.' matching any byte and '^'/'$' only at the name's ends, as regcomp(REG_EXTENDED |
// REG_ICASE) did, now matched by RE2 in time linear in the name: regexec is quadratic and took
// minutes on a 10 MB name. Latin-1 keeps matching byte by byte, so a name that is not UTF-8
// matches as before. Perl classes (\\d \\w \\s) and \\b are accepted as glibc accepted most of
// them.
RE2::Options patternOptions() {
    RE2::Options o;
    o.set_posix_syntax(true);
    o.set_case_sensitive(false);
    o.set_dot_nl(true);
    o.set_one_line(true);
    o.set_perl_classes(true);
    o.set_word_boundary(true);
    o.set_encoding(RE2::Options::EncodingLatin1);
    o.set_log_errors(false);
    return o;
}

// What glibc's ERE has and RE2 lacks or reads as something else, said in the user's terms rather
// than matched silently otherwise: backreferences and GNU word anchors outside brackets (RE2 takes
// \< as a literal '<'), and, inside a bracket expression, a collating element [[.a.]] or an
// equivalence class [[=a=]], which RE2 would read as the characters '[', '.', 'a' and a stray ']'.
// Character classes [[:alpha:]] are RE2's too and pass.
std::optional<std::string> unsupportedSyntax(const std::string& p) {
    bool inBracket = false;
    for (size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (!inBracket) {
            if (c == '\\' && i + 1 < p.size()) {
                // RE2 takes \< and \> as the characters < and >, where glibc anchors a word.
                const char next = p[i + 1];
                if (next == '<' || next == '>')
                    return std::string(
                        "\\< and \\> are not supported: use \\b for a word boundary");
                if (next >= '1' && next <= '9') {
                    return "backreferences such as \\" + std::string(1, next) +
                           " are not supported: rules are matched by RE2, in linear time, which "
                           "has none";
                }
                ++i;
            } else if (c == '[') {
                inBracket = true;
                if (i + 1 < p.size() && p[i + 1] == '^')
                    ++i;
                if (i + 1 < p.size() && p[i + 1] == ']')
                    ++i;  // a leading ']' is a literal member
            }
            continue;
        }
        if (c == ']') {
            inBracket = false;
        } else if (c == '[' && i + 1 < p.size()) {
            const char kind = p[i + 1];
            if (kind == '.' || kind == '=') {
                return std::string("POSIX ") +
                       (kind == '.' ? "collating elements [[.x.]]"
                                    : "equivalence classes [[=x=]]") +
                       " are not supported by RE2: list the characters instead";
            }
            if (kind == ':') {
                const size_t end = p.find(":]", i + 2);
                if (end != std::string::npos)
                    i = end + 1;
            }
        }
    }
    return std::nullopt;
}

}  // namespace

NamePattern::NamePattern(const std::string& pattern)
    : m_re(std::make_unique<re2::RE2>(pattern, patternOptions())) {
    if (auto bad = unsupportedSyntax(pattern))
        m_error = *bad;
    else if (!m_re->ok())
        m_error = m_re->error();
}

NamePattern::~NamePattern() = default;

bool NamePattern::matches(std::string_view text) const {
    return ok() && RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *m_re);
}

struct NamePatternSet::Impl {
    explicit Impl(const std::vector<std::string>& patterns)
        : set(patternOptions(), RE2::UNANCHORED) {
        for (const std::string& p : patterns) {
            if (set.Add(p, nullptr) < 0)
                return;  // cannot happen for patterns that compiled alone; then they are tried one
                         // by one
        }
        ok = set.Compile();
    }
    RE2::Set set;
    bool ok = false;
};

NamePatternSet::NamePatternSet(const std::vector<std::string>& patterns)
    : m_impl(std::make_unique<Impl>(patterns)) {}

NamePatternSet::~NamePatternSet() = default;

std::optional<int> NamePatternSet::firstMatch(std::string_view text) const {
    if (!m_impl->ok)
        return std::nullopt;
    std::vector<int> hits;
    RE2::Set::ErrorInfo info{};
    if (!m_impl->set.Match(re2::StringPiece(text.data(), text.size()), &hits, &info)) {
        if (info.kind != RE2::Set::kNoError)
            return std::nullopt;
        return -1;
    }
    return *std::min_element(hits.begin(), hits.end());
}

}  // namespace reach
