// Statistics over evaluation records: every number of a small fixed set checked by hand and
// against a golden file, KernelBench's fast_p definition, and seeded bootstrap intervals.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/records/recordimport.h"
#include "core/records/recordstats.h"

namespace reach_test_recordstats_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;

namespace {

const std::string kSmall = std::string(REACH_TEST_DATA) + "/records/small.jsonl";
const std::string kGolden = std::string(REACH_GOLDEN) + "/records/small_stats.json";

const RecordStats& group(const std::vector<RecordStats>& gs, const std::string& key) {
    for (const auto& g : gs) {
        if (g.key == key)
            return g;
    }
    throw std::runtime_error("no group " + key);
}

// Numbers compare to 1e-9 relative so the golden file does not depend on printf rounding.
bool sameJson(const json& a, const json& b) {
    if (a.is_number() && b.is_number()) {
        const double x = a.get<double>(), y = b.get<double>();
        return std::fabs(x - y) <= 1e-9 * std::max(1.0, std::fabs(y));
    }
    if (a.type() != b.type())
        return false;
    if (a.is_object()) {
        if (a.size() != b.size())
            return false;
        for (const auto& [k, v] : a.items()) {
            if (!b.contains(k) || !sameJson(v, b[k]))
                return false;
        }
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size())
            return false;
        for (size_t i = 0; i < a.size(); ++i) {
            if (!sameJson(a[i], b[i]))
                return false;
        }
        return true;
    }
    return a == b;
}

// KernelBench's src/score.py `fastp`, transcribed: over n problems, count those that are
// correct and whose baseline/actual ratio is strictly above p.
double kernelBenchFastp(const std::vector<bool>& correct, const std::vector<double>& baseline,
                        const std::vector<double>& actual, size_t n, double p) {
    size_t count = 0;
    for (size_t i = 0; i < correct.size(); ++i) {
        if (correct[i] && baseline[i] / actual[i] > p)
            ++count;
    }
    return n > 0 ? static_cast<double>(count) / static_cast<double>(n) : 0.0;
}

}  // namespace

TEST(RecordStats, EveryStatisticOfTheSmallSetByHand) {
    const auto records = readReachJsonl(kSmall);
    StatsOptions o;
    o.resamples = 2000;
    const auto all = computeGroupedStats(records, GroupBy::None, o);
    ASSERT_EQ(all.size(), 1u);
    const RecordStats& s = all[0];
    EXPECT_EQ(s.key, "all");
    // Units are (problem, model, backend): model-a tried 6 problems, model-b 4.
    EXPECT_EQ(s.attempted, 10);
    EXPECT_EQ(s.compiled, 8);
    EXPECT_EQ(s.correct, 6);
    EXPECT_EQ(s.winners, 5);  // a:19 (best of 1.25/0.9), 23, 36; b: 1, 23
    EXPECT_DOUBLE_EQ(s.winRate, 0.5);
    EXPECT_DOUBLE_EQ(*s.medianSpeedup, 1.5);  // 1.1 1.25 [1.5] 2 3
    EXPECT_NEAR(*s.geomeanSpeedup, std::pow(1.1 * 1.25 * 1.5 * 2.0 * 3.0, 0.2), 1e-12);
    EXPECT_DOUBLE_EQ(*s.maxSpeedup, 3.0);
    EXPECT_NEAR(*s.medianSpeedupCorrect, (1.25 + 1.5) / 2, 1e-12);  // 0.8 1.1 1.25 1.5 2 3
    const double expectedFast[] = {0.6, 0.6, 0.5, 0.5, 0.2, 0.1};   // 0.8 is not > 0.8
    for (size_t i = 0; i < kFastPThresholds.size(); ++i) {
        EXPECT_NEAR(s.fastP[i], expectedFast[i], 1e-12) << "p=" << kFastPThresholds[i];
    }
    EXPECT_LE(s.winRateCi.lo, s.winRate);
    EXPECT_GE(s.winRateCi.hi, s.winRate);
    ASSERT_TRUE(s.medianSpeedupCi);
    EXPECT_GE(s.medianSpeedupCi->lo, 1.1);
    EXPECT_LE(s.medianSpeedupCi->hi, 3.0);

    const auto byModel = computeGroupedStats(records, GroupBy::Model, o);
    ASSERT_EQ(byModel.size(), 2u);
    const RecordStats& a = group(byModel, "model-a");
    EXPECT_EQ(a.attempted, 6);
    EXPECT_EQ(a.compiled, 5);
    EXPECT_EQ(a.correct, 4);
    EXPECT_EQ(a.winners, 3);
    EXPECT_NEAR(*a.geomeanSpeedup, std::cbrt(1.25 * 2.0 * 1.5), 1e-12);
    EXPECT_NEAR(a.fastP[4], 1.0 / 6, 1e-12);
    const RecordStats& b = group(byModel, "model-b");
    EXPECT_EQ(b.attempted, 4);
    EXPECT_NEAR(*b.medianSpeedup, 2.05, 1e-12);
    EXPECT_NEAR(b.fastP[5], 0.25, 1e-12);

    const auto byCategory = computeGroupedStats(records, GroupBy::Category, o);
    EXPECT_EQ(group(byCategory, "normalization").attempted, 3);  // a:36, a:40, b:36
    EXPECT_EQ(group(byCategory, "normalization").winners, 1);
    EXPECT_EQ(computeGroupedStats(records, GroupBy::Level, o).at(0).key, "1");
}

