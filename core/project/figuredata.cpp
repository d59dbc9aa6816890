#include "core/project/figuredata.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "core/analysis/projection.h"
#include "core/base/csv.h"

namespace reach {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Shortest text that reads back as the same double, so the CSV equals the plotted values.
std::string number(double v) {
    if (std::isnan(v))
        return "nan";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

}  // namespace

std::string figureTableCsv(const FigureTable& table) {
    std::string out;
    for (size_t i = 0; i < table.columns.size(); ++i)
        out += (i ? "," : "") + csvField(table.columns[i]);
    out += "\n";
    for (const auto& row : table.rows) {
        for (size_t i = 0; i < row.size(); ++i) {
            if (i)
                out += ",";
            if (const auto* s = std::get_if<std::string>(&row[i]))
                out += csvField(*s);
            else
                out += number(std::get<double>(row[i]));
        }
        out += "\n";
    }
    return out;
}

BreakdownBar breakdownBar(const ProjectWorkload& w, bool span) {
    BreakdownBar bar;
    bar.opShare.fill(kNaN);
    if (w.published || !w.breakdown) {
        bar.ms.fill(kNaN);
        bar.totalMs = kNaN;
        if (span) {
            // Published rows are shares of GPU time with no profiled span: nothing is drawn on
            // the wall-clock axis (the view and the figure say so instead).
            bar.spanUnknown = true;
            return bar;
        }
        bar.share = {w.publishedLibraryOptimized, w.publishedAddressable, 0, 0};
        bar.unsplit = std::max(0.0, 1.0 - w.publishedLibraryOptimized - w.publishedAddressable);
        return bar;
    }
    const Breakdown& b = *w.breakdown;
    // Span mode: streams can overlap, so the summed category times are scaled onto the busy
    // time before dividing by the span; what is left of the span is idle.
    const double denominator = span ? b.spanUs : b.gpuTimeUs;
    const double scale = (span && b.gpuTimeUs > 0) ? b.busyTimeUs / b.gpuTimeUs : 1.0;
    for (Category c : kCategories) {
        const size_t i = size_t(c);
        bar.ms[i] = b.categoryUs[i] / 1000.0;
        bar.share[i] = denominator > 0 ? b.categoryUs[i] * scale / denominator : 0.0;
        // The operator-based split on the same axis as the name-based one: in span mode a
        // share of the wall clock too (it was drawn as a share of GPU time on the wall-clock
        // axis: DLRM's name bar stopped at 36 %, its operator bar at 100 %, issue 40).
        if (b.hasOpSplit && denominator > 0)
            bar.opShare[i] = b.opCategoryUs[i] * scale / denominator;
    }
    bar.hasOpSplit = b.hasOpSplit;
    if (span && b.spanUs > 0)
        bar.idle = std::max(0.0, 1.0 - b.busyTimeUs / b.spanUs);
    bar.totalMs = denominator / 1000.0;
    return bar;
}

FigureTable breakdownFigureTable(const std::vector<ProjectWorkload>& workloads, bool span) {
    FigureTable t;
    const std::string of = span ? "_share_of_span" : "_share_of_gpu_time";
    // "label": what the axis calls the row (RowLabel: short name and GPU); the whole name and
    // device beside it.
    t.columns = {"label", "workload", "origin"};
    for (Category c : kCategories)
        t.columns.push_back(std::string(categoryKey(c)) + of);
    t.columns.push_back(span ? "idle_share_of_span" : "not_split_by_study_share");
    t.columns.push_back(span ? "span_ms" : "gpu_time_ms");
    t.columns.push_back("rules");
    const std::vector<RowLabel> labels = rowLabels(workloads);
    for (size_t i = 0; i < workloads.size(); ++i) {
        const ProjectWorkload& w = workloads[i];
        const BreakdownBar bar = breakdownBar(w, span);
        // Cells built in place (emplace_back of a double or a string): GCC 12 warned
        // -Wmaybe-uninitialized about moving a temporary variant<string, double> into the row.
        std::vector<FigureTable::Cell> row;
        row.reserve(t.columns.size());
        row.emplace_back(std::in_place_type<std::string>, labels[i].text());
        row.emplace_back(std::in_place_type<std::string>, w.name);
        row.emplace_back(std::in_place_type<std::string>, w.origin);
        for (Category c : kCategories)
            row.emplace_back(std::in_place_type<double>,
                             bar.spanUnknown ? kNaN : bar.share[size_t(c)]);
        row.emplace_back(std::in_place_type<double>,
                         span ? (bar.spanUnknown ? kNaN : bar.idle) : bar.unsplit);
        row.emplace_back(std::in_place_type<double>, bar.totalMs);
        row.emplace_back(std::in_place_type<std::string>,
                         w.breakdown
                             ? w.breakdown->rulesName + " " + w.breakdown->rulesHash.substr(0, 12)
                             : std::string("as published"));
        t.add(std::move(row));
    }
    return t;
}

FigureTable projectionFigureTable(const std::vector<ProjectWorkload>& workloads, double w,
                                  double m) {
    FigureTable t;
    t.columns = {"label",
                 "workload",
                 "origin",
                 "addressable_share_of_gpu_time",
                 "win_rate",
                 "median_speedup",
                 "projected_gain_percent",
                 "end_to_end_speedup_x",
                 "busy_share_of_span",
                 "projected_gain_percent_of_wall_clock",
                 "end_to_end_speedup_wall_x"};
    const std::vector<RowLabel> labels = rowLabels(workloads);
    for (size_t i = 0; i < workloads.size(); ++i) {
        const ProjectWorkload& entry = workloads[i];
        // Both bases; published rows have no span: their wall-clock columns are empty (NaN).
        const Projection p = projectWorkload(entry, w, m);
        const auto wall = p.wallSavedShare();
        t.add({labels[i].text(), entry.name, entry.origin, p.addressableShare, w, m,
               100.0 * p.savedShare, p.endToEndSpeedup, p.wall ? p.wall->busyShare() : kNaN,
               wall ? 100.0 * *wall : kNaN,
               p.wallEndToEndSpeedup() ? *p.wallEndToEndSpeedup() : kNaN});
    }
    return t;
}

bool isPlottedSpeedup(const EvalRecord& r) {
    return r.correct && r.speedup && *r.speedup > 0;
}

FigureTable speedupFigureTable(const std::vector<NamedRecords>& sets) {
    FigureTable t;
    t.columns = {"set",      "problem",           "model",  "backend", "speedup_x", "correct",
                 "verified", "suspicion_reasons", "plotted"};
    for (const NamedRecords& set : sets) {
        for (const EvalRecord& r : *set.records) {
            std::string reasons;
            for (const std::string& s : r.verificationReasons)
                reasons += (reasons.empty() ? "" : "; ") + s;
            t.add({set.name, r.problemName.empty() ? r.problemId : r.problemName, r.model,
                   r.backend, r.speedup ? *r.speedup : kNaN, r.correct ? "yes" : "no",
                   std::string(verificationKey(r.verification)), reasons,
                   isPlottedSpeedup(r) ? "yes" : "no"});
        }
    }
    return t;
}

}  // namespace reach
