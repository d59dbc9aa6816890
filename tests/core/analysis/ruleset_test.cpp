// RuleSet: the rule-file format, its errors, editing, hashing and classification mechanics.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/analysis/ruleset.h"
#include "core/base/inputerror.h"

namespace reach_test_ruleset_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

const char* kSmall = R"({
  "name": "small",
  "version": 1,
  "rules": [
    {"pattern": "fbgemm", "category": "addressable", "family": "embedding", "note": "first"},
    {"pattern": "gemm", "category": "library_optimized", "family": "gemm"},
    {"pattern": "softmax", "category": "addressable"}
  ]
})";

std::string errorOf(const std::string& text) {
    try {
        RuleSet::fromJsonText(text, "bad.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

std::string readLines(const std::string& path, std::vector<std::string>* out) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        out->push_back(line);
    return path;
}

}  // namespace

TEST(RuleSet, ReadsRulesInOrderAndFirstMatchWins) {
    RuleSet r = RuleSet::fromJsonText(kSmall, "small.json");
    EXPECT_EQ(r.name(), "small");
    ASSERT_EQ(r.rules().size(), 3u);
    EXPECT_EQ(r.rules()[0].note, "first");
    auto m = r.classify("void fbgemm_gpu::permute_2D_data_kernel<false>", ActivityKind::Kernel);
    EXPECT_EQ(m.category, Category::Addressable);
    EXPECT_EQ(m.family, "embedding");
    EXPECT_EQ(m.rule, 0);
    m = r.classify("ampere_sgemm_128x64_nn", ActivityKind::Kernel);
    EXPECT_EQ(m.category, Category::LibraryOptimized);
    EXPECT_EQ(m.rule, 1);
    // Case-insensitive, searched anywhere in the name.
    m = r.classify("cunn_SoftMaxForward<4>", ActivityKind::Kernel);
    EXPECT_EQ(m.category, Category::Addressable);
    EXPECT_EQ(m.family, "");
    m = r.classify("saxpy(double *, double *)", ActivityKind::Kernel);
    EXPECT_EQ(m.category, Category::Unclassified);
    EXPECT_EQ(m.rule, -1);
}

TEST(RuleSet, MemcpyAndMemsetAreOverheadByKindWhenNoRuleMatches) {
    RuleSet r = RuleSet::fromJsonText(kSmall, "small.json");
    auto m = r.classify("Memcpy HtoD (Pageable -> Device)", ActivityKind::Memcpy);
    EXPECT_EQ(m.category, Category::Overhead);
    EXPECT_EQ(m.family, "memcpy");
    EXPECT_EQ(m.rule, -1);
    m = r.classify("Memset (Device)", ActivityKind::Memset);
    EXPECT_EQ(m.category, Category::Overhead);
    EXPECT_EQ(m.family, "memset");
    RuleSet empty;
    EXPECT_EQ(empty.classify("anything", ActivityKind::Memcpy).category, Category::Overhead);
    EXPECT_EQ(empty.classify("anything", ActivityKind::Kernel).category, Category::Unclassified);
}

TEST(RuleSet, JsonRoundTripKeepsRulesAndHash) {
    RuleSet r = RuleSet::fromJsonText(kSmall, "small.json");
    RuleSet back = RuleSet::fromJsonText(r.toJson(), "roundtrip.json");
    EXPECT_EQ(back.name(), r.name());
    ASSERT_EQ(back.rules().size(), r.rules().size());
    for (size_t i = 0; i < r.rules().size(); ++i) {
        EXPECT_EQ(back.rules()[i].pattern, r.rules()[i].pattern);
        EXPECT_EQ(back.rules()[i].category, r.rules()[i].category);
        EXPECT_EQ(back.rules()[i].family, r.rules()[i].family);
        EXPECT_EQ(back.rules()[i].note, r.rules()[i].note);
    }
    EXPECT_EQ(back.hash(), r.hash());
    RuleSet def = RuleSet::builtinDefault();
    EXPECT_EQ(RuleSet::fromJsonText(def.toJson(), "x.json").hash(), def.hash());
}

TEST(RuleSet, HashDependsOnRulesNotOnNameOrNotes) {
    RuleSet a = RuleSet::fromJsonText(kSmall, "small.json");
    const std::string h = a.hash();
    EXPECT_EQ(h.size(), 64u);
    EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
    RuleSet b = a;
    b.setName("renamed");
    Rule first = b.rules()[0];
    first.note = "another note";
    b.replaceRule(0, first);
    EXPECT_EQ(b.hash(), h);
    b.moveRule(0, 1);  // order matters: fbgemm after gemm classifies differently
    EXPECT_NE(b.hash(), h);
    EXPECT_EQ(b.classify("fbgemm_gpu::x", ActivityKind::Kernel).category,
              Category::LibraryOptimized);
    b.moveRule(1, 0);
    EXPECT_EQ(b.hash(), h);
    Rule changed = b.rules()[2];
    changed.family = "softmax";
    b.replaceRule(2, changed);
    EXPECT_NE(b.hash(), h);
}

TEST(RuleSet, EditingInsertRemoveAndRejectsBadPatterns) {
    RuleSet r = RuleSet::fromJsonText(kSmall, "small.json");
    r.insertRule(0, Rule{"^saxpy", Category::Addressable, "elementwise", ""});
    EXPECT_EQ(r.classify("saxpy(double *)", ActivityKind::Kernel).rule, 0);
    EXPECT_EQ(r.classify("ampere_sgemm", ActivityKind::Kernel).rule, 2);
    r.removeRule(0);
    EXPECT_EQ(r.classify("saxpy(double *)", ActivityKind::Kernel).rule, -1);
    try {
        r.insertRule(1, Rule{"gemm(", Category::Addressable, "", ""});
        FAIL() << "an unbalanced parenthesis must be rejected";
    } catch (const InputError& e) {
        EXPECT_EQ(e.place(), "rules[1].pattern");
        EXPECT_NE(std::string(e.what()).find("gemm("), std::string::npos);
    }
    EXPECT_EQ(r.rules().size(), 3u);  // unchanged
    EXPECT_THROW(r.replaceRule(0, Rule{"", Category::Addressable, "", ""}), InputError);
    EXPECT_THROW(r.removeRule(3), std::out_of_range);
    EXPECT_TRUE(RuleSet::patternError("a|b").has_value() == false);
    EXPECT_TRUE(RuleSet::patternError("[abc").has_value());
}

TEST(RuleSet, BadRuleFilesNameFilePlaceAndExpectation) {
    EXPECT_EQ(errorOf(R"({"rules": [{"pattern": "x", "category": "fast"}]})"),
              "bad.json: rules[0].category: unknown category \"fast\"; expected one of "
              "library_optimized, addressable, overhead, unclassified");
    EXPECT_EQ(
        errorOf(R"({"rules": [{"pattern": "ok", "category": "overhead"},
                               {"pattern": "(unclosed", "category": "overhead"}]})")
            .substr(0, 60),
        std::string("bad.json: rules[1].pattern: invalid regular expression \"(unc").substr(0, 60));
    EXPECT_EQ(errorOf(R"({"rules": [{"category": "overhead"}]})"),
              "bad.json: rules[0].pattern: expected a non-empty string (POSIX extended regular "
              "expression)");
    EXPECT_EQ(errorOf(R"({"rules": [{"pattern": "x", "catgory": "overhead"}]})"),
              "bad.json: rules[0].catgory: unknown key; a rule has pattern, category, family, "
              "note, comment");
    EXPECT_EQ(errorOf(R"({"rules": [{"pattern": "x", "category": "overhead", "family": 3}]})"),
              "bad.json: rules[0].family: expected a string, got number");
    EXPECT_EQ(errorOf(R"({"rules": ["gemm"]})"),
              "bad.json: rules[0]: expected an object with \"pattern\" and \"category\", got "
              "string");
    EXPECT_EQ(errorOf(R"({"name": "x"})"), "bad.json: rules: expected an array of rules");
    EXPECT_EQ(errorOf(R"({"version": 2, "rules": []})"),
              "bad.json: version: expected 1 (the only rule-file version)");
    EXPECT_EQ(errorOf("[1, 2]"),
              "bad.json: top level: expected an object with a \"rules\" array, got array");
    const std::string truncated = errorOf(R"({"rules": [{"pattern": "x")");
    EXPECT_EQ(truncated.rfind("bad.json: byte 27: expected a JSON rule file", 0), 0u) << truncated;
    EXPECT_EQ(errorOf("").rfind("bad.json: byte ", 0), 0u);
}

