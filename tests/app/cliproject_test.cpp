// reach-cli project: the study's table 3 as a golden test, the JSON shape, profiles as input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "clirunner.h"

namespace reach_test_cliproject_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::dataset;
using reach::test::runCli;

namespace {

const std::string kTable3 = dataset("paper/table3.json");
const std::string kDlrm = dataset("profiles/h200/dlrm_inference.json.gz");

json parseOk(const reach::test::CliResult& r) {
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    return json::parse(r.out);
}

const json& byName(const json& list, const std::string& name) {
    for (const json& w : list) {
        if (w["name"] == name)
            return w;
    }
    throw std::runtime_error("no workload " + name);
}

}  // namespace

// Golden: every projected gain the study published (1.32, 2.39, 2.49, 6.21, 8.63 %) to 0.01
// percentage point, from the published addressable shares, win rate and median.
TEST(CliProject, ReproducesTable3) {
    const json table = json::parse(reach::test::readFile(kTable3));
    const json doc =
        parseOk(runCli({"project", kTable3, "--win-rate", "0.417", "--median", "1.552", "--json"}));
    ASSERT_EQ(doc["workloads"].size(), table["workloads"].size());
    int compared = 0;
    for (const json& published : table["workloads"]) {
        const json& w = byName(doc["workloads"], published["name"]);
        SCOPED_TRACE(published["name"].get<std::string>());
        EXPECT_DOUBLE_EQ(w["addressable_share"].get<double>(),
                         published["addressable"].get<double>());
        EXPECT_DOUBLE_EQ(w["win_rate"].get<double>(), 0.417);
        EXPECT_DOUBLE_EQ(w["median_speedup"].get<double>(), 1.552);
        const double saved = w["saved_share"].get<double>();
        EXPECT_NEAR(w["end_to_end_speedup"].get<double>(), 1.0 / (1.0 - saved), 1e-12);
        if (published["projected_gain"].is_null())
            continue;
        EXPECT_NEAR(saved * 100.0, published["projected_gain"].get<double>() * 100.0, 0.01);
        ++compared;
    }
    EXPECT_EQ(compared, 5);
    ASSERT_TRUE(doc["assumptions"].is_string());
    EXPECT_FALSE(doc["assumptions"].get<std::string>().empty());
}

TEST(CliProject, StudyTableSuppliesItsOwnWinRateAndMedian) {
    const json a = parseOk(runCli({"project", kTable3, "--json"}));
    const json b =
        parseOk(runCli({"project", kTable3, "--win-rate", "0.417", "--median", "1.552", "--json"}));
    EXPECT_EQ(a["workloads"], b["workloads"]);
}

TEST(CliProject, ProfileUsesItsBreakdownAddressableShare) {
    const json breakdown = parseOk(runCli({"breakdown", kDlrm, "--json"}));
    const json doc =
        parseOk(runCli({"project", kDlrm, "--win-rate", "0.5", "--median", "2", "--json"}));
    ASSERT_EQ(doc["workloads"].size(), 1u);
    const json& w = doc["workloads"][0];
    const double a = breakdown["workloads"][0]["shares"]["addressable"].get<double>();
    EXPECT_EQ(w["name"], "dlrm_inference");
    // breakdown --json rounds shares to 1e-6; project computes from the unrounded share.
    EXPECT_NEAR(w["addressable_share"].get<double>(), a, 1e-6);
    EXPECT_NEAR(w["saved_share"].get<double>(), w["addressable_share"].get<double>() * 0.5 * 0.5,
                1e-12);
    EXPECT_EQ(doc["rules"]["hash"], breakdown["rules"]["hash"]);
}

TEST(CliProject, EveryProjectionHasBothBasesAndWarnsWhenTheGpuIsMostlyIdle) {
    // DLRM inference on the H200 is busy about a third of its span: its wall-clock saving is its
    // GPU-time saving times gpu/span, and it carries a warning. Published rows have no span.
    const json breakdown = parseOk(runCli({"breakdown", kDlrm, "--json"}));
    const json& b = breakdown["workloads"][0];
    const json doc = parseOk(
        runCli({"project", kDlrm, kTable3, "--win-rate", "0.5", "--median", "2", "--json"}));
    const json& w = byName(doc["workloads"], "dlrm_inference");
    const double gpu = b["gpu_time_us"].get<double>(), span = b["span_us"].get<double>();
    EXPECT_NEAR(w["saved_share_of_wall_clock"].get<double>(),
                w["saved_share"].get<double>() * gpu / span, 1e-6);
    EXPECT_NEAR(w["busy_share_of_span"].get<double>(), b["busy_share_of_span"].get<double>(), 1e-6);
    EXPECT_NEAR(w["end_to_end_speedup_wall"].get<double>(),
                1.0 / (1.0 - w["saved_share_of_wall_clock"].get<double>()), 1e-12);
    ASSERT_LT(w["busy_share_of_span"].get<double>(), 0.5);
    ASSERT_TRUE(w["warning"].is_string());
    EXPECT_NE(w["warning"].get<std::string>().find("busy"), std::string::npos);
    const json& published = byName(doc["workloads"], "DLRM inference");
    EXPECT_TRUE(published["saved_share_of_wall_clock"].is_null());
    EXPECT_NE(published["warning"].get<std::string>().find("no profiled span"), std::string::npos);
    const auto text = runCli({"project", kDlrm, kTable3, "--win-rate", "0.5", "--median", "2"});
    EXPECT_NE(text.out.find("saved (wall)"), std::string::npos);
    EXPECT_NE(text.out.find("warning: dlrm_inference: GPU busy"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("no span"), std::string::npos);
}

TEST(CliProject, TextStatesTheAssumptions) {
    const auto r = runCli({"project", kTable3, "--win-rate", "0.417", "--median", "1.552"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("assumptions"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("8.63 %"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1.32 %"), std::string::npos) << r.out;
}

TEST(CliProject, ProfileWithoutWinRateOrMedianIsBadUsage) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"project", kDlrm},
          {"project", kDlrm, "--win-rate", "0.4"},
          {"project", kDlrm, "--win-rate", "1.4", "--median", "2"}}) {
        const auto r = runCli(args);
        EXPECT_EQ(r.status, 2);
        EXPECT_EQ(r.errLines().size(), 1u) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
}

TEST(CliProject, AddressableShareGivenDirectly) {
    const json doc = parseOk(runCli(
        {"project", "--addressable", "0.03", "--win-rate", "1", "--median", "1.235", "--json"}));
    ASSERT_EQ(doc["workloads"].size(), 1u);
    // DOMAIN.md's example: a 1.235x kernel on 3% of the run saves 0.57%.
    EXPECT_NEAR(doc["workloads"][0]["saved_share"].get<double>() * 100, 0.57, 0.005);
}

TEST(CliProject, NoInputProjectsTheBundledSample) {
    // Like the GUI: nothing opens the sample, whose study table carries its projection.
    const json doc = parseOk(runCli({"project", "--json"}));
    ASSERT_GE(doc["workloads"].size(), 13u);  // 7 published + the H200 profiles
    EXPECT_NEAR(doc["workloads"][6]["saved_share"].get<double>(), 0.0863, 1e-4);  // DLRM inf.
    EXPECT_FALSE(doc["rules"].is_null());
    EXPECT_NE(doc["study"].get<std::string>().find("2609.21058"), std::string::npos);
}

}  // namespace reach_test_cliproject_test
