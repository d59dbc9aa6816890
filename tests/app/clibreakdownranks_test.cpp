// reach-cli breakdown --ranks (docs/distributed.md): a run made from one real rank's trace
// (HTA's sampled DLRM rank, datasets/profiles/public) by tests/data/distributed/make_run.py,
// with known clock offsets and known late arrivals, read back; bad runs are one line.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include "clirunner.h"

namespace reach_test_clibreakdownranks_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::dataset;
using reach::test::runCli;
using reach::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kData = std::string(REACH_TEST_DATA) + "/distributed";
const std::string kBase = dataset("profiles/public/hta_dlrm_sampled_rank0_a100.json.gz");

json readJson(const std::string& path) {
    std::ifstream in(path);
    return json::parse(in);
}

json runRanks(const std::vector<std::string>& inputs) {
    std::vector<std::string> args = {"breakdown"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.insert(args.end(), {"--ranks", "--json"});
    const auto r = runCli(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? json::parse(r.out) : json();
}

// make_run.py with `args` into dir/name; returns the run's folder.
std::string makeRun(const TempDir& dir, const std::string& name, const std::string& args) {
    const std::string out = dir.path(name);
    const std::string cmd = "python3 " + kData + "/make_run.py " + kBase + " " + out + " " + args;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return out;
}

}  // namespace

TEST(CliBreakdownRanks, RecoversTheInjectedClockOffsetsAndStragglers) {
    // tests/data/distributed/skewed4: 4 ranks, clocks 0, +1500.5, -700, +250 us; rank 2 arrives
    // 400 us late at collective 3, rank 1 120 us late at collective 7 (skewed4.truth.json).
    const json truth = readJson(kData + "/skewed4.truth.json");
    const json doc = runRanks({kData + "/skewed4"});
    ASSERT_EQ(doc["ranks"].size(), 4u);
    EXPECT_EQ(doc["schema"], "reach.distributed_breakdown");
    for (size_t r = 0; r < 4; ++r) {
        const json& rank = doc["ranks"][r];
        EXPECT_EQ(rank["rank"], int(r));
        EXPECT_EQ(rank["rank_from"], "distributedInfo");
        EXPECT_EQ(rank["world_size"], 4);
        const double want =
            truth["offsets_us"][r].get<double>() - truth["offsets_us"][0].get<double>();
        EXPECT_NEAR(rank["clock_offset_us"].get<double>(), want,
                    rank["clock_offset_uncertainty_us"].get<double>() + 1e-9)
            << "rank " << r;
        EXPECT_EQ(rank["clock_offset_samples"], r == 0 ? 0 : 10);
        // The four categories sum to the rank's GPU time; its collectives are all matched, so
        // their time is transfer plus wait.
        double shares = 0;
        for (const auto& [key, share] : rank["shares"].items())
            shares += share.get<double>();
        EXPECT_NEAR(shares, 1.0, 1e-9);
        EXPECT_NEAR(rank["collective_us"].get<double>(),
                    rank["transfer_us"].get<double>() + rank["wait_us"].get<double>(), 1e-6);
        EXPECT_LE(rank["overlap_us"].get<double>(), rank["collective_us"].get<double>());
    }
    EXPECT_TRUE(doc["unmatched"].empty()) << doc["unmatched"];
    ASSERT_EQ(doc["matched"].size(), 10u);
    for (const json& late : truth["late"]) {
        const json& m = doc["matched"][late["collective"].get<size_t>()];
        EXPECT_EQ(m["straggler"], late["rank"]);
        EXPECT_NEAR(m["skew_us"].get<double>(), late["us"].get<double>(), 1.0);
        // Everyone else waited for it; the straggler waited for nobody.
        for (size_t r = 0; r < 4; ++r)
            EXPECT_NEAR(m["wait_us"][r].get<double>(),
                        r == late["rank"].get<size_t>() ? 0.0 : late["us"].get<double>(), 1.0);
    }
    // Collectives nobody was late for: no straggler counted.
    EXPECT_EQ(doc["ranks"][0]["last_arrivals"], 0);
    EXPECT_EQ(doc["ranks"][2]["last_arrivals"], 1);
    EXPECT_NEAR(doc["ranks"][2]["straggler_cost_us"].get<double>(), 400, 1.0);
    // The others wait for rank 2 the longest: it is the critical rank, and the addressable share
    // is said on it with its waiting taken out beside the plain one.
    EXPECT_EQ(doc["critical_rank"], 2);
    EXPECT_GE(doc["addressable_share_waiting_taken_out"].get<double>(),
              doc["addressable_share_on_critical_rank"].get<double>());
    EXPECT_TRUE(doc["warnings"].empty());
}

TEST(CliBreakdownRanks, TheSameRunGivenAsFilesReadsTheSameAndTheTextSaysIt) {
    std::vector<std::string> files;
    for (int r = 3; r >= 0; --r)  // any order: ranks are ordered by their rank
        files.push_back(kData + "/skewed4/rank-" + std::to_string(r) + ".json.gz");
    EXPECT_EQ(runRanks(files), runRanks({kData + "/skewed4"}));
    // One rank at a time (the parallel read's baseline) reads the same.
    const auto serial =
        runCli({"breakdown", kData + "/skewed4", "--ranks", "--jobs", "1", "--json"});
    ASSERT_EQ(serial.status, 0) << serial.err;
    EXPECT_EQ(json::parse(serial.out), runRanks({kData + "/skewed4"}));
    std::vector<std::string> args = {"breakdown"};
    args.insert(args.end(), files.begin(), files.end());
    args.push_back("--ranks");
    const auto text = runCli(args);
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("4 ranks, 10 collectives matched, 0 listed unmatched"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("critical rank 2"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("with its waiting taken out"), std::string::npos) << text.out;
}

TEST(CliBreakdownRanks, ACollectiveOneRankLacksLeavesItsGroupUnmatchedWithWhy) {
    TempDir dir;
    const std::string run = makeRun(dir, "cut", "--ranks 3 --offsets 0,300,-90 --drop 1:5");
    const json doc = runRanks({run});
    EXPECT_TRUE(doc["matched"].empty());
    ASSERT_EQ(doc["unmatched"].size(), 3u);  // the group, on each rank
    for (const json& u : doc["unmatched"]) {
        EXPECT_EQ(u["op"], "SendRecv");
        EXPECT_EQ(u["count"], u["rank"] == 1 ? 9 : 10);
        EXPECT_NE(u["why"].get<std::string>().find("10 on rank 0, 9 on rank 1, 10 on rank 2"),
                  std::string::npos)
            << u["why"];
    }
    // Nothing matched: no offset can be estimated, and none is made up.
    EXPECT_EQ(doc["ranks"][1]["clock_offset_samples"], 0);
    const auto text = runCli({"breakdown", run, "--ranks"});
    EXPECT_NE(text.out.find("unknown: nothing matched"), std::string::npos) << text.out;
}

TEST(CliBreakdownRanks, SequenceNumbersMatchWhatTheRanksShareAndListWhatOneLacks) {
    // The metadata PyTorch 2.x writes on a collective's kernel (group, sequence number, bytes):
    // with it, a collective one rank lacks is listed alone and the other nine still match.
    TempDir dir;
    const std::string run =
        makeRun(dir, "seq", "--ranks 3 --offsets 0,300,-90 --drop 1:5 --late 2:8:50 --annotate");
    const json doc = runRanks({run});
    ASSERT_EQ(doc["matched"].size(), 9u);
    for (const json& m : doc["matched"]) {
        EXPECT_EQ(m["group"], "0");
        EXPECT_NE(m["index"], 6);  // the dropped one: sequence number 6
        EXPECT_EQ(m["bytes"], 4096 * m["index"].get<long>());
    }
    EXPECT_EQ(doc["matched"][7]["straggler"], 2);  // sequence number 9: collective 8
    EXPECT_NEAR(doc["matched"][7]["skew_us"].get<double>(), 50, 1.0);
    ASSERT_EQ(doc["unmatched"].size(), 2u);  // on ranks 0 and 2, which have it
    for (const json& u : doc["unmatched"])
        EXPECT_EQ(u["why"],
                  "sequence number 6 is not in the trace of rank 1 (a sampled or cut "
                  "trace)");
    EXPECT_NEAR(doc["ranks"][1]["clock_offset_us"].get<double>(), 300, 1.0);
    EXPECT_EQ(doc["ranks"][1]["clock_offset_samples"], 9);
}

TEST(CliBreakdownRanks, PartOfARunIsMeasuredBetweenTheGivenRanksAndSaysSo) {
    const json doc =
        runRanks({kData + "/skewed4/rank-0.json.gz", kData + "/skewed4/rank-2.json.gz"});
    ASSERT_EQ(doc["warnings"].size(), 2u);
    EXPECT_NE(doc["warnings"][0].get<std::string>().find("says the run has 4 ranks; 2 were given"),
              std::string::npos);
    EXPECT_EQ(doc["critical_rank"], 2);
    EXPECT_NEAR(doc["ranks"][1]["clock_offset_us"].get<double>(), -700, 1.0);
}

TEST(CliBreakdownRanks, RanksFromFileNamesWhenTheTracesDoNotSay) {
    // HTA's Triton example trace has no distributedInfo (and no collectives).
    TempDir dir;
    const std::string simple = dataset("profiles/public/hta_triton_example_a100.json.gz");
    fs::copy_file(simple, dir.path("job_rank_1.json.gz"));
    fs::copy_file(simple, dir.path("job_rank_0.json.gz"));
    const json doc = runRanks({dir.path("job_rank_1.json.gz"), dir.path("job_rank_0.json.gz")});
    ASSERT_EQ(doc["ranks"].size(), 2u);
    EXPECT_EQ(doc["ranks"][0]["rank"], 0);
    EXPECT_EQ(doc["ranks"][0]["rank_from"], "file name");
    EXPECT_TRUE(doc["matched"].empty());
    EXPECT_TRUE(doc["unmatched"].empty());
}

TEST(CliBreakdownRanks, TheMapsSummariesReduceToWhatTheTracesGive) {
    // The map (--rank-summary, one rank each, wherever it runs) and the reduce (--ranks over the
    // summaries): the same document as the traces read together, summaries and traces mixed.
    TempDir dir;
    std::vector<std::string> summaries;
    for (int r = 0; r < 4; ++r) {
        const std::string out = dir.path("s" + std::to_string(r) + ".json");
        const auto m =
            runCli({"breakdown", kData + "/skewed4/rank-" + std::to_string(r) + ".json.gz",
                    "--rank-summary", out});
        ASSERT_EQ(m.status, 0) << m.err;
        EXPECT_NE(m.out.find("10 collectives"), std::string::npos) << m.out;
        summaries.push_back(out);
    }
    const json direct = runRanks({kData + "/skewed4"});
    EXPECT_EQ(runRanks(summaries), direct);
    EXPECT_EQ(
        runRanks({summaries[0], summaries[1], kData + "/skewed4/rank-2.json.gz", summaries[3]}),
        direct);
    // Reduced under other rules than the map's: said.
    reach::test::writeFile(dir.path("rules.json"),
                           "{\"name\": \"mine\", \"version\": 1, \"rules\": [{\"pattern\": "
                           "\"nccl\", \"category\": \"overhead\", \"family\": \"comm\"}]}");
    const auto other = runCli({"breakdown", summaries[0], summaries[1], "--ranks", "--rules",
                               dir.path("rules.json"), "--json"});
    ASSERT_EQ(other.status, 0) << other.err;
    EXPECT_NE(json::parse(other.out)["warnings"].dump().find("not the rules 'mine'"),
              std::string::npos)
        << other.out;
    // A summary edited by hand is checked key by key; the map never writes over its input.
    json edited = readJson(summaries[1]);
    edited["category_us"]["addressable"] = 1e9;
    reach::test::writeFile(dir.path("edited.json"), edited.dump());
    auto r = runCli({"breakdown", summaries[0], dir.path("edited.json"), "--ranks"});
    EXPECT_EQ(r.status, 2);
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("edited.json: key \"category_us\""), std::string::npos) << r.err;
    edited = readJson(summaries[1]);
    edited["collectives"][0]["end_us"] = -5;
    reach::test::writeFile(dir.path("edited.json"), edited.dump());
    r = runCli({"breakdown", summaries[0], dir.path("edited.json"), "--ranks"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("collectives[].end_us"), std::string::npos) << r.err;
    r = runCli({"breakdown", summaries[0], "--rank-summary", summaries[0]});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("never writes over its input"), std::string::npos) << r.err;
}

TEST(CliBreakdownRanks, ARunThatCannotBeToldApartIsOneLine) {
    TempDir dir;
    const std::string simple = dataset("profiles/public/hta_triton_example_a100.json.gz");
    // No rank anywhere: the file is named.
    fs::copy_file(simple, dir.path("a.json.gz"));
    auto r =
        runCli({"breakdown", dir.path("a.json.gz"), kData + "/skewed4/rank-0.json.gz", "--ranks"});
    EXPECT_EQ(r.status, 2);
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find(dir.path("a.json.gz") + ": distributedInfo: a rank"), std::string::npos)
        << r.err;
    // The same rank twice.
    r = runCli({"breakdown", kData + "/skewed4/rank-1.json.gz", kData + "/skewed4/rank-1.json.gz",
                "--ranks"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("rank 1 is also"), std::string::npos) << r.err;
    // One trace is not a run; a file that is not a trace is named with its place.
    r = runCli({"breakdown", kData + "/skewed4/rank-1.json.gz", "--ranks"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("two or more"), std::string::npos) << r.err;
    reach::test::writeFile(dir.path("rank-5.json"), "{\"traceEvents\": [1, ");
    r = runCli(
        {"breakdown", dir.path("rank-5.json"), kData + "/skewed4/rank-1.json.gz", "--ranks"});
    EXPECT_EQ(r.status, 2);
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("rank-5.json"), std::string::npos) << r.err;
}

TEST(CliBreakdownRanks, TheRunIsProjectedOnItsCriticalRankWithItsWaitingTakenOut) {
    // skewed4's critical rank (2) waits 120 us at collective 7 (rank 1 arrives late there): the
    // projection's share is its addressable time over its GPU time less that wait, beside the
    // share as read; both follow A * w * (1 - 1/m).
    const json run = runRanks({kData + "/skewed4"});
    const auto r = runCli({"project", kData + "/skewed4", "--ranks", "--win-rate", "0.417",
                           "--median", "1.552", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = json::parse(r.out);
    ASSERT_EQ(doc["workloads"].size(), 2u);
    const json& out = doc["workloads"][0];
    const json& counted = doc["workloads"][1];
    EXPECT_EQ(out["name"], "critical rank 2, waiting taken out");
    EXPECT_DOUBLE_EQ(out["addressable_share"].get<double>(),
                     run["addressable_share_waiting_taken_out"].get<double>());
    EXPECT_DOUBLE_EQ(counted["addressable_share"].get<double>(),
                     run["addressable_share_on_critical_rank"].get<double>());
    EXPECT_GT(out["addressable_share"].get<double>(), counted["addressable_share"].get<double>());
    for (const json* p : {&out, &counted})
        EXPECT_NEAR((*p)["saved_share"].get<double>(),
                    (*p)["addressable_share"].get<double>() * 0.417 * (1 - 1 / 1.552), 1e-12);
    EXPECT_EQ(doc["rules"]["name"], "reach-default");
    // One rank is not a run; a run cannot also be a project's rows.
    EXPECT_EQ(runCli({"project", kData + "/skewed4/rank-0.json.gz", "--ranks", "--win-rate", "0.5",
                      "--median", "2"})
                  .status,
              2);
    EXPECT_EQ(runCli({"project", kData + "/skewed4", "--ranks", "--addressable", "0.5",
                      "--win-rate", "0.5", "--median", "2"})
                  .status,
              2);
}

TEST(CliBreakdownRanks, AFifoNamedAsATraceIsOneLineNeverAHang) {
    // Whatever looks inside a file to learn what it is (a rank summary, a records document, a
    // project) must not block on a FIFO: it is refused as the profile reader refuses it.
    TempDir dir;
    for (const std::string name : {"rank-1.json", "rank-1.reach", "rank-1.jsonl"}) {
        const std::string fifo = dir.path(name);
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << fifo;
        reach::test::CliOptions options;
        options.timeoutSeconds = 30;
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"breakdown", fifo},
              std::vector<std::string>{"breakdown", kData + "/skewed4/rank-0.json.gz", fifo,
                                       "--ranks"}}) {
            const auto r = runCli(args, options);
            EXPECT_FALSE(r.timedOut) << fifo;
            EXPECT_EQ(r.status, 2) << r.err;
            EXPECT_NE(r.err.find(fifo + ": is not a regular file"), std::string::npos) << r.err;
        }
    }
}

}  // namespace reach_test_clibreakdownranks_test