TEST(RuleSet, FromFileReportsMissingFilesAndDirectories) {
    EXPECT_THROW(RuleSet::fromFile("/nonexistent/rules.json"), InputError);
    try {
        RuleSet::fromFile(REACH_TEST_DATA);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), REACH_TEST_DATA);
        EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos);
    }
    // The shipped file reads like the embedded copy.
    RuleSet file =
        RuleSet::fromFile(std::string(REACH_SOURCE_DIR) + "/resources/rules/default.json");
    EXPECT_EQ(file.hash(), RuleSet::builtinDefault().hash());
    EXPECT_EQ(file.name(), "reach-default");
}

TEST(RuleSet, NameDefaultsToTheFileStem) {
    RuleSet r = RuleSet::fromJsonText(R"({"rules": []})", "/tmp/my_rules.json");
    EXPECT_EQ(r.name(), "my_rules");
}

// libstdc++ std::regex recurses per character and overflows the stack on long names; the POSIX
// matcher must handle the longest real names and far longer ones.
TEST(RuleSet, HandlesKilobyteLongRealKernelNames) {
    std::vector<std::string> names;
    readLines(std::string(REACH_TEST_DATA) + "/analysis/long_kernel_names.txt", &names);
    ASSERT_GE(names.size(), 5u);
    ASSERT_GE(names[0].size(), 3000u);
    RuleSet def = RuleSet::builtinDefault();
    EXPECT_EQ(def.classify(names[0], ActivityKind::Kernel).family, "random");
    for (size_t i = 1; i < names.size(); ++i) {
        EXPECT_EQ(def.classify(names[i], ActivityKind::Kernel).family, "embedding") << names[i];
    }
    std::string huge;
    while (huge.size() < 256 * 1024)
        huge += names[0];
    EXPECT_EQ(def.classify(huge, ActivityKind::Kernel).family, "random");
    EXPECT_EQ(def.classify(huge + " zzz_unmatched", ActivityKind::Kernel).category,
              Category::Addressable);
}

}  // namespace reach_test_ruleset_test
