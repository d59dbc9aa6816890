#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/analysis/breakdown.h"
#include "core/analysis/projection.h"
#include "core/analysis/ruleset.h"
#include "core/base/workload.h"
#include "core/records/evaluationset.h"

namespace reach {

// One row of the breakdown: either a profile read by Reach (classified with the project's rule
// set) or a workload a study published (two shares, nothing to classify).
struct ProjectWorkload {
    std::string name;
    std::string origin;  // "published, A100", the profile's device, "profile"
    bool published = false;

    // Measured rows: the profile and its breakdown under the project's rule set.
    std::shared_ptr<const Workload> workload;
    std::shared_ptr<const Breakdown> breakdown;

    // Published rows: the study's numbers (fractions).
    double publishedLibraryOptimized = 0;
    double publishedAddressable = 0;
    std::optional<double> publishedGain;

    double addressableShare() const;
    // The profile's GPU time, busy time and span; empty for published rows (they have no span).
    std::optional<WallClock> wallClock() const;
    // Compact origin for axis labels: "published, A100", "H200".
    std::string shortOrigin() const;
};

// A measured row from a profile and its breakdown: origin is the profile's device ("profile"
// when the trace does not name one).
ProjectWorkload measuredWorkload(std::shared_ptr<const Workload> workload,
                                 std::shared_ptr<const Breakdown> breakdown);

// What an axis calls each row: its short name (core/project/workloadlabels.h: the shortest
// part of the name no other row has), and a tag that tells it apart from rows of the same name:
// the GPU's model ("H200"; a published row's origin, "published, A100"; none for a profile that
// names no device); where that is not enough (the same workload profiled twice on one device),
// also the profile's file name, and as a last resort "#2". The breakdown, projection and
// headroom views, their figures and CSVs label rows with it; `full` (the whole name and
// device) goes to tooltips and provenance.
struct RowLabel {
    std::string name, tag;
    std::string full;
    // "name [tag]", or the name alone when there is no tag.
    std::string text() const { return tag.empty() ? name : name + " [" + tag + "]"; }
};
std::vector<RowLabel> rowLabels(const std::vector<ProjectWorkload>& workloads);
// The same as a figure's provenance records it: [{"label", "name", "origin"}] per row, so a
// reader of the figure finds each short label's whole workload.
nlohmann::json rowLabelsJson(const std::vector<ProjectWorkload>& workloads);

// The summary projection of one row on both bases (GPU time; profiled wall clock where the row
// has a span): what the CLI, the GUI and the figures all show.
Projection projectWorkload(const ProjectWorkload& workload, double winRate, double medianSpeedup);

// A published study's own projection parameters (its table's "projection"), the default of the
// projection views and `reach-cli project` when the study is open.
struct PublishedProjection {
    std::string source;
    double winRate = 0;
    double medianSpeedup = 1;
};

// What is open: workloads, evaluation sets and the rule set they are classified with. The GUI's
// Session holds one (and fills it in the background); every CLI subcommand builds one with
// openInputs (core/project/openplan.h).
struct Project {
    std::string name;       // "Sample project (bundled)", a file or folder name
    std::string storePath;  // the open .reach file; empty when none is open
    RuleSet rules = RuleSet::builtinDefault();
    std::vector<ProjectWorkload> workloads;
    std::vector<EvaluationSet> evaluations;
    std::vector<std::string> sources;          // every file the numbers come from, in load order
    std::vector<std::string> warnings;         // what loaded with a problem (one line each)
    std::vector<PublishedProjection> studies;  // the published studies opened

    // Adds a measured row; the same bytes (SHA-256) imported again replace their row instead of
    // adding a twin.
    void addMeasured(ProjectWorkload entry);
    // Every measured row classified again with rules (also kept as the project's rules).
    void reclassify(const RuleSet& rules);
    std::vector<std::shared_ptr<const Workload>> measured() const;
};

}  // namespace reach
