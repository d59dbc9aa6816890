// RE2 replaced POSIX regexec for rule matching (issue 14): every pattern of the default rule set
// must match exactly the names it matched before. Each default pattern is compiled here with
// regcomp(REG_EXTENDED | REG_ICASE), as Reach compiled it before, and compared with RE2's answer on
// every kernel name the shipped golden breakdowns and the current-stacks fixture hold, as they
// are and upper-cased (the matching is case-insensitive), and on a few names built to probe the
// constructs the patterns use ("(^|[^a-z])", anchors, brackets).
#include <gtest/gtest.h>
#include <regex.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/analysis/ruleset.h"

namespace reach_test_rulesetposix_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void collectNames(const json& j, std::set<std::string>& out) {
    if (j.is_object()) {
        if (auto k = j.find("kernels"); k != j.end() && k->is_array()) {
            for (const json& e : *k)
                if (e.is_object() && e.contains("name") && e["name"].is_string())
                    out.insert(e["name"].get<std::string>());
        }
        for (const auto& [key, v] : j.items())
            collectNames(v, out);
    } else if (j.is_array()) {
        for (const json& v : j)
            collectNames(v, out);
    }
}

std::set<std::string> shippedNames() {
    std::set<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(REACH_GOLDEN "/breakdown")) {
        if (e.path().extension() != ".json")
            continue;
        std::ifstream in(e.path());
        collectNames(json::parse(in), names);
    }
    std::ifstream fixture(REACH_TEST_DATA "/kernel-names/current_stacks.json");
    const json doc = json::parse(fixture);  // a range-for over .at() of a temporary dangles
    for (const json& e : doc.at("entries"))
        names.insert(e.at("name").get<std::string>());
    return names;
}

bool posixMatches(const std::string& pattern, const std::string& name) {
    regex_t re;
    EXPECT_EQ(regcomp(&re, pattern.c_str(), REG_EXTENDED | REG_ICASE | REG_NOSUB), 0) << pattern;
    const bool hit = regexec(&re, name.c_str(), 0, nullptr, 0) == 0;
    regfree(&re);
    return hit;
}

}  // namespace

TEST(RuleSetPosix, Re2MatchesWhatRegexecMatchedForEveryDefaultPattern) {
    const std::set<std::string> shipped = shippedNames();
    // The golden breakdowns list each workload's top kernels, and 143 current-stack names: 275
    // distinct names when this was written.
    ASSERT_GT(shipped.size(), 250u);
    std::vector<std::string> names(shipped.begin(), shipped.end());
    for (const std::string& n : shipped) {
        std::string upper = n;
        std::transform(upper.begin(), upper.end(), upper.begin(),
                       [](unsigned char c) { return char(std::toupper(c)); });
        names.push_back(upper);
    }
    for (const char* probe : {"rope",
                              "Rope_",
                              "xrope",
                              "_ROPE)",
                              "cat_",
                              "acat_",
                              "a_cat_x",
                              "bn_fw",
                              "zbn_fw",
                              "9bn_fw",
                              "[CUDA memcpy HtoD]",
                              "memcpy_x",
                              "Memset (Device)",
                              "transpose<",
                              "batched_transpose_kernel<",
                              "_transpose<",
                              "daxpy_kernel",
                              "xdaxpy_kernel",
                              "dot",
                              "sdot",
                              "sdot1",
                              "rot_kernel",
                              "cijk_Ailk",
                              "x_cijk_",
                              ""})
        names.emplace_back(probe);

    const RuleSet defaults = RuleSet::builtinDefault();
    size_t compared = 0, hits = 0;
    for (size_t i = 0; i < defaults.rules().size(); ++i) {
        const std::string& pattern = defaults.rules()[i].pattern;
        RuleSet one;
        one.insertRule(0, defaults.rules()[i]);
        for (const std::string& name : names) {
            const bool before = posixMatches(pattern, name);
            const bool now = one.classify(name, ActivityKind::Kernel).rule == 0;
            EXPECT_EQ(now, before) << "rule " << i << " /" << pattern << "/ on \"" << name << "\"";
            ++compared;
            hits += before;
        }
    }
    EXPECT_GT(hits, names.size());  // the comparison saw many matches, not only misses
    EXPECT_GT(compared, 10000u);
}

// The whole set decides by the first matching rule, as the loop over regexec did.
TEST(RuleSetPosix, TheFirstMatchingRuleStillDecides) {
    const RuleSet defaults = RuleSet::builtinDefault();
    for (const std::string& name : shippedNames()) {
        int first = -1;
        for (size_t i = 0; i < defaults.rules().size() && first < 0; ++i)
            if (posixMatches(defaults.rules()[i].pattern, name))
                first = int(i);
        EXPECT_EQ(defaults.classify(name, ActivityKind::Kernel).rule, first) << name;
    }
}

}  // namespace reach_test_rulesetposix_test
