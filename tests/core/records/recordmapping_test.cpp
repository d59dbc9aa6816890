// The GUI's mapping of a records file in an unknown shape, without widgets: which files ask for a
// mapping, the shape key a chosen mapping is remembered by, the mapping guessed from column names
// and the preview (records and statistics) a mapping gives, on a real leaderboard list.
#include <gtest/gtest.h>

#include <fstream>
#include <tuple>

#include "core/base/inputerror.h"
#include "core/project/openplan.h"
#include "core/records/recordmapping.h"
#include "tests/core/testfiles.h"

namespace reach_test_recordmapping_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

const std::string kLeaderboard = std::string(REACH_TEST_DATA) + "/bad-cli/leaderboard_list.json";

std::string write(const reach::test::TempFolder& dir, const std::string& name,
                  const std::string& text) {
    const std::string path = dir.path(name);
    std::ofstream(path) << text;
    return path;
}

ColumnMapping leaderboardTimes() {
    ColumnMapping m;
    m.fields = {{"problem", "problem"},
                {"candidate_time", "eager_ms_min"},
                {"baseline_time", "eager_ms_median"}};
    m.timeUnit = "ms";
    return m;
}

}  // namespace

TEST(RecordMapping, ColumnsAreTheKeysAndTheHeader) {
    // JSON: each object's keys in name order (the JSON reader's), keys new in later objects after.
    EXPECT_EQ(
        mappableColumns(kLeaderboard),
        (std::vector<std::string>{"eager_ms_max", "eager_ms_median", "eager_ms_min", "max_abs_ref",
                                  "numel", "problem", "ref_fro", "zeros_pass_allclose"}));
    reach::test::TempFolder dir;
    EXPECT_EQ(mappableColumns(write(dir, "b.csv", "\xEF\xBB\xBFtask, x ,llm\nsoftmax,1.5,m\n")),
              (std::vector<std::string>{"task", "x", "llm"}));
    try {
        mappableColumns(write(dir, "c.json", R"({"rows": [1, 2]})"));
        FAIL() << "a list of numbers has no columns";
    } catch (const InputError& e) {
        EXPECT_EQ(e.place(), "top level");
    }
}

TEST(RecordMapping, ShapeKeyIgnoresOrderAndRepeats) {
    const std::string key = shapeKey({"problem", "speedup", "model"});
    EXPECT_EQ(key.size(), 64u);
    EXPECT_EQ(shapeKey({"model", "problem", "speedup", "model"}), key);
    EXPECT_NE(shapeKey({"model", "problem", "speedup_x"}), key);
    // Names are not split or merged: "a\nb" is not the two columns a and b.
    EXPECT_NE(shapeKey({"a\nb"}), shapeKey({"a", "b"}));
}

TEST(RecordMapping, GuessMatchesNamesAndTimeUnits) {
    const ColumnMapping m = guessMapping({"Problem", "LLM", "candidate_time_ms", "Baseline-Time-ms",
                                          "speed up", "Correct", "notes"});
    EXPECT_EQ(m.fields, (std::map<std::string, std::string>{{"problem", "Problem"},
                                                            {"candidate_time", "candidate_time_ms"},
                                                            {"baseline_time", "Baseline-Time-ms"},
                                                            {"speedup", "speed up"},
                                                            {"correct", "Correct"}}));
    EXPECT_EQ(m.timeUnit, "ms");
    // The leaderboard list names only its problem the way Reach does: the rest is the user's.
    const ColumnMapping lb = guessMapping(mappableColumns(kLeaderboard));
    EXPECT_EQ(lb.fields, (std::map<std::string, std::string>{{"problem", "problem"}}));
    EXPECT_EQ(lb.timeUnit, "us");
    EXPECT_THROW(lb.validate(kLeaderboard), InputError);  // no speedup, no times
}