TEST(RecordStats, EditableDenominatorAndVerifiedBasis) {
    const auto records = readReachJsonl(kSmall);
    StatsOptions o;
    o.resamples = 500;
    o.denominator = 56;
    const auto s = computeGroupedStats(records, GroupBy::None, o).at(0);
    EXPECT_EQ(s.denominator, 56);
    EXPECT_NEAR(s.winRate, 5.0 / 56, 1e-12);
    EXPECT_NEAR(s.fastP[3], 0.5, 1e-12);  // fast_p keeps KernelBench's n = attempted

    // Verified basis: a:23 failed Reach's verifier and a:36 was never verified.
    o.denominator.reset();
    o.basis = CorrectnessBasis::Verified;
    const auto v = computeGroupedStats(records, GroupBy::None, o).at(0);
    EXPECT_EQ(v.correct, 4);  // a:1, a:19 (sample 0), b:1, b:23
    EXPECT_EQ(v.winners, 3);  // a:19 1.25, b:1 1.1, b:23 3.0
    EXPECT_DOUBLE_EQ(*v.medianSpeedup, 1.25);
}

TEST(RecordStats, GoldenJson) {
    const auto records = readReachJsonl(kSmall);
    StatsOptions o;
    o.resamples = 2000;
    o.seed = 7;
    json doc = recordStatsToJson(computeGroupedStats(records, GroupBy::None, o));
    const json byModel = recordStatsToJson(computeGroupedStats(records, GroupBy::Model, o));
    for (const auto& g : byModel["groups"])
        doc["groups"].push_back(g);
    std::ifstream in(kGolden);
    const json golden = in ? json::parse(in, nullptr, false) : json();
    if (!sameJson(doc, golden)) {
        std::ofstream(kGolden + ".actual") << doc.dump(2) << "\n";
        FAIL() << "statistics differ from " << kGolden << "; wrote " << kGolden << ".actual";
    }
    // The contract's keys, exactly.
    const std::vector<std::string> keys = {"key",
                                           "attempted",
                                           "compiled",
                                           "correct",
                                           "winners",
                                           "win_threshold",
                                           "win_rate",
                                           "median_speedup",
                                           "geomean_speedup",
                                           "max_speedup",
                                           "median_speedup_correct",
                                           "fast_p",
                                           "ci95"};
    for (const auto& g : doc["groups"]) {
        EXPECT_EQ(g.size(), keys.size());
        for (const auto& k : keys)
            EXPECT_TRUE(g.contains(k)) << k;
        for (const char* p : {"0", "0.5", "0.8", "1", "1.5", "2"})
            EXPECT_TRUE(g["fast_p"].contains(p));
        EXPECT_EQ(g["ci95"]["win_rate"].size(), 2u);
    }
}

