// What a hostile SQLite file costs reach-cli (issue 24, docs/limits.md): a 200 MB kernel name in
// an Nsight export or a project was read whole (2.76 GB peak, 800 MB of output) and is now refused
// unread; 400k distinct streams took 33 s (a sorted insert per stream) and now take as long as
// any other 400k rows. Peak memory and time are measured on reach-cli as a process, so these run
// in the program without ASan (reach_cli_limits_tests).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "clirunner.h"
#include "tests/core/sqlitefiles.h"

namespace reach_test_clisqlitelimits_test {  // unity builds: this file's names stay its own

using reach::test::applySql;
using reach::test::CliOptions;
using reach::test::CliResult;
using reach::test::dataset;
using reach::test::runCli;
using reach::test::TempDir;

namespace {

const std::string kExport = std::string(REACH_TEST_DATA) + "/nsys/saxpy_schema3.sqlite";

CliResult timed(const std::vector<std::string>& args, double* seconds = nullptr) {
    CliOptions o;
    o.timeoutSeconds = 10;
    const auto start = std::chrono::steady_clock::now();
    CliResult r = runCli(args, o);
    if (seconds)
        *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

void expectRefusedCheaply(const CliResult& r, const std::string& file, const std::string& place) {
    EXPECT_FALSE(r.timedOut);
    EXPECT_EQ(r.status, 2) << r.err;
    ASSERT_EQ(r.errLines().size(), 1u) << r.err.substr(0, 1000);
    EXPECT_EQ(r.err.rfind(file + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(place), std::string::npos) << r.err;
    EXPECT_LT(r.out.size(), 1000u);
    if (!reach::test::kUnderAddressSanitizer) {
        EXPECT_LT(r.maxRssKb, 100 * 1024) << "peak RSS in KiB";
    }
}

// An export whose kernel rows are `rows` copies of its first kernel, on `streams` streams.
std::string exportWithKernels(const TempDir& dir, const std::string& name, int rows, int streams) {
    const std::string path = dir.path(name);
    std::filesystem::copy_file(kExport, path);
    const std::string sql =
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT start + 1000 * x, end + 1000 * x, "
        "deviceId, contextId, 1000 + (x * 7919) % " +
        std::to_string(streams) +
        ", correlationId, globalPid, demangledName, shortName, mangledName, launchType, "
        "cacheConfig, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
        "staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, "
        "gridId, sharedMemoryExecuted, graphNodeId, sharedMemoryLimitConfig FROM (SELECT * FROM "
        "CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1), (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT "
        "x + 1 FROM c WHERE x < " +
        std::to_string(rows) + ") SELECT x FROM c)";
    EXPECT_EQ(applySql(path, sql), "");
    return path;
}

}  // namespace

TEST(CliSqliteLimits, ATwoHundredMegabyteNameInAnNsightExportIsRefusedUnread) {
    TempDir dir;
    const std::string path = reach::test::copyWithSql(
        kExport, dir.path("long.sqlite"),
        "UPDATE StringIds SET value = 'saxpy' || printf('%.*c', 200000000, 'x') WHERE id IN "
        "(SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL)");
    const CliResult r = timed({"breakdown", path, "--json"});
    expectRefusedCheaply(r, path, "column value");
    RecordProperty("peak_rss_kb", std::to_string(r.maxRssKb));
}

TEST(CliSqliteLimits, ATwoHundredMegabyteNameInAProjectIsRefusedUnread) {
    TempDir dir;
    const std::string project = dir.path("long.reach");
    ASSERT_EQ(runCli({"import", dataset("profiles/public/hta_triton_example_a100.json.gz"),
                      "--project", project})
                  .status,
              0);
    ASSERT_EQ(applySql(project,
                       "UPDATE kernels SET name = printf('%.*c', 200000000, 'x') WHERE id = "
                       "(SELECT min(id) FROM kernels)"),
              "");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"breakdown", "--project", project, "--json"},
          std::vector<std::string>{"breakdown", project}}) {
        const CliResult r = timed(args);
        expectRefusedCheaply(r, project, "table kernels, row ");
        RecordProperty("peak_rss_kb", std::to_string(r.maxRssKb));
    }
}

TEST(CliSqliteLimits, TheNsightReaderIsLinearInDistinctStreams) {
    TempDir dir;
    const std::string small = exportWithKernels(dir, "s50k.sqlite", 50000, 50000);
    const std::string large = exportWithKernels(dir, "s400k.sqlite", 400000, 400000);
    double smallSeconds = 0;
    double largeSeconds = 0;
    const CliResult a = timed({"breakdown", small, "--json"}, &smallSeconds);
    const CliResult b = timed({"breakdown", large, "--json"}, &largeSeconds);
    ASSERT_EQ(a.status, 0) << a.err;
    ASSERT_EQ(b.status, 0) << b.err;
    RecordProperty("seconds_50k", std::to_string(smallSeconds));
    RecordProperty("seconds_400k", std::to_string(largeSeconds));
    // Eight times the rows: linear is about 8 times the time, quadratic 64 (before: 0.65 s and
    // 33 s). The floor keeps a fast small run from making the ratio noise.
    EXPECT_LT(largeSeconds, 25 * std::max(smallSeconds, 0.2))
        << smallSeconds << " s for 50k streams, " << largeSeconds << " s for 400k";
}

}  // namespace reach_test_clisqlitelimits_test
