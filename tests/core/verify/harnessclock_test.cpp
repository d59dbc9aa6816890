// The judge's figure from its own clock (core/verify/harnessclock.h): the same numbers as the
// KernelBench-format judge's (resources/python/reach_kb/judgetiming.py, tests/python/test_units.py
// reads the same golden file), and what it does with a forged claim or stolen GPU time.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/verify/harnessclock.h"

namespace reach_test_harnessclock_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;

namespace {

RepetitionClock clockOf(const json& j) {
    RepetitionClock c;
    c.totalUs = j.at("total_us").get<std::vector<double>>();
    c.stretchUs = j.at("stretch_us").get<std::vector<double>>();
    c.claimUs = j.at("claim_us").get<std::vector<double>>();
    return c;
}

void expectNear(const std::vector<double>& got, const json& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i].get<double>(), 1e-9) << i;
}

}  // namespace

TEST(HarnessClock, TheSameFiguresAsThePythonJudge) {
    std::ifstream in(std::string(REACH_TEST_DATA) + "/timing/harness_golden.json");
    const json doc = json::parse(in);
    ASSERT_GE(doc["cases"].size(), 3u);
    for (const json& c : doc["cases"]) {
        SCOPED_TRACE(c["name"].get<std::string>());
        const HarnessCalibration cal = calibrateHarness(clockOf(c["trusted"]), c["gpu"]);
        const json& e = c["expect"];
        EXPECT_NEAR(cal.gapUs, e["gap_us"].get<double>(), 1e-9);
        EXPECT_NEAR(cal.stretchUs, e["stretch_us"].get<double>(), 1e-9);
        EXPECT_NEAR(cal.stretchToleranceUs, e["stretch_tolerance_us"].get<double>(), 1e-9);
        expectNear(judgeWindows(clockOf(c["loop"]), cal), e["windows_us"]);
        expectNear(judgeFigures(clockOf(c["loop"]), cal, !c["gpu"].get<bool>()), e["figures_us"]);
    }
}

TEST(HarnessClock, AForgedClaimChangesNoFigure) {
    // The runner claims a tenth of its 3000 us in most calls: the figure is the judge's window.
    RepetitionClock trusted{{3300, 3302, 3301}, {}, {3000, 3000, 3000}};
    const HarnessCalibration cal = calibrateHarness(trusted, false);
    RepetitionClock lying{{3301, 3300, 3303}, {}, {300, 300, 9000}};
    for (double f : judgeFigures(lying, cal))
        EXPECT_NEAR(f, 3000, 5);
    // On a host clock a claim too long only costs the candidate; the median is still 3000.
    const std::vector<double> host = judgeFigures(lying, cal, true);
    EXPECT_NEAR(host[0], 3000, 5);
    EXPECT_EQ(host[2], 9000);
}

TEST(HarnessClock, GpuTimeTakenDuringTheJudgesStretchIsCharged) {
    RepetitionClock trusted{{700, 701, 699}, {400, 401, 399}, {280, 280, 280}};
    const HarnessCalibration cal = calibrateHarness(trusted, true);
    EXPECT_DOUBLE_EQ(cal.stretchToleranceUs, 3.0);  // 3 MADs of 1 us
    // 300 us more stretch than calibrated: the call's own window is 20 us, its figure 300 more.
    RepetitionClock stealing{{740, 740, 740}, {700, 700, 700}, {10, 10, 10}};
    for (double f : judgeFigures(stealing, cal))
        EXPECT_NEAR(f, 40 + 297 - 20, 1e-9);
}

TEST(HarnessClock, ACallShorterThanTheGapIsZeroNeverNegative) {
    // Measured on the H200: a C++ candidate that returned at once read -2.8 us.
    RepetitionClock trusted{{700, 701, 699}, {400, 401, 399}, {280, 280, 280}};
    const HarnessCalibration cal = calibrateHarness(trusted, true);
    RepetitionClock none{{415, 416, 414}, {400, 401, 399}, {0.5, 0.5, 0.5}};
    for (double f : judgeFigures(none, cal))
        EXPECT_EQ(f, 0.0);
}

}  // namespace reach_test_harnessclock_test