TEST(RecordMapping, PreviewIsTheImportAndTheCliStatistics) {
    const MappingPreview p = previewMapping(kLeaderboard, leaderboardTimes(), 2);
    const std::vector<EvalRecord> all = importMapped(kLeaderboard, leaderboardTimes());
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(p.records, 3u);
    ASSERT_EQ(p.firstRecords.size(), 2u);
    EXPECT_EQ(p.firstRecords[0].problemId, "1_Square_matrix_multiplication_");
    EXPECT_NEAR(*p.firstRecords[0].candidateTimeUs, 167.87199676036835, 1e-9);
    EXPECT_NEAR(*p.firstRecords[0].speedup, 0.1690400019288063 / 0.16787199676036835, 1e-12);
    StatsOptions options;
    options.intervals = false;
    const RecordStats cli = computeGroupedStats(all, GroupBy::None, options).front();
    EXPECT_EQ(p.stats.attempted, cli.attempted);
    EXPECT_EQ(p.stats.correct, 3);  // no correctness column: a leaderboard lists what passed
    EXPECT_EQ(p.stats.winners, cli.winners);
    EXPECT_EQ(p.stats.winners, 3);  // median time over the fastest is above 1 in every row
    ASSERT_TRUE(p.stats.medianSpeedup && cli.medianSpeedup);
    EXPECT_DOUBLE_EQ(*p.stats.medianSpeedup, *cli.medianSpeedup);
}

TEST(RecordMapping, PreviewOfABadMappingNamesFileAndPlace) {
    ColumnMapping m = leaderboardTimes();
    m.fields["baseline_time"] = "eager_us";
    try {
        previewMapping(kLeaderboard, m);
        FAIL() << "a key no record has was read";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), kLeaderboard);
        EXPECT_EQ(e.place(), "record 1");
        EXPECT_NE(std::string(e.what()).find("eager_us"), std::string::npos) << e.what();
    }
    m = leaderboardTimes();
    m.fields["speedup"] = "problem";  // text where a number belongs
    EXPECT_THROW(previewMapping(kLeaderboard, m), InputError);
}

TEST(RecordMapping, OnlyUnknownTablesAskForAMapping) {
    reach::test::TempFolder dir;
    EXPECT_TRUE(needsColumnMapping(kLeaderboard));
    // An object holding the list (the H200 timing table) and a CSV with its own column names.
    EXPECT_TRUE(
        needsColumnMapping(std::string(REACH_DATASETS) + "/kernelbench/kb_level1_h200_bf16.json"));
    EXPECT_TRUE(needsColumnMapping(write(dir, "board.csv", "task,x\nsoftmax,1.5\n")));
    // Formats a reader knows, and what is no table at all.
    EXPECT_FALSE(needsColumnMapping(std::string(REACH_TEST_DATA) + "/records/small.jsonl"));
    EXPECT_FALSE(needsColumnMapping(std::string(REACH_DATASETS) + "/paper/table3.json"));
    EXPECT_FALSE(
        needsColumnMapping(std::string(REACH_TEST_DATA) + "/kineto/reordered_triton.json"));
    EXPECT_FALSE(
        needsColumnMapping(std::string(REACH_TEST_DATA) + "/kernelbench/eval_results.json"));
    EXPECT_FALSE(needsColumnMapping(
        write(dir, "events.json", R"([{"ph": "X", "ts": 1, "dur": 2, "name": "k"}])")));
    EXPECT_FALSE(needsColumnMapping(write(dir, "scalar.json", "[1, 2, 3]")));
    // A PNG renamed .json or .csv (issue 40: it opened the mapping dialog with its bytes as
    // columns): no table; the reader the name asks for says what it is.
    const std::string png =
        std::string("\x89PNG\r\n\x1a\n") + std::string(3, '\0') + "\rIHDR,x\n1,2\n";
    EXPECT_FALSE(needsColumnMapping(write(dir, "figure.json", png)));
    EXPECT_FALSE(needsColumnMapping(write(dir, "figure.csv", png)));
    for (const auto& [file, place, words] :
         {std::tuple{"figure.json", "byte 0", "not JSON"}, {"figure.csv", "byte 8", "binary"}}) {
        try {
            mappableColumns(dir.path(file));
            ADD_FAILURE() << file << ": a PNG was read as a table";
        } catch (const InputError& e) {
            EXPECT_EQ(e.place(), place);
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    }
    EXPECT_FALSE(needsColumnMapping(dir.root()));
}

}  // namespace reach_test_recordmapping_test
