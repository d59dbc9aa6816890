// The summary of an evaluation set (core/records/evaluationset.h) is `reach-cli speedups`'s
// ungrouped "all" group, for any basis: one answer for the GUI and the CLI.
#include <gtest/gtest.h>

#include "core/records/evaluationset.h"
#include "core/records/recordimport.h"
#include "core/records/recordstats.h"

namespace reach_test_evaluationset_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {
const std::string kSmall = std::string(REACH_TEST_DATA) + "/records/small.jsonl";
}

TEST(EvaluationSet, SummaryIsTheStatisticsAllGroupForEitherBasis) {
    const auto records = readReachJsonl(kSmall);  // two models, some records verified
    for (CorrectnessBasis basis : {CorrectnessBasis::Harness, CorrectnessBasis::Verified}) {
        const EvaluationSet set = summarizeRecords("small", kSmall, records, basis);
        StatsOptions o;
        o.basis = basis;
        const RecordStats all = computeGroupedStats(records, GroupBy::None, o).front();
        EXPECT_EQ(set.attempted, all.attempted);
        EXPECT_EQ(set.winners, all.winners);
        EXPECT_EQ(set.denominator, all.denominator);
        EXPECT_EQ(set.medianSpeedup, all.medianSpeedup);
        EXPECT_EQ(set.maxSpeedup, all.maxSpeedup);
        EXPECT_EQ(set.basis, basis);
    }
    // The two models attempt the same problems: units are (problem, model), not problems.
    const EvaluationSet harness =
        summarizeRecords("small", kSmall, records, CorrectnessBasis::Harness);
    EXPECT_EQ(harness.attempted, 10);
    EXPECT_EQ(harness.winners, 5);
}

TEST(EvaluationSet, DefaultBasisIsVerifiedOnceReachJudgedARecord) {
    auto records = readReachJsonl(kSmall);
    EXPECT_EQ(summarizeRecords("s", "", records).basis, CorrectnessBasis::Verified);
    for (EvalRecord& r : records)
        r.verification = Verification::Unverified;
    const EvaluationSet unverified = summarizeRecords("s", "", records);
    EXPECT_EQ(unverified.basis, CorrectnessBasis::Harness);
    EXPECT_NE(unverified.basisText().find("not verified"), std::string::npos);
}

TEST(EvaluationSet, PublishedSummaryKeepsItsNumbers) {
    const EvaluationSet p = publishedSummary("DLRM-Bench", 5, 12, 1.552, 6.917);
    EXPECT_TRUE(p.published);
    EXPECT_TRUE(p.projectable());
    EXPECT_NEAR(p.winRate(), 5.0 / 12, 1e-12);
    EXPECT_EQ(p.basisText(), "published summary");
    EXPECT_FALSE(publishedSummary("open", 3, 56, std::nullopt, std::nullopt).projectable());
}

}  // namespace reach_test_evaluationset_test
