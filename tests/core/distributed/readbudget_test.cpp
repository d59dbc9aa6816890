// A run's readings under a memory budget (core/distributed/readbudget.h): what a rank's reading
// is estimated to hold, and that the ranks read at once stay within the budget by it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "core/distributed/readbudget.h"
#include "tests/core/testfiles.h"

namespace reach_test_readbudget_test {  // unity builds: this file's names stay its own

using reach::rankReadingBytes;
using reach::ReadBudget;
using reach::test::TempFolder;
using reach::test::writeGzip;
using reach::test::writeText;

constexpr uint64_t kFixed = 16ull << 20;

TEST(RankReadingBytes, APlainTraceIsEstimatedFromItsSize) {
    TempFolder dir;
    const std::string f = writeText(dir.path("rank-0.json"), std::string(10 << 20, ' '));
    EXPECT_EQ(rankReadingBytes(f), kFixed + uint64_t(0.25 * (10 << 20)));
    EXPECT_EQ(rankReadingBytes(dir.path("missing.json")), kFixed);
}

TEST(RankReadingBytes, AGzipTraceIsEstimatedFromWhatItHolds) {
    // 64 MiB of JSON-like text in well under a megabyte of gzip: its trailer says the size.
    TempFolder dir;
    const std::string f =
        writeGzip(dir.path("rank-0.json.gz"), "{\"traceEvents\": [", ' ', 64ull << 20, "]}");
    EXPECT_EQ(rankReadingBytes(f), kFixed + uint64_t(0.25 * ((64ull << 20) + 19)));
}

TEST(RankReadingBytes, AGzipOfSeveralMembersIsEstimatedFromItsRatio) {
    // gzip -c a b: the trailer is the last member's alone (4 bytes here); the ratio of the first
    // megabytes says the whole, within the factor a budget can live with.
    TempFolder dir;
    const std::string a = writeGzip(dir.path("a.gz"), "{\"traceEvents\": [", ' ', 64ull << 20);
    const std::string b = writeGzip(dir.path("b.gz"), "]}\n");
    std::string both;
    for (const std::string& p : {a, b}) {
        std::ifstream in(p, std::ios::binary);
        both += std::string(std::istreambuf_iterator<char>(in), {});
    }
    const std::string f = writeText(dir.path("rank-0.json.gz"), both);
    const double est = double(rankReadingBytes(f) - kFixed) / 0.25;
    EXPECT_GT(est, 0.5 * double(64ull << 20));
    EXPECT_LT(est, 2.0 * double(64ull << 20));
}

TEST(ReadBudget, ReadingsStartWhileTheyFitAndOneTooLargeStartsAlone) {
    ReadBudget budget(100);
    budget.acquire(60);
    std::atomic<bool> second{false}, third{false};
    std::jthread t2([&] {
        budget.acquire(30);  // fits beside the first
        second = true;
    });
    t2.join();
    EXPECT_TRUE(second);
    EXPECT_EQ(budget.inFlight(), 2);
    std::jthread t3([&] {
        budget.acquire(500);  // never fits: waits until it is alone
        third = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(third);
    budget.release(60);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(third);  // the 30 still reads
    budget.release(30);
    t3.join();
    EXPECT_TRUE(third);
    EXPECT_EQ(budget.inFlight(), 1);
    budget.release(500);
    EXPECT_EQ(budget.inFlight(), 0);
}

TEST(ReadBudget, NoBoundLetsEveryReadingStart) {
    ReadBudget budget(0);
    budget.acquire(1ull << 40);
    budget.acquire(1ull << 40);
    EXPECT_EQ(budget.inFlight(), 2);
}

}  // namespace reach_test_readbudget_test
