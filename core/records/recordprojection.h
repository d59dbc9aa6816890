#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/analysis/projection.h"
#include "core/analysis/statistics.h"
#include "core/records/evalrecord.h"
#include "core/records/recordstats.h"

namespace reach {

struct Breakdown;

// Share of a workload's GPU time in one kernel family (softmax, norm, embedding, ...).
struct FamilyShare {
    std::string family;
    double share = 0;
};

// The addressable kernels' time by family, as shares of the workload's GPU time. Addressable
// kernels without a family appear under "addressable". Largest first.
std::vector<FamilyShare> addressableFamilyShares(const Breakdown& breakdown);

// Profile family -> record operator category (docs/records.md). Families with no entry (or no
// records of their category) keep the baseline: no gain is claimed for them.
const std::map<std::string, std::string>& defaultFamilyCategories();

struct RecordProjectionOptions {
    // Verified: only records Reach's verifier passed count as correct (the default: a projection
    // should rest on evidence); Harness: the harness's claim.
    CorrectnessBasis basis = CorrectnessBasis::Verified;
    std::optional<int> denominator;  // for the summary win rate; attempted problems when unset
    std::map<std::string, std::string> familyCategories = defaultFamilyCategories();
    int resamples = 10000;
    uint64_t seed = 20260929;
    double level = 0.95;
};

struct FamilyProjectionRow {
    std::string family;
    std::string category;  // empty when the family maps to none
    double share = 0;
    int problems = 0;  // attempted units of that category in the records
    int winners = 0;
    // 1 / mean(1 / max(1, speedup)) over the category's problems: the expected speedup of a
    // family kernel replaced by a randomly drawn problem's outcome (failures keep the baseline).
    double effectiveSpeedup = 1;
    double savedShare = 0;  // share * (1 - 1/effectiveSpeedup)
};

struct RecordProjection {
    std::string workload;
    double addressableShare = 0;
    CorrectnessBasis basis = CorrectnessBasis::Verified;
    // (a) the study's summary: A * w * (1 - 1/m) with the records' win rate and median.
    int attempted = 0, winners = 0, denominator = 0;
    double winRate = 0;
    std::optional<double> medianSpeedup;
    double summarySaved = 0;
    Interval summarySavedCi{0, 0};
    double summaryEndToEnd = 1;
    // (b) per family, exact Amdahl over the families' own categories.
    std::vector<FamilyProjectionRow> families;
    double familySaved = 0;
    Interval familySavedCi{0, 0};
    double familyEndToEnd = 1;
    double unmatchedShare = 0;  // addressable share whose family has no records
    // The profile's clock (from a Breakdown with a span): both savings also on the wall clock.
    std::optional<WallClock> wall;
};

RecordProjection projectFromRecords(std::string workload, double addressableShare,
                                    const std::vector<FamilyShare>& families,
                                    const std::vector<EvalRecord>& records,
                                    const RecordProjectionOptions& options = {});
RecordProjection projectFromRecords(const Breakdown& breakdown,
                                    const std::vector<EvalRecord>& records,
                                    const RecordProjectionOptions& options = {});

nlohmann::json recordProjectionToJson(const RecordProjection& projection);

}  // namespace reach
