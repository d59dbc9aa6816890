// Suspicion flags on real data: the measured degenerate-reference problems of
// datasets/kernelbench/kb_level1_h200_bf16.json and the KernelBench-format run results.
#include <gtest/gtest.h>

#include "core/base/inputerror.h"
#include "core/records/recordimport.h"
#include "core/records/recordimportkernelbench.h"
#include "core/records/suspicion.h"

namespace reach_test_suspicion_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

const std::string kMeasured = std::string(REACH_DATASETS) + "/kernelbench/kb_level1_h200_bf16.json";
const std::string kEager =
    std::string(REACH_DATASETS) + "/kernelbench/H100_Modal_baseline_time_torch.json";
const std::string kRun = std::string(REACH_TEST_DATA) + "/kernelbench/eval_results.json";
const std::string kSmall = std::string(REACH_TEST_DATA) + "/records/small.jsonl";

bool has(const std::vector<Suspicion>& s, SuspicionKind k) {
    for (const auto& x : s) {
        if (x.kind == k)
            return !x.reason.empty();
    }
    return false;
}

const EvalRecord& find(const std::vector<EvalRecord>& rs, const std::string& id,
                       const std::string& model = "") {
    for (const auto& r : rs) {
        if (r.problemId == id && (model.empty() || r.model == model))
            return r;
    }
    throw std::runtime_error("no record " + id);
}

}  // namespace

TEST(Suspicion, MeasuredDegenerateProblems) {
    const auto d = readDegenerateProblems(kMeasured);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_TRUE(d.count("23_Softmax"));
    EXPECT_TRUE(d.count("37_FrobeniusNorm_"));
    EXPECT_TRUE(d.count("39_L2Norm_"));
    EXPECT_LT(d.at("23_Softmax").maxAbsReference, 1e-5);
    EXPECT_NE(d.at("23_Softmax").evidence.find("NVIDIA H200"), std::string::npos);
    EXPECT_THROW(readDegenerateProblems(kEager), InputError);
}

TEST(Suspicion, FlagsOnKernelBenchRunResults) {
    KernelBenchImportOptions o;
    o.baselines = {{kEager}};
    const auto rs = importKernelBenchRun(kRun, o);
    SuspicionOptions so;
    so.degenerate = readDegenerateProblems(kMeasured);

    const auto matmul12 = suspicionsFor(find(rs, "12"), so);  // 12.5x over eager
    EXPECT_TRUE(has(matmul12, SuspicionKind::ExcessiveSpeedup));
    EXPECT_TRUE(has(matmul12, SuspicionKind::NotVerified));
    EXPECT_FALSE(has(matmul12, SuspicionKind::DegenerateReference));

    const auto softmax = suspicionsFor(find(rs, "23"), so);
    EXPECT_TRUE(has(softmax, SuspicionKind::DegenerateReference));
    EXPECT_FALSE(has(softmax, SuspicionKind::ExcessiveSpeedup));

    // A failed kernel is not suspicious, it is just failed.
    EXPECT_TRUE(suspicionsFor(find(rs, "5"), so).empty());

    so.speedupThreshold = 1.9;
    EXPECT_TRUE(has(suspicionsFor(find(rs, "23"), so), SuspicionKind::ExcessiveSpeedup));
}

TEST(Suspicion, RefutedAndRooflineFloor) {
    auto rs = readReachJsonl(kSmall);
    SuspicionOptions so;
    const auto refuted = suspicionsFor(find(rs, "23", "model-a"), so);
    ASSERT_TRUE(has(refuted, SuspicionKind::RefutedByVerifier));
    EXPECT_FALSE(has(refuted, SuspicionKind::NotVerified));
    for (const auto& s : refuted) {
        if (s.kind == SuspicionKind::RefutedByVerifier) {
            EXPECT_NE(s.reason.find("row sums 384"), std::string::npos) << s.reason;
        }
    }
    EXPECT_TRUE(suspicionsFor(find(rs, "1", "model-b"), so).empty());  // verified, 1.1x

    EvalRecord fast = find(rs, "23", "model-b");  // 2000 us
    so.floorUs = [](const EvalRecord& r) -> std::optional<double> {
        return r.problemName == "23_Softmax" ? std::optional<double>(2500.0) : std::nullopt;
    };
    EXPECT_TRUE(has(suspicionsFor(fast, so), SuspicionKind::BelowRooflineFloor));
    fast.rooflineFloorUs = 1500.0;  // the verifier's own floor wins over the lookup
    EXPECT_FALSE(has(suspicionsFor(fast, so), SuspicionKind::BelowRooflineFloor));
}

}  // namespace reach_test_suspicion_test
