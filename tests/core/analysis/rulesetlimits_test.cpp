// Rule matching in linear time (issue 14, defect 2) and the pattern syntax users already write
// (docs/rules.md): POSIX ERE, case-insensitive, searched anywhere in the name.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <string>

#include "core/analysis/ruleset.h"
#include "core/base/inputerror.h"

namespace reach_test_rulesetlimits_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

RuleSet oneRule(const std::string& pattern) {
    return RuleSet::fromJsonText(R"({"rules":[{"pattern":)" + nlohmann::json(pattern).dump() +
                                     R"(,"category":"addressable"}]})",
                                 "one.json");
}

}  // namespace

// POSIX regexec took 1 s on a 256 KiB name and 17 s on 1 MiB (quadratic); every rule of the
// default set is tried on a name no rule matches, so 4 MiB took many minutes.
TEST(RuleSetLimits, AFourMegabyteNameIsClassifiedInLinearTime) {
    const RuleSet rules = RuleSet::builtinDefault();
    const std::string name = "void zz_" + std::string(4u << 20, 'q') + "(int)";
    const auto start = std::chrono::steady_clock::now();
    const RuleSet::Match m = rules.classify(name, ActivityKind::Kernel);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(m.rule, -1);
    EXPECT_LT(seconds, 5.0);
}

TEST(RuleSetLimits, TheUsersSyntaxStillMeansWhatItMeant) {
    struct Case {
        const char* pattern;
        const char* name;
        bool match;
    };
    for (const Case& c : {
             Case{"gemm", "ampere_sgemm_128x64_nn", true},  // anywhere
             Case{"GEMM", "ampere_sgemm_128x64_nn", true},  // case-insensitive
             Case{"^ampere", "ampere_sgemm", true},         // anchors
             Case{"^sgemm", "ampere_sgemm", false},
             Case{"nn$", "ampere_sgemm_128x64_nn", true},
             Case{"nvjet|cutlass", "cutlass_80_tensorop", true},  // alternation
             Case{"sm[0-9]+_xmma", "sm90_xmma_gemm", true},       // bracket ranges
             Case{"sm[[:digit:]]{2}_", "sm90_xmma", true},        // classes, intervals
             Case{"a.b", "a\nb", true},                           // '.' matches a newline
             Case{"^b", "a\nb", false},                           // '^' is the name's start
             Case{"x\\(y", "x(y", true},                          // escaped parenthesis
             Case{"(ab)+c", "xababcx", true},
             Case{"[^a-z]", "abc", false},
         }) {
        SCOPED_TRACE(c.pattern);
        EXPECT_EQ(oneRule(c.pattern).classify(c.name, ActivityKind::Kernel).rule == 0, c.match);
    }
}

// RE2 has no backreferences (they are what makes matching exponential); a rule using one is
// refused with a message naming the rule, rather than silently meaning something else.
TEST(RuleSetLimits, ABackreferenceIsRefusedNamingTheRule) {
    try {
        RuleSet::fromJsonText(
            R"({"rules":[{"pattern":"gemm","category":"library_optimized"},
                         {"pattern":"(ab)\\1","category":"addressable"}]})",
            "mine.json");
        ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.place(), "rules[1].pattern") << e.what();
        EXPECT_NE(std::string(e.what()).find("backreference"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(RuleSet::patternError("(ab)\\1").has_value());
    EXPECT_FALSE(RuleSet::patternError("(ab)+").has_value());
}

// Every JSON reader bounds depth and refuses numbers a double cannot hold (issue 14).
TEST(RuleSetLimits, ARuleFileNestedTooDeepOrWithAHugeNumberIsOneLine) {
    for (const std::string& text :
         {R"({"rules":[], "comment":)" + std::string(100000, '[') + std::string(100000, ']') + "}",
          std::string(R"({"rules":[], "version": 1e309})")}) {
        try {
            RuleSet::fromJsonText(text, "deep.json");
            ADD_FAILURE() << "accepted";
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()).rfind("deep.json: byte ", 0), 0u) << e.what();
        } catch (const std::exception& e) {
            ADD_FAILURE() << "not an InputError: " << e.what();
        }
    }
}

