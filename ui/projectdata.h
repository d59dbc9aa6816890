#pragma once

#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/analysis/breakdown.h"
#include "core/base/workload.h"
#include "core/records/evalrecord.h"

namespace reach {

inline QString toQString(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// What the views show, as plain values: the GUI thread owns one copy, background jobs build new
// ones and hand them over whole. Nothing here refers to a widget.

// One row of the breakdown: either a profile read by Reach (classified live with the current
// rule set) or a workload the study published (two shares, nothing to classify).
struct ProjectWorkload {
    QString name;
    QString origin;  // "published, A100", "H200 profile", the file's device, ...
    bool published = false;

    // Measured rows: the profile and its breakdown under the current rule set.
    std::shared_ptr<const Workload> workload;
    std::shared_ptr<const Breakdown> breakdown;

    // Published rows: the study's numbers (fractions).
    double publishedLibraryOptimized = 0;
    double publishedAddressable = 0;
    std::optional<double> publishedGain;

    double addressableShare() const;
    // Compact origin for axis labels: "published, A100", "H200".
    QString shortOrigin() const;
};

// A set of evaluations summarised as the projection needs it. Until measured records exist the
// bundled project uses the study's published benchmark summaries (records stays empty).
struct EvaluationSummary {
    QString name;
    QString origin;  // "published summary", a file name, ...
    int winners = 0;
    int denominator = 0;
    std::optional<double> medianSpeedup;  // of the winners
    std::optional<double> maxSpeedup;
    std::vector<EvalRecord> records;
    // Which winners the numbers count, said next to every projection made from them:
    // "verified winners" once Reach's verifier has judged the set, else the harness's word.
    QString basis = QStringLiteral("published summary");

    double winRate() const { return denominator > 0 ? double(winners) / denominator : 0.0; }
    bool projectable() const { return denominator > 0 && medianSpeedup.has_value(); }
    // Win count, denominator and median of the winners recomputed from records.
    static EvaluationSummary fromRecords(QString name, QString origin,
                                         std::vector<EvalRecord> records);
};

}  // namespace reach
