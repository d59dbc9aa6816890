#include "core/records/recordprojection.h"

#include <algorithm>
#include <random>

#include <nlohmann/json.hpp>

#include "core/analysis/breakdown.h"
#include "core/analysis/projection.h"

namespace reach {

namespace {

using nlohmann::json;

// The study's summary gain for one (re)sample of problem values over a fixed denominator;
// no winners means no gain (the win rate is 0).
double summaryGain(const std::vector<double>& values, int denominator, double A) {
    std::vector<double> wins;
    for (double v : values) {
        if (v > 1.0)
            wins.push_back(v);
    }
    if (wins.empty() || denominator <= 0)
        return 0.0;
    const double w = static_cast<double>(wins.size()) / denominator;
    return A * w * (1.0 - 1.0 / median(wins));
}

// mean(1/max(1, v)): the expected time ratio of a kernel replaced by a drawn outcome.
double meanTimeRatio(const std::vector<double>& values) {
    double sum = 0;
    for (double v : values)
        sum += 1.0 / std::max(1.0, v);
    return sum / static_cast<double>(values.size());
}

json intervalJson(const Interval& i) {
    return json::array({i.lo, i.hi});
}

}  // namespace

const std::map<std::string, std::string>& defaultFamilyCategories() {
    static const std::map<std::string, std::string> kMap = {
        {"gemm", "matmul"},         {"gemv", "matmul"},     {"attention", "attention"},
        {"conv", "conv"},           {"cudnn", "conv"},      {"elementwise", "elementwise"},
        {"norm", "normalization"},  {"softmax", "softmax"}, {"reduction", "reduction"},
        {"embedding", "embedding"}, {"pooling", "pooling"}, {"concat", "concat"},
        {"loss", "loss"},           {"sort_scan", "scan"},  {"optimizer", "elementwise"},
        {"rope", "elementwise"}};
    return kMap;
}

std::vector<FamilyShare> addressableFamilyShares(const Breakdown& b) {
    std::map<std::string, double> us;
    for (const ClassifiedKernel& k : b.kernels) {
        if (k.category != Category::Addressable)
            continue;
        us[k.family.empty() ? std::string(categoryKey(Category::Addressable)) : k.family] +=
            k.stats.totalUs;
    }
    std::vector<FamilyShare> out;
    for (const auto& [family, t] : us) {
        out.push_back({family, b.gpuTimeUs > 0 ? t / b.gpuTimeUs : 0.0});
    }
    std::sort(out.begin(), out.end(),
              [](const FamilyShare& a, const FamilyShare& c) { return a.share > c.share; });
    return out;
}

RecordProjection projectFromRecords(std::string workload, double A,
                                    const std::vector<FamilyShare>& families,
                                    const std::vector<EvalRecord>& records,
                                    const RecordProjectionOptions& options) {
    RecordProjection p;
    p.workload = std::move(workload);
    p.addressableShare = A;
    p.basis = options.basis;
    const std::vector<ProblemOutcome> units = problemOutcomes(records, options.basis);

    // (a) Summary.
    StatsOptions so;
    so.denominator = options.denominator;
    so.basis = options.basis;
    so.resamples = options.resamples;
    so.seed = options.seed;
    so.level = options.level;
    std::vector<double> values;
    for (const auto& u : units)
        values.push_back(u.value());
    p.attempted = static_cast<int>(units.size());
    p.denominator = options.denominator.value_or(p.attempted);
    p.winners = static_cast<int>(
        std::count_if(values.begin(), values.end(), [](double v) { return v > 1.0; }));
    p.winRate = p.denominator > 0 ? static_cast<double>(p.winners) / p.denominator : 0.0;
    if (p.winners > 0) {
        std::vector<double> wins;
        for (double v : values) {
            if (v > 1.0)
                wins.push_back(v);
        }
        p.medianSpeedup = median(wins);
        p.summarySaved =
            projectSummary(p.workload, A, std::min(1.0, p.winRate), *p.medianSpeedup).savedShare;
    }
    p.summaryEndToEnd = endToEndSpeedup(p.summarySaved);
    if (!values.empty()) {
        const int d = p.denominator;
        p.summarySavedCi = bootstrapInterval(
            values, [d, A](const std::vector<double>& v) { return summaryGain(v, d, A); },
            options.resamples, options.seed, options.level);
    }

    // (b) Per family: each family's kernels take the outcome distribution of its category.
    std::map<std::string, std::vector<double>> byCategory;
    for (const auto& u : units) {
        if (!u.category.empty())
            byCategory[u.category].push_back(u.value());
    }
    std::vector<std::pair<double, double>> amdahl;
    for (const FamilyShare& f : families) {
        FamilyProjectionRow row;
        row.family = f.family;
        row.share = f.share;
        if (auto it = options.familyCategories.find(f.family);
            it != options.familyCategories.end()) {
            row.category = it->second;
        }
        auto cat = byCategory.find(row.category);
        if (row.category.empty() || cat == byCategory.end()) {
            p.unmatchedShare += f.share;
        } else {
            row.problems = static_cast<int>(cat->second.size());
            row.winners = static_cast<int>(std::count_if(cat->second.begin(), cat->second.end(),
                                                         [](double v) { return v > 1.0; }));
            row.effectiveSpeedup = 1.0 / meanTimeRatio(cat->second);
        }
        row.savedShare = row.share * (1.0 - 1.0 / row.effectiveSpeedup);
        amdahl.emplace_back(row.share, row.effectiveSpeedup);
        p.families.push_back(row);
    }
    p.familySaved = amdahl.empty() ? 0.0 : amdahlSavedShare(amdahl);
    p.familyEndToEnd = endToEndSpeedup(p.familySaved);

    // Interval for (b): resample the problems of every category independently, together, within
    // the bootstrap's work bound (core/analysis/statistics.h).
    size_t drawsPerResample = 0;
    for (const auto& [category, vals] : byCategory)
        drawsPerResample += vals.size();
    const int resamples = bootstrapResamples(options.resamples, drawsPerResample);
    std::mt19937_64 rng(options.seed + 7);
    std::vector<double> draws;
    draws.reserve(static_cast<size_t>(std::max(0, resamples)));
    std::vector<double> resampled;
    for (int r = 0; r < resamples; ++r) {
        std::map<std::string, double> ratio;
        for (const auto& [category, vals] : byCategory) {
            resampled.assign(vals.size(), 0.0);
            for (double& x : resampled)
                x = vals[drawIndex(rng, vals.size())];
            ratio[category] = meanTimeRatio(resampled);
        }
        double saved = 0;
        for (const auto& row : p.families) {
            if (auto it = ratio.find(row.category); it != ratio.end() && !row.category.empty()) {
                saved += row.share * (1.0 - it->second);
            }
        }
        draws.push_back(saved);
    }
    if (!draws.empty()) {
        p.familySavedCi = {quantile(draws, (1.0 - options.level) / 2.0),
                           quantile(draws, (1.0 + options.level) / 2.0)};
    } else {
        p.familySavedCi = {p.familySaved, p.familySaved};
    }
    return p;
}

RecordProjection projectFromRecords(const Breakdown& breakdown,
                                    const std::vector<EvalRecord>& records,
                                    const RecordProjectionOptions& options) {
    RecordProjection p =
        projectFromRecords(breakdown.workload, breakdown.share(Category::Addressable),
                           addressableFamilyShares(breakdown), records, options);
    const WallClock clock{breakdown.gpuTimeUs, breakdown.busyTimeUs, breakdown.spanUs};
    if (clock.known())
        p.wall = clock;
    return p;
}

namespace {
// A saving of GPU time on the second basis, the profiled wall clock (null without a span).
json wallJson(const std::optional<WallClock>& wall, double savedShareOfGpu) {
    return wall ? json(wall->wallShare(savedShareOfGpu)) : json(nullptr);
}
}  // namespace

json recordProjectionToJson(const RecordProjection& p) {
    json fam = json::array();
    for (const auto& f : p.families) {
        fam.push_back({{"family", f.family},
                       {"category", f.category},
                       {"share", f.share},
                       {"problems", f.problems},
                       {"winners", f.winners},
                       {"effective_speedup", f.effectiveSpeedup},
                       {"saved_share", f.savedShare}});
    }
    return json{{"workload", p.workload},
                {"basis", std::string(correctnessBasisLabel(p.basis))},
                {"addressable_share", p.addressableShare},
                {"summary",
                 {{"attempted", p.attempted},
                  {"winners", p.winners},
                  {"denominator", p.denominator},
                  {"win_rate", p.winRate},
                  {"median_speedup", p.medianSpeedup ? json(*p.medianSpeedup) : json(nullptr)},
                  {"saved_share", p.summarySaved},
                  {"end_to_end_speedup", p.summaryEndToEnd},
                  {"saved_share_of_wall_clock", wallJson(p.wall, p.summarySaved)},
                  {"ci95", intervalJson(p.summarySavedCi)}}},
                {"per_family",
                 {{"families", fam},
                  {"saved_share", p.familySaved},
                  {"end_to_end_speedup", p.familyEndToEnd},
                  {"unmatched_share", p.unmatchedShare},
                  {"saved_share_of_wall_clock", wallJson(p.wall, p.familySaved)},
                  {"ci95", intervalJson(p.familySavedCi)}}},
                {"busy_share_of_span", p.wall ? json(p.wall->busyShare()) : json(nullptr)},
                {"warning",
                 p.wall && p.wall->mostlyIdle() ? json(wallClockWarning(*p.wall)) : json(nullptr)},
                {"assumptions", projectionAssumptions()}};
}

}  // namespace reach
