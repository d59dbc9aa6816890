#include "core/records/evaluationset.h"

namespace reach {

std::string EvaluationSet::basisText() const {
    if (published)
        return "published summary";
    return basis == CorrectnessBasis::Verified ? "verified winners (passed Reach's verifier)"
                                               : "harness-correct winners (not verified by Reach)";
}

EvaluationSet summarizeRecords(std::string name, std::string origin,
                               std::vector<EvalRecord> records,
                               std::optional<CorrectnessBasis> basis, StatsOptions options) {
    EvaluationSet set;
    set.name = std::move(name);
    set.origin = std::move(origin);
    options.basis = basis.value_or(defaultBasis(records));
    options.intervals = false;
    const RecordStats s =
        computeRecordStats(problemOutcomes(records, options.basis), "all", options);
    set.basis = options.basis;
    set.attempted = s.attempted;
    set.winners = s.winners;
    set.denominator = s.denominator;
    set.medianSpeedup = s.medianSpeedup;
    set.maxSpeedup = s.maxSpeedup;
    set.records = std::move(records);
    return set;
}

EvaluationSet publishedSummary(std::string name, int winners, int denominator,
                               std::optional<double> medianSpeedup,
                               std::optional<double> maxSpeedup) {
    EvaluationSet set;
    set.name = std::move(name);
    set.origin = "published summary";
    set.published = true;
    set.attempted = denominator;
    set.winners = winners;
    set.denominator = denominator;
    set.medianSpeedup = medianSpeedup;
    set.maxSpeedup = maxSpeedup;
    return set;
}

}  // namespace reach
