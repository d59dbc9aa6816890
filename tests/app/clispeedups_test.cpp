// reach-cli speedups: the JSON contract, grouping, the editable denominator, mapped CSV input,
// KernelBench run results with the real baselines, storing in a project, and bad input (exit 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "clirunner.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"

namespace reach_test_clispeedups_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::dataset;
using reach::test::runCli;

namespace {

const std::string kSmall = std::string(REACH_TEST_DATA) + "/records/small.jsonl";
const std::string kRun = std::string(REACH_TEST_DATA) + "/kernelbench/eval_results.json";

json parseOk(const reach::test::CliResult& r) {
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    return json::parse(r.out);
}

const json& byKey(const json& doc, const std::string& key) {
    for (const json& g : doc["groups"]) {
        if (g["key"] == key)
            return g;
    }
    throw std::runtime_error("no group " + key);
}

}  // namespace

TEST(CliSpeedups, JsonContractOnTheSmallSet) {
    const json doc = parseOk(runCli({"speedups", kSmall, "--json"}));
    ASSERT_EQ(doc.size(), 2u);  // groups, and the records whose harness was fooled
    ASSERT_TRUE(doc["fooled"].is_array());
    for (const json& f : doc["fooled"])
        EXPECT_FALSE(f["reasons"].empty()) << f.dump();
    ASSERT_EQ(doc["groups"].size(), 1u);
    const json& g = doc["groups"][0];
    const std::vector<std::string> keys = {"key",
                                           "attempted",
                                           "compiled",
                                           "correct",
                                           "winners",
                                           "win_threshold",
                                           "win_rate",
                                           "median_speedup",
                                           "geomean_speedup",
                                           "max_speedup",
                                           "median_speedup_correct",
                                           "fast_p",
                                           "ci95"};
    EXPECT_EQ(g.size(), keys.size());
    for (const auto& k : keys)
        EXPECT_TRUE(g.contains(k)) << k;
    EXPECT_EQ(g["attempted"], 10);
    EXPECT_EQ(g["winners"], 5);
    EXPECT_DOUBLE_EQ(g["win_rate"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(g["median_speedup"].get<double>(), 1.5);
    EXPECT_DOUBLE_EQ(g["fast_p"]["0.8"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(g["fast_p"]["2"].get<double>(), 0.1);
    EXPECT_EQ(g["ci95"]["win_rate"].size(), 2u);
    EXPECT_EQ(g["ci95"]["median_speedup"].size(), 2u);
    // Seeded: the same command prints the same document.
    EXPECT_EQ(parseOk(runCli({"speedups", kSmall, "--json"})), doc);
}

TEST(CliSpeedups, GroupByAndDenominator) {
    const json doc = parseOk(
        runCli({"speedups", kSmall, "--json", "--group-by", "model", "--denominator", "56"}));
    ASSERT_EQ(doc["groups"].size(), 2u);
    EXPECT_NEAR(byKey(doc, "model-a")["win_rate"].get<double>(), 3.0 / 56, 1e-12);
    EXPECT_NEAR(byKey(doc, "model-b")["median_speedup"].get<double>(), 2.05, 1e-12);
    const json backends = parseOk(runCli({"speedups", kSmall, "--json", "--group-by=backend"}));
    EXPECT_EQ(byKey(backends, "cuda")["attempted"], 4);
    const json verified = parseOk(runCli({"speedups", kSmall, "--json", "--verified-only"}));
    EXPECT_EQ(verified["groups"][0]["winners"], 3);
}

// A noise threshold for what counts as a win: 1.1x and 1.25x are no longer wins above 1.3x.
TEST(CliSpeedups, WinThresholdLeavesSmallSpeedupsOut) {
    const json doc = parseOk(runCli({"speedups", kSmall, "--json", "--win-threshold", "1.3"}));
    const json& g = doc["groups"][0];
    EXPECT_EQ(g["winners"], 3);
    EXPECT_DOUBLE_EQ(g["win_threshold"].get<double>(), 1.3);
    EXPECT_DOUBLE_EQ(g["median_speedup"].get<double>(), 2.0);
    const auto text = runCli({"speedups", kSmall, "--win-threshold", "1.3"});
    EXPECT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("a win is a speedup above 1.3x"), std::string::npos) << text.out;
    const auto bad = runCli({"speedups", kSmall, "--win-threshold", "0.5"});
    EXPECT_EQ(bad.status, 2);
}

TEST(CliSpeedups, KernelBenchRunWithTheRealBaselines) {
    const json doc =
        parseOk(runCli({"speedups", kRun, "--json", "--baseline",
                        dataset("kernelbench/H100_Modal_baseline_time_torch.json"), "--categories",
                        dataset("kernelbench/level1_categories.csv"), "--group-by", "category"}));
    EXPECT_EQ(byKey(doc, "matmul")["attempted"], 2);
    EXPECT_NEAR(byKey(doc, "softmax")["median_speedup"].get<double>(), 2.0, 0.005);
    EXPECT_EQ(byKey(doc, "normalization")["winners"], 1);  // 36_RMSNorm_ 1.5x; 40 failed
}

TEST(CliSpeedups, MappedCsvAndProject) {
    reach::test::TempDir dir;
    const std::string csv = dir.path("board.csv");
    reach::test::writeFile(csv, "task,llm,x\nsoftmax,m1,1.4\nlayernorm,m1,0.8\ngelu,m2,2.5\n");
    const std::string project = dir.path("p.reach");
    const json doc = parseOk(
        runCli({"speedups", csv, "--map", "problem=task", "--map", "model=llm", "--map=speedup=x",
                "--json", "--project", project, "--save-preset", "board"}));
    EXPECT_EQ(doc["groups"][0]["attempted"], 3);
    EXPECT_EQ(doc["groups"][0]["winners"], 2);
    // The stored set answers without the file, and the preset reads the file again.
    EXPECT_EQ(parseOk(runCli({"speedups", "--project", project, "--json"})), doc);
    const json again =
        parseOk(runCli({"speedups", csv, "--preset", "board", "--project", project, "--json"}));
    EXPECT_EQ(again["groups"][0]["winners"], 2);
    // Presets live in a project: another project does not have it.
    EXPECT_EQ(
        runCli({"speedups", csv, "--preset", "board", "--project", dir.path("q.reach")}).status, 2);
}

// Issue 37, item 10: a leaderboard of 100,000 rows cost 40 s, 10,000 bootstrap resamples of
// 100,000 problems for each interval. The intervals now take the resamples that fit the
// bootstrap's work bound (core/analysis/statistics.h) and say how many.
TEST(CliSpeedups, AHundredThousandRowLeaderboardIsBootstrappedWithinTheWorkBound) {
    reach::test::TempDir dir;
    const std::string csv = dir.path("board.csv");
    std::string text = "task,llm,x\n";
    for (int i = 0; i < 100000; ++i)
        text += "problem_" + std::to_string(i) + ",m" + std::to_string(i % 7) + "," +
                std::to_string(0.5 + (i * 7919 % 1000) / 400.0) + "\n";
    reach::test::writeFile(csv, text);
    const auto r = runCli(
        {"speedups", csv, "--map", "problem=task", "--map", "model=llm", "--map", "speedup=x"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("10000 resamples, 200 for the 100000 problems of the largest group"),
              std::string::npos)
        << r.out;
}

TEST(CliSpeedups, BadInputExitsTwoWithOneLineNamingFileAndField) {
    reach::test::TempDir dir;
    const std::string bad = dir.path("bad.jsonl");
    reach::test::writeFile(bad,
                           "{\"problem_id\":\"1\",\"compiled\":true,\"correct\":true}\n"
                           "{\"problem_id\":\"2\",\"compiled\":\"no\",\"correct\":false}\n");
    auto r = runCli({"speedups", bad, "--json"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(r.out.empty());
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find(bad), std::string::npos);
    EXPECT_NE(r.err.find("line 2"), std::string::npos);
    EXPECT_NE(r.err.find("\"compiled\""), std::string::npos);

    // A bad file stores nothing in the project.
    const std::string project = dir.path("p.reach");
    EXPECT_EQ(runCli({"speedups", kSmall, bad, "--project", project}).status, 2);
    const json stored = parseOk(runCli({"speedups", "--project", project, "--json"}));
    EXPECT_EQ(stored["groups"][0]["attempted"], 10);  // small.jsonl only
    // The stored set is named as the GUI names an import (the file's stem), not by its
    // absolute path; the path stays its source.
    {
        const auto store = reach::ProjectStore::open(project, reach::ProjectStore::Mode::MustExist);
        const auto sets = reach::recordSets(store);
        ASSERT_EQ(sets.size(), 1u);
        EXPECT_EQ(sets[0].name, std::filesystem::path(kSmall).stem().string());
        EXPECT_EQ(sets[0].source, kSmall);
    }

    r = runCli({"speedups", kRun});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("baseline"), std::string::npos);
    EXPECT_EQ(runCli({"speedups", kSmall, "--group-by", "gpu"}).status, 2);
    EXPECT_EQ(runCli({"speedups", kSmall, "--map", "speed=x"}).status, 2);
}

TEST(CliSpeedups, AMappedKeyThatNoRecordHasIsOneLineNotZeroWinners) {
    // A real leaderboard dump's rows as a JSON list; "speedup" is misspelt in the mapping.
    const std::string rows = std::string(REACH_TEST_DATA) + "/bad-cli/leaderboard_list.json";
    auto r =
        runCli({"speedups", rows, "--map", "problem=problem", "--map", "speedup=no_such_field"});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(r.out.empty()) << r.out;
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find(rows), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("no key \"no_such_field\" for speedup"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("eager_ms_median"), std::string::npos) << r.err;  // the keys it has
    // The same rows with a key they do have are records.
    r = runCli({"speedups", rows, "--map", "problem=problem", "--map",
                "candidate_time=eager_ms_min", "--map", "baseline_time=eager_ms_median", "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST(CliSpeedups, NoInputSummarizesTheBundledSample) {
    // Like the GUI: the sample's measured sets and the study's published summaries.
    const json doc = parseOk(runCli({"speedups", "--json"}));
    EXPECT_GT(doc["groups"][0]["attempted"].get<int>(), 10);
    ASSERT_EQ(doc["published_summaries"].size(), 3u);
    EXPECT_EQ(doc["published_summaries"][2]["winners"], 5);
}

// Issue 40, defect 24: unrelated record sets were pooled into one "all" row by default while
// the GUI shows them apart. Each set is its own row now, named as the GUI names it; --pool
// pools them (and its counts are the sets' sums).
TEST(CliSpeedups, UnrelatedSetsAreSummarizedApartUnlessPooled) {
    const json apart = parseOk(runCli({"speedups", "--json"}));
    const json pooled = parseOk(runCli({"speedups", "--json", "--pool"}));
    ASSERT_GE(apart["groups"].size(), 2u);
    ASSERT_EQ(pooled["groups"].size(), 1u);
    EXPECT_EQ(pooled["groups"][0]["key"], "all");
    int attempted = 0;
    std::set<std::string> keys;
    for (const json& g : apart["groups"]) {
        attempted += g["attempted"].get<int>();
        keys.insert(g["key"].get<std::string>());
    }
    EXPECT_EQ(keys.size(), apart["groups"].size());
    EXPECT_TRUE(keys.count("H200 reach-verify (measured)")) << apart["groups"].dump();
    EXPECT_EQ(attempted, pooled["groups"][0]["attempted"].get<int>());
    // Grouped too: "set / model" rows.
    const json byModel = parseOk(runCli({"speedups", "--json", "--group-by", "model"}));
    for (const json& g : byModel["groups"])
        EXPECT_NE(g["key"].get<std::string>().find(" / "), std::string::npos) << g["key"];
    // One set: as before, one "all" row.
    EXPECT_EQ(parseOk(runCli({"speedups", kSmall, "--json"}))["groups"][0]["key"], "all");
}

TEST(CliSpeedups, ProjectsAProfiledWorkloadBothWays) {
    const json doc =
        parseOk(runCli({"speedups", kSmall, "--json", "--resamples", "1000", "--profile",
                        dataset("profiles/h200/dlrm_inference.json.gz")}));
    ASSERT_EQ(doc["projections"].size(), 1u);
    const json& p = doc["projections"][0];
    const double A = p["addressable_share"].get<double>();
    EXPECT_GT(A, 0.0);
    // (a) the study's formula with the records' w = 0.5 and m = 1.5.
    EXPECT_NEAR(p["summary"]["saved_share"].get<double>(), A * 0.5 * (1 - 1 / 1.5), 1e-12);
    EXPECT_LE(p["summary"]["ci95"][0].get<double>(), p["summary"]["saved_share"].get<double>());
    EXPECT_GE(p["summary"]["ci95"][1].get<double>(), p["summary"]["saved_share"].get<double>());
    // (b) per family: exact Amdahl over the families' rows.
    double saved = 0;
    for (const json& f : p["per_family"]["families"])
        saved += f["saved_share"].get<double>();
    EXPECT_NEAR(p["per_family"]["saved_share"].get<double>(), saved, 1e-12);
    EXPECT_LE(p["per_family"]["saved_share"].get<double>(), A);
    EXPECT_FALSE(p["assumptions"].get<std::string>().empty());
}

}  // namespace reach_test_clispeedups_test
