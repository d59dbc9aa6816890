// Project store: migrations from an empty file, reopening, refusing files that are not projects,
// transactions. Import round trips on real profiles are in projectstore_import_test.cpp.
#include "core/store/projectstore.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "core/base/inputerror.h"
#include "core/store/schema.h"

namespace reach_test_projectstore_test {  // unity builds: this file's names stay its own

namespace fs = std::filesystem;
using reach::Category;
using reach::InputError;
using reach::ProjectStore;
using reach::Rule;
using reach::RuleSet;

namespace {

// A fresh directory per test, removed afterwards; named by pid and test so parallel ctest runs
// (and the ASan run beside the normal one) never share a file.
class StoreDir : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = fs::temp_directory_path() /
                ("reach_store_" + std::to_string(getpid()) + "_" + info->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string file(const std::string& name) const { return (m_dir / name).string(); }
    fs::path m_dir;
};

std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string pragma(ProjectStore& store, const char* name) {
    auto st = store.database().prepare(std::string("PRAGMA ") + name);
    EXPECT_TRUE(st.step());
    return st.columnText(0);
}

int64_t count(ProjectStore& store, const std::string& table) {
    auto st = store.database().prepare("SELECT count(*) FROM " + table);
    st.step();
    return st.columnInt(0);
}

}  // namespace

TEST_F(StoreDir, MigratesAnEmptyFileToTheLatestVersion) {
    const std::string path = file("new.reach");
    ProjectStore store = ProjectStore::open(path);
    EXPECT_TRUE(fs::exists(path));
    EXPECT_EQ(store.schemaVersion(), reach::latestSchemaVersion());
    EXPECT_GE(store.schemaVersion(), 1);
    EXPECT_EQ(count(store, "schema_version"), static_cast<int64_t>(reach::migrations().size()));
    for (const char* t : {"workloads", "kernels", "kernel_operators", "rule_sets"}) {
        EXPECT_TRUE(store.database().tableExists(t)) << t;
    }
    EXPECT_EQ(pragma(store, "journal_mode"), "wal");
    EXPECT_EQ(pragma(store, "foreign_keys"), "1");
    EXPECT_TRUE(store.workloadEntries().empty());
}

TEST_F(StoreDir, MigrationsAreOrderedAndUnique) {
    const auto& list = reach::migrations();
    ASSERT_FALSE(list.empty());
    EXPECT_EQ(list.front().version, 1);
    for (size_t i = 1; i < list.size(); ++i) {
        EXPECT_LT(list[i - 1].version, list[i].version) << "migration " << i;
    }
}

TEST_F(StoreDir, ReopeningKeepsDataAndDoesNotRerunMigrations) {
    const std::string path = file("p.reach");
    {
        ProjectStore store = ProjectStore::open(path);
        store.saveRuleSet("default", "abc123", R"({"rules":[]})");
    }
    ProjectStore again = ProjectStore::open(path, ProjectStore::Mode::MustExist);
    EXPECT_EQ(again.schemaVersion(), reach::latestSchemaVersion());
    EXPECT_EQ(count(again, "schema_version"), static_cast<int64_t>(reach::migrations().size()));
    ASSERT_EQ(again.ruleSets().size(), 1u);
    EXPECT_EQ(again.ruleSets()[0].name, "default");
    EXPECT_EQ(again.ruleSets()[0].json, R"({"rules":[]})");
}

TEST_F(StoreDir, AppliesAMigrationMissingFromTheMiddle) {
    // A project made before a lower-numbered migration was merged still receives it. (Made here
    // by undoing migration 2, which no later migration builds on: the schema check accepts only
    // what the recorded migrations make.)
    const std::string path = file("gap.reach");
    const int latest = reach::latestSchemaVersion();
    {
        ProjectStore store = ProjectStore::open(path);
        store.database().exec("DELETE FROM schema_version WHERE version = 2");
        store.database().exec(
            "DROP TABLE eval_records; DROP TABLE record_sets; DROP TABLE mapping_presets");
    }
    ProjectStore store = ProjectStore::open(path);
    EXPECT_EQ(store.schemaVersion(), latest);
    EXPECT_TRUE(store.database().tableExists("eval_records"));
}

TEST_F(StoreDir, SavingTheSameRuleSetTwiceKeepsOne) {
    ProjectStore store = ProjectStore::open(file("r.reach"));
    const int64_t a = store.saveRuleSet("default", "h1", "{}");
    const int64_t b = store.saveRuleSet("renamed", "h1", "{}");
    const int64_t c = store.saveRuleSet("other", "h2", "{\"x\":1}");
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    EXPECT_EQ(store.ruleSets().size(), 2u);
}

TEST_F(StoreDir, LatestRuleSetIsTheOneSavedLast) {
    ProjectStore store = ProjectStore::open(file("latest.reach"));
    EXPECT_FALSE(store.latestRuleSet().has_value());
    RuleSet a = RuleSet::builtinDefault();
    RuleSet b = a;
    Rule extra;
    extra.pattern = "my_fused_kernel";
    extra.category = Category::Addressable;
    extra.family = "fused";
    b.insertRule(0, extra);
    ASSERT_NE(a.hash(), b.hash());
    // A, then B, then A again within the same second: A is current again.
    store.saveRuleSet(a);
    store.saveRuleSet(b);
    ASSERT_TRUE(store.latestRuleSet().has_value());
    EXPECT_EQ(store.latestRuleSet()->hash(), b.hash());
    store.saveRuleSet(a);
    EXPECT_EQ(store.latestRuleSet()->hash(), a.hash());
    EXPECT_EQ(store.ruleSets().size(), 2u);
    // ... and still after reopening.
    ProjectStore again = ProjectStore::open(file("latest.reach"), ProjectStore::Mode::MustExist);
    EXPECT_EQ(again.latestRuleSet()->hash(), a.hash());
    EXPECT_EQ(again.latestRuleSet()->size(), a.size());
}

TEST_F(StoreDir, FailedTransactionLeavesNothingBehind) {
    ProjectStore store = ProjectStore::open(file("t.reach"));
    store.saveRuleSet("kept", "h0", "{}");
    EXPECT_THROW(store.transaction([&] {
        store.saveRuleSet("a", "h1", "{}");  // nested: a savepoint inside the outer transaction
        store.saveRuleSet("b", "h2", "{}");
        throw std::runtime_error("fails after two writes");
    }),
                 std::runtime_error);
    ASSERT_EQ(store.ruleSets().size(), 1u);
    EXPECT_EQ(store.ruleSets()[0].name, "kept");
    // The connection is usable afterwards (no transaction left open).
    store.saveRuleSet("after", "h3", "{}");
    EXPECT_EQ(store.ruleSets().size(), 2u);
}

TEST_F(StoreDir, InnerFailureCaughtInsideOuterTransactionRollsBackOnlyTheInner) {
    ProjectStore store = ProjectStore::open(file("n.reach"));
    store.transaction([&] {
        store.saveRuleSet("outer", "h1", "{}");
        try {
            store.transaction([&] {
                store.saveRuleSet("inner", "h2", "{}");
                throw std::runtime_error("inner fails");
            });
        } catch (const std::runtime_error&) {
        }
    });
    ASSERT_EQ(store.ruleSets().size(), 1u);
    EXPECT_EQ(store.ruleSets()[0].name, "outer");
}

TEST_F(StoreDir, ForeignKeysCascadeOnRemove) {
    ProjectStore store = ProjectStore::open(file("fk.reach"));
    // A workload row and one kernel, written through SQL so this test needs no reader.
    store.database().exec(
        "INSERT INTO workloads(name, source, source_hash, format, device, gpu_time_us, "
        "busy_time_us, span_us, event_count, imported_at) VALUES('w', 's', 'h', 'kineto', '', "
        "1, 1, 1, 1, 'now');"
        "INSERT INTO kernels(workload_id, position, name, kind, calls, total_us, min_us, max_us, "
        "streams, grid, block) VALUES(1, 0, 'k', 0, 1, 1, 1, 1, '7', '', '');"
        "INSERT INTO kernel_operators(kernel_id, position, op, total_us, calls) "
        "VALUES(1, 0, 'aten::add', 1, 1);");
    EXPECT_THROW(store.database().exec("INSERT INTO kernels(workload_id, position, name, kind, "
                                       "calls, total_us, min_us, max_us, streams, grid, block) "
                                       "VALUES(42, 0, 'k', 0, 1, 1, 1, 1, '', '', '')"),
                 reach::SqliteError);
    EXPECT_TRUE(store.removeWorkload(1));
    EXPECT_FALSE(store.removeWorkload(1));
    EXPECT_EQ(count(store, "kernels"), 0);
    EXPECT_EQ(count(store, "kernel_operators"), 0);
}

TEST_F(StoreDir, RefusesAMissingFileWhenItMustExist) {
    const std::string path = file("missing.reach");
    try {
        ProjectStore::open(path, ProjectStore::Mode::MustExist);
        FAIL() << "opened a missing project";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), path);
    }
    EXPECT_FALSE(fs::exists(path));
}

