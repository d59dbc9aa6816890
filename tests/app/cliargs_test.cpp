// Argument parsing and text helpers of reach-cli, in-process.
#include "app/cli/cliargs.h"

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

TEST(CliText, TableAlignsColumns) {
    reach::cli::TextTable t({"category", "share"});
    t.addRow({"addressable", "46.1 %"});
    t.addRow({"overhead", "0.5 %"});
    const std::string s = t.render("");
    EXPECT_NE(s.find("addressable  46.1 %"), std::string::npos) << s;
    EXPECT_NE(s.find("overhead      0.5 %"), std::string::npos) << s;
}

}  // namespace reach_test_cliargs_test