// A win is a best correct speedup above the threshold: 1.1x and 1.25x count at 1.0, not at 1.3.
TEST(RecordStats, WinThresholdDecidesWhatCountsAsAWin) {
    const auto records = readReachJsonl(kSmall);
    StatsOptions o;
    o.intervals = false;
    const RecordStats any = computeGroupedStats(records, GroupBy::None, o).front();
    o.winThreshold = 1.3;
    const RecordStats above = computeGroupedStats(records, GroupBy::None, o).front();
    EXPECT_EQ(any.winners, 5);
    EXPECT_EQ(above.winners, 3);
    EXPECT_DOUBLE_EQ(*above.medianSpeedup, 2.0);
    EXPECT_DOUBLE_EQ(above.winThreshold, 1.3);
    EXPECT_TRUE(isWin(1.31, true, 1.3));
    EXPECT_FALSE(isWin(1.3, true, 1.3));
    EXPECT_FALSE(isWin(2.0, false, 1.3));
}

TEST(RecordStats, BootstrapIsReproducibleWithASeed) {
    const auto records = readReachJsonl(kSmall);
    StatsOptions o;
    o.resamples = 3000;
    o.seed = 12345;
    const auto x = computeGroupedStats(records, GroupBy::None, o).at(0);
    const auto y = computeGroupedStats(records, GroupBy::None, o).at(0);
    EXPECT_EQ(x.winRateCi.lo, y.winRateCi.lo);
    EXPECT_EQ(x.winRateCi.hi, y.winRateCi.hi);
    EXPECT_EQ(x.medianSpeedupCi->lo, y.medianSpeedupCi->lo);
    EXPECT_EQ(x.medianSpeedupCi->hi, y.medianSpeedupCi->hi);
    // The interval is a real spread: 5 of 10 problems won.
    EXPECT_LT(x.winRateCi.lo, 0.5);
    EXPECT_GT(x.winRateCi.hi, 0.5);
    // Another seed draws other resamples. With few resamples the interpolated percentiles of the
    // winners' median move with the draws; over several seeds the bounds must move.
    bool moved = false;
    o.resamples = 20;
    const auto few = computeGroupedStats(records, GroupBy::None, o).at(0);
    const auto fewAgain = computeGroupedStats(records, GroupBy::None, o).at(0);
    EXPECT_EQ(few.medianSpeedupCi->lo, fewAgain.medianSpeedupCi->lo);
    EXPECT_EQ(few.medianSpeedupCi->hi, fewAgain.medianSpeedupCi->hi);
    for (uint64_t seed = 1; seed <= 20 && !moved; ++seed) {
        o.seed = seed;
        const auto z = computeGroupedStats(records, GroupBy::None, o).at(0);
        moved = z.medianSpeedupCi->lo != few.medianSpeedupCi->lo ||
                z.medianSpeedupCi->hi != few.medianSpeedupCi->hi;
    }
    EXPECT_TRUE(moved);
}

TEST(RecordStats, FastPEqualsKernelBenchDefinition) {
    // KernelBench's own unit test (tests/test_score.py): is_correct [1,0,1,1,0], baseline
    // [0.1,0.15,0.2,0.05,0.3], actual [0.2,0.15,0.3,0.01,0.2] -> fast_1 = 0.2, fast_0.5 = 0.4.
    const std::vector<bool> correct = {true, false, true, true, false};
    const std::vector<double> baseline = {0.1, 0.15, 0.2, 0.05, 0.3};
    const std::vector<double> actual = {0.2, 0.15, 0.3, 0.01, 0.2};
    std::vector<EvalRecord> records;
    for (size_t i = 0; i < correct.size(); ++i) {
        EvalRecord r;
        r.problemId = std::to_string(i + 1);
        r.compiled = true;
        r.correct = correct[i];
        r.candidateTimeUs = actual[i] * 1000;
        r.baselineEagerUs = baseline[i] * 1000;
        finishRecord(r, "kernelbench-test", "record " + std::to_string(i + 1));
        records.push_back(r);
    }
    const auto units = problemOutcomes(records, CorrectnessBasis::Harness);
    EXPECT_NEAR(fastP(units, 1.0), 0.2, 1e-12);
    EXPECT_NEAR(fastP(units, 0.5), 0.4, 1e-12);
    for (double p : {0.0, 0.5, 0.8, 1.0, 1.5, 2.0, 3.0, 5.0}) {
        EXPECT_NEAR(fastP(units, p), kernelBenchFastp(correct, baseline, actual, 5, p), 1e-12) << p;
    }
}

}  // namespace reach_test_recordstats_test
