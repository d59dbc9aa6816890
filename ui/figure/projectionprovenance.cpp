#include "ui/figure/projectionprovenance.h"

#include "core/analysis/projection.h"

namespace reach {

void addProjectionProvenance(FigureProvenance& provenance, const ProjectionModel& model) {
    provenance.sliders = {{QStringLiteral("win_rate"), model.winRate()},
                          {QStringLiteral("median_speedup"), model.medianSpeedup()}};
    provenance.extra["assumptions"] = projectionAssumptions();
    // Both runs of each integration shown (as is, with the kernels), and their documents.
    if (const nlohmann::json runs = model.integrationProvenance(); !runs.empty()) {
        provenance.extra["integration_runs"] = runs;
        provenance.inputs << model.integrationDocuments();
    }
    if (const nlohmann::json exact = model.exactProvenance(); !exact.empty()) {
        provenance.extra["exact_projections"] = exact;
        provenance.inputs << model.exactInputs();
    }
}

}  // namespace reach
