#pragma once

#include "ui/figure/figureexporter.h"
#include "ui/models/projectionmodel.h"

namespace reach {

// What a projection figure's provenance says beside its inputs: the sliders, the assumptions,
// each integration run shown (its documents among the inputs) and the benchmark folder and
// verify results behind each exact projection (issue 40). One function for the GUI's Export and
// reach-cli figure projection, so the two write the same provenance for the same overlays.
void addProjectionProvenance(FigureProvenance& provenance, const ProjectionModel& model);

}  // namespace reach
