// Records in the project: one transaction per import, round trip of every field, mapping presets.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/records/recordimport.h"
#include "core/records/recordimportkernelbench.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"

namespace reach_test_recordstore_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

const std::string kSmall = std::string(REACH_TEST_DATA) + "/records/small.jsonl";
const std::string kEager =
    std::string(REACH_DATASETS) + "/kernelbench/H100_Modal_baseline_time_torch.json";
const std::string kRun = std::string(REACH_TEST_DATA) + "/kernelbench/eval_results.json";

struct TempProject {
    std::string path;
    TempProject() {
        path = (std::filesystem::temp_directory_path() /
                ("reach_recordstore_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".reach"))
                   .string();
        cleanup();
    }
    ~TempProject() { cleanup(); }
    void cleanup() {
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            std::filesystem::remove(path + suffix);
    }
};

}  // namespace

TEST(RecordStore, ImportAndLoadRoundTripEveryField) {
    TempProject tp;
    const auto records = readReachJsonl(kSmall);
    int64_t id = 0;
    {
        ProjectStore store = ProjectStore::open(tp.path);
        EXPECT_GE(store.schemaVersion(), 2);
        id = importRecordSet(store, "small", kSmall, "reach-jsonl", records);
    }
    ProjectStore store = ProjectStore::open(tp.path, ProjectStore::Mode::MustExist);
    const auto sets = recordSets(store);
    ASSERT_EQ(sets.size(), 1u);
    EXPECT_EQ(sets[0].id, id);
    EXPECT_EQ(sets[0].recordCount, static_cast<int64_t>(records.size()));
    EXPECT_EQ(sets[0].format, "reach-jsonl");
    EXPECT_EQ(sets[0].sourceHash.size(), 64u);
    EXPECT_FALSE(sets[0].denominator);
    const auto loaded = loadRecordSet(store, id);
    ASSERT_EQ(loaded.size(), records.size());
    for (size_t i = 0; i < records.size(); ++i) {
        EXPECT_EQ(recordToJson(loaded[i]), recordToJson(records[i])) << i;
        EXPECT_EQ(loaded[i].sourceLine, records[i].sourceLine);
        EXPECT_EQ(loaded[i].source, records[i].source);
    }
    setRecordSetDenominator(store, id, 56);
    EXPECT_EQ(recordSets(store)[0].denominator, 56);
    EXPECT_TRUE(removeRecordSet(store, id));
    EXPECT_TRUE(recordSets(store).empty());
    EXPECT_FALSE(removeRecordSet(store, id));
}

TEST(RecordStore, FailedImportLeavesTheProjectAsItWas) {
    TempProject tp;
    ProjectStore store = ProjectStore::open(tp.path);
    KernelBenchImportOptions o;
    o.baselines = {{kEager}};
    const auto kb = importKernelBenchRun(kRun, o);
    importRecordSet(store, "kb", kRun, "kernelbench", kb);
    // An import that fails half way (here: after the rows are written) leaves nothing behind.
    EXPECT_THROW(store.transaction([&] {
        importRecordSet(store, "half", kSmall, "reach-jsonl", readReachJsonl(kSmall));
        throw std::runtime_error("disk full");
    }),
                 std::runtime_error);
    const auto sets = recordSets(store);
    ASSERT_EQ(sets.size(), 1u);
    EXPECT_EQ(sets[0].name, "kb");
    EXPECT_EQ(loadRecordSet(store, sets[0].id).size(), kb.size());
}

TEST(RecordStore, MappingPresetsByName) {
    TempProject tp;
    ProjectStore store = ProjectStore::open(tp.path);
    ColumnMapping m;
    m.name = "leaderboard";
    m.fields = {{"problem", "task"}, {"speedup", "x"}, {"model", "llm"}};
    saveMappingPreset(store, m);
    m.fields["correct"] = "ok";
    saveMappingPreset(store, m);  // same name replaces
    ColumnMapping other;
    other.name = "archive";
    other.fields = {{"problem", "p"}, {"candidate_time", "t"}, {"baseline_time", "b"}};
    other.timeUnit = "ms";
    saveMappingPreset(store, other);
    const auto presets = mappingPresets(store);
    ASSERT_EQ(presets.size(), 2u);
    EXPECT_EQ(presets[0].name, "archive");
    EXPECT_EQ(presets[0].timeUnit, "ms");
    EXPECT_EQ(presets[1].fields.at("correct"), "ok");
    ColumnMapping unnamed;
    unnamed.fields = m.fields;
    EXPECT_THROW(saveMappingPreset(store, unnamed), InputError);
}

}  // namespace reach_test_recordstore_test
