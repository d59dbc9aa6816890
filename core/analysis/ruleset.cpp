#include "core/analysis/ruleset.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/analysis/defaultrules.h"
#include "core/analysis/namepattern.h"
#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/sha256.h"

namespace reach {

namespace {

using nlohmann::json;

std::string categoryChoices() {
    std::string s;
    for (Category c : kCategories) {
        if (!s.empty())
            s += ", ";
        s += categoryKey(c);
    }
    return s;
}

const char* typeName(const json& j) {
    return j.type_name();
}

Rule ruleFromJson(const json& j, const std::string& source, size_t index) {
    const std::string place = "rules[" + std::to_string(index) + "]";
    if (!j.is_object()) {
        throw InputError(source, place,
                         std::string("expected an object with \"pattern\" and \"category\", got ") +
                             typeName(j));
    }
    for (const auto& [key, value] : j.items()) {
        if (key != "pattern" && key != "category" && key != "family" && key != "note" &&
            key != "comment") {
            throw InputError(source, place + "." + key,
                             "unknown key; a rule has pattern, category, family, note, comment");
        }
    }
    Rule r;
    auto pattern = j.find("pattern");
    if (pattern == j.end() || !pattern->is_string() || pattern->get<std::string>().empty()) {
        throw InputError(source, place + ".pattern",
                         "expected a non-empty string (POSIX extended regular expression)");
    }
    r.pattern = pattern->get<std::string>();
    auto category = j.find("category");
    if (category == j.end() || !category->is_string()) {
        throw InputError(source, place + ".category",
                         "expected a string, one of " + categoryChoices());
    }
    auto c = categoryFromString(category->get<std::string>());
    if (!c) {
        throw InputError(source, place + ".category",
                         "unknown category \"" + category->get<std::string>() +
                             "\"; expected one of " + categoryChoices());
    }
    r.category = *c;
    for (const char* key : {"family", "note"}) {
        auto it = j.find(key);
        if (it == j.end() || it->is_null())
            continue;
        if (!it->is_string()) {
            throw InputError(source, place + "." + key,
                             std::string("expected a string, got ") + typeName(*it));
        }
        (std::string(key) == "family" ? r.family : r.note) = it->get<std::string>();
    }
    return r;
}

// Why a pattern of `bytes` passes the limits, the patterns so far `total` bytes together.
std::optional<std::string> sizeError(size_t bytes, size_t total) {
    if (bytes > RuleSet::kMaxPatternBytes)
        return "expected a pattern of at most " + std::to_string(RuleSet::kMaxPatternBytes) +
               " bytes, got " + std::to_string(bytes) + " (docs/limits.md)";
    if (total > RuleSet::kMaxPatternsBytes)
        return "the patterns so far pass " + std::to_string(RuleSet::kMaxPatternsBytes / 1024) +
               " KiB together, the most a rule set holds (docs/limits.md)";
    return std::nullopt;
}

}  // namespace

RuleSet::RuleSet() : m_name("empty") {}

std::optional<std::string> RuleSet::patternError(const std::string& pattern) {
    if (pattern.empty())
        return std::string("empty pattern");
    NamePattern p(pattern);
    if (p.ok())
        return std::nullopt;
    return p.error();
}

RuleSet RuleSet::fromJsonText(const std::string& text, const std::string& sourceName) {
    const json doc = parseJson(text, sourceName, "expected a JSON rule file");
    if (!doc.is_object()) {
        throw InputError(
            sourceName, "top level",
            std::string("expected an object with a \"rules\" array, got ") + typeName(doc));
    }
    for (const auto& [key, value] : doc.items()) {
        if (key != "name" && key != "version" && key != "description" && key != "rules" &&
            key != "comment") {
            throw InputError(sourceName, key,
                             "unknown key; a rule file has name, version, description, rules");
        }
    }
    auto version = doc.find("version");
    if (version != doc.end() && !(version->is_number_integer() && version->get<int64_t>() == 1)) {
        throw InputError(sourceName, "version", "expected 1 (the only rule-file version)");
    }
    RuleSet set;
    std::filesystem::path stem(sourceName);
    set.m_name = stem.stem().string();
    if (set.m_name.ends_with(".json"))
        set.m_name.resize(set.m_name.size() - 5);
    auto name = doc.find("name");
    if (name != doc.end()) {
        if (!name->is_string() || name->get<std::string>().empty()) {
            throw InputError(sourceName, "name", "expected a non-empty string");
        }
        set.m_name = name->get<std::string>();
    }
    auto description = doc.find("description");
    if (description != doc.end()) {
        if (!description->is_string()) {
            throw InputError(sourceName, "description", "expected a string");
        }
        set.m_description = description->get<std::string>();
    }
    auto rules = doc.find("rules");
    if (rules == doc.end() || !rules->is_array()) {
        throw InputError(sourceName, "rules", "expected an array of rules");
    }
    if (rules->size() > kMaxRules) {
        throw InputError(sourceName, "rules",
                         "expected at most " + std::to_string(kMaxRules) + " rules, got " +
                             std::to_string(rules->size()) + " (docs/limits.md)");
    }
    size_t patternsBytes = 0;
    for (size_t i = 0; i < rules->size(); ++i) {
        Rule r = ruleFromJson((*rules)[i], sourceName, i);
        // Checked before compiling: the cost is in the compiled pattern, not the text.
        patternsBytes += r.pattern.size();
        if (const auto why = sizeError(r.pattern.size(), patternsBytes))
            throw InputError(sourceName, "rules[" + std::to_string(i) + "].pattern", *why);
        auto compiled = std::make_shared<const NamePattern>(r.pattern);
        if (!compiled->ok()) {
            throw InputError(
                sourceName, "rules[" + std::to_string(i) + "].pattern",
                "invalid regular expression \"" + r.pattern + "\" (" + compiled->error() + ")");
        }
        set.m_rules.push_back(std::move(r));
        set.m_compiled.push_back(std::move(compiled));
    }
    set.rebuildSet();
    return set;
}

RuleSet RuleSet::fromFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw InputError(path, "path", "expected a rule file, found a directory");
    }
    return fromJsonText(readJsonFile(path, "expected a readable rule file"), path);
}