TEST_F(StoreDir, RefusesADirectory) {
    EXPECT_THROW(ProjectStore::open(m_dir.string()), InputError);
}

TEST_F(StoreDir, RefusesAnEmptyFileWhenItMustExist) {
    const std::string path = file("empty.reach");
    std::ofstream(path).close();
    EXPECT_THROW(ProjectStore::open(path, ProjectStore::Mode::MustExist), InputError);
}

TEST_F(StoreDir, RefusesATraceAndLeavesItUntouched) {
    const std::string path = file("trace.json.gz");
    fs::copy_file(std::string(REACH_DATASETS) + "/profiles/public/hta_triton_example_a100.json.gz",
                  path);
    const std::string before = readBytes(path);
    try {
        ProjectStore::open(path);
        FAIL() << "opened a gzip trace as a project";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), path);
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
    EXPECT_TRUE(readBytes(path) == before) << "file was modified";
}

TEST_F(StoreDir, RefusesAnotherKindOfSqliteFileAndLeavesItUntouched) {
    // A real Nsight Systems export: SQLite, but not a Reach project.
    const std::string path = file("saxpy.sqlite");
    fs::copy_file(std::string(REACH_DATASETS) + "/profiles/public/pipit_saxpy_nsys_a100.sqlite",
                  path);
    const std::string before = readBytes(path);
    EXPECT_THROW(ProjectStore::open(path), InputError);
    EXPECT_TRUE(readBytes(path) == before) << "file was modified";
}

