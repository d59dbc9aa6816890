// Nsight exports made by a stranger (issue 24): SQLite files carry code, so the reader reads only
// real tables with stored columns, refuses a view where it expects a table (an endless recursive
// CTE hung it, and a temporary file grew under /var/tmp), refuses values past the kept-string
// limit without reading them (a 200 MB name was read whole), refuses times that are not integers
// (they were read as 0), and stays linear in distinct streams (a sorted insert per stream made
// 400k streams take 33 s).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "core/base/inputerror.h"
#include "core/base/sqlitelimits.h"
#include "core/trace/profilereader.h"
#include "tests/core/sqlitefiles.h"
#include "tests/core/testfiles.h"

namespace reach_test_nsyshostile_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::copyWithSql;
using reach::test::TempFolder;

namespace {

const std::string kExport = std::string(REACH_TEST_DATA) + "/nsys/saxpy_schema3.sqlite";
const std::string kKernels = "CUPTI_ACTIVITY_KIND_KERNEL";

std::string hostile(const TempFolder& dir, const std::string& name, const std::string& sql) {
    return copyWithSql(kExport, dir.path(name), sql);
}

// The reader must refuse the file within `seconds`, in one line that starts with the file and
// contains each of `parts`.
void expectRefused(const std::string& path, const std::vector<std::string>& parts,
                   double seconds = 5) {
    SCOPED_TRACE(path);
    const auto start = std::chrono::steady_clock::now();
    try {
        const Workload w = readProfile(path);
        ADD_FAILURE() << "accepted; " << w.kernels.size() << " kernels, GPU time " << w.gpuTimeUs;
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        for (const std::string& p : parts)
            EXPECT_NE(msg.find(p), std::string::npos) << "no '" << p << "' in: " << msg;
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took.count(), seconds);
}

}  // namespace

TEST(NsysHostile, AViewOfAnEndlessRecursiveCteWhereTheKernelsAreIsRefused) {
    TempFolder dir;
    expectRefused(hostile(dir, "endless.sqlite", test::endlessViewSql(kKernels, "k0")),
                  {"view " + kKernels, "expected a table"});
}

TEST(NsysHostile, ASpinningViewIsRefusedWhateverTheCaseOfItsName) {
    TempFolder dir;
    // SQL names ignore case: before, only the exact spelling was looked up, so this view
    // was simply not seen; with the exact name it spun for ever.
    expectRefused(hostile(dir, "spin.sqlite", test::spinningViewSql(kKernels, "k0")),
                  {"view " + kKernels});
    expectRefused(hostile(dir, "spin_lower.sqlite",
                          "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k0; CREATE VIEW "
                          "cupti_activity_kind_kernel AS SELECT * FROM k0"),
                  {"view CUPTI_ACTIVITY_KIND_KERNEL"});
    expectRefused(hostile(dir, "strings.sqlite", test::endlessViewSql("StringIds", "s0")),
                  {"view StringIds"});
}

TEST(NsysHostile, AGeneratedColumnOrAHiddenRowNumberIsRefused) {
    TempFolder dir;
    expectRefused(hostile(dir, "generated.sqlite",
                          "ALTER TABLE StringIds RENAME TO s0; CREATE TABLE StringIds(id INTEGER "
                          "PRIMARY KEY, v TEXT, value TEXT GENERATED ALWAYS AS (v || v) VIRTUAL); "
                          "INSERT INTO StringIds(id, v) SELECT id, value FROM s0"),
                  {"table StringIds, column value", "generated"});
    expectRefused(hostile(dir, "rowid.sqlite",
                          "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY ADD COLUMN rowid INTEGER"),
                  {"column rowid", "hides the row number"});
    expectRefused(hostile(dir, "nokey.sqlite",
                          "ALTER TABLE StringIds RENAME TO s0; CREATE TABLE StringIds(id INTEGER, "
                          "value TEXT); INSERT INTO StringIds SELECT * FROM s0"),
                  {"table StringIds", "primary key"});
}

