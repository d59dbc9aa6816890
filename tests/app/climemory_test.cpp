// What reading a trace costs in memory (docs/limits.md): a stated amount per GPU event and per
// distinct kernel name, measured here as the peak resident set of `reach-cli breakdown` on two
// synthetic traces against a one-event trace, so that a change that makes either grow fails.
// The bounds are about twice what was measured (docs/limits.md gives the figures): vectors double
// as they grow, and the allocator keeps some of what was freed.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "clirunner.h"

namespace reach_test_climemory_test {  // unity builds: this file's names stay its own

using reach::test::CliOptions;
using reach::test::CliResult;
using reach::test::runCli;
using reach::test::TempDir;

namespace {

// A Kineto trace of `events` kernels on 4 streams; kernel i is named after i % distinct.
void writeTrace(const std::string& path, int events, int distinct) {
    std::ofstream out(path, std::ios::binary);
    out << R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H200"}],)"
        << "\"traceEvents\":[\n";
    char buf[512];
    long long ts = 1700000000000LL;  // us
    for (int i = 0; i < events; ++i) {
        const int dur = 1 + int((long long)i * 7919 % 50);  // i * 7919 overflows an int
        std::snprintf(buf, sizeof buf,
                      "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void "
                      "at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
                      "at::native::MeanOps<float, float>, unsigned int, float, %d> >(R)\","
                      "\"pid\":0,\"tid\":%d,\"ts\":%lld,\"dur\":%d,\"args\":{\"External "
                      "id\":%d,\"device\":0,\"stream\":%d,\"correlation\":%d,\"grid\":[%d,1,"
                      "1],\"block\":[256,1,1]}}",
                      i ? ",\n" : "", i % distinct, 7 + i % 4, ts, dur, i, 7 + i % 4, i,
                      1 + i % 4096);
        out << buf;
        ts += dur + 1;
    }
    out << "\n]}\n";
}

long peakKb(const std::string& trace) {
    CliOptions o;
    o.timeoutSeconds = 300;
    const CliResult r = runCli({"breakdown", trace, "--json"}, o);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.maxRssKb;
}

}  // namespace

TEST(ReaderMemory, EachEventCostsUnderAHundredBytes) {
    if (reach::test::kUnderAddressSanitizer)
        GTEST_SKIP() << "peak RSS under ASan is its shadow memory and quarantine";
    TempDir dir;
    const std::string one = dir.path("one.json"), many = dir.path("events.json");
    writeTrace(one, 1, 1);
    constexpr int kEvents = 400000;
    writeTrace(many, kEvents, 100);
    const long base = peakKb(one), peak = peakKb(many);
    const double perEvent = double(peak - base) * 1024.0 / kEvents;
    RecordProperty("bytes_per_event", std::to_string(perEvent));
    std::printf("peak RSS %ld KiB (one event: %ld KiB): %.0f B per event\n", peak, base, perEvent);
    EXPECT_LT(perEvent, 96.0);  // docs/limits.md: measured 43 B
}

TEST(ReaderMemory, EachDistinctNameCostsUnderTwoAndAHalfKilobytes) {
    if (reach::test::kUnderAddressSanitizer)
        GTEST_SKIP() << "peak RSS under ASan is its shadow memory and quarantine";
    TempDir dir;
    const std::string one = dir.path("one.json"), many = dir.path("names.json");
    writeTrace(one, 1, 1);
    constexpr int kNames = 50000;
    writeTrace(many, kNames, kNames);
    const long base = peakKb(one), peak = peakKb(many);
    const double perName = double(peak - base) * 1024.0 / kNames;
    RecordProperty("bytes_per_name", std::to_string(perName));
    std::printf("peak RSS %ld KiB (one name: %ld KiB): %.0f B per distinct name\n", peak, base,
                perName);
    EXPECT_LT(perName, 2500.0);  // docs/limits.md: measured 1.4 KB (names of ~110 B)
}

// An operator's recorded input shapes are kept as a bounded signature: a list far past the bound
// is skipped, not copied. Each element past it used to append the bound again (16 KiB), so a
// 600 KB list of zeros cost about 5 GB.
TEST(ReaderMemory, AHugeShapeListIsSkippedNotAmplified) {
    TempDir dir;
    const std::string path = dir.path("shapes.json");
    {
        std::ofstream out(path, std::ios::binary);
        out << R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,)"
            << R"("ts":1,"dur":5,"args":{"External id":1,"Input Dims":[)";
        for (int i = 0; i < 300000; ++i)
            out << (i ? ",0" : "0");
        out << R"(]}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2,"dur":1,)"
            << R"("args":{"External id":1,"stream":7,"device":0}}]})";
    }
    CliOptions o;
    o.timeoutSeconds = 120;
    const CliResult r = runCli({"breakdown", path, "--json"}, o);
    EXPECT_EQ(r.status, 0) << r.err;
    if (!reach::test::kUnderAddressSanitizer) {
        EXPECT_LT(r.maxRssKb, 200 * 1024) << "peak RSS " << r.maxRssKb << " KiB";
    }
}

}  // namespace reach_test_climemory_test
