#include "core/records/recordstats.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

namespace reach {

namespace {

using nlohmann::json;

const char* fastPKey(size_t i) {
    static const char* kKeys[] = {"0", "0.5", "0.8", "1", "1.5", "2"};
    return kKeys[i];
}

json optionalJson(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

std::string groupValue(const ProblemOutcome& u, GroupBy by) {
    switch (by) {
        case GroupBy::Model:
            return u.model;
        case GroupBy::Backend:
            return u.backend;
        case GroupBy::Category:
            return u.category;
        case GroupBy::Level:
            return u.level > 0 ? std::to_string(u.level) : std::string();
        case GroupBy::None:
            break;
    }
    return "all";
}

// Winners among resampled unit values, over the fixed denominator.
double winRateOf(const std::vector<double>& values, int denominator) {
    const auto n = std::count_if(values.begin(), values.end(), [](double v) { return v > 1.0; });
    return denominator > 0 ? static_cast<double>(n) / denominator : 0.0;
}

}  // namespace

std::optional<GroupBy> groupByFromString(std::string_view s) {
    if (s == "none")
        return GroupBy::None;
    if (s == "model")
        return GroupBy::Model;
    if (s == "backend")
        return GroupBy::Backend;
    if (s == "category")
        return GroupBy::Category;
    if (s == "level")
        return GroupBy::Level;
    return std::nullopt;
}

std::string_view groupByKey(GroupBy g) {
    switch (g) {
        case GroupBy::Model:
            return "model";
        case GroupBy::Backend:
            return "backend";
        case GroupBy::Category:
            return "category";
        case GroupBy::Level:
            return "level";
        case GroupBy::None:
            break;
    }
    return "none";
}

std::string_view correctnessBasisKey(CorrectnessBasis b) {
    return b == CorrectnessBasis::Verified ? "verified" : "harness";
}

std::string_view correctnessBasisLabel(CorrectnessBasis b) {
    return b == CorrectnessBasis::Verified ? "verified by Reach" : "correct by the harness";
}

CorrectnessBasis defaultBasis(const std::vector<EvalRecord>& records) {
    const bool verified = std::any_of(records.begin(), records.end(), [](const EvalRecord& r) {
        return r.verification != Verification::Unverified;
    });
    return verified ? CorrectnessBasis::Verified : CorrectnessBasis::Harness;
}

std::vector<ProblemOutcome> problemOutcomes(const std::vector<EvalRecord>& records,
                                            CorrectnessBasis basis) {
    std::vector<ProblemOutcome> units;
    std::map<std::string, size_t> index;
    for (const EvalRecord& r : records) {
        const std::string key = r.suite + '\x1f' + std::to_string(r.level) + '\x1f' + r.problemId +
                                '\x1f' + r.model + '\x1f' + r.backend;
        auto [it, fresh] = index.emplace(key, units.size());
        if (fresh) {
            ProblemOutcome u;
            u.problemId = r.problemId;
            u.problemName = r.problemName;
            u.suite = r.suite;
            u.category = r.category;
            u.model = r.model;
            u.backend = r.backend;
            u.level = r.level;
            units.push_back(u);
        }
        ProblemOutcome& u = units[it->second];
        ++u.samples;
        if (u.category.empty())
            u.category = r.category;
        u.compiled = u.compiled || r.compiled;
        const bool correct = r.correct && (basis == CorrectnessBasis::Harness ||
                                           r.verification == Verification::Passed);
        if (!correct)
            continue;
        u.correct = true;
        if (r.speedup && (!u.bestSpeedup || *r.speedup > *u.bestSpeedup))
            u.bestSpeedup = r.speedup;
    }
    return units;
}

double fastP(const std::vector<ProblemOutcome>& units, double p) {
    if (units.empty())
        return 0.0;
    const auto n = std::count_if(units.begin(), units.end(), [p](const ProblemOutcome& u) {
        return u.correct && u.bestSpeedup && *u.bestSpeedup > p;
    });
    return static_cast<double>(n) / static_cast<double>(units.size());
}

RecordStats computeRecordStats(const std::vector<ProblemOutcome>& units, std::string key,
                               const StatsOptions& options) {
    RecordStats s;
    s.key = key.empty() ? "(none)" : std::move(key);
    s.basis = options.basis;
    s.winThreshold = options.winThreshold;
    s.attempted = static_cast<int>(units.size());
    std::vector<double> correctSpeedups;
    for (const ProblemOutcome& u : units) {
        s.compiled += u.compiled;
        s.correct += u.correct;
        s.unitValues.push_back(u.value());
        if (u.correct && u.bestSpeedup)
            correctSpeedups.push_back(*u.bestSpeedup);
        if (u.isWinner(options.winThreshold))
            s.winnerSpeedups.push_back(*u.bestSpeedup);
    }
    std::sort(s.winnerSpeedups.begin(), s.winnerSpeedups.end());
    s.winners = static_cast<int>(s.winnerSpeedups.size());
    s.denominator = options.denominator.value_or(s.attempted);
    s.winRate = s.denominator > 0 ? static_cast<double>(s.winners) / s.denominator : 0.0;
    if (!s.winnerSpeedups.empty()) {
        s.medianSpeedup = median(s.winnerSpeedups);
        s.geomeanSpeedup = geomean(s.winnerSpeedups);
        s.maxSpeedup = s.winnerSpeedups.back();
    }
    if (!correctSpeedups.empty())
        s.medianSpeedupCorrect = median(correctSpeedups);
    for (size_t i = 0; i < kFastPThresholds.size(); ++i)
        s.fastP[i] = fastP(units, kFastPThresholds[i]);

    // Problems are the resampled unit: the win rate's interval comes from resampling every
    // attempted problem, the median's from resampling the winners (the study's "5 winners").
    if (options.intervals && !s.unitValues.empty()) {
        const int denominator = s.denominator;
        s.winRateCi = bootstrapInterval(
            s.unitValues,
            [denominator](const std::vector<double>& v) { return winRateOf(v, denominator); },
            options.resamples, options.seed, options.level);
    }
    if (options.intervals && !s.winnerSpeedups.empty()) {
        s.medianSpeedupCi = bootstrapInterval(
            s.winnerSpeedups, [](const std::vector<double>& v) { return median(v); },
            options.resamples, options.seed + 1, options.level);
    }
    return s;
}

std::vector<RecordStats> computeGroupedStats(const std::vector<EvalRecord>& records, GroupBy by,
                                             const StatsOptions& options) {
    const std::vector<ProblemOutcome> units = problemOutcomes(records, options.basis);
    if (by == GroupBy::None)
        return {computeRecordStats(units, "all", options)};
    std::map<std::string, std::vector<ProblemOutcome>> groups;
    for (const ProblemOutcome& u : units)
        groups[groupValue(u, by)].push_back(u);
    std::vector<RecordStats> out;
    for (const auto& [key, members] : groups)
        out.push_back(computeRecordStats(members, key, options));
    return out;
}

// Exactly the keys of the CLI contract (issue 5); the denominator and basis are shown in the
// text output and the GUI, not added here.
json recordStatsToJson(const std::vector<RecordStats>& groups) {
    json list = json::array();
    for (const RecordStats& s : groups) {
        json fast = json::object();
        for (size_t i = 0; i < kFastPThresholds.size(); ++i)
            fast[fastPKey(i)] = s.fastP[i];
        json ci = json::object();
        ci["win_rate"] = json::array({s.winRateCi.lo, s.winRateCi.hi});
        ci["median_speedup"] = s.medianSpeedupCi
                                   ? json::array({s.medianSpeedupCi->lo, s.medianSpeedupCi->hi})
                                   : json(nullptr);
        json g = json::object();
        g["key"] = s.key;
        g["attempted"] = s.attempted;
        g["compiled"] = s.compiled;
        g["correct"] = s.correct;
        g["winners"] = s.winners;
        g["win_threshold"] = s.winThreshold;
        g["win_rate"] = s.winRate;
        g["median_speedup"] = optionalJson(s.medianSpeedup);
        g["geomean_speedup"] = optionalJson(s.geomeanSpeedup);
        g["max_speedup"] = optionalJson(s.maxSpeedup);
        g["median_speedup_correct"] = optionalJson(s.medianSpeedupCorrect);
        g["fast_p"] = fast;
        g["ci95"] = ci;
        list.push_back(g);
    }
    return json{{"groups", list}};
}

}  // namespace reach
