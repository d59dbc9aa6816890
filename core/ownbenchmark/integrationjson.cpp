// integrationJson (core/ownbenchmark/integration.h): docs/integration.md's document, kept apart
// from the runs that make it.
#include <string>

#include <nlohmann/json.hpp>

#include "core/benchmark/exactprojection.h"
#include "core/ownbenchmark/integration.h"

namespace reach {

namespace {

using nlohmann::json;

json perStepJson(const IntegrationSide& side) {
    return {{"gpu_us", side.gpuUsPerStep ? json(*side.gpuUsPerStep) : json()},
            {"wall_us", side.wallUsPerStep},
            {"wall_us_under_profiler", side.wallUnderProfilerUsPerStep}};
}

json gainJson(const std::optional<MeasuredGain>& g) {
    if (!g)
        return nullptr;
    return {{"median", g->median}, {"low", g->low}, {"high", g->high}, {"per_pair", g->perPair}};
}

}  // namespace

json integrationJson(const IntegrationResult& r) {
    const IntegrationOptions& o = r.options;
    json winners = json::array();
    // A winner's entries of the module's reports of every run of one mode.
    auto reportsOf = [&](const IntegrationWinner& w, const std::string& mode) {
        json perRun = json::array();
        for (const IntegrationRun& run : r.runs) {
            if (run.mode != mode)
                continue;
            const json problems = run.report.value("problems", json::array());
            if (problems.is_array())
                for (const json& p : problems)
                    if (p.is_object() && p.value("name", json()) == w.problem)
                        perRun.push_back(p);
        }
        return perRun;
    };
    for (const IntegrationWinner& w : r.plan.winners) {
        const json perRun = reportsOf(w, "substituted");
        json measuredOn = {{"gpu", w.run.gpu}, {"stack", json::object()}};
        for (const auto& [k, v] : w.run.stack)
            measuredOn["stack"][k] = v;
        winners.push_back(
            {{"problem", w.problem},
             {"operator", w.op},
             {"candidate", w.candidatePath},
             {"problem_sha256", w.problemSha256},
             {"candidate_sha256", w.candidateSha256},
             {"sigma", w.sigma},
             {"verified_by", w.run.source},
             // What it was installed on: a pass Reach signed here, or a pass of reach-verify run
             // just now with fresh seeds (docs/integration.md, "What it trusts").
             {"evidence", w.evidence},
             {"evidence_note", w.evidenceNote.empty() ? json() : json(w.evidenceNote)},
             {"reverify_document", w.reverifyDocument.empty() ? json() : json(w.reverifyDocument)},
             {"measured_on", measuredOn},
             {"runs", perRun},
             {"control_runs", o.control ? reportsOf(w, "hooks") : json()}});
    }
    json left = json::array();
    for (const auto& [file, why] : r.plan.left)
        left.push_back({{"problem", file},
                        {"why", why},
                        {"evidence", why.rfind("refused", 0) == 0 ? json("refused") : json()}});
    json runs = json::array();
    for (const IntegrationRun& run : r.runs)
        runs.push_back({{"mode", run.mode},
                        {"pair", run.pair + 1},
                        {"trace", run.trace},
                        {"report", run.reportPath},
                        {"gpu_us_per_step", run.gpuUsPerStep ? json(*run.gpuUsPerStep) : json()},
                        {"busy_us_per_step", run.busyUsPerStep ? json(*run.busyUsPerStep) : json()},
                        {"wall_us_per_step", run.wallUsPerStep},
                        {"wall_unprofiled_us_per_step",
                         run.wallUnprofiledUsPerStep ? json(*run.wallUnprofiledUsPerStep) : json()},
                        {"fell_through", run.report.value("fell_through", json::object())},
                        // Where its overrides ran, and why not natively when asked to.
                        {"host_path", run.report.value("host_path", json())},
                        {"host_path_why", run.report.value("host_path_why", json())}});

    json projection = nullptr;
    json difference = nullptr;
    if (r.projection) {
        const ExactProjection& x = *r.projection;
        projection = {{"saved_share_of_gpu_time", x.savedShare},
                      {"saved_interval", {x.savedInterval.lo, x.savedInterval.hi}},
                      {"end_to_end_speedup", x.endToEndSpeedup},
                      {"covered_share_of_gpu_time", x.coveredShare},
                      {"winners", x.winners},
                      {"shares_in_run", r.sharesInRun},
                      {"study",
                       {{"addressable_share", x.study.addressableShare},
                        {"win_rate", x.study.winRate},
                        {"median_speedup", x.study.medianSpeedup},
                        {"saved_share_of_gpu_time", x.study.savedShare}}},
                      {"assumptions", exactProjectionAssumptions()}};
        if (r.substituted.gpuGain)
            difference = r.substituted.gpuGain->median - x.savedShare;
    }
    return {
        {"schema", "reach.integration"},
        {"schema_version", 1},
        {"benchmark", r.plan.benchmark.dir},
        {"profile", r.plan.benchmark.profile},
        {"profile_sha256", r.plan.benchmark.profileSha256},
        {"device", o.device},
        {"workload", o.workload},
        {"warmup", o.warmup},
        {"steps", o.steps},
        {"runs", o.runs},
        {"winners", winners},
        {"left_out", left},
        {"wall_steps", o.wallSteps},
        // Which steps the wall clock was read on: the unprofiled ones when there were any.
        {"wall_clock_steps", o.wallSteps > 0 ? "unprofiled" : "profiled"},
        {"per_step",
         {{"as_is", perStepJson(r.asIs)},
          {"substituted", perStepJson(r.substituted)},
          {"hooks_only", r.hooks ? perStepJson(*r.hooks) : json()}}},
        {"measured",
         {{"gpu_time_saved_share", gainJson(r.substituted.gpuGain)},
          {"wall_clock_saved_share", gainJson(r.substituted.wallGain)},
          {"wall_clock_under_profiler_saved_share", gainJson(r.substituted.wallUnderProfilerGain)},
          {"hooks_only", r.hooks ? json{{"gpu_time_saved_share", gainJson(r.hooks->gpuGain)},
                                        {"wall_clock_saved_share", gainJson(r.hooks->wallGain)},
                                        {"wall_clock_under_profiler_saved_share",
                                         gainJson(r.hooks->wallUnderProfilerGain)}}
                                 : json()}}},
        {"control", o.control},
        {"host_path", o.hostPath},
        {"exact_projection", projection},
        {"measured_minus_projected", difference},
        {"diff", r.diff.is_null() ? json() : r.diff},
        {"run_list", runs},
        {"warnings", r.warnings}};
}

}  // namespace reach