// A REAL or TEXT time was read as 0: 0 ns as an end made the row end before it started, 0 as a
// start a kernel 1.4 s long; a REAL start was truncated.
TEST(NsysHostile, TimesThatAreNotIntegersAreRefusedNamingTableRowAndColumn) {
    TempFolder dir;
    expectRefused(hostile(dir, "real_start.sqlite",
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = start + 0.5 WHERE rowid "
                          "= 2"),
                  {"table CUPTI_ACTIVITY_KIND_KERNEL, row 2, column start", "found real"});
    expectRefused(hostile(dir, "text_end.sqlite",
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 'soon' WHERE rowid = 3"),
                  {"table CUPTI_ACTIVITY_KIND_KERNEL, row 3, column end", "found text"});
    expectRefused(hostile(dir, "null_start.sqlite",
                          "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY RENAME TO m0; CREATE TABLE "
                          "CUPTI_ACTIVITY_KIND_MEMCPY AS SELECT * FROM m0; UPDATE "
                          "CUPTI_ACTIVITY_KIND_MEMCPY SET start = NULL WHERE rowid = 5"),
                  {"table CUPTI_ACTIVITY_KIND_MEMCPY, row 5, column start", "found null"});
    expectRefused(hostile(dir, "runtime.sqlite",
                          "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = 1e30 WHERE rowid = 3"),
                  {"table CUPTI_ACTIVITY_KIND_RUNTIME, row 3, column end", "found real"});
    expectRefused(hostile(dir, "stream.sqlite",
                          "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET streamId = 'x' WHERE rowid = 4"),
                  {"table CUPTI_ACTIVITY_KIND_MEMCPY, row 4, column streamId", "found text"});
}

// SQLite refuses the value before it allocates it (its length limit), so this costs no memory;
// reach-cli's peak is measured by CliSqliteLimits.
TEST(NsysHostile, ANameOfTwoHundredMegabytesIsRefusedNamingItsRow) {
    TempFolder dir;
    const std::string path = hostile(
        dir, "long.sqlite",
        "UPDATE StringIds SET value = 'saxpy' || printf('%.*c', 200000000, 'x') WHERE id IN "
        "(SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL)");
    const std::string id =
        test::queryOne(path, "SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1");
    expectRefused(path,
                  {"table StringIds, row " + id + ", column value", "200000005 bytes", "16 MiB"});
}

TEST(NsysHostile, AHugeBlobInATimeColumnIsRefusedUnread) {
    TempFolder dir;
    expectRefused(hostile(dir, "blob.sqlite",
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = zeroblob(100000000) "
                          "WHERE rowid = 4"),
                  {"table CUPTI_ACTIVITY_KIND_KERNEL, row 4, column start", "found blob"});
    expectRefused(hostile(dir, "gpu.sqlite",
                          "UPDATE TARGET_INFO_GPU SET name = printf('%.*c', 20000000, 'x')"),
                  {"table TARGET_INFO_GPU, row 1, column name"});
}

// Streams are kept per kernel, distinct and ascending, whatever order the rows come in.
TEST(NsysHostile, StreamsAreDistinctAndAscending) {
    TempFolder dir;
    const std::string path =
        hostile(dir, "streams.sqlite",
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT start + 1000 * x, end + 1000 * x, "
                "deviceId, contextId, (x * 7919) % 500 + 1000, correlationId, globalPid, "
                "demangledName, shortName, mangledName, launchType, cacheConfig, "
                "registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                "staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, "
                "localMemoryTotal, gridId, sharedMemoryExecuted, graphNodeId, "
                "sharedMemoryLimitConfig FROM (SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1), "
                "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) "
                "SELECT x FROM c)");
    const Workload w = readProfile(path);
    const KernelStats* saxpy = nullptr;
    for (const KernelStats& k : w.kernels) {
        if (k.kind == ActivityKind::Kernel)
            saxpy = &k;
    }
    ASSERT_NE(saxpy, nullptr);
    EXPECT_EQ(saxpy->calls, 2005);
    // The 500 streams made above, and the original kernels' own one.
    ASSERT_EQ(saxpy->streams.size(), 501u);
    EXPECT_TRUE(std::is_sorted(saxpy->streams.begin(), saxpy->streams.end()));
    EXPECT_TRUE(std::adjacent_find(saxpy->streams.begin(), saxpy->streams.end()) ==
                saxpy->streams.end());
}

TEST(NsysHostile, APathThatIsNotARegularFileIsRefused) {
    TempFolder dir;
    const std::string link = dir.path("zero.sqlite");
    std::filesystem::create_symlink("/dev/zero", link);
    expectRefused(link, {"not a regular file"});
}

// The time budget of docs/limits.md, as the progress handler of each connection uses it.
TEST(StatementBudgetTest, ExpiresWithoutARowAndStartsAgainWithEachRow) {
    using namespace std::chrono_literals;
    StatementBudget budget(50ms);
    EXPECT_FALSE(budget.spent());  // the first look starts the clock
    std::this_thread::sleep_for(80ms);
    EXPECT_TRUE(budget.spent());
    EXPECT_EQ(budget.takeReason(), StatementBudget::Reason::Time);
    budget.arm();  // a row
    EXPECT_FALSE(budget.spent());
    EXPECT_FALSE(budget.spent());
    std::stop_source stop;
    StatementBudget stoppable(1h, stop.get_token());
    EXPECT_FALSE(stoppable.spent());
    stop.request_stop();
    EXPECT_TRUE(stoppable.spent());
    EXPECT_EQ(stoppable.takeReason(), StatementBudget::Reason::Stop);
    EXPECT_EQ(stoppable.takeReason(), StatementBudget::Reason::None);
    // A pass over a large file is never cut short: one second more per 16 MiB.
    EXPECT_EQ(SqliteLimits::stepBudget(0), 10s);
    EXPECT_EQ(SqliteLimits::stepBudget(uint64_t(1) << 30), 74s);
}

}  // namespace reach_test_nsyshostile_test