TEST_F(StoreDir, RefusesAProjectFromANewerReach) {
    const std::string path = file("future.reach");
    {
        ProjectStore store = ProjectStore::open(path);
        store.database().exec(
            "INSERT INTO schema_version(version, description, applied_at) "
            "VALUES(100000, 'future', 'later')");
    }
    try {
        ProjectStore::open(path);
        FAIL() << "opened a project from a newer Reach";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
    }
}

TEST_F(StoreDir, KeepsTheBuiltInRuleSetAndReadsItBack) {
    const reach::RuleSet rules = reach::RuleSet::builtinDefault();
    const std::string path = file("rules.reach");
    ProjectStore::open(path).saveRuleSet(rules);
    ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
    ASSERT_EQ(store.ruleSets().size(), 1u);
    EXPECT_EQ(store.ruleSets()[0].name, rules.name());
    const auto back = store.loadRuleSet(rules.hash());
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->hash(), rules.hash());
    EXPECT_EQ(back->rules().size(), rules.rules().size());
    EXPECT_FALSE(store.loadRuleSet("0000").has_value());
}

}  // namespace reach_test_projectstore_test

namespace reach_test_projectstore_test {

// A project keeps everything its traces gave (issue 40: the shaped calls behind headroom,
// roofline and extraction, and the CUDA-graph launches, were dropped on save).
TEST_F(StoreDir, KeepsShapedCallsAndGraphLaunches) {
    reach::Workload w;
    w.name = "w";
    w.source = "w.json";
    w.sourceHash = "ab";
    w.format = "kineto";
    w.gpuTimeUs = 30;
    reach::KernelStats k;
    k.name = "gemm";
    k.calls = 3;
    k.totalUs = 30;
    k.graphCalls = 2;
    k.graphUs = 20.5;
    k.operators = {{"aten::mm", 30, 3}};
    k.shapedCalls = {{"aten::mm", R"({"dims":[[8,4],[4,2]],"types":["float","float"]})", 2, 2, 20},
                     {"aten::mm", R"({"dims":[[2,2],[2,2]],"types":["float","float"]})", 1, 1, 10}};
    w.kernels = {k};
    const std::string path = file("p.reach");
    int64_t id = 0;
    {
        ProjectStore store = ProjectStore::open(path);
        id = store.importWorkload(w);
    }
    ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
    const reach::Workload back = store.loadWorkload(id);
    EXPECT_TRUE(back.shapesKept);
    ASSERT_EQ(back.kernels.size(), 1u);
    const reach::KernelStats& b = back.kernels[0];
    EXPECT_EQ(b.graphCalls, 2);
    EXPECT_DOUBLE_EQ(b.graphUs, 20.5);
    ASSERT_EQ(b.shapedCalls.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(b.shapedCalls[i].op, k.shapedCalls[i].op);
        EXPECT_EQ(b.shapedCalls[i].signature, k.shapedCalls[i].signature);
        EXPECT_EQ(b.shapedCalls[i].calls, k.shapedCalls[i].calls);
        EXPECT_EQ(b.shapedCalls[i].opCalls, k.shapedCalls[i].opCalls);
        EXPECT_DOUBLE_EQ(b.shapedCalls[i].totalUs, k.shapedCalls[i].totalUs);
    }
    EXPECT_TRUE(back.hasShapes());

    // A workload an older project had lost its shapes in stays marked so when saved again.
    reach::Workload lost = back;
    lost.shapesKept = false;
    lost.sourceHash = "cd";
    for (auto& kk : lost.kernels)
        kk.shapedCalls.clear();
    const int64_t id2 = store.importWorkload(lost);
    EXPECT_FALSE(store.loadWorkload(id2).shapesKept);
    EXPECT_EQ(count(store, "kernel_shaped_calls"), 2);
}

}  // namespace reach_test_projectstore_test
