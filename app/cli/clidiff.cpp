// reach-cli diff A B [--rules R.json] [--top N] [--candidate REGEX=SPEEDUP]... [--json]
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <ostream>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "clitext.h"
#include "core/analysis/breakdown.h"
#include "core/analysis/kernelname.h"
#include "core/analysis/namepattern.h"
#include "core/analysis/profilediff.h"
#include "core/analysis/profilediffjson.h"
#include "core/base/category.h"
#include "core/base/textescape.h"

namespace reach::cli {

namespace {

constexpr long kDefaultTopText = 10;
constexpr size_t kKernelColumn = 60;
constexpr size_t kOperatorColumn = 32;

// "+1.20 ms", "-850 us", "0 us".
std::string signedDuration(double us) {
    if (std::abs(us) < 0.5)
        return "0 us";
    return (us > 0 ? "+" : "-") + duration(std::abs(us));
}

// Percentage points: "+4.9 pp".
std::string points(double shareDelta, int decimals = 1) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.*f pp", decimals, shareDelta * 100.0);
    return buf;
}

// "-22.7 %" relative to a; empty when a is zero.
std::string relative(double a, double b) {
    if (a <= 0)
        return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, " (%+.1f %%)", (b - a) / a * 100.0);
    return buf;
}

std::string operatorText(const std::string& op) {
    if (op.empty())
        return "-";
    return op.size() <= kOperatorColumn ? op : op.substr(0, kOperatorColumn - 3) + "...";
}

// The row's display name, elided from its full name (display names are not re-shortened).
std::string kernelText(const DiffRow& r) {
    return kernelDisplayName(r.aNames.empty() ? r.bNames.front() : r.aNames.front(), kKernelColumn);
}