// docs/rules.md's table of what differs from glibc's POSIX ERE: what RE2 would read differently
// is refused with a reason, never matched silently otherwise; the GNU/Perl classes still work.
TEST(RuleSetLimits, PosixConstructsRe2LacksAreRefusedWithAReason) {
    for (const char* p : {"[[.a.]]bc", "x[[=e=]]", "\\<gemm\\>", "(a)\\2"}) {
        const auto error = RuleSet::patternError(p);
        ASSERT_TRUE(error.has_value()) << p;
        EXPECT_NE(error->find("not supported"), std::string::npos) << p << ": " << *error;
    }
    for (const char* p : {"[[:alpha:]]+", "[]a]", "[^]a]", "\\[.*\\]", "[a.=]", "\\d+\\w\\s\\b"})
        EXPECT_FALSE(RuleSet::patternError(p).has_value())
            << p << ": " << *RuleSet::patternError(p);
    EXPECT_EQ(oneRule("\\bgemm\\d").classify("x gemm1", ActivityKind::Kernel).rule, 0);
    EXPECT_EQ(oneRule("\\bgemm\\d").classify("xgemm1", ActivityKind::Kernel).rule, -1);
    EXPECT_EQ(oneRule("[]a]x").classify("]x", ActivityKind::Kernel).rule, 0);
}

// Issue 37, item 11: 15 MB of rules (140,000 patterns) took 10 s and 0.9 GB to compile, each
// pattern about 100 times its text, and RE2 printed on stderr while combining them. A rule file
// past the rule count, a pattern's length or the patterns' total is one line naming the file and
// the rule, before any pattern past the limit is compiled.
TEST(RuleSetLimits, ARuleSetPastItsLimitsIsOneLineNamingTheFile) {
    auto fileOf = [](size_t rules, size_t patternBytes) {
        nlohmann::json list = nlohmann::json::array();
        for (size_t i = 0; i < rules; ++i) {
            std::string p = "kernel_" + std::to_string(i) + "_";
            p.resize(std::max(p.size(), patternBytes), 'x');
            list.push_back({{"pattern", p}, {"category", "addressable"}});
        }
        return nlohmann::json{{"rules", list}}.dump();
    };
    auto refusal = [](const std::string& text) -> std::string {
        try {
            RuleSet::fromJsonText(text, "big.json");
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(RuleSet::fromJsonText(fileOf(RuleSet::kMaxRules, 16), "big.json").size(),
              RuleSet::kMaxRules);
    std::string why = refusal(fileOf(RuleSet::kMaxRules + 1, 16));
    EXPECT_NE(why.find("big.json: rules: expected at most 1024 rules, got 1025"), std::string::npos)
        << why;
    why = refusal(fileOf(1, RuleSet::kMaxPatternBytes + 1));
    EXPECT_NE(why.find("big.json: rules[0].pattern: expected a pattern of at most 4096 bytes"),
              std::string::npos)
        << why;
    // 64 patterns of 4 KiB are the total; the 65th passes it.
    EXPECT_EQ(RuleSet::fromJsonText(fileOf(64, 4096), "big.json").size(), 64u);
    why = refusal(fileOf(65, 4096));
    EXPECT_NE(why.find("big.json: rules[64].pattern: the patterns so far pass 256 KiB"),
              std::string::npos)
        << why;
    EXPECT_EQ(why.find('\n'), std::string::npos);

    // The editor keeps to the same limits, and leaves the set as it was.
    RuleSet full = RuleSet::fromJsonText(fileOf(RuleSet::kMaxRules, 16), "big.json");
    EXPECT_THROW(full.insertRule(0, Rule{"one_more", Category::Addressable, "", ""}), InputError);
    EXPECT_THROW(full.replaceRule(0, Rule{std::string(5000, 'y'), Category::Addressable, "", ""}),
                 InputError);
    EXPECT_EQ(full.size(), RuleSet::kMaxRules);
    EXPECT_EQ(full.rules()[0].pattern, "kernel_0_xxxxxxx");
}

}  // namespace reach_test_rulesetlimits_test
