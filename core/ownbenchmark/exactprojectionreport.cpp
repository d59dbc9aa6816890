#include "core/ownbenchmark/exactprojectionreport.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/jsonparse.h"
#include "core/base/servingoperators.h"
#include "core/headroom/headroom.h"
#include "core/ownbenchmark/benchmarkshares.h"
#include "core/project/workloadheadroom.h"

namespace reach {

namespace {

using nlohmann::json;

json num(double v) {
    return std::isfinite(v) ? json(v) : json(nullptr);
}

json optNum(const std::optional<double>& v) {
    return v ? num(*v) : json(nullptr);
}

json intervalJson(const Interval& i) {
    return json::array({num(i.lo), num(i.hi)});
}

// The signatures headroom estimated, each parsed once: benchmark.json keeps a signature as the
// JSON value extract parsed from the trace's text, so values compare where texts might not.
struct ParsedCall {
    const CallRoofline* call;
    json signature;
};

std::vector<ParsedCall> parsedCalls(const Headroom& h) {
    std::vector<ParsedCall> out;
    for (const CallRoofline& c : h.calls)
        out.push_back({&c, tryParseJson(c.signature).value_or(json(c.signature))});
    return out;
}

// The time saved if the problem's kernels ran at their roofline, as a share of GPU time. Its
// kernels get the share of their signature's roofline time that their time is of the
// signature's (as headroom gives each kernel of a call its part).
std::optional<double> solSavedShare(const std::vector<ParsedCall>& calls, const BenchmarkProblem& p,
                                    double gpuUs) {
    for (const ParsedCall& c : calls) {
        if (c.call->op != p.op || c.signature != p.signature || !(c.call->us > 0))
            continue;
        const double solUs = c.call->solUs * std::min(1.0, p.gpuUs / c.call->us);
        return std::clamp((p.gpuUs - solUs) / gpuUs, 0.0, 1.0);
    }
    return std::nullopt;
}

// A serving stack's operator (core/base/servingoperators.h): the problem's eager time is Reach's
// PyTorch reference, several kernels where the workload ran the stack's one, so a speedup over
// it is no saving. Its pass counts against the trace's own time per call instead, and only when
// measured on the trace's GPU (another GPU's time is not comparable with the trace's): the
// signed pass there with the fastest candidate, its eager loop replaced by that time. Nothing,
// with `why`, when no pass qualifies.
std::optional<VerifiedRun> servingBest(const ProblemRuns& found, const ProblemTime& time,
                                       const std::string& traceGpu, const BenchmarkProblem& p,
                                       std::string& why) {
    if (!found.best)
        return std::nullopt;
    if (!time.found || time.calls < 1 || !(time.us > 0)) {
        why = p.file + ": " + p.op +
              " is a serving stack's operator whose problem's reference is not the kernel the "
              "workload ran, and the profile has no time per call of it to count a speedup "
              "against: not counted";
        return std::nullopt;
    }
    std::optional<VerifiedRun> best;
    for (const VerifiedRun& run : found.passes)
        if (run.evidence.signedHere && run.gpu == traceGpu && run.candidate &&
            (!best || run.candidate->medianUs < best->candidate->medianUs))
            best = run;
    if (!best) {
        why = p.file + ": " + p.op +
              " is a serving stack's operator whose problem's reference is not the kernel the "
              "workload ran: its speedup counts against the trace's " +
              std::to_string(time.us / double(time.calls)) +
              " us per call, measured on the "
              "trace's GPU (" +
              (traceGpu.empty() ? std::string("not named by the trace") : traceGpu) +
              "); its passes were measured on " + found.best->gpu + ": not counted";
        return std::nullopt;
    }
    TimedLoop trace;
    trace.medianUs = time.us / double(time.calls);
    best->eager = trace;
    best->eagerFromTrace = true;
    return best;
}

ChosenResult chosenOf(const VerifiedRun& run) {
    return {*run.candidate, *run.eager};
}

json spreadJson(const TimedLoop& t) {
    return {{"median_us", t.medianUs},
            {"p10_us", optNum(t.p10Us)},
            {"p90_us", optNum(t.p90Us)},
            {"reps", t.reps},
            {"samples", t.samplesUs.size()},
            {"median_standard_error_us", optNum(t.medianStandardError())}};
}

json runsJson(const ProblemRuns& r) {
    json verdicts = json::object();
    for (const auto& [v, n] : r.verdicts)
        verdicts[v] = n;
    return {{"found", r.found},
            {"verdicts", verdicts},
            {"slower_than_eager", r.slower},
            {"without_timings", r.withoutTimings},
            {"precision", r.precision},
            {"other_precision", r.otherPrecision},
            {"claimed", r.claimed}};
}

json machineJson(const VerifiedRun& run) {
    json stack = json::object();
    for (const auto& [k, v] : run.stack)
        stack[k] = v;
    return {{"gpu", run.gpu}, {"stack", stack}};
}

json chosenJson(const VerifiedRun& run) {
    json j = {{"source", run.source},
              {"candidate_file", run.candidateFile},
              {"candidate_sha256", run.candidateSha256},
              {"verdict", run.verdict},
              {"candidate", spreadJson(*run.candidate)},
              {"eager", spreadJson(*run.eager)},
              // "the trace": a serving stack's operator, against the workload's own time per call
              {"eager_basis", run.eagerFromTrace ? "the trace" : "the verifier's eager baseline"},
              {"sigma", num(*run.sigma())},
              {"verifier_speedup", num(run.verifierSpeedup)},
              {"verifier_baseline", run.verifierBaseline},
              {"measured_on", machineJson(run)}};
    j.update(evidenceJson(run.evidence, "verified here"));
    return j;
}

}  // namespace

ExactProjectionReport exactProjectionReport(const Breakdown& b, BenchmarkFolder benchmark,
                                            BenchmarkRuns runs,
                                            const ExactProjectionOptions& options) {
    ExactProjectionReport r;
    r.workload = b.workload;
    r.rulesName = b.rulesName;
    r.rulesHash = b.rulesHash;

    // The roofline view's and `reach-cli headroom`'s numbers: the GPU row of the trace's device.
    const WorkloadHeadroom wh = workloadHeadroom(b);
    const std::optional<Headroom>& headroom = wh.headroom;
    r.gpu = headroom ? headroom->gpu.name : std::string();
    r.solWhy = wh.why;
    const bool estimated = wh.estimated();
    const std::vector<ParsedCall> calls =
        estimated ? parsedCalls(*headroom) : std::vector<ParsedCall>{};

    // Each problem's share from the profile at hand, never from benchmark.json's gpu_us (the
    // file's word): what the file says is kept beside it only to tell the user they differ.
    const std::vector<ProblemTime> times =
        problemTimesIn(b, benchmark, benchmarkCategory(benchmark));
    for (size_t i = 0; i < benchmark.problems.size(); ++i) {
        BenchmarkProblem& p = benchmark.problems[i];
        if (!times[i].found)
            r.warnings.push_back(p.file +
                                 ": its operator call is not in this profile (or an "
                                 "earlier problem has it): it stands for no GPU time");
        else if (std::abs(times[i].us - p.gpuUs) > 1e-6 * std::max(1.0, times[i].us))
            r.warnings.push_back(p.file + ": benchmark.json says " + std::to_string(p.gpuUs) +
                                 " us of GPU time, the profile " + std::to_string(times[i].us) +
                                 " us: the profile's is used");
        p.gpuUs = times[i].us;
        p.share = times[i].share;
    }
    benchmark.gpuUs = b.gpuTimeUs;

    ExactProjectionInput in;
    in.addressableShare = b.share(Category::Addressable);
    in.wall = WallClock{b.gpuTimeUs, b.busyTimeUs, b.spanUs};
    if (estimated)
        in.workloadSolBound = headroom->boundSpeedup();
    for (size_t i = 0; i < benchmark.problems.size(); ++i) {
        const BenchmarkProblem& p = benchmark.problems[i];
        ExactProblemInput pi;
        pi.share = p.share;
        // Only a pass signed here counts: a claim is listed, never projected.
        if (servingOperator(p.op)) {
            std::string why;
            runs.problems[i].best = servingBest(runs.problems[i], times[i], b.device, p, why);
            if (!why.empty())
                r.warnings.push_back(why);
        }
        if (const auto& best = runs.problems[i].best)
            pi.result = chosenOf(*best);
        if (estimated)
            pi.solSavedShare = solSavedShare(calls, p, b.gpuTimeUs);
        in.problems.push_back(std::move(pi));
    }
    r.projection = computeExactProjection(in, options);
    r.warnings.insert(r.warnings.end(), runs.duplicates.begin(), runs.duplicates.end());
    for (size_t i = 0; i < benchmark.problems.size(); ++i)
        if (const ProblemRuns& pr = runs.problems[i]; pr.claimed > 0)
            r.claimed.push_back(benchmark.problems[i].file + ": " + std::to_string(pr.claimed) +
                                " passing run(s) claimed, not counted (" +
                                pr.bestClaimed->evidence.why + ": " + pr.bestClaimed->source +
                                "); verify it here to count it");
    r.warnings.insert(r.warnings.end(), r.claimed.begin(), r.claimed.end());

    if (!benchmark.rulesHash.empty() && benchmark.rulesHash != b.rulesHash)
        r.warnings.push_back("the benchmark was extracted with rules '" + benchmark.rulesName +
                             "', this profile is classified with '" + b.rulesName +
                             "': A (the study's formula) is of the latter");
    if (benchmark.category != "addressable")
        r.warnings.push_back("the benchmark covers the category '" + benchmark.category +
                             "'; the study's formula still takes A, the addressable share");
    if (r.projection.wall) {
        const std::string idle = wallClockWarning(*r.projection.wall);
        if (!idle.empty())
            r.warnings.push_back(idle);
    }
    // Runs that verified the problem's bytes in another precision than its call: the user most
    // likely forgot --precision, and the problem stays at its baseline.
    for (size_t i = 0; i < benchmark.problems.size() && i < runs.problems.size(); ++i)
        if (const ProblemRuns& pr = runs.problems[i]; pr.otherPrecision > 0 && !pr.best)
            r.otherPrecision.push_back(
                benchmark.problems[i].file + ": its " + std::to_string(pr.otherPrecision) +
                " run(s) verified it in " + pr.otherPrecisionSeen + ", its recorded call is " +
                pr.precision + ": they do not count (" +
                (pr.precision == "mixed" || pr.precision == "fp64"
                     ? std::string("no --precision reproduces it")
                     : "reach-verify --precision " + pr.precision) +
                ")");
    r.warnings.insert(r.warnings.end(), r.otherPrecision.begin(), r.otherPrecision.end());
    for (size_t i = 0; i < benchmark.problems.size(); ++i)
        if (r.projection.problems[i].belowSpeedOfLight)
            r.warnings.push_back(benchmark.problems[i].file +
                                 ": its projected time is below its kernels' roofline time: the "
                                 "problem's speedup does not carry over to the trace's kernels, "
                                 "or a work formula is wrong");
    r.benchmark = std::move(benchmark);
    r.runs = std::move(runs);
    return r;
}

json exactProjectionJson(const ExactProjectionReport& r) {
    const ExactProjection& x = r.projection;
    json problems = json::array();
    for (size_t i = 0; i < r.benchmark.problems.size(); ++i) {
        const BenchmarkProblem& p = r.benchmark.problems[i];
        const ExactProblemOutcome& o = x.problems[i];
        const ProblemRuns& found = r.runs.problems[i];
        problems.push_back(
            {{"file", p.file},
             {"operator", p.op},
             {"problem_sha256", p.sha256},
             {"gpu_us", p.gpuUs},
             {"share_of_gpu_time", p.share},
             {"results", runsJson(found)},
             {"chosen", found.best ? chosenJson(*found.best) : json(nullptr)},
             {"best_claimed", found.bestClaimed ? chosenJson(*found.bestClaimed) : json(nullptr)},
             {"winner", o.winner},
             {"sigma", found.best ? num(o.sigma) : json(nullptr)},
             {"saved_share_of_gpu_time", o.savedShare},
             {"fixed_in_bootstrap", o.fixedInBootstrap},
             {"sol_saved_share_of_gpu_time", optNum(o.solSavedShare)},
             {"below_speed_of_light", o.belowSpeedOfLight}});
    }
    json unmatched = json::array();
    for (const UnmatchedRun& u : r.runs.unmatched)
        unmatched.push_back({{"source", u.source}, {"why", u.why}});

    json doc;
    doc["workload"] = r.workload;
    doc["benchmark"] = {
        {"dir", r.benchmark.dir},
        {"profile", r.benchmark.profile},
        {"profile_sha256", r.benchmark.profileSha256},
        {"category", r.benchmark.category},
        {"problems", r.benchmark.problems.size()},
        {"covered_share_of_gpu_time", x.coveredShare},
        {"check",
         {{"evidence", r.check}, {"evidence_why", r.checkWhy.empty() ? json() : json(r.checkWhy)}}},
        {"rules", r.benchmark.rulesHash.empty()
                      ? json(nullptr)
                      : json{{"name", r.benchmark.rulesName}, {"hash", r.benchmark.rulesHash}}}};
    doc["problems"] = std::move(problems);
    doc["winners"] = x.winners;
    doc["saved_share_of_gpu_time"] = x.savedShare;
    doc["saved_interval"] = intervalJson(x.savedInterval);
    doc["end_to_end_speedup"] = num(x.endToEndSpeedup);
    doc["end_to_end_speedup_interval"] = intervalJson(x.endToEndInterval);
    doc["busy_share_of_span"] = x.wall ? json(x.wall->busyShare()) : json(nullptr);
    doc["saved_share_of_wall_clock"] = optNum(x.wallSavedShare());
    doc["saved_interval_wall_clock"] =
        x.wall ? intervalJson(*x.wallSavedInterval()) : json(nullptr);
    doc["end_to_end_speedup_wall"] = optNum(x.wallEndToEndSpeedup());
    const Projection& s = x.study;
    doc["study_projection"] = {{"formula", "A * w * (1 - 1/m)"},
                               {"addressable_share", s.addressableShare},
                               {"win_rate", s.winRate},
                               {"winners", x.winners},
                               {"problems", r.benchmark.problems.size()},
                               {"median_speedup", optNum(x.medianWinnerSigma)},
                               {"saved_share_of_gpu_time", s.savedShare},
                               {"end_to_end_speedup", num(s.endToEndSpeedup)},
                               {"saved_share_of_wall_clock", optNum(s.wallSavedShare())}};
    doc["speed_of_light"] = {
        {"gpu", r.gpu.empty() ? json(nullptr) : json(r.gpu)},
        {"sol_bound_speedup", optNum(x.workloadSolBound)},
        {"covered_sol_saved_share_of_gpu_time", optNum(x.coveredSolSavedShare)},
        {"covered_sol_bound_speedup", optNum(x.coveredSolBound())},
        {"covered_estimated_share_of_gpu_time", x.coveredEstimatedShare},
        {"why_none", r.solWhy.empty() ? json(nullptr) : json(r.solWhy)}};
    doc["bootstrap"] = {{"resamples", x.resamples},
                        {"resamples_asked", x.options.resamples},
                        {"loops_drawn_normal", x.loopsDrawnNormal},
                        {"seed", x.options.seed},
                        {"level", x.options.level},
                        {"method",
                         "parametric: per winner, the candidate's and the eager baseline's "
                         "medians drawn again (repetitions resampled where the document has "
                         "them, else normal with the median's standard error 1.2533 * sd / "
                         "sqrt(reps), sd = (p90 - p10) / 2.563); loops_drawn_normal: loops whose "
                         "repetitions would pass the work bound, drawn normal with their "
                         "median's order-statistic standard error; the chosen candidate fixed"}};
    doc["runs_read"] = r.runs.read;
    // What the projection stands on: only runs verified here count; claims are listed.
    doc["evidence"] = {{"verified_here", r.runs.signedHere}, {"claimed", r.runs.claimed}};
    json inputs = json::array();
    for (const BenchmarkRuns::Input& in : r.runs.inputs) {
        json j = {{"source", in.source}, {"gpu", in.gpu}};
        j.update(evidenceJson(in.evidence, "verified here"));
        inputs.push_back(std::move(j));
    }
    doc["inputs"] = std::move(inputs);
    doc["unmatched"] = std::move(unmatched);
    doc["rules"] = {{"name", r.rulesName}, {"hash", r.rulesHash}};
    doc["warnings"] = r.warnings;
    doc["assumptions"] = exactProjectionAssumptions();
    return doc;
}

ExactProjectionReport exactProjectionOf(const Breakdown& breakdown, const std::string& profilePath,
                                        BenchmarkFolder benchmark, const VerifiedRuns& runs,
                                        const ExactProjectionOptions& options) {
    requireBenchmarkOf(benchmark, profilePath, breakdown.sourceHash);
    BenchmarkRuns matched = matchVerifiedRuns(benchmark, runs);
    const std::string file = benchmark.dir + "/benchmark.json";
    ExactProjectionReport r =
        exactProjectionReport(breakdown, std::move(benchmark), std::move(matched), options);
    // The check is what says each problem launches the trace's kernels: measured here or not.
    if (const auto doc = trySniffJsonFile(file);
        doc && doc->is_object() && (doc->contains("check") || doc->contains("check_cpu"))) {
        const Evidence e = checkEvidence(*doc);
        r.check = e.label("measured here");
        r.checkWhy = e.why;
    }
    return r;
}

}  // namespace reach
