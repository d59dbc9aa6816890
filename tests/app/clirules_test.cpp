// reach-cli rules: listing a rule set and checking what it leaves unclassified.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "clirunner.h"
#include "core/base/category.h"

namespace reach_test_clirules_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::dataset;
using reach::test::runCli;

namespace {
const std::string kResnet = dataset("profiles/h200/resnet50_inference.json.gz");
const std::string kDefaultRules = std::string(REACH_SOURCE_DIR) + "/resources/rules/default.json";
}  // namespace

TEST(CliRules, ListsTheBuiltInSet) {
    const auto r = runCli({"rules", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = json::parse(r.out);
    ASSERT_TRUE(doc["name"].is_string());
    ASSERT_TRUE(doc["hash"].is_string());
    ASSERT_TRUE(doc["rules"].is_array());
    ASSERT_GT(doc["rules"].size(), 10u);
    for (const json& rule : doc["rules"]) {
        ASSERT_TRUE(rule["pattern"].is_string());
        EXPECT_TRUE(reach::categoryFromString(rule["category"].get<std::string>()).has_value())
            << rule.dump();
    }
    const auto text = runCli({"rules"});
    ASSERT_EQ(text.status, 0);
    EXPECT_NE(text.out.find("first match wins"), std::string::npos);
    EXPECT_NE(text.out.find(doc["rules"][0]["pattern"].get<std::string>()), std::string::npos);
    // Rules are counted from 1, as the GUI and the docs count them (issue 40).
    std::istringstream lines(text.out);
    std::string line;
    std::vector<std::string> firstWords;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string w;
        if (words >> w &&
            line.find(doc["rules"][0]["pattern"].get<std::string>()) != std::string::npos)
            firstWords.push_back(w);
    }
    ASSERT_FALSE(firstWords.empty()) << text.out;
    EXPECT_EQ(firstWords.front(), "1") << text.out;
}

TEST(CliRules, TheDefaultFileIsTheBuiltInSet) {
    const json builtin = json::parse(runCli({"rules", "--json"}).out);
    const auto r = runCli({"rules", "--rules", kDefaultRules, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["hash"], builtin["hash"]);
}

TEST(CliRules, CheckExitStatusFollowsTheClassifiedShare) {
    const auto r = runCli({"rules", "check", kResnet, "--json"});
    ASSERT_FALSE(r.crashed);
    const json doc = json::parse(r.out);
    const double classified = doc["workloads"][0]["classified_share"].get<double>();
    EXPECT_EQ(r.status, classified >= 0.995 ? 0 : 1);
    EXPECT_EQ(doc["pass"].get<bool>(), r.status == 0);
    EXPECT_TRUE(doc["workloads"][0]["unmatched"].is_array());
    EXPECT_TRUE(doc["workloads"][0]["disagreements"].is_array());
    // The same share as breakdown reports.
    const json b = json::parse(runCli({"breakdown", kResnet, "--json"}).out);
    EXPECT_DOUBLE_EQ(b["workloads"][0]["classified_share"].get<double>(), classified);
}

TEST(CliRules, CheckWithARuleSetThatMatchesLittleSaysNo) {
    // A real rule file cut down to its first rule (memcpy). With operator links (ResNet-50), the
    // launching operators decide what no rule names; without them (an nsys export) the kernels
    // stay unclassified and the check says no.
    reach::test::TempDir dir;
    json rules = json::parse(reach::test::readFile(kDefaultRules));
    rules["name"] = "memcpy-only";
    rules["rules"] = json::array({rules["rules"][0]});
    const std::string path = dir.path("memcpy-only.json");
    reach::test::writeFile(path, rules.dump(2));

    const auto linked = runCli({"rules", "check", kResnet, "--rules", path, "--json"});
    const json ldoc = json::parse(linked.out);
    EXPECT_EQ(ldoc["rules"]["name"], "memcpy-only");
    ASSERT_FALSE(ldoc["workloads"][0]["unmatched"].empty());
    double byOperator = 0;
    for (const json& k : ldoc["workloads"][0]["unmatched"]) {
        const std::string by = k["decided_by"].get<std::string>();
        EXPECT_TRUE(by.rfind("operator aten::", 0) == 0 || by == "unclassified") << by;
        if (by != "unclassified")
            byOperator += k["share"].get<double>();
    }
    EXPECT_GT(byOperator, 0.9);
    EXPECT_EQ(linked.status, ldoc["workloads"][0]["pass"].get<bool>() ? 0 : 1);

    const std::string nsys = dataset("profiles/public/pipit_saxpy_nsys_a100.sqlite");
    const auto r = runCli({"rules", "check", nsys, "--rules", path, "--json"});
    EXPECT_EQ(r.status, 1) << r.err;
    const json doc = json::parse(r.out);
    EXPECT_FALSE(doc["workloads"][0]["unmatched"].empty());
    EXPECT_EQ(doc["workloads"][0]["unmatched"][0]["decided_by"], "unclassified");
    // Accepting any share turns the answer into yes.
    const auto any =
        runCli({"rules", "check", nsys, "--rules", path, "--min-classified", "0", "--json"});
    EXPECT_EQ(any.status, 0) << any.err;
}

TEST(CliRules, SuggestProposesRulesAndWritesTheAcceptedOnes) {
    // The default set cut to its memcpy rule: ResNet-50's kernels are decided by their operators,
    // so every suggestion says which operator spoke; the saxpy nsys export has no operators, so
    // its kernel gets Reach's built-in opinion or an honest guess.
    reach::test::TempDir dir;
    json rules = json::parse(reach::test::readFile(kDefaultRules));
    rules["name"] = "memcpy-only";
    rules["rules"] = json::array({rules["rules"][0]});
    const std::string path = dir.path("memcpy-only.json");
    reach::test::writeFile(path, rules.dump(2));

    const auto r = runCli({"rules", "suggest", kResnet, "--rules", path, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = json::parse(r.out);
    const json& list = doc["workloads"][0]["suggestions"];
    ASSERT_GE(list.size(), 3u);
    double prev = 1.0;
    for (const json& s : list) {
        EXPECT_EQ(s["basis"].get<std::string>().rfind("operator ", 0), 0u) << s.dump();
        EXPECT_LE(s["share"].get<double>(), prev + 1e-12);
        prev = s["share"].get<double>();
        EXPECT_FALSE(s["kernels"].empty());
    }
    EXPECT_GT(doc["workloads"][0]["no_rule_share"].get<double>(), 0.9);

    // Accept the first two: they go first in the written set, which then decides that time by rule.
    const std::string out = dir.path("accepted.json");
    const auto w = runCli({"rules", "suggest", kResnet, "--rules", path, "--write", out, "--accept",
                           "1,2", "--json"});
    ASSERT_EQ(w.status, 0) << w.err;
    EXPECT_EQ(json::parse(w.out)["written"]["accepted"], 2);
    const json written = json::parse(reach::test::readFile(out));
    ASSERT_EQ(written["rules"].size(), 3u);
    EXPECT_EQ(written["rules"][0]["pattern"], list[0]["pattern"]);
    EXPECT_EQ(written["rules"][1]["pattern"], list[1]["pattern"]);
    const json after =
        json::parse(runCli({"rules", "suggest", kResnet, "--rules", out, "--json"}).out);
    EXPECT_NEAR(after["workloads"][0]["no_rule_share"].get<double>(),
                doc["workloads"][0]["no_rule_share"].get<double>() -
                    list[0]["share"].get<double>() - list[1]["share"].get<double>(),
                1e-9);

    const std::string nsys = dataset("profiles/public/pipit_saxpy_nsys_a100.sqlite");
    const json n = json::parse(runCli({"rules", "suggest", nsys, "--rules", path, "--json"}).out);
    ASSERT_FALSE(n["workloads"][0]["suggestions"].empty());
    for (const json& s : n["workloads"][0]["suggestions"]) {
        const std::string basis = s["basis"];
        EXPECT_TRUE(basis.rfind("Reach's built-in rule", 0) == 0 || s["guessed"].get<bool>())
            << basis;
    }

    // Text names the numbers to accept; a number that is not offered is a usage error.
    const auto text = runCli({"rules", "suggest", kResnet, "--rules", path});
    EXPECT_NE(text.out.find("  1. "), std::string::npos);
    EXPECT_NE(text.out.find("--accept"), std::string::npos);
    const auto bad =
        runCli({"rules", "suggest", kResnet, "--rules", path, "--write", out, "--accept", "999"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--accept"), std::string::npos);
}

// Issue 37, item 11: a rule file of 15 MB took 10 s and 0.9 GB and RE2 printed its own lines on
// stderr. Past the limits (core/analysis/ruleset.h) it is one line naming the file, exit 2.
TEST(CliRules, ARuleFilePastTheLimitsIsOneLineNamingTheFile) {
    reach::test::TempDir dir;
    const std::string path = dir.path("huge.json");
    json rules = json::array();
    for (int i = 0; i < 100000; ++i)
        rules.push_back({{"pattern", "kernel_" + std::to_string(i) + "_(gemm|conv)[a-z0-9_]*"},
                         {"category", "addressable"}});
    reach::test::writeFile(path, json{{"rules", rules}}.dump());
    const auto r = runCli({"rules", "check", kResnet, "--rules", path});
    EXPECT_EQ(r.status, 2) << r.out;
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("huge.json: rules: expected at most 1024 rules, got 100000"),
              std::string::npos)
        << r.err;
}

}  // namespace reach_test_clirules_test
