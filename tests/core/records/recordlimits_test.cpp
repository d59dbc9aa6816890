// Evaluation-record readers on hostile JSON (issue 14): nesting past the depth limit (a million
// levels crashed the reach-verify importer), numbers out of a double's range (an internal error,
// no file named), and the byte offset of the number error (reported at "byte 0").
#include <gtest/gtest.h>

#include <string>

#include "core/base/inputerror.h"
#include "core/records/recordreader.h"
#include "tests/core/testfiles.h"

namespace reach_test_recordlimits_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::nestedLists;
using reach::test::TempFolder;
using reach::test::writeText;

namespace {

const std::string kVerifyHead =
    R"({"schema":"reach.verification","schema_version":1,"verdict":"pass","problem_id":"p",)"
    R"("compile":{"status":"ok"},"timing":{"median_us":)";

std::string verifierResult(const std::string& median, const std::string& extra = "") {
    return kVerifyHead + median + "}" + extra + "}";
}

RecordReadOptions kernelBenchOptions() {
    RecordReadOptions o;
    o.kernelBench.baselines.push_back(
        {std::string(REACH_DATASETS) + "/kernelbench/H100_Modal_baseline_time_torch.json",
         BaselineKind::Auto});
    return o;
}

RecordReadOptions mapped() {
    RecordReadOptions o;
    ColumnMapping m;
    m.fields = {{"problem", "task"}, {"speedup", "x"}};
    o.mapping = m;
    return o;
}

// Refused with one line that starts with the file and names `place` and `what`.
std::string expectRefused(const std::string& path, const RecordReadOptions& options,
                          const std::string& place, const std::string& what) {
    SCOPED_TRACE(path);
    try {
        const auto records = readRecords(path, options);
        ADD_FAILURE() << "accepted, " << records.size() << " records";
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
        EXPECT_NE(e.place().find(place), std::string::npos) << msg;
        EXPECT_NE(msg.find(what), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        return msg;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not an InputError: " << e.what();
    }
    return {};
}

}  // namespace

TEST(RecordLimits, AVerifierResultNestedAMillionLevelsIsRefused) {
    TempFolder dir;
    const std::string deep = nestedLists(1000000);
    expectRefused(writeText(dir.path("one.json"), verifierResult("5", ",\"extra\":" + deep)), {},
                  "byte", "nest");
    expectRefused(
        writeText(dir.path("list.json"), "[" + verifierResult("5", ",\"extra\":" + deep) + "]"), {},
        "byte", "nest");
}

TEST(RecordLimits, EveryJsonFormatBoundsDepth) {
    TempFolder dir;
    const std::string deep = nestedLists(100000);
    expectRefused(
        writeText(dir.path("r.jsonl"),
                  R"({"problem_id":"1","compiled":true,"correct":true,"x":)" + deep + "}\n"),
        {}, "line 1", "nest");
    expectRefused(writeText(dir.path("eval_results.json"),
                            R"({"1":[{"sample_id":0,"compiled":true,"correctness":true,)"
                            R"("runtime":1.5,"x":)" +
                                deep + "}]}"),
                  kernelBenchOptions(), "byte", "nest");
    expectRefused(writeText(dir.path("list.json"), R"([{"task":"a","x":2,"y":)" + deep + "}]"),
                  mapped(), "byte", "nest");
}

TEST(RecordLimits, NumbersOutOfRangeAreOneLineErrors) {
    TempFolder dir;
    expectRefused(writeText(dir.path("r.jsonl"),
                            "{\"problem_id\":\"1\",\"compiled\":true,\"correct\":true}\n"
                            "{\"problem_id\":\"2\",\"compiled\":true,\"correct\":true,"
                            "\"candidate_time_us\":1e309}\n"),
                  {}, "line 2", "out of range");
    expectRefused(writeText(dir.path("eval_results.json"),
                            R"({"1":[{"sample_id":0,"compiled":true,"correctness":true,)"
                            R"("runtime":-1e400}]})"),
                  kernelBenchOptions(), "byte", "out of range");
    expectRefused(writeText(dir.path("list.json"), R"([{"task":"a","x":1e309}])"), mapped(), "byte",
                  "out of range");
}

// The number error inside a reach-verify result is reported where the number is.
TEST(RecordLimits, ANumberErrorInAVerifierResultNamesItsOffset) {
    TempFolder dir;
    const std::string text = verifierResult("1e309");
    const std::string msg =
        expectRefused(writeText(dir.path("v.json"), text), {}, "byte", "out of range");
    EXPECT_NE(msg.find("byte " + std::to_string(text.find("1e309"))), std::string::npos) << msg;
}

// Issue 37: every time and speedup is positive, finite and within limits, in every format: a
// leaderboard's 0, -2 or 1e-320 was taken silently (1e-320 printed "infx [-nan, -nan]"), and a
// document's 1e300 printed 300 digits. -1 stays a harness's "no time".
TEST(RecordLimits, EveryTimeAndSpeedupIsPositiveFiniteAndWithinLimits) {
    TempFolder dir;
    const std::string head = R"({"problem_id":"p","compiled":true,"correct":true,)";
    for (const auto& [body, key] : std::vector<std::pair<std::string, std::string>>{
             {R"("candidate_time_us":1e-320})", "candidate_time_us"},
             {R"("candidate_time_us":1e300})", "candidate_time_us"},
             {R"("speedup":1e300})", "speedup"},
             {R"("speedup":1e-9})", "speedup"},
             {R"("baseline_eager_us":1e-300,"candidate_time_us":5})", "baseline_eager_us"},
             // Two times in bounds whose ratio is not: 10^12 us / 10^-3 us.
             {R"("baseline_eager_us":1e12,"candidate_time_us":0.001})", "speedup"}}) {
        expectRefused(writeText(dir.path("r.jsonl"), head + body + "\n"), {}, key, "from");
    }
    // The bounds themselves are taken.
    const auto ok = readRecords(
        writeText(dir.path("ok.jsonl"),
                  head + R"("baseline_eager_us":1e6,"candidate_time_us":1,"speedup":1e6})"
                         "\n"),
        {});
    ASSERT_EQ(ok.size(), 1u);

    // A leaderboard's table: -1 is none; 0, -2 and 1e-320 are refused naming row and column.
    RecordReadOptions o;
    ColumnMapping m;
    m.fields = {{"problem", "task"}, {"speedup", "x"}, {"candidate_time", "ms"}};
    m.timeUnit = "ms";
    o.mapping = m;
    const auto none = readRecords(writeText(dir.path("none.csv"), "task,x,ms\na,-1,-1\n"), o);
    ASSERT_EQ(none.size(), 1u);
    EXPECT_FALSE(none[0].speedup);
    EXPECT_FALSE(none[0].candidateTimeUs);
    expectRefused(writeText(dir.path("zero.csv"), "task,x,ms\na,2,0\n"), o, "column \"ms\"",
                  "positive");
    expectRefused(writeText(dir.path("neg.csv"), "task,x,ms\na,-2,5\n"), o, "column \"x\"",
                  "positive");
    expectRefused(writeText(dir.path("tiny.csv"), "task,x,ms\na,2,1e-320\n"), o, "", "");
}

}  // namespace reach_test_recordlimits_test
