#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/records/evalrecord.h"
#include "core/records/recordstats.h"

namespace reach {

// One evaluation set as every view and subcommand sees it: its records and the summary the
// projection needs (winners over attempted problems, the median speedup of the winners), or a
// summary published without records. The summary is computed by summarizeRecords, the one
// implementation the GUI and `reach-cli speedups` share.
struct EvaluationSet {
    std::string name;
    std::string origin;  // "published summary", a file or folder, a project's record set
    std::vector<EvalRecord> records;
    std::optional<int64_t> storeId;  // the record set's id in the open .reach project
    bool published = false;          // a published summary: no records behind the numbers

    int attempted = 0;  // attempted units: a problem as one model/backend attempted it
    int winners = 0;
    int denominator = 0;
    std::optional<double> medianSpeedup;  // of the winners
    std::optional<double> maxSpeedup;
    CorrectnessBasis basis = CorrectnessBasis::Harness;

    double winRate() const { return denominator > 0 ? double(winners) / denominator : 0.0; }
    bool projectable() const { return denominator > 0 && medianSpeedup.has_value(); }
    // Which winners the numbers count, said next to every projection made from them.
    std::string basisText() const;
};

// The summary of records, exactly as `reach-cli speedups` computes its ungrouped "all" group
// (core/records/recordstats.h: a problem counts once per model/backend, by its best correct
// sample). The basis is defaultBasis(records) unless given; the denominator the attempted count
// unless options give one. No bootstrap intervals (options.intervals is ignored).
EvaluationSet summarizeRecords(std::string name, std::string origin,
                               std::vector<EvalRecord> records,
                               std::optional<CorrectnessBasis> basis = std::nullopt,
                               StatsOptions options = {});

// A benchmark summary published without records (the study's KernelBench and DLRM-Bench rows).
EvaluationSet publishedSummary(std::string name, int winners, int denominator,
                               std::optional<double> medianSpeedup,
                               std::optional<double> maxSpeedup);

}  // namespace reach
