// The argument reader of Reach's executables and reach-cli's text helpers, in-process.
#include "app/args/cliargs.h"

#include <gtest/gtest.h>

#include "app/cli/clitext.h"

namespace reach_test_cliargs_test {  // unity builds: this file's names stay its own

using reach::cli::ArgSpec;
using reach::cli::CliArgs;
using reach::cli::UsageError;

namespace {
const ArgSpec kSpec{{"--json"}, {"--rules", "--top", "--win-rate"}};
}

TEST(CliArgs, SeparatesFlagsOptionsAndPositionals) {
    CliArgs a({"a.json.gz", "--json", "--rules", "r.json", "b.json", "--top=3"}, kSpec);
    EXPECT_TRUE(a.flag("--json"));
    EXPECT_EQ(a.value("--rules"), "r.json");
    EXPECT_EQ(a.integer("--top", 1, 10), 3);
    EXPECT_EQ(a.positionals(), (std::vector<std::string>{"a.json.gz", "b.json"}));
    EXPECT_FALSE(a.value("--win-rate").has_value());
}

TEST(CliArgs, DoubleDashEndsOptions) {
    CliArgs a({"--", "--json"}, kSpec);
    EXPECT_FALSE(a.flag("--json"));
    EXPECT_EQ(a.positionals(), (std::vector<std::string>{"--json"}));
}

TEST(CliArgs, RejectsUnknownOptionsMissingValuesAndBadNumbers) {
    EXPECT_THROW(CliArgs({"--nope"}, kSpec), UsageError);
    EXPECT_THROW(CliArgs({"-j"}, kSpec), UsageError);
    EXPECT_THROW(CliArgs({"--rules"}, kSpec), UsageError);
    EXPECT_THROW(CliArgs({"--json=1"}, kSpec), UsageError);
    EXPECT_THROW(CliArgs({"--win-rate", "abc"}, kSpec).number("--win-rate", 0, 1), UsageError);
    EXPECT_THROW(CliArgs({"--win-rate", "1.5"}, kSpec).number("--win-rate", 0, 1), UsageError);
    EXPECT_THROW(CliArgs({"--win-rate", "nan"}, kSpec).number("--win-rate", 0, 1), UsageError);
    EXPECT_THROW(CliArgs({"--top", "3x"}, kSpec).integer("--top", 1, 10), UsageError);
    EXPECT_DOUBLE_EQ(*CliArgs({"--win-rate", "0.417"}, kSpec).number("--win-rate", 0, 1), 0.417);
}

TEST(CliArgs, GivenKeepsTheOrderAndEveryRepeat) {
    CliArgs a({"--rules", "a.json", "--json", "--rules=b.json", "x"}, kSpec);
    ASSERT_EQ(a.given().size(), 3u);
    EXPECT_EQ(a.given()[0].name, "--rules");
    EXPECT_EQ(a.given()[0].value, "a.json");
    EXPECT_EQ(a.given()[1].name, "--json");
    EXPECT_FALSE(a.given()[1].value.has_value());
    EXPECT_EQ(a.given()[2].value, "b.json");
    EXPECT_EQ(a.value("--rules"), "b.json");  // the last one counts
}

TEST(CliArgs, AliasesReadAsTheirNameAndAStopFlagEndsTheReading) {
    const ArgSpec spec{{"--help", "--json"}, {"--top"}, {{"-h", "--help"}}, {"--help"}};
    CliArgs a({"--top", "3", "-h", "--no-such", "--top"}, spec);
    EXPECT_TRUE(a.flag("--help"));
    EXPECT_EQ(a.value("--top"), "3");
    EXPECT_EQ(a.given().size(), 2u);
    // Without the stop, what follows is judged; an alias is not taken after "--".
    EXPECT_THROW(CliArgs({"--json", "--no-such"}, spec), UsageError);
    CliArgs b({"--", "-h"}, spec);
    EXPECT_FALSE(b.flag("--help"));
    EXPECT_EQ(b.positionals(), (std::vector<std::string>{"-h"}));
}

TEST(CliArgs, UnknownOptionsAreNamedAsEveryExecutableNamesThem) {
    try {
        CliArgs({"--nope"}, kSpec);
        FAIL() << "no error";
    } catch (const UsageError& e) {
        EXPECT_STREQ(e.what(), "unknown argument '--nope'");
    }
}

TEST(CliArgs, TypedReadersOfOneValue) {
    EXPECT_DOUBLE_EQ(reach::cli::parseNumber("--scale", "0.25"), 0.25);
    EXPECT_THROW(reach::cli::parseNumber("--scale", "1x"), UsageError);
    EXPECT_THROW(reach::cli::parseNumber("--scale", ""), UsageError);
    EXPECT_EQ(reach::cli::parseUnsigned("--seed", "9007199254740993"), 9007199254740993ull);
    EXPECT_EQ(reach::cli::parseUnsigned("--seed", "18446744073709551615"), 18446744073709551615ull);
    EXPECT_THROW(reach::cli::parseUnsigned("--seed", "18446744073709551616"), UsageError);
    EXPECT_THROW(reach::cli::parseUnsigned("--seed", "-1"), UsageError);
}

TEST(CliText, TableAlignsColumns) {
    reach::cli::TextTable t({"category", "share"});
    t.addRow({"addressable", "46.1 %"});
    t.addRow({"overhead", "0.5 %"});
    const std::string s = t.render("");
    EXPECT_NE(s.find("addressable  46.1 %"), std::string::npos) << s;
    EXPECT_NE(s.find("overhead      0.5 %"), std::string::npos) << s;
}

}  // namespace reach_test_cliargs_test
