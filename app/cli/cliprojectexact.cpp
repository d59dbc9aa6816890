// reach-cli project PROFILE --benchmark DIR --records R [--records R2 ...] [--resamples B]
//                   [--rules R.json] [--json]
#include "cliprojectexact.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "cliinputs.h"
#include "clitext.h"
#include "core/base/inputerror.h"
#include "core/base/textescape.h"
#include "core/ownbenchmark/exactprojectionreport.h"
#include "core/project/openplan.h"

namespace reach::cli {

namespace {

// The one profile the benchmark was made from: a folder, a project, a study table or records
// would each mean another projection.
std::string requireOneProfile(const CliArgs& args) {
    if (args.positionals().size() != 1)
        throw UsageError(
            "--benchmark projects one profile: give exactly one PROFILE (the one "
            "`reach-cli extract` made DIR from)");
    const std::string& path = args.positionals()[0];
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw UsageError("--benchmark takes a profile, not a folder: '" + path + "'");
    // Told apart before planOpen, which would open (and migrate) a project to see what it is.
    if (std::filesystem::path(path).extension() == ".reach")
        throw UsageError("--benchmark takes a profile, not a project: '" + path +
                         "' (give the project with --records)");
    const OpenPlan plan = planOpen({path});
    if (plan.profiles.size() != 1 || !plan.stores.empty() || !plan.published.empty() ||
        !plan.evaluations.empty())
        throw UsageError(
            "--benchmark takes a profile (a Kineto trace or Nsight export), not a "
            "project, a study table or records: '" +
            path + "'");
    return path;
}

// What the table says of a problem's runs: the chosen one's verdict, else why none counts.
std::string verdictText(const ProblemRuns& r, const ExactProblemOutcome& o) {
    if (r.found == 0)
        return "none";
    if (r.best)
        return o.winner ? "pass" : "pass, slower";
    if (r.claimed > 0)  // passes Reach did not sign here: shown, never counted
        return "pass, claimed";
    if (r.withoutTimings > 0)
        return "pass, no eager timing";
    if (r.otherPrecision == r.found)  // every run verified another call: reach-verify --precision
        return "in " + r.otherPrecisionSeen + " only, the call is " + r.precision;
    std::string s;
    for (const auto& [verdict, n] : r.verdicts)
        s += (s.empty() ? "" : ", ") + verdict + (n > 1 ? " x" + std::to_string(n) : "");
    return s;
}

void printText(const ExactProjectionReport& r, const std::string& profile, std::ostream& os) {
    const ExactProjection& x = r.projection;
    os << "exact projection: saved = sum_i s_i * (1 - 1/sigma_i) over the benchmark's problems\n"
       << "  s_i: the problem's kernels' share of GPU time; sigma_i: eager baseline / candidate "
          "(medians of one verify run, verdict pass)\n\n";
    os << "benchmark  " << r.benchmark.dir << ": " << r.benchmark.problems.size()
       << " problem(s) from " << profile << ", covering " << percent(x.coveredShare, 2)
       << " of GPU time (" << r.benchmark.category << ")\n";
    os << "check      " << r.check
       << (r.check == "none"    ? " (reach-cli extract --check says whether each problem launches "
                                  "the trace's kernels)"
           : r.checkWhy.empty() ? std::string()
                                : " (" + reach::escapeControls(r.checkWhy) + ")")
       << "\n";
    int matched = 0;
    for (const ProblemRuns& p : r.runs.problems)
        matched += p.found;
    os << "records    " << r.runs.read << " run(s) read: " << matched
       << " of this benchmark's problems, " << r.runs.unmatched.size() << " not matched; "
       << r.runs.signedHere << " verified here, " << r.runs.claimed
       << " claimed (only runs verified here count)\n";
    // Each input as what it is: a claim says why.
    int shownClaims = 0;
    for (const BenchmarkRuns::Input& in : r.runs.inputs) {
        if (in.evidence.signedHere || shownClaims >= 5)
            continue;
        ++shownClaims;
        os << "  claimed  " << reach::escapeControls(in.source) << ": "
           << reach::escapeControls(in.evidence.why) << "\n";
    }
    if (shownClaims < r.runs.claimed)
        os << "  ... " << r.runs.claimed - shownClaims << " more claimed (--json lists all)\n";
    os << "\n";

    // sigma is against eager (what the trace ran); "vs fastest" is the verifier's own speedup
    // against the fastest of its baselines, torch.compile among them.
    TextTable t({"problem", "operator", "share", "runs", "verdict", "candidate", "eager", "sigma",
                 "vs fastest", "saved"});
    t.alignLeft(1);
    t.alignLeft(4);
    for (size_t i = 0; i < r.benchmark.problems.size(); ++i) {
        const BenchmarkProblem& p = r.benchmark.problems[i];
        const ProblemRuns& found = r.runs.problems[i];
        const ExactProblemOutcome& o = x.problems[i];
        const bool chosen = found.best.has_value();
        t.addRow({p.file, p.op, percent(p.share, 2), std::to_string(found.found),
                  verdictText(found, o), chosen ? duration(found.best->candidate->medianUs) : "-",
                  chosen ? duration(found.best->eager->medianUs) : "-",
                  chosen ? fixed(o.sigma, 3) + "x" : "-",
                  chosen ? fixed(found.best->verifierSpeedup, 3) + "x" : "-",
                  o.winner ? percent(o.savedShare, 2) : "-"});
    }
    os << t.render() << "\n";

    const int level = int(std::lround(100 * x.options.level));
    os << "saved          " << percent(x.savedShare, 2) << " of GPU time (" << level
       << " % interval " << percent(x.savedInterval.lo, 2) << " to "
       << percent(x.savedInterval.hi, 2) << "), " << x.winners << " winner(s) of "
       << r.benchmark.problems.size() << " problems\n";
    os << "end-to-end     " << times(x.endToEndSpeedup, 3) << " on GPU time ("
       << times(x.endToEndInterval.lo, 3) << " to " << times(x.endToEndInterval.hi, 3) << ")";
    if (const auto wall = x.wallSavedShare())
        os << "; " << times(*x.wallEndToEndSpeedup(), 3) << " on the profiled wall clock (saves "
           << percent(*wall, 2) << " of it, GPU busy " << percent(x.wall->busyShare()) << ")";
    else
        os << "; no profiled span: GPU-time basis only";
    os << "\n";
    const Projection& s = x.study;
    os << "study's method A*w*(1-1/m) = " << percent(s.addressableShare) << " * "
       << fixed(s.winRate, 3) << " * (1 - 1/"
       << (x.medianWinnerSigma ? fixed(*x.medianWinnerSigma, 3) : std::string("-"))
       << ") = " << percent(s.savedShare, 2) << " of GPU time (w = " << x.winners << "/"
       << r.benchmark.problems.size() << " problems, m = median sigma of the winners"
       << (x.medianWinnerSigma ? "" : ": none") << ")\n";
    os << "speed of light ";
    if (x.workloadSolBound) {
        os << "the workload at most " << times(*x.workloadSolBound, 3) << " (" << r.gpu << ")";
        if (x.coveredSolSavedShare)
            os << "; the covered kernels at their roofline save "
               << percent(*x.coveredSolSavedShare, 2) << " of GPU time (bound "
               << times(*x.coveredSolBound(), 3) << "; " << percent(x.coveredEstimatedShare, 2)
               << " of GPU time has an estimate)";
        os << "\n";
    } else {
        os << "none: " << r.solWhy << "\n";
    }
    if (!r.runs.unmatched.empty()) {
        os << "\nnot matched (" << r.runs.unmatched.size() << "):\n";
        const size_t shown = std::min<size_t>(r.runs.unmatched.size(), 5);
        for (size_t i = 0; i < shown; ++i)
            os << "  " << r.runs.unmatched[i].source << ": " << r.runs.unmatched[i].why << "\n";
        if (shown < r.runs.unmatched.size())
            os << "  ... " << r.runs.unmatched.size() - shown << " more (--json lists all)\n";
    }
    for (const std::string& w : r.warnings)
        os << "warning: " << w << "\n";
    os << "rules: " << r.rulesName << " (" << r.rulesHash.substr(0, 12) << ")\n";
    os << "\nassumptions: " << exactProjectionAssumptions() << "\n";
}

}  // namespace

int runExactProjection(const CliArgs& args, const std::vector<std::string>& records, CliIo& io) {
    const auto benchmarkDir = args.value("--benchmark");
    if (!benchmarkDir)
        throw UsageError("--records needs --benchmark DIR (a folder written by reach-cli extract)");
    if (records.empty())
        throw UsageError(
            "--benchmark needs --records R (reach-verify output, a folder of it or a "
            ".reach project; repeatable)");
    for (const char* other : {"--win-rate", "--median", "--addressable", "--name", "--project"})
        if (args.value(other))
            throw UsageError(std::string(other) +
                             " does not go with --benchmark: the exact projection takes its "
                             "numbers from the verified results");
    const std::string profile = requireOneProfile(args);
    ExactProjectionOptions options;
    if (auto b = args.integer("--resamples", 1, 100000))
        options.resamples = int(*b);

    // The small, hostile inputs first: a bad benchmark.json is reported before a large profile
    // is read.
    BenchmarkFolder benchmark = readBenchmarkFolder(*benchmarkDir);
    VerifiedRuns runs = readVerifiedRuns(records);
    const Project project = openCliInputs({profile}, std::nullopt, args.value("--rules"));
    const ProjectWorkload* row = nullptr;
    for (const ProjectWorkload& w : project.workloads)
        if (w.breakdown && !row)
            row = &w;
    if (!row)
        throw InputError(profile, "", "a profile with kernels");
    const ExactProjectionReport report =
        exactProjectionOf(*row->breakdown, profile, std::move(benchmark), runs, options);

    if (args.flag("--json")) {
        nlohmann::json doc = exactProjectionJson(report);
        doc["profile"] = profile;
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    printText(report, profile, io.out);
    return kExitOk;
}

}  // namespace reach::cli
