#include <gtest/gtest.h>

#include <string>

#include "core/trace/profilereader.h"

namespace reach_test_nsysreader_test {  // unity builds: this file's names stay its own

using namespace reach;

// Expected numbers from the sqlite3 CLI on the same file:
//   SELECT count(*), sum(end-start) FROM CUPTI_ACTIVITY_KIND_KERNEL      -> 5, 88573480 ns
//   ... JOIN StringIds ON id = demangledName GROUP BY value              -> one saxpy name,
//       min 17700808 ns, max 17733416 ns
//   SELECT copyKind, count(*), sum(end-start) FROM CUPTI_ACTIVITY_KIND_MEMCPY -> 15 rows, 284699600
//   ns SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME         -> span 1712933638 ns
//   SELECT name FROM TARGET_INFO_GPU                                      -> NVIDIA A100-SXM4-40GB
void checkSaxpy(const Workload& w) {
    EXPECT_EQ(w.format, "nsys-sqlite");
    EXPECT_EQ(w.device, "NVIDIA A100-SXM4-40GB");
    EXPECT_EQ(w.eventCount, 20);
    EXPECT_NEAR(w.gpuTimeUs, 88573.480 + 284699.600, 1e-6);
    EXPECT_NEAR(w.spanUs, 1712933.638, 1e-6);
    EXPECT_LE(w.busyTimeUs, w.gpuTimeUs + 1e-9);
    EXPECT_FALSE(w.hasOperatorLinks());
    const KernelStats* saxpy = nullptr;
    int64_t memcpyCalls = 0;
    for (const KernelStats& k : w.kernels) {
        if (k.kind == ActivityKind::Kernel)
            saxpy = &k;
        if (k.kind == ActivityKind::Memcpy)
            memcpyCalls += k.calls;
        // copyKind 1 (10 rows) and 2 (5 rows): CUpti_ActivityMemcpyKind HtoD and DtoH.
        if (k.name == "Memcpy HtoD") {
            EXPECT_EQ(k.calls, 10);
        }
        if (k.name == "Memcpy DtoH") {
            EXPECT_EQ(k.calls, 5);
        }
    }
    ASSERT_NE(saxpy, nullptr);
    EXPECT_EQ(saxpy->name, "saxpy(double *, double *, double *, double, int)");
    EXPECT_EQ(saxpy->calls, 5);
    EXPECT_NEAR(saxpy->totalUs, 88573.480, 1e-6);
    EXPECT_NEAR(saxpy->minUs, 17700.808, 1e-9);
    EXPECT_NEAR(saxpy->maxUs, 17733.416, 1e-9);
    EXPECT_FALSE(saxpy->grid.empty());
    EXPECT_EQ(memcpyCalls, 15);
}

TEST(NsysReader, PipitSaxpyExportSchema2) {
    Workload w =
        readProfile(std::string(REACH_DATASETS) + "/profiles/public/pipit_saxpy_nsys_a100.sqlite");
    EXPECT_EQ(w.name, "pipit_saxpy_nsys_a100");
    EXPECT_EQ(w.sourceHash, "38a44cf4de905da66bd1f73f35b23fc4fa0e7f1979bf6f8468ba41fe8f6cf7c6");
    checkSaxpy(w);
}

// tests/data/nsys/saxpy_schema3.sqlite: the same capture rewritten the way 3.x exports look
// (META_DATA_EXPORT, ENUM_* tables) and without the MEMSET table, which nsys omits when a capture
// had no memset. Made with Python's sqlite3 from the file above.
TEST(NsysReader, Schema3EraAndMissingTables) {
    Workload w = readProfile(std::string(REACH_TEST_DATA) + "/nsys/saxpy_schema3.sqlite");
    checkSaxpy(w);
}

}  // namespace reach_test_nsysreader_test