Candidate parseCandidate(const std::string& text) {
    const size_t eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError("--candidate: expected REGEX=SPEEDUP (e.g. 'layer_norm=1.4'), got '" +
                         text + "'");
    Candidate c;
    c.pattern = text.substr(0, eq);
    const std::string number = text.substr(eq + 1);
    size_t used = 0;
    try {
        c.speedup = std::stod(number, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != number.size() || !(c.speedup > 0) || !std::isfinite(c.speedup))
        throw UsageError("--candidate " + text + ": expected a positive speedup after '=', got '" +
                         number + "'");
    const NamePattern compiled(c.pattern);
    if (!compiled.ok())
        throw UsageError("--candidate " + text + ": the pattern does not compile (" +
                         compiled.error() + ")");
    return c;
}

void printSide(std::ostream& os, const char* label, const DiffSide& s) {
    os << label << "  " << s.workload << "  " << s.source
       << (s.device.empty() ? "" : "  (" + s.device + ")") << "\n";
}

void printTotals(std::ostream& os, const ProfileDiff& d) {
    TextTable t({"", "A", "B", "change"});
    t.addRow({"GPU time", duration(d.a.gpuTimeUs), duration(d.b.gpuTimeUs),
              signedDuration(d.gpuDeltaUs()) + relative(d.a.gpuTimeUs, d.b.gpuTimeUs)});
    t.addRow({"busy", duration(d.a.busyTimeUs), duration(d.b.busyTimeUs),
              signedDuration(d.b.busyTimeUs - d.a.busyTimeUs) +
                  relative(d.a.busyTimeUs, d.b.busyTimeUs)});
    t.addRow({"span", duration(d.a.spanUs), duration(d.b.spanUs),
              signedDuration(d.b.spanUs - d.a.spanUs) + relative(d.a.spanUs, d.b.spanUs)});
    t.addRow({"busy / span", percent(d.a.busyShare()), percent(d.b.busyShare()),
              points(d.busyShareDelta())});
    os << t.render();
}

void printShares(std::ostream& os, const std::string& title, const std::vector<DiffRow>& rows,
                 size_t top, bool categories) {
    os << "\n  " << title << "\n";
    TextTable t(
        {categories ? "category" : "family", "A", "share", "B", "share", "change", "share change"});
    size_t shown = 0;
    for (const DiffRow& r : rows) {
        if (shown++ == top)
            break;
        const std::string name = categories ? std::string(categoryLabel(r.category)) : r.key;
        t.addRow({name, duration(r.aUs), percent(r.aShare), duration(r.bUs), percent(r.bShare),
                  signedDuration(r.deltaUs()), points(r.deltaShare())});
    }
    os << t.render("    ");
    if (rows.size() > top)
        os << "    ... " << rows.size() - top << " more\n";
}

void printMatched(std::ostream& os, const ProfileDiff& d, size_t top) {
    os << "\n  kernels in both (" << d.kernels.size()
       << ", matched by display name and launching operator; largest change first)\n";
    if (d.kernels.empty()) {
        os << "    none\n";
        return;
    }
    TextTable t({"kernel", "operator", "A", "B", "change", "share change"});
    t.alignLeft(1);
    size_t shown = 0;
    for (const DiffRow& r : d.kernels) {
        if (shown++ == top)
            break;
        t.addRow({kernelText(r), operatorText(r.op), duration(r.aUs), duration(r.bUs),
                  signedDuration(r.deltaUs()), points(r.deltaShare(), 2)});
    }
    os << t.render("    ");
    if (d.kernels.size() > top)
        os << "    ... " << d.kernels.size() - top << " more\n";
}

void printOneSided(std::ostream& os, const char* label, const std::vector<DiffRow>& rows,
                   bool sideA, double gpuTimeUs, size_t top) {
    double total = 0;
    for (const DiffRow& r : rows)
        total += sideA ? r.aUs : r.bUs;
    os << "\n  only in " << label << " (" << rows.size() << " kernels, " << duration(total) << ", "
       << percent(gpuTimeUs > 0 ? total / gpuTimeUs : 0) << " of " << label << ")\n";
    if (rows.empty())
        return;
    TextTable t({"kernel", "operator", "time", "share", "calls"});
    t.alignLeft(1);
    size_t shown = 0;
    for (const DiffRow& r : rows) {
        if (shown++ == top)
            break;
        t.addRow({kernelText(r), operatorText(r.op), duration(sideA ? r.aUs : r.bUs),
                  percent(sideA ? r.aShare : r.bShare, 2),
                  std::to_string(sideA ? r.aCalls : r.bCalls)});
    }
    os << t.render("    ");
    if (rows.size() > top)
        os << "    ... " << rows.size() - top << " more\n";
}

void printProjection(std::ostream& os, const ProjectionCheck& p) {
    // A saving and its share of A's GPU time; negative when B took longer.
    const auto saving = [&](double us) {
        const std::string t = us < 0 ? "-" + duration(-us) : duration(us);
        return t + " (" + percent(p.aGpuTimeUs > 0 ? us / p.aGpuTimeUs : 0, 2) + ")";
    };
    os << "\n  projection check: a candidate's speedup applied to A, next to what B measured\n";
    TextTable t({"candidate", "speedup", "kernels", "A time", "B time", "projected saving",
                 "measured saving"});
    t.alignLeft(0);
    for (const CandidateCheck& c : p.candidates) {
        char speedup[32];
        std::snprintf(speedup, sizeof speedup, "%.3gx", c.candidate.speedup);
        t.addRow({c.candidate.pattern, speedup, std::to_string(c.keys.size()), duration(c.aUs),
                  duration(c.bUs), saving(c.projectedSavingUs()), saving(c.measuredSavingUs())});
    }
    t.addRow({"total", "", "", duration(p.aUs()), duration(p.bUs()), saving(p.projectedSavingUs()),
              saving(p.measuredSavingUs())});
    os << t.render("    ");
    for (const CandidateCheck& c : p.candidates) {
        if (c.keys.empty())
            os << "    '" << c.candidate.pattern << "' matches no kernel of A\n";
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "    projected end-to-end speedup %.3fx (of A's GPU time); measured over the "
                  "whole GPU time: A/B = %.3fx, %s saved\n",
                  p.projectedSpeedup(), p.measuredSpeedup(),
                  saving(p.aGpuTimeUs - p.bGpuTimeUs).c_str());
    os << line;
    // Wall-clock honesty: the same projected saving on A's profiled span (idle gaps unchanged),
    // next to the span B measured.
    if (p.aClock.known()) {
        os << "    of A's wall clock (span " << duration(p.aClock.spanUs) << ", GPU busy "
           << percent(p.aClock.busyShare()) << "): projected " << percent(p.projectedWallShare(), 2)
           << " saved";
        if (p.bClock.spanUs > 0)
            os << ", measured span " << percent(p.measuredWallShare(), 2) << " shorter";
        os << "\n";
        if (const std::string w = wallClockWarning(p.aClock); !w.empty())
            os << "    warning: " << w << "\n";
    }
    os << "    assumes: " << kCandidateAssumptions << "\n";
}

int runDiff(const std::vector<std::string>& argv, CliIo& io) {
    std::vector<std::string> remaining = argv;
    const auto candidateArgs = takeRepeated(remaining, "--candidate");
    const CliArgs args(remaining, {{"--json"}, {"--rules", "--top"}});
    if (args.positionals().size() != 2) {
        throw UsageError("expected two profiles, A (before) and B (after); got " +
                         std::to_string(args.positionals().size()));
    }
    std::vector<Candidate> candidates;
    for (const std::string& c : candidateArgs)
        candidates.push_back(parseCandidate(c));
    const bool json = args.flag("--json");
    const std::optional<long> top = args.integer("--top", 1, 100000);

    const RuleSet rules = loadRules(args.value("--rules"));
    const std::vector<Workload> workloads = readProfiles(args.positionals());
    const Breakdown a = computeBreakdown(workloads[0], rules);
    const Breakdown b = computeBreakdown(workloads[1], rules);
    const ProfileDiff diff = diffBreakdowns(a, b);
    std::optional<ProjectionCheck> check;
    if (!candidates.empty())
        check = checkCandidates(diff, candidates);

    if (json) {
        nlohmann::json doc =
            top ? profileDiffToJson(diff, static_cast<size_t>(*top)) : profileDiffToJson(diff);
        doc["projection_check"] = check ? projectionCheckToJson(*check) : nlohmann::json(nullptr);
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    const auto n = static_cast<size_t>(top.value_or(kDefaultTopText));
    printSide(io.out, "A", diff.a);
    printSide(io.out, "B", diff.b);
    io.out << "  changes are B - A\n\n";
    printTotals(io.out, diff);
    printShares(io.out, "GPU time per category", diff.categories, diff.categories.size(), true);
    printShares(io.out, "families (largest change first)", diff.families, n, false);
    printMatched(io.out, diff, n);
    printOneSided(io.out, "A", diff.onlyA, true, diff.a.gpuTimeUs, n);
    printOneSided(io.out, "B", diff.onlyB, false, diff.b.gpuTimeUs, n);
    io.out << "\n  kernel changes sum to " << signedDuration(diff.kernelDeltaSumUs())
           << " (GPU time " << signedDuration(diff.gpuDeltaUs()) << ")\n";
    if (check)
        printProjection(io.out, *check);
    io.out << "\nrules: " << rules.name() << " (" << rules.hash().substr(0, 12) << ")\n";
    return kExitOk;
}

}  // namespace

CliCommand diffCommand() {
    return {
        "diff", "two profiles compared: time per category, family and kernel, and what changed",
        "diff A B [--rules R.json] [--top N] [--candidate REGEX=SPEEDUP]... [--json]\n"
        "  A, B         profiles (Kineto/PyTorch trace or nsys SQLite export): A before, B after;\n"
        "               every change is B - A\n"
        "  --rules R    rule set for both (default: the built-in rules)\n"
        "  --top N      rows per list (text: 10; JSON: all)\n"
        "  --candidate REGEX=SPEEDUP\n"
        "               projection check (repeatable): a kernel that is SPEEDUP times faster than\n"
        "               A's kernels whose display or full name matches REGEX (POSIX extended,\n"
        "               case-insensitive); shows the projected saving t * (1 - 1/SPEEDUP) next\n"
        "               to the saving B measured for the same kernels\n"
        "  --json       one JSON document (docs/cli.md)\n"
        "Kernels are matched by display name and launching operator; kernels of a compiled\n"
        "profile match eager ones only when both agree, the rest are listed as only in A or B.",
        runDiff};
}

}  // namespace reach::cli
