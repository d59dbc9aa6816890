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

}  // namespace reach_test_recordlimits_test
