// Project store on real profiles: an import round-trips every field, and a failed or cancelled
// import leaves the project exactly as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <stdexcept>
#include <stop_token>

#include "core/store/projectstore.h"
#include "core/trace/profilereader.h"

namespace reach_test_projectstore_import_test {  // unity builds: this file's names stay its own

namespace fs = std::filesystem;
using reach::ProjectStore;
using reach::Workload;

namespace {

class StoreImport : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = fs::temp_directory_path() /
                ("reach_import_" + std::to_string(getpid()) + "_" + info->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string file(const std::string& name) const { return (m_dir / name).string(); }
    fs::path m_dir;
};

std::string profile(const std::string& rel) {
    return std::string(REACH_DATASETS) + "/profiles/" + rel;
}

void expectSameWorkload(const Workload& a, const Workload& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.sourceHash, b.sourceHash);
    EXPECT_EQ(a.format, b.format);
    EXPECT_EQ(a.device, b.device);
    EXPECT_EQ(a.gpuTimeUs, b.gpuTimeUs);  // REAL round-trips doubles bit for bit
    EXPECT_EQ(a.busyTimeUs, b.busyTimeUs);
    EXPECT_EQ(a.spanUs, b.spanUs);
    EXPECT_EQ(a.eventCount, b.eventCount);
    ASSERT_EQ(a.kernels.size(), b.kernels.size());
    for (size_t i = 0; i < a.kernels.size(); ++i) {
        const auto& x = a.kernels[i];
        const auto& y = b.kernels[i];
        SCOPED_TRACE(x.name);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.calls, y.calls);
        EXPECT_EQ(x.totalUs, y.totalUs);
        EXPECT_EQ(x.minUs, y.minUs);
        EXPECT_EQ(x.maxUs, y.maxUs);
        EXPECT_EQ(x.streams, y.streams);
        EXPECT_EQ(x.grid, y.grid);
        EXPECT_EQ(x.block, y.block);
        ASSERT_EQ(x.operators.size(), y.operators.size());
        for (size_t j = 0; j < x.operators.size(); ++j) {
            EXPECT_EQ(x.operators[j].op, y.operators[j].op);
            EXPECT_EQ(x.operators[j].totalUs, y.operators[j].totalUs);
            EXPECT_EQ(x.operators[j].calls, y.operators[j].calls);
        }
    }
}

int64_t rows(ProjectStore& store, const char* table) {
    auto st = store.database().prepare(std::string("SELECT count(*) FROM ") + table);
    st.step();
    return st.columnInt(0);
}

}  // namespace

TEST_F(StoreImport, RoundTripsRealProfiles) {
    const std::string path = file("p.reach");
    std::vector<Workload> read;
    {
        ProjectStore store = ProjectStore::open(path);
        for (const char* rel : {"h200/resnet50_inference.json.gz", "h200/dlrm_inference.json.gz",
                                "public/hta_simple_add_a100.json.gz"}) {
            read.push_back(reach::readProfile(profile(rel)));
            store.importWorkload(read.back());
        }
    }
    ASSERT_TRUE(read[0].hasOperatorLinks()) << "the test needs a profile with operator links";
    ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
    const auto entries = store.workloadEntries();
    ASSERT_EQ(entries.size(), read.size());
    const auto loaded = store.workloads();
    for (size_t i = 0; i < read.size(); ++i) {
        SCOPED_TRACE(read[i].source);
        EXPECT_EQ(entries[i].name, read[i].name);
        EXPECT_EQ(entries[i].kernelCount, static_cast<int64_t>(read[i].kernels.size()));
        EXPECT_EQ(store.findWorkloadBySourceHash(read[i].sourceHash), entries[i].id);
        expectSameWorkload(loaded[i], read[i]);
    }
}

TEST_F(StoreImport, CancelledImportLeavesTheProjectAsItWas) {
    ProjectStore store = ProjectStore::open(file("c.reach"));
    const Workload first = reach::readProfile(profile("h200/dlrm_inference.json.gz"));
    store.importWorkload(first);
    const int64_t kernelsBefore = rows(store, "kernels");
    const int64_t opsBefore = rows(store, "kernel_operators");

    const Workload second = reach::readProfile(profile("h200/resnet50_inference.json.gz"));
    ASSERT_GT(second.kernels.size(), 4u);
    std::stop_source stop;
    double reached = 0;
    // Stop half way: the rows written so far must disappear with the transaction.
    EXPECT_THROW(store.importWorkload(
                     second,
                     [&](double f) {
                         reached = f;
                         if (f >= 0.5)
                             stop.request_stop();
                     },
                     stop.get_token()),
                 reach::Cancelled);
    EXPECT_GE(reached, 0.5);
    EXPECT_LT(reached, 1.0);
    EXPECT_EQ(store.workloadEntries().size(), 1u);
    EXPECT_EQ(rows(store, "kernels"), kernelsBefore);
    EXPECT_EQ(rows(store, "kernel_operators"), opsBefore);
    EXPECT_FALSE(store.findWorkloadBySourceHash(second.sourceHash).has_value());
}

TEST_F(StoreImport, ImportFailingOnABadKernelRowRollsBack) {
    const std::string path = file("f.reach");
    Workload bad = reach::readProfile(profile("h200/resnet50_inference.json.gz"));
    ASSERT_GT(bad.kernels.size(), 4u);
    // A NaN time is stored as NULL by SQLite and violates NOT NULL: the import fails in the
    // middle, after the workload row and half of the kernel rows were written.
    bad.kernels[bad.kernels.size() / 2].totalUs = std::numeric_limits<double>::quiet_NaN();
    {
        ProjectStore store = ProjectStore::open(path);
        EXPECT_THROW(store.importWorkload(bad), reach::SqliteError);
        EXPECT_TRUE(store.workloadEntries().empty());
        EXPECT_EQ(rows(store, "kernels"), 0);
    }
    // And after reopening (nothing half-written reached the file).
    ProjectStore again = ProjectStore::open(path, ProjectStore::Mode::MustExist);
    EXPECT_TRUE(again.workloadEntries().empty());
    EXPECT_EQ(rows(again, "kernels"), 0);
    EXPECT_EQ(rows(again, "kernel_operators"), 0);
}

TEST_F(StoreImport, ProgressThrowingAbortsTheImport) {
    ProjectStore store = ProjectStore::open(file("t.reach"));
    const Workload w = reach::readProfile(profile("h200/dlrm_inference.json.gz"));
    int calls = 0;
    EXPECT_THROW(store.importWorkload(w,
                                      [&](double) {
                                          if (++calls == 2)
                                              throw std::runtime_error("disk full");
                                      }),
                 std::runtime_error);
    EXPECT_TRUE(store.workloadEntries().empty());
    EXPECT_EQ(rows(store, "kernels"), 0);
}

}  // namespace reach_test_projectstore_import_test
