#include "projectdata.h"

#include <algorithm>
#include <map>

#include "core/analysis/statistics.h"

namespace reach {

double ProjectWorkload::addressableShare() const {
    if (published || !breakdown)
        return publishedAddressable;
    return breakdown->share(Category::Addressable);
}

QString ProjectWorkload::shortOrigin() const {
    if (published)
        return origin;
    QString s = origin;
    if (s.startsWith(QLatin1String("NVIDIA ")))
        s = s.mid(7);
    return s;
}

EvaluationSummary EvaluationSummary::fromRecords(QString name, QString origin,
                                                 std::vector<EvalRecord> records) {
    EvaluationSummary set;
    set.name = std::move(name);
    set.origin = std::move(origin);
    // The study counts problems, not samples: a problem is won when any of its candidates is a
    // verified winner, and the winner's speedup is the best one found for it.
    // When Reach's verifier has judged any record of the set, only candidates it passed count:
    // a harness's "correct" is what the study found fooled by zeros and half-written outputs.
    const bool verified = std::any_of(records.begin(), records.end(), [](const EvalRecord& r) {
        return r.verification != Verification::Unverified;
    });
    set.basis = verified ? QStringLiteral("verified winners (passed Reach's verifier)")
                         : QStringLiteral("harness-correct winners (not verified by Reach)");
    std::map<std::string, double> best;  // problem -> best winning speedup (0: no win)
    for (const EvalRecord& r : records) {
        double& b = best[r.suite + "/" + r.problemId];
        if (r.isWinner() && (!verified || r.verification == Verification::Passed))
            b = std::max(b, *r.speedup);
    }
    std::vector<double> winners;
    for (const auto& [problem, speedup] : best) {
        if (speedup > 0)
            winners.push_back(speedup);
    }
    set.winners = int(winners.size());
    set.denominator = int(best.size());
    if (!winners.empty()) {
        set.maxSpeedup = *std::max_element(winners.begin(), winners.end());
        set.medianSpeedup = median(winners);
    }
    set.records = std::move(records);
    return set;
}

}  // namespace reach
