#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/analysis/statistics.h"
#include "core/records/evalrecord.h"

namespace reach {

enum class GroupBy { None, Model, Backend, Category, Level };
std::optional<GroupBy> groupByFromString(std::string_view s);  // none|model|backend|category|level
std::string_view groupByKey(GroupBy g);

// Which "correct" the statistics count: the harness's claim, or only what Reach's verifier
// passed. The projection can use only verified winners and says which basis it used.
enum class CorrectnessBasis { Harness, Verified };
std::string_view correctnessBasisLabel(CorrectnessBasis b);
std::string_view correctnessBasisKey(CorrectnessBasis b);  // "verified" or "harness"
// The basis a set's summary uses unless told otherwise: once Reach's verifier has judged any of
// its records, only what it passed counts (a harness's "correct" is what the study found fooled
// by zeros and half-written outputs); otherwise the harness's word.
CorrectnessBasis defaultBasis(const std::vector<EvalRecord>& records);

// KernelBench's thresholds: fast_p = share of attempted problems correct with speedup > p.
inline constexpr std::array<double, 6> kFastPThresholds = {0.0, 0.5, 0.8, 1.0, 1.5, 2.0};

struct StatsOptions {
    // Win-rate denominator, the same for every group; the attempted count when unset. The study
    // used 56 = 60 Level 1 problems minus 4 whose check cannot tell right from wrong.
    std::optional<int> denominator;
    CorrectnessBasis basis = CorrectnessBasis::Harness;
    int resamples = 10000;
    uint64_t seed = 20260929;
    double level = 0.95;
    // Bootstrap intervals cost resamples x units; a summary that shows none skips them.
    bool intervals = true;
    // What counts as a win: a best correct speedup above this factor. 1.0 counts any speedup;
    // 1.05 leaves out what timing noise can make of an unchanged kernel. The GUI's threshold
    // box and `reach-cli speedups/figure --win-threshold` both set it here.
    double winThreshold = 1.0;
};

// Whether a best correct speedup is a win at `threshold` (StatsOptions::winThreshold): the one
// definition the statistics, the legend and the table share.
inline bool isWin(std::optional<double> bestSpeedup, bool correct, double threshold = 1.0) {
    return correct && bestSpeedup && *bestSpeedup > threshold;
}

// One attempted unit: a problem as one model/backend attempted it, over all its samples. The best
// correct sample (largest speedup) represents it, as a user would ship the best kernel found.
struct ProblemOutcome {
    std::string problemId, problemName, suite, category, model, backend;
    int level = 0;
    int samples = 0;
    bool compiled = false;
    bool correct = false;
    std::optional<double> bestSpeedup;  // over correct samples with a speedup
    bool isWinner(double threshold = 1.0) const { return isWin(bestSpeedup, correct, threshold); }
    // Value for resampling: the best correct speedup, 0 when not correct or untimed.
    double value() const { return correct && bestSpeedup ? *bestSpeedup : 0.0; }
};

struct RecordStats {
    std::string key;  // the group's value ("all" when ungrouped, "(none)" when empty)
    int attempted = 0, compiled = 0, correct = 0, winners = 0;
    int denominator = 0;
    double winRate = 0;
    std::optional<double> medianSpeedup, geomeanSpeedup, maxSpeedup;  // of the winners
    std::optional<double> medianSpeedupCorrect;                       // of all correct, timed
    std::array<double, kFastPThresholds.size()> fastP{};
    Interval winRateCi{0, 0};
    std::optional<Interval> medianSpeedupCi;
    CorrectnessBasis basis = CorrectnessBasis::Harness;
    std::vector<double> winnerSpeedups;  // ascending
    std::vector<double> unitValues;      // ProblemOutcome::value() per attempted unit
    double winThreshold = 1.0;           // what counted as a win (StatsOptions)
};

// Samples -> attempted units, in first-seen order. Units are keyed by (suite, level, problem,
// model, backend).
std::vector<ProblemOutcome> problemOutcomes(const std::vector<EvalRecord>& records,
                                            CorrectnessBasis basis);

RecordStats computeRecordStats(const std::vector<ProblemOutcome>& units, std::string key,
                               const StatsOptions& options);
// One entry when ungrouped; otherwise one per group value, sorted by key.
std::vector<RecordStats> computeGroupedStats(const std::vector<EvalRecord>& records, GroupBy by,
                                             const StatsOptions& options);

// KernelBench's fast_p (src/score.py `fastp`): correct and speedup > p, over n attempted.
double fastP(const std::vector<ProblemOutcome>& units, double p);

// The `reach-cli speedups --json` document: {"groups":[{...}]}.
nlohmann::json recordStatsToJson(const std::vector<RecordStats>& groups);

}  // namespace reach
