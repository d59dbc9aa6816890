#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/projection.h"
#include "core/analysis/publishedstudy.h"
#include "core/base/inputerror.h"

namespace reach_test_projection_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {
const std::string kTable3 = std::string(REACH_DATASETS) + "/paper/table3.json";
}

// Golden: the study's Table 3 gains (1.32, 2.39, 2.49, 6.21, 8.63 %) from A, w and m alone.
TEST(Projection, ReproducesEveryPublishedGainToOneHundredthOfAPoint) {
    PublishedStudy study = readPublishedStudy(kTable3);
    EXPECT_DOUBLE_EQ(study.winRate, 0.417);
    EXPECT_DOUBLE_EQ(study.medianSpeedup, 1.552);
    ASSERT_EQ(study.workloads.size(), 7u);
    int withGain = 0;
    for (const PublishedWorkload& w : study.workloads) {
        Projection p = projectSummary(w.name, w.addressable, study.winRate, study.medianSpeedup);
        EXPECT_EQ(p.name, w.name);
        if (!w.projectedGain)
            continue;
        ++withGain;
        EXPECT_NEAR(100 * p.savedShare, 100 * *w.projectedGain, 0.01) << w.name;
        EXPECT_NEAR(p.endToEndSpeedup, 1 / (1 - p.savedShare), 1e-12);
    }
    EXPECT_EQ(withGain, 5);
    // The two ResNet rows publish no gain but the shares are still read.
    EXPECT_FALSE(study.workloads[4].projectedGain.has_value());
    EXPECT_DOUBLE_EQ(study.workloads[4].addressable, 0.461);
}

TEST(Projection, AmdahlSumMatchesTheDomainExample) {
    // DOMAIN.md: a 1.235x kernel on 3% of the run saves 0.57%; on 40%, 7.6%.
    EXPECT_NEAR(100 * amdahlSavedShare({{0.03, 1.235}}), 0.57, 0.005);
    EXPECT_NEAR(100 * amdahlSavedShare({{0.40, 1.235}}), 7.6, 0.05);
    // Two independent operations add up; a slowdown costs time.
    EXPECT_NEAR(amdahlSavedShare({{0.2, 2.0}, {0.1, 0.5}}), 0.2 * 0.5 - 0.1, 1e-15);
    EXPECT_DOUBLE_EQ(amdahlSavedShare({}), 0.0);
    EXPECT_THROW(amdahlSavedShare({{0.1, 0.0}}), std::invalid_argument);
    EXPECT_DOUBLE_EQ(endToEndSpeedup(0.5), 2.0);
    EXPECT_TRUE(std::isinf(endToEndSpeedup(1.0)));
}

TEST(Projection, SummaryIsTheAmdahlSumOverTheWinningShare) {
    Projection p = projectSummary("x", 0.582, 0.417, 1.552);
    EXPECT_NEAR(p.savedShare, amdahlSavedShare({{0.582 * 0.417, 1.552}}), 1e-15);
    EXPECT_THROW(projectSummary("x", 1.2, 0.5, 1.5), std::invalid_argument);
    EXPECT_THROW(projectSummary("x", 0.5, 0.5, 0.0), std::invalid_argument);
    EXPECT_NE(projectionAssumptions().find("independent"), std::string::npos);
    EXPECT_NE(projectionAssumptions().find("baseline"), std::string::npos);
}

TEST(Projection, WallClockBasisIsSavedGpuTimeOverTheSpan) {
    // 13 % busy (the example): a 10 % GPU-time saving of 100 ms of kernels over a 770 ms
    // span saves 10 ms of wall clock = 1.3 %, and says the GPU is mostly idle.
    const WallClock idle{100'000, 100'000, 770'000};
    const Projection p = projectSummary("x", 0.5, 0.4, 2.0, idle);  // saved 0.1 of GPU time
    ASSERT_TRUE(p.wallSavedShare());
    EXPECT_NEAR(*p.wallSavedShare(), 10'000.0 / 770'000.0, 1e-15);
    EXPECT_NEAR(*p.wallEndToEndSpeedup(), 770.0 / 760.0, 1e-12);
    EXPECT_NEAR(idle.busyShare(), 100.0 / 770.0, 1e-15);
    EXPECT_TRUE(idle.mostlyIdle());
    EXPECT_NE(wallClockWarning(idle).find("13.0 %"), std::string::npos) << wallClockWarning(idle);
    // A busy GPU: no warning; the wall clock basis approaches the GPU-time one.
    const WallClock busy{90'000, 90'000, 100'000};
    EXPECT_FALSE(busy.mostlyIdle());
    EXPECT_TRUE(wallClockWarning(busy).empty());
    EXPECT_NEAR(busy.wallShare(0.1), 0.09, 1e-15);
    // Overlapping streams: summed kernel time exceeds busy time, and the wall clock cannot shrink
    // by more than the busy time.
    const WallClock overlap{300'000, 100'000, 200'000};
    EXPECT_NEAR(overlap.wallShare(0.5), 0.5, 1e-15);
    EXPECT_NEAR(overlap.wallShare(0.2), 0.3, 1e-15);
    // Without a span (a published row) there is no second basis.
    EXPECT_FALSE(projectSummary("x", 0.5, 0.4, 2.0).wallSavedShare());
    EXPECT_FALSE(projectSummary("x", 0.5, 0.4, 2.0, WallClock{1, 1, 0}).wall);
}

TEST(PublishedStudy, BadFilesNameTheKey) {
    EXPECT_THROW(readPublishedStudy("/nonexistent/table3.json"), InputError);
    EXPECT_THROW(readPublishedStudy(REACH_DATASETS), InputError);
    try {
        // A rule file is valid JSON but not a study.
        readPublishedStudy(std::string(REACH_SOURCE_DIR) + "/resources/rules/default.json");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.place(), "source");
    }
}

}  // namespace reach_test_projection_test
