#pragma once

#include <array>
#include <string>
#include <variant>
#include <vector>

#include "core/project/project.h"

namespace reach {

// The data a figure plots, as one table: the GUI and `reach-cli figure` draw the plot from the
// same numbers and the figure's CSV is written from this table, never read back from the paint.
// Columns name the plotted quantity and its unit ("addressable_share_of_gpu_time",
// "projected_gain_percent", "speedup_x").
struct FigureTable {
    std::vector<std::string> columns;
    using Cell = std::variant<std::string, double>;
    std::vector<std::vector<Cell>> rows;

    void add(std::vector<Cell> row) { rows.push_back(std::move(row)); }
};

// CSV text (RFC 4180 quoting; numbers in their shortest round-trip form; NaN as "nan").
std::string figureTableCsv(const FigureTable& table);

// One workload's bar in the breakdown: the share of each category (of GPU time, or of the
// profiled span with the idle time beside it), the operator split and the milliseconds. The
// breakdown view, its figure and its CSV all take their numbers from here.
struct BreakdownBar {
    std::array<double, 4> share{};    // by Category
    std::array<double, 4> ms{};       // NaN for published rows
    std::array<double, 4> opShare{};  // NaN when the row has no operator links
    bool hasOpSplit = false;
    double unsplit = 0;        // published rows: the part the study did not split
    double idle = 0;           // span mode: the share of the span with no GPU activity
    double totalMs = 0;        // the denominator in milliseconds; NaN for published rows
    bool spanUnknown = false;  // span mode asked of a row with no span (a published row)
};
BreakdownBar breakdownBar(const ProjectWorkload& workload, bool spanShares);

// Which records the speedup figure draws: correct by the harness and timed (a speedup of a wrong
// kernel means nothing).
bool isPlottedSpeedup(const EvalRecord& record);
// One row per record of each named set: what the speedup figure plots (speedup_x), with the
// verdicts and whether it is drawn.
struct NamedRecords {
    std::string name;
    const std::vector<EvalRecord>* records = nullptr;
};
FigureTable speedupFigureTable(const std::vector<NamedRecords>& sets);

FigureTable breakdownFigureTable(const std::vector<ProjectWorkload>& workloads, bool spanShares);
// Projected gain per workload at (w, m): the study's A * w * (1 - 1/m).
FigureTable projectionFigureTable(const std::vector<ProjectWorkload>& workloads, double winRate,
                                  double medianSpeedup);

}  // namespace reach