RuleSet RuleSet::builtinDefault() {
    // Parsed and compiled once; copies share the compiled patterns.
    static const RuleSet kDefault =
        fromJsonText(std::string(kDefaultRulesJson), "resources/rules/default.json");
    return kDefault;
}

std::string RuleSet::toJson() const {
    json doc = json::object();
    doc["name"] = m_name;
    doc["version"] = 1;
    if (!m_description.empty())
        doc["description"] = m_description;
    json rules = json::array();
    for (const Rule& r : m_rules) {
        json j = json::object();
        j["pattern"] = r.pattern;
        j["category"] = std::string(categoryKey(r.category));
        if (!r.family.empty())
            j["family"] = r.family;
        if (!r.note.empty())
            j["note"] = r.note;
        rules.push_back(std::move(j));
    }
    doc["rules"] = std::move(rules);
    return doc.dump(2) + "\n";
}

std::string RuleSet::hash() const {
    json canon = json::array();
    for (const Rule& r : m_rules) {
        canon.push_back(json::array({r.pattern, std::string(categoryKey(r.category)), r.family}));
    }
    Sha256 h;
    h.update(canon.dump());
    return h.hexDigest();
}

void RuleSet::insertRule(size_t at, Rule rule) {
    if (at > m_rules.size())
        throw std::out_of_range("RuleSet::insertRule: index past the end");
    if (m_rules.size() >= kMaxRules) {
        throw InputError("rule set " + m_name, "rules[" + std::to_string(at) + "]",
                         "a rule set holds at most " + std::to_string(kMaxRules) + " rules");
    }
    requireWithinLimits(rule, std::nullopt, at);
    auto compiled = std::make_shared<const NamePattern>(rule.pattern);
    if (rule.pattern.empty() || !compiled->ok()) {
        throw InputError("rule set " + m_name, "rules[" + std::to_string(at) + "].pattern",
                         "invalid regular expression \"" + rule.pattern + "\" (" +
                             (rule.pattern.empty() ? "empty pattern" : compiled->error()) + ")");
    }
    m_rules.insert(m_rules.begin() + static_cast<ptrdiff_t>(at), std::move(rule));
    m_compiled.insert(m_compiled.begin() + static_cast<ptrdiff_t>(at), std::move(compiled));
    rebuildSet();
}

