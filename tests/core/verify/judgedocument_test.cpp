// The C++ side of the judge's document (issue 39): a document the KernelBench-format worker
// wrote (tests/data/kernelbench/judge_document_cpu.json) holds to the one schema both sides are
// tested against (resources/kernelbench/judge_document_schema.json; the worker's live documents
// in tests/python/test_json_contract.py), and composeKernelBench carries every part of it into
// the result: the verdict and reasons, each check, the metrics, the thresholds, the judge's
// time and its baselines, the speedup, and the controller's own checks.
#include <gtest/gtest.h>

#include <fstream>

#include "core/verify/kbverify.h"

namespace reach_test_judgedocument_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;

namespace {

json readJson(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << path;
    return json::parse(in);
}

json schema() {
    return readJson(std::string(REACH_SOURCE_DIR) +
                    "/resources/kernelbench/judge_document_schema.json");
}

json recorded() {
    return readJson(std::string(REACH_TEST_DATA) + "/kernelbench/judge_document_cpu.json");
}

bool hasType(const json& v, const std::string& type) {
    if (type == "str")
        return v.is_string();
    if (type == "int")
        return v.is_number_integer();
    if (type == "number")
        return v.is_number();
    if (type == "bool")
        return v.is_boolean();
    if (type == "list")
        return v.is_array();
    if (type == "dict")
        return v.is_object();
    return type == "null" && v.is_null();
}

// What of `obj` the schema's `part` does not describe: one line per key, empty when it holds.
std::vector<std::string> mismatches(const json& obj, const json& part, const std::string& where) {
    std::vector<std::string> out;
    for (const auto& [key, types] : part.items()) {
        if (!obj.contains(key)) {
            out.push_back(where + ": missing " + key);
            continue;
        }
        bool ok = false;
        for (const json& t : types)
            ok = ok || hasType(obj[key], t.get<std::string>());
        if (!ok)
            out.push_back(where + "." + key + ": " + obj[key].dump() + " is not " + types.dump());
    }
    return out;
}

VerificationResult composed(const json& judge) {
    KernelBenchJob job;
    job.problemFile = "23_Softmax.py";
    job.candidateFile = "softmax_correct.py";
    job.device = "cpu";
    job.recordedBaselineUs = 1e9;
    job.recordedBaselineSource = "fixture";
    WorkerOutcome reachRun;
    reachRun.doc = judge;
    reachRun.seconds = 1.5;
    WorkerOutcome kbRun;
    kbRun.started = false;
    kbRun.startError = "not run: the judge's document decides";
    return composeKernelBench(job, json{{"device", json::object()}}, kbRun, reachRun);
}

}  // namespace

TEST(JudgeDocument, TheRecordedDocumentHoldsToTheSchema) {
    const json s = schema();
    const json d = recorded();
    std::vector<std::string> bad = mismatches(d, s["reach"], "reach");
    for (const json& c : d["checks"])
        for (auto& m : mismatches(c, s["check"], "check"))
            bad.push_back(m);
    for (const json& r : d["runs"])
        for (auto& m : mismatches(r, s["run"], "run"))
            bad.push_back(m);
    for (auto& m : mismatches(d["metrics"], s["metrics"], "metrics"))
        bad.push_back(m);
    for (auto& m : mismatches(d["timing"], s["timing"], "timing"))
        bad.push_back(m);
    for (auto& m : mismatches(d["timing"]["clock"], s["figure_clock"], "timing.clock"))
        bad.push_back(m);
    for (const json& b : d["baselines"])
        for (auto& m : mismatches(b, s["baseline"], "baseline"))
            bad.push_back(m);
    for (auto& m : mismatches(d["thresholds"], s["thresholds"], "thresholds"))
        bad.push_back(m);
    EXPECT_TRUE(bad.empty()) << bad.front();
}

TEST(JudgeDocument, EveryPartReachesTheResult) {
    const json d = recorded();
    const VerificationResult r = composed(d);
    EXPECT_EQ(r.verdict, d["verdict"].get<std::string>());
    EXPECT_EQ(r.op, d["category"].get<std::string>());
    EXPECT_EQ(r.compile.status, "ok");
    // The judge's checks in its order, then the controller's own (clock agreement, roofline).
    ASSERT_GE(r.checks.size(), d["checks"].size());
    for (size_t i = 0; i < d["checks"].size(); ++i) {
        EXPECT_EQ(r.checks[i].name, d["checks"][i]["name"].get<std::string>());
        EXPECT_EQ(r.checks[i].passed, d["checks"][i]["passed"].get<bool>());
    }
    bool clockChecked = false;
    for (size_t i = d["checks"].size(); i < r.checks.size(); ++i)
        clockChecked = clockChecked || r.checks[i].name == "clock_agreement";
    EXPECT_TRUE(clockChecked) << "the controller checks the judge's clock against the runner's";
    ASSERT_TRUE(r.hasMetrics);
    EXPECT_EQ(r.metrics.relFrobenius, d["metrics"]["rel_frobenius"].get<double>());
    EXPECT_EQ(r.metrics.writtenCount, d["metrics"]["written_count"].get<int64_t>());
    EXPECT_EQ(r.metrics.zerosPassKernelbench, d["metrics"]["zeros_pass_kernelbench"].get<bool>());
    EXPECT_EQ(r.thresholds.relFrobenius, d["thresholds"]["rel_frobenius"].get<double>());
    ASSERT_TRUE(r.timing.has_value());
    EXPECT_EQ(r.timing->medianUs, d["timing"]["median_us"].get<double>());
    EXPECT_EQ(r.timing->reps, d["timing"]["reps"].get<int>());
    EXPECT_EQ(r.timing->clockSource, "host");
    ASSERT_TRUE(r.baseline.has_value());
    EXPECT_EQ(r.baseline->kind, d["baseline_used"]["kind"].get<std::string>());
    EXPECT_EQ(r.baseline->usedUs, d["baseline_used"]["us"].get<double>());
    EXPECT_NE(r.baseline->note.find("recorded"), std::string::npos) << r.baseline->note;
    EXPECT_EQ(r.speedup, d["speedup"].get<double>());
    EXPECT_FALSE(r.device.available) << "the worker ran on the CPU";
    EXPECT_EQ(r.wallSeconds, 1.5);
}

TEST(JudgeDocument, AVerdictTheJudgeDidNotGiveIsAnError) {
    json d = recorded();
    d.erase("verdict");
    d["reasons"] = json::array();
    d["error"] = "the judge stopped";
    const VerificationResult r = composed(d);
    EXPECT_EQ(r.verdict, verdict::kError);
    ASSERT_FALSE(r.reasons.empty());
    EXPECT_EQ(r.reasons.front(), "the judge stopped");
}

TEST(JudgeDocument, ASpeedupThatIsNotFiniteIsNone) {
    json d = recorded();
    d["speedup"] = "inf";  // not a number: absent
    EXPECT_EQ(composed(d).speedup, 0);
}

}  // namespace reach_test_judgedocument_test
