#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/breakdown.h"
#include "core/base/evidence.h"
#include "core/ownbenchmark/integration.h"

namespace reach {

// What the projection view and `reach-cli figure projection --integration` show of an
// integration document (reach-cli integrate --json, saved to a file; maybe a colleague's, maybe
// written by hand): the profile it belongs to, the measured savings with their spread, the exact
// projection it was compared with, its runs for the figure's provenance, and whether Reach
// measured it here. Nothing is taken on the file's word that Reach can compute (issue 37): the
// savings are recomputed from the runs' times per pair, their median and range from the pairs;
// a document is drawn as "measured" only when Reach signed it here and nothing in it doubts it,
// otherwise as "claimed", with why.
struct IntegrationSummary {
    std::string document;
    std::string profileSha256;  // of the benchmark's profile: which workload row it belongs to
    std::string benchmark, device;
    std::optional<MeasuredGain> gpuGain, wallGain;  // as Reach recomputed them
    // The steps the wall clock was read on: "unprofiled" (integrate's wall-clock steps) or
    // "profiled" (--wall-steps 0, and documents written before there were wall-clock steps).
    std::string wallClockSteps = "profiled";
    std::optional<double> projectedSavedShare;  // the exact projection on the as-is run
    int winners = 0, pairs = 0;
    nlohmann::json runList = nlohmann::json::array();  // mode, pair, trace, per-step times
    Evidence evidence;                // signed here: Reach measured it on this machine
    std::vector<std::string> doubts;  // why it is drawn as a claim (its evidence's why first)

    bool measuredHere() const { return evidence.signedHere && doubts.empty(); }
};

// Every key the view uses is checked: a wrong type, a hash that is not 64 hex digits, a saving
// that is not finite or outside [-1, 1] of GPU time (a wall clock: [-10, 1]; the H200 measured
// -2.02 where the host paid for the overrides), a file that is not an integration document is
// one InputError naming the file and the key. Never silently dropped.
IntegrationSummary readIntegrationSummary(const std::string& path);

// The workload's speed-of-light bound on what any kernels could save of its GPU time: the
// headroom of the kernels with an estimate plus all the time without one (core/headroom,
// docs/headroom.md). nullopt when the profile has no estimate at all.
std::optional<double> maxSavedShareOf(const Breakdown& breakdown);

// Adds a doubt when the document's measured GPU-time saving is past `maxSavedShare`.
void checkAgainstSpeedOfLight(IntegrationSummary& summary, std::optional<double> maxSavedShare);

}  // namespace reach