void RuleSet::replaceRule(size_t at, Rule rule) {
    if (at >= m_rules.size())
        throw std::out_of_range("RuleSet::replaceRule: no such rule");
    requireWithinLimits(rule, at, at);
    auto compiled = std::make_shared<const NamePattern>(rule.pattern);
    if (rule.pattern.empty() || !compiled->ok()) {
        throw InputError("rule set " + m_name, "rules[" + std::to_string(at) + "].pattern",
                         "invalid regular expression \"" + rule.pattern + "\" (" +
                             (rule.pattern.empty() ? "empty pattern" : compiled->error()) + ")");
    }
    m_rules[at] = std::move(rule);
    m_compiled[at] = std::move(compiled);
    rebuildSet();
}

void RuleSet::requireWithinLimits(const Rule& rule, std::optional<size_t> replacing,
                                  size_t at) const {
    size_t total = rule.pattern.size();
    for (size_t i = 0; i < m_rules.size(); ++i)
        if (!replacing || i != *replacing)
            total += m_rules[i].pattern.size();
    if (const auto why = sizeError(rule.pattern.size(), total))
        throw InputError("rule set " + m_name, "rules[" + std::to_string(at) + "].pattern", *why);
}

void RuleSet::removeRule(size_t at) {
    if (at >= m_rules.size())
        throw std::out_of_range("RuleSet::removeRule: no such rule");
    m_rules.erase(m_rules.begin() + static_cast<ptrdiff_t>(at));
    m_compiled.erase(m_compiled.begin() + static_cast<ptrdiff_t>(at));
    rebuildSet();
}

void RuleSet::moveRule(size_t from, size_t to) {
    if (from >= m_rules.size() || to >= m_rules.size()) {
        throw std::out_of_range("RuleSet::moveRule: no such rule");
    }
    Rule r = std::move(m_rules[from]);
    auto p = std::move(m_compiled[from]);
    m_rules.erase(m_rules.begin() + static_cast<ptrdiff_t>(from));
    m_compiled.erase(m_compiled.begin() + static_cast<ptrdiff_t>(from));
    m_rules.insert(m_rules.begin() + static_cast<ptrdiff_t>(to), std::move(r));
    m_compiled.insert(m_compiled.begin() + static_cast<ptrdiff_t>(to), std::move(p));
    rebuildSet();
}

void RuleSet::rebuildSet() {
    m_set = m_rules.empty() ? nullptr : std::make_shared<const NamePatternSet>([this] {
        std::vector<std::string> patterns;
        for (const Rule& r : m_rules)
            patterns.push_back(r.pattern);
        return patterns;
    }());
}

RuleSet::Match RuleSet::classify(std::string_view kernelName, ActivityKind kind) const {
    std::optional<int> hit = m_set ? m_set->firstMatch(kernelName) : std::optional<int>(-1);
    if (!hit) {
        hit = -1;
        for (size_t i = 0; i < m_compiled.size(); ++i) {
            if (m_compiled[i]->matches(kernelName)) {
                hit = static_cast<int>(i);
                break;
            }
        }
    }
    if (*hit >= 0) {
        const Rule& r = m_rules[static_cast<size_t>(*hit)];
        return Match{r.category, r.family, *hit};
    }
    // Copies and fills are data movement whatever they are called (DOMAIN.md), so a rule set
    // without memcpy/memset rules still puts them in overhead.
    if (kind == ActivityKind::Memcpy)
        return Match{Category::Overhead, "memcpy", -1};
    if (kind == ActivityKind::Memset)
        return Match{Category::Overhead, "memset", -1};
    return Match{};
}

}  // namespace reach
