#include "core/ownbenchmark/integration.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/analysis/breakdown.h"
#include "core/analysis/profilediff.h"
#include "core/analysis/profilediffjson.h"
#include "core/analysis/ruleset.h"
#include "core/analysis/statistics.h"
#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/resourcepaths.h"
#include "core/base/servingoperators.h"
#include "core/base/sha256.h"
#include "core/base/textescape.h"
#include "core/base/wholefile.h"
#include "core/benchmark/extract.h"
#include "core/ownbenchmark/benchmarkshares.h"
#include "core/project/recordjob.h"
#include "core/trace/profilereader.h"
#include "core/verify/childprocess.h"

namespace reach {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Where a run's document may name its candidate: as given when absolute; else beside the
// records file, then in the current folder (where reach-verify usually ran).
std::vector<fs::path> candidateSpellings(const VerifiedRun& r) {
    const fs::path named(r.candidateFile);
    if (named.is_absolute())
        return {named};
    std::vector<fs::path> out;
    if (!r.sourceFile.empty())
        out.push_back(fs::absolute(r.sourceFile).parent_path() / named);
    out.push_back(fs::absolute(named));
    return out;
}

// POSIX extended: a kernel's full name matched as itself.
std::string literalPattern(const std::string& name) {
    std::string out;
    for (char c : name) {
        if (std::string_view(".[]{}()*+?^$|\\").find(c) != std::string_view::npos)
            out += '\\';
        out += c;
    }
    return out;
}

json readReport(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return json();
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    auto doc = tryParseJson(text);
    return doc && doc->is_object() ? *doc : json();
}

std::string lastLine(const std::string& text) {
    size_t end = text.find_last_not_of("\r\n");
    if (end == std::string::npos)
        return "";
    const size_t start = text.rfind('\n', end);
    return text.substr(start == std::string::npos ? 0 : start + 1,
                       end - (start == std::string::npos ? 0 : start + 1) + 1);
}

std::vector<double> numbers(const json& v) {
    std::vector<double> out;
    if (v.is_array())
        for (const json& x : v)
            if (x.is_number() && x.get<double>() >= 0)
                out.push_back(x.get<double>());
    return out;
}

// A count from a run's report (written in the workload's process): 0 unless a whole number.
int64_t countOf(const json& doc, const char* key) {
    const auto it = doc.find(key);
    return it != doc.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

namespace {

// The candidate a run names, resolved inside the trusted folders and still holding the
// verified bytes; nullopt with why otherwise.
std::optional<std::string> candidateOf(const VerifiedRun& r, const BenchmarkFolder& benchmark,
                                       const std::vector<std::string>& trustedDirs,
                                       std::string* why) {
    if (!Sha256::isHexDigest(r.candidateSha256) || r.candidateFile.empty()) {
        *why = r.source + " does not name the candidate's file and bytes";
        return std::nullopt;
    }
    std::vector<std::string> dirs = trustedDirs;
    // The records file's folder: the user named the file on the command line.
    if (!r.sourceFile.empty())
        dirs.push_back(fs::absolute(r.sourceFile).parent_path().string());
    dirs.push_back(benchmark.dir);
    std::optional<std::string> found;
    bool outside = false;
    for (const fs::path& s : candidateSpellings(r)) {
        if ((found = trustedFileIn(s.string(), dirs)))
            break;
        std::error_code ec;
        outside = outside || fs::exists(s, ec);
    }
    const std::string shown = escapeControls(r.candidateFile);
    if (!found) {
        *why = outside ? "its candidate " + shown +
                             " lies outside the records' folder, the benchmark folder and the "
                             "folders you chose; Reach runs nothing a record names elsewhere "
                             "(--trust DIR allows a folder)"
                       : "its candidate " + shown + " is not found";
        return std::nullopt;
    }
    if (Sha256::hexOfFile(*found) != r.candidateSha256) {
        *why = "its candidate " + shown + " no longer holds the bytes that were verified";
        return std::nullopt;
    }
    return found;
}

std::string sigmaText(double sigma) {
    return std::to_string(sigma).substr(0, 5);
}

}  // namespace

IntegrationPlan planIntegration(BenchmarkFolder benchmark, const VerifiedRuns& runs,
                                const std::vector<std::string>& trustedDirs, bool allPassing,
                                const std::function<bool(const VerifiedRun&)>& measuredHere) {
    IntegrationPlan plan;
    const BenchmarkRuns matched = matchVerifiedRuns(benchmark, runs);
    for (size_t i = 0; i < benchmark.problems.size(); ++i) {
        const BenchmarkProblem& p = benchmark.problems[i];
        const ProblemRuns& pr = matched.problems[i];
        auto leave = [&](const std::string& why) { plan.left.push_back({p.file, why}); };
        // A serving stack's operator is called through the stack's own extension, which the
        // substitution (ATen overrides) does not reach, and its problem's eager time is Reach's
        // reference, not the workload's kernel: its gain is the exact projection's (against
        // the trace's time), measured in the serving stack itself.
        if (servingOperator(p.op)) {
            leave(p.op +
                  " is a serving stack's operator: integrate substitutes ATen calls "
                  "only; its projected gain counts against the trace's time "
                  "(reach-cli project --benchmark)");
            continue;
        }
        if (pr.passes.empty()) {
            if (pr.otherPrecision > 0 && pr.otherPrecision == pr.found)
                leave("verified in " + pr.otherPrecisionSeen + " only; its recorded call is " +
                      pr.precision + ": reach-verify --precision " + pr.precision);
            else
                leave(pr.found ? "no run of it passed with both timings" : "no verified run of it");
            continue;
        }
        std::vector<const VerifiedRun*> eligible;
        for (const VerifiedRun& r : pr.passes) {
            const double sigma = r.sigma().value_or(0);
            if (sigma > 1 || (allPassing && sigma > 0))
                eligible.push_back(&r);
        }
        if (eligible.empty()) {
            leave("its best passing run is not faster than eager (sigma " +
                  sigmaText(pr.passes.front().sigma().value_or(0)) + ")");
            continue;
        }
        // A pass Reach signed here, on this GPU and stack, is installed as it is; else the
        // fastest pass is verified again now (reverifyWinners) before anything installs it.
        const VerifiedRun* chosen = nullptr;
        std::optional<std::string> candidate;
        std::string firstWhy;
        for (const VerifiedRun* r : eligible) {
            std::string why;
            if (!r->evidence.signedHere || !measuredHere || !measuredHere(*r))
                continue;
            if ((candidate = candidateOf(*r, benchmark, trustedDirs, &why))) {
                chosen = r;
                break;
            }
            firstWhy = firstWhy.empty() ? why : firstWhy;
        }
        for (size_t k = 0; !chosen && k < eligible.size(); ++k) {
            std::string why;
            if ((candidate = candidateOf(*eligible[k], benchmark, trustedDirs, &why)))
                chosen = eligible[k];
            firstWhy = firstWhy.empty() ? why : firstWhy;
        }
        if (!chosen) {
            leave(firstWhy);
            continue;
        }
        const VerifiedRun& r = *chosen;
        IntegrationWinner w;
        w.problem = p.file;
        w.op = p.op;
        w.problemPath = (fs::path(benchmark.dir) / p.file).string();
        w.candidatePath = *candidate;
        w.problemSha256 = p.sha256;
        w.candidateSha256 = r.candidateSha256;
        w.precision = pr.precision;
        w.run = r;
        w.sigma = r.sigma().value_or(0);
        if (r.evidence.signedHere && measuredHere && measuredHere(r))
            w.evidence = kSignedPassHere;
        else
            w.evidenceNote = r.evidence.signedHere ? "signed by Reach on another GPU or stack (" +
                                                         escapeControls(r.gpu) + ")"
                                                   : "claimed: " + r.evidence.why;
        plan.winners.push_back(std::move(w));
    }
    if (plan.winners.empty()) {
        // Name why the problems that had a run were left out: that is what the user can act on.
        std::string why;
        for (const auto& [file, reason] : plan.left)
            if (why.empty() && reason != "no verified run of it")
                why = " (" + file + ": " + reason + ")";
        throw InputError("--records", "",
                         std::string("a passing verified run") +
                             (allPassing ? "" : ", faster than eager,") + " of a problem of " +
                             benchmark.dir + " with its candidate at hand" + why);
    }
    plan.benchmark = std::move(benchmark);
    return plan;
}

json integrationPlanJson(const IntegrationPlan& plan) {
    json problems = json::array();
    for (const IntegrationWinner& w : plan.winners)
        problems.push_back({{"name", w.problem},
                            {"operator", w.op},
                            {"problem", fs::absolute(w.problemPath).string()},
                            {"candidate", w.candidatePath},
                            {"problem_sha256", w.problemSha256},
                            {"candidate_sha256", w.candidateSha256}});
    return {{"schema", "reach.integration_plan"}, {"schema_version", 1}, {"problems", problems}};
}

namespace {

// What every run of the workload shares: the folder its files go to, the plan it reads, the
// rules its traces are broken down by, and the PYTHONPATH that finds Reach's module.
struct WorkloadSetup {
    std::string out, planPath, pythonPath;
    RuleSet rules;
};

// Nothing is installed on a file's word: every winner stands on a pass Reach signed here or
// on one it has just measured (reverifyWinners).
void checkWinnersEvidence(const IntegrationPlan& plan) {
    for (const IntegrationWinner& w : plan.winners)
        if (w.evidence != kSignedPassHere && w.evidence != kReverifiedNow)
            throw InputError(w.problem, "evidence",
                             "a pass Reach signed here or verified again now before it is "
                             "installed (docs/integration.md, \"What it trusts\")");
}

// Finds Reach's module, makes the runs' folder (refusing names the command read) and writes
// the plan into it.
WorkloadSetup prepareRuns(const IntegrationPlan& plan, const IntegrationOptions& options) {
    const std::string res = options.resourceDir.empty() ? findResourceDir() : options.resourceDir;
    const std::string pydir = res + "/python";
    if (!fs::is_regular_file(pydir + "/reach_integrate/run.py"))
        throw InputError(pydir + "/reach_integrate/run.py", "",
                         "Reach's integration module (its resources)");
    const std::string out = options.outDir.empty() ? "." : options.outDir;
    std::error_code ec;
    fs::create_directories(out, ec);
    if (ec)
        throw InputError(out, "", "a folder for the runs (" + ec.message() + ")");
    const std::string planPath = (fs::path(out) / "plan.json").string();
    options.inputs.checkNamed(planPath);
    for (int pair = 0; pair < options.runs; ++pair)
        for (const char* mode : {"asis", "substituted", "hooks"}) {
            const std::string stem = std::string(mode) + "_" + std::to_string(pair + 1);
            options.inputs.checkNamed((fs::path(out) / (stem + ".json")).string());
            options.inputs.checkNamed((fs::path(out) / (stem + ".report.json")).string());
        }
    writeWholeFile(planPath, dumpJson(integrationPlanJson(plan)) + "\n", "a writable file");
    RuleSet rules = options.rulesPath.empty() ? RuleSet::builtinDefault()
                                              : RuleSet::fromFile(options.rulesPath);
    std::string pythonPath = "PYTHONPATH=" + pydir;
    if (const char* old = std::getenv("PYTHONPATH"); old && *old)
        pythonPath += std::string(":") + old;
    return {out, planPath, pythonPath, std::move(rules)};
}

std::string modeText(const std::string& mode) {
    return mode == "asis"          ? std::string("as is")
           : mode == "substituted" ? std::string("with the winners")
                                   : std::string("with the overrides alone");
}

// The command line of one run: the user's interpreter running Reach's module, which runs the
// user's script.
std::vector<std::string> workloadArgv(const WorkloadSetup& setup, const IntegrationOptions& options,
                                      const IntegrationRun& run) {
    std::vector<std::string> argv = {options.workload[0],
                                     "-m",
                                     "reach_integrate.run",
                                     "--plan",
                                     setup.planPath,
                                     "--mode",
                                     run.mode,
                                     "--device",
                                     options.device,
                                     "--warmup",
                                     std::to_string(options.warmup),
                                     "--steps",
                                     std::to_string(options.steps),
                                     "--wall-steps",
                                     std::to_string(options.wallSteps),
                                     "--host-path",
                                     options.hostPath,
                                     "--trace",
                                     run.trace,
                                     "--report",
                                     run.reportPath,
                                     "--"};
    argv.insert(argv.end(), options.workload.begin() + 1, options.workload.end());
    return argv;
}

// The run's report and its step times; throws what the run did wrong.
void readRunReport(IntegrationRun& run, const ChildResult& child,
                   const IntegrationOptions& options) {
    run.report = readReport(run.reportPath);
    const std::string what =
        "run " + std::to_string(run.pair + 1) + " (" + modeText(run.mode) + ")";
    std::string why = run.report.is_object() && run.report.value("error", json()).is_string()
                          ? run.report["error"].get<std::string>()
                          : lastLine(child.err);
    if (child.timedOut)
        throw IntegrationFailed(what + " ran past " + std::to_string(int(options.timeoutSeconds)) +
                                " s");
    if (child.exitCode == 2)
        throw InputError(run.reportPath, "error", escapeControls(why));
    if (child.exitCode != 0 || !run.report.is_object())
        throw IntegrationFailed(
            what + ": " +
            escapeControls(why.empty() ? "exit " + std::to_string(child.exitCode) : why));
    const std::vector<double> wall = numbers(run.report.value("wall_us", json()));
    if (wall.empty())
        throw IntegrationFailed(what + ": its report has no step times");
    run.wallUsPerStep = median(wall);
    if (options.wallSteps > 0) {
        const std::vector<double> unprofiled =
            numbers(run.report.value("wall_unprofiled_us", json()));
        if (unprofiled.size() != size_t(options.wallSteps))
            throw IntegrationFailed(what + ": its report has " + std::to_string(unprofiled.size()) +
                                    " wall-clock steps, " + std::to_string(options.wallSteps) +
                                    " asked");
        run.wallUnprofiledUsPerStep = median(unprofiled);
    }
}

// The breakdowns of the first as-is and the first substituted run: the projection's and the
// diff's.
struct FirstBreakdowns {
    std::optional<Breakdown> asIs, substituted;
};

// One run of the workload in `mode`.
IntegrationRun runWorkload(const WorkloadSetup& setup, const IntegrationOptions& options,
                           const IntegrationProgress& progress, const std::string& mode, int pair,
                           FirstBreakdowns& first) {
    IntegrationRun run;
    run.mode = mode;
    run.pair = pair;
    const std::string stem = run.mode + "_" + std::to_string(pair + 1);
    run.trace = (fs::path(setup.out) / (stem + ".json")).string();
    run.reportPath = (fs::path(setup.out) / (stem + ".report.json")).string();
    if (progress)
        progress("run " + std::to_string(pair + 1) + " of " + std::to_string(options.runs) + ": " +
                 modeText(run.mode));
    const std::vector<std::string> argv = workloadArgv(setup, options, run);
    std::error_code ec;
    fs::remove(run.reportPath, ec);
    const ChildResult child = runChild(argv, options.timeoutSeconds, {setup.pythonPath});
    if (!child.started)
        throw InputError(options.workload[0], "",
                         "an interpreter that starts (" + child.error + ")");
    readRunReport(run, child, options);
    if (options.device == "cuda") {
        Breakdown b = computeBreakdown(readProfile(run.trace), setup.rules);
        run.gpuUsPerStep = b.gpuTimeUs / options.steps;
        run.busyUsPerStep = b.busyTimeUs / options.steps;
        if (run.mode != "hooks") {
            std::optional<Breakdown>& keep = run.mode == "asis" ? first.asIs : first.substituted;
            if (!keep)
                keep = std::move(b);
        }
    }
    return run;
}

// Each pair's runs against its own as-is run: the winners and, with --control, the
// overrides alone.
struct Collected {
    std::vector<double> gpu, wall, wallUnderProfiler;
    std::vector<double> gpuGains, wallGains, wallUnderProfilerGains;
};

// Every pair of runs, each run added to result.runs; what they measured, by mode.
std::map<std::string, Collected> runPairs(IntegrationResult& result, const WorkloadSetup& setup,
                                          const IntegrationOptions& options,
                                          const IntegrationProgress& progress,
                                          FirstBreakdowns& first) {
    std::map<std::string, Collected> collected;
    std::vector<std::string> modes = {"asis", "substituted"};
    if (options.control)
        modes.push_back("hooks");
    for (int pair = 0; pair < options.runs; ++pair) {
        // Rotate which goes first, so a drift of the machine falls on every side.
        std::vector<std::string> order = modes;
        std::rotate(order.begin(), order.begin() + pair % order.size(), order.end());
        std::map<std::string, IntegrationRun> byMode;
        for (const std::string& mode : order) {
            IntegrationRun run = runWorkload(setup, options, progress, mode, pair, first);
            byMode[mode] = run;
            result.runs.push_back(std::move(run));
        }
        const IntegrationRun& a = byMode["asis"];
        for (const auto& [mode, s] : byMode) {
            Collected& c = collected[mode];
            c.wall.push_back(s.wallClockUsPerStep());
            c.wallUnderProfiler.push_back(s.wallUsPerStep);
            if (s.gpuUsPerStep)
                c.gpu.push_back(*s.gpuUsPerStep);
            if (mode == "asis")
                continue;
            c.wallGains.push_back(1 - s.wallClockUsPerStep() / a.wallClockUsPerStep());
            c.wallUnderProfilerGains.push_back(1 - s.wallUsPerStep / a.wallUsPerStep);
            if (a.gpuUsPerStep && s.gpuUsPerStep && *a.gpuUsPerStep > 0)
                c.gpuGains.push_back(1 - *s.gpuUsPerStep / *a.gpuUsPerStep);
        }
    }
    return collected;
}

IntegrationSide sideOf(const Collected& c) {
    IntegrationSide side;
    side.wallUsPerStep = median(c.wall);
    side.wallUnderProfilerUsPerStep = median(c.wallUnderProfiler);
    if (!c.gpu.empty())
        side.gpuUsPerStep = median(c.gpu);
    if (!c.wallGains.empty()) {
        side.wallGain = measuredGainOf(c.wallGains);
        side.wallUnderProfilerGain = measuredGainOf(c.wallUnderProfilerGains);
    }
    if (!c.gpuGains.empty())
        side.gpuGain = measuredGainOf(c.gpuGains);
    return side;
}

// A run asked for the native host path that could not build it took the Python one: its wall
// clock holds the Python overrides' cost (the document's run_list says which path each ran).
void warnHostPath(IntegrationResult& result, const std::string& asked) {
    for (const IntegrationRun& r : result.runs) {
        const json path = r.report.value("host_path", json());
        if (r.mode != "asis" && path.is_string() && path != asked) {
            const json why = r.report.value("host_path_why", json());
            result.warnings.push_back("the overrides ran in Python, not natively: " +
                                      (why.is_string() ? why.get<std::string>() : "no reason"));
            return;
        }
    }
}

// Every winner's calls, over the substituted runs: a winner never called at its signature
// saves nothing, whatever the projection says.
void warnUnsubstituted(IntegrationResult& result, const IntegrationPlan& plan) {
    std::map<std::string, int64_t> substituted;
    bool inferenceMode = false;
    for (const IntegrationRun& r : result.runs) {
        if (r.mode != "substituted")
            continue;
        inferenceMode = inferenceMode || countOf(r.report, "inference_mode_steps") > 0;
        const json problems = r.report.value("problems", json::array());
        if (!problems.is_array())
            continue;
        for (const json& p : problems)
            if (p.is_object() && p.value("name", json()).is_string())
                substituted[p["name"].get<std::string>()] += countOf(p, "substituted");
    }
    if (inferenceMode)
        result.warnings.push_back(
            "the workload ran steps under torch.inference_mode(), which skips the autograd "
            "keys the winners are installed on: those calls were not substituted");
    for (const IntegrationWinner& w : plan.winners)
        if (substituted[w.problem] == 0)
            result.warnings.push_back(w.problem +
                                      " was never called at the signature it was "
                                      "verified at: it saved nothing");
}

// The exact projection on the first as-is run's own trace.
void projectOnRun(IntegrationResult& result, const IntegrationPlan& plan,
                  const Breakdown& firstAsIs) {
    // Each problem's share of the as-is run, found by its call signature as extract groups
    // (every kernel the call launched: the substitution replaces them all).
    const std::vector<ProblemTime> times = problemTimesIn(firstAsIs, plan.benchmark, std::nullopt);
    ExactProjectionInput in;
    in.addressableShare = firstAsIs.share(Category::Addressable);
    for (size_t i = 0; i < plan.benchmark.problems.size(); ++i) {
        const BenchmarkProblem& p = plan.benchmark.problems[i];
        ExactProblemInput pi;
        pi.share = times[i].share;
        for (const IntegrationWinner& w : plan.winners)
            if (w.problem == p.file && w.sigma > 1 && w.run.candidate && w.run.eager)
                pi.result = ChosenResult{*w.run.candidate, *w.run.eager};
        result.sharesInRun.push_back(pi.share);
        in.problems.push_back(std::move(pi));
    }
    result.projection = computeExactProjection(in);
}

// reach-cli diff of the first pair, its projection check on the winners' kernels.
void diffFirstPair(IntegrationResult& result, const IntegrationPlan& plan,
                   const Breakdown& firstAsIs, const Breakdown& firstSubstituted) {
    const ProfileDiff d = diffBreakdowns(firstAsIs, firstSubstituted);
    std::vector<Candidate> candidates;
    for (const IntegrationWinner& w : plan.winners) {
        for (const BenchmarkProblem& p : plan.benchmark.problems) {
            if (p.file != w.problem || p.kernels.empty())
                continue;
            std::string pattern;
            for (const BenchmarkKernel& k : p.kernels)
                pattern += (pattern.empty() ? "" : "|") + literalPattern(k.name);
            candidates.push_back({"^(" + pattern + ")$", w.sigma});
        }
    }
    result.diff = profileDiffToJson(d, 20);
    result.diff["projection_check"] =
        candidates.empty() ? json() : projectionCheckToJson(checkCandidates(d, candidates));
}

}  // namespace

IntegrationResult runIntegration(IntegrationPlan plan, const IntegrationOptions& options,
                                 const IntegrationProgress& progress) {
    if (options.workload.size() < 2)
        throw InputError("--", "", "a workload: PYTHON SCRIPT [ARGS...]");
    checkWinnersEvidence(plan);
    IntegrationResult result;
    result.options = options;
    const WorkloadSetup setup = prepareRuns(plan, options);

    FirstBreakdowns first;
    std::map<std::string, Collected> collected = runPairs(result, setup, options, progress, first);
    result.asIs = sideOf(collected["asis"]);
    result.substituted = sideOf(collected["substituted"]);
    if (options.control)
        result.hooks = sideOf(collected["hooks"]);

    warnUnsubstituted(result, plan);
    warnHostPath(result, options.hostPath);
    if (first.asIs && first.asIs->gpuTimeUs > 0)
        projectOnRun(result, plan, *first.asIs);
    if (first.asIs && first.substituted)
        diffFirstPair(result, plan, *first.asIs, *first.substituted);
    result.plan = std::move(plan);
    return result;
}

MeasuredGain measuredGainOf(std::vector<double> perPair) {
    MeasuredGain g;
    g.perPair = std::move(perPair);
    g.median = median(g.perPair);
    const auto [lo, hi] = std::minmax_element(g.perPair.begin(), g.perPair.end());
    g.low = *lo;
    g.high = *hi;
    return g;
}

}  // namespace reach
