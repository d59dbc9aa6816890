#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/namepattern.h"
#include "core/base/category.h"
#include "core/base/workload.h"

namespace reach {

// One classification rule: a POSIX extended regular expression (case-insensitive, searched
// anywhere in the full demangled kernel name) and what a match means.
struct Rule {
    std::string pattern;
    Category category = Category::Unclassified;
    std::string family;  // free label: gemm, attention, conv, elementwise, norm, ...
    std::string note;    // why the rule exists; not part of the hash
};

// An ordered list of rules; the first rule that matches a kernel name decides its category.
// The format of rule files is documented in docs/rules.md. Patterns are compiled once
// (NamePattern: the user's POSIX syntax matched by RE2 in linear time), and all of a set's
// patterns once more into one NamePatternSet, so a name is read once whatever the number of rules.
class RuleSet {
public:
    // What a rule set may hold (docs/limits.md, "Rule sets"): each compiled pattern costs about
    // 100 times its text (RE2's program and automata), and one set of every pattern is built as
    // well; 15 MB of rules took 10 s and 0.9 GB and made RE2 print on stderr. The default set
    // has 45 rules of at most 467 bytes. Past a limit a rule file is one line naming the file and
    // the rule.
    static constexpr size_t kMaxRules = 1024;
    static constexpr size_t kMaxPatternBytes = 4096;
    static constexpr size_t kMaxPatternsBytes = 256 * 1024;  // all patterns together

    RuleSet();  // empty set named "empty": everything unclassified (memcpy/memset: overhead)

    // Throw InputError naming sourceName (or path), the place (byte offset or key such as
    // "rules[3].pattern") and what was expected there.
    static RuleSet fromJsonText(const std::string& text, const std::string& sourceName);
    static RuleSet fromFile(const std::string& path);
    // resources/rules/default.json, embedded at build time: needs no file at run time.
    static RuleSet builtinDefault();

    std::string toJson() const;  // the rule-file format, indented; fromJsonText reads it back

    const std::string& name() const { return m_name; }
    void setName(std::string name) { m_name = std::move(name); }
    const std::string& description() const { return m_description; }
    void setDescription(std::string d) { m_description = std::move(d); }

    // Lower-case hex SHA-256 of the canonical rules (ordered pattern, category, family): two sets
    // that classify alike hash alike whatever their names, notes or formatting.
    std::string hash() const;

    const std::vector<Rule>& rules() const { return m_rules; }
    size_t size() const { return m_rules.size(); }
    // Editing (GUI rule editor). A rule whose pattern does not compile throws InputError with
    // file "rule set <name>" and place "rules[at].pattern"; the set is left unchanged.
    void insertRule(size_t at, Rule rule);
    void replaceRule(size_t at, Rule rule);
    void removeRule(size_t at);
    void moveRule(size_t from, size_t to);

    // nullopt when the pattern compiles, else why not (for validation as you type).
    static std::optional<std::string> patternError(const std::string& pattern);

    struct Match {
        Category category = Category::Unclassified;
        std::string family;
        int rule = -1;  // -1: no rule matched (memcpy/memset then fall back to overhead by kind)
    };
    Match classify(std::string_view kernelName, ActivityKind kind) const;

private:
    void rebuildSet();  // after every change of m_rules
    // Throws InputError when `rule`, added (or put in place of rule `replacing`), passes the
    // pattern limits above.
    void requireWithinLimits(const Rule& rule, std::optional<size_t> replacing, size_t at) const;
    std::string m_name;
    std::string m_description;
    std::vector<Rule> m_rules;
    std::vector<std::shared_ptr<const NamePattern>> m_compiled;  // parallel to m_rules; immutable
    std::shared_ptr<const NamePatternSet> m_set;                 // every pattern, one pass per name
};

}  // namespace reach
